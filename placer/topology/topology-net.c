/* What the node says about its networks: the addresses each live NIC holds
 * (getifaddrs) and the storage networks of the local ceph.conf.  Together
 * they tell which NICs carry Ceph's traffic without knowing their names. */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology-internal.h"
#include "lib/string-list.h"
#include "lib/textfile.h"

/* A copy of S's first LEN bytes after the *N strings of *LIST (the
 * topology's arrays, which the planner reads as they are). */
static int push(char ***list, size_t *n, const char *s, size_t len) {
  struct placer_string_list l = { *list, *n, *n };
  int rc = placer_string_list_addn(&l, s, len);
  *list = l.items;
  *n = l.n;
  return rc;
}

/* "public network" / "public_network" / "public-network", case aside. */
static bool key_is(const char *key, size_t len, const char *word) {
  size_t w = strlen(word);
  if (len != w + 8)
    return false;
  if (strncasecmp(key, word, w) != 0 || (key[w] != ' ' && key[w] != '_' && key[w] != '-'))
    return false;
  return strncasecmp(key + w + 1, "network", 7) == 0;
}

int placer_ceph_conf_networks(const char *text, char ***nets, size_t *n) {
  for (const char *line = text; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    const char *s = line, *end = line + len;
    line = eol ? eol + 1 : NULL;
    while (s < end && isspace((unsigned char)*s))
      s++;
    if (s == end || *s == '#' || *s == ';' || *s == '[')
      continue;
    const char *eq = memchr(s, '=', (size_t)(end - s));
    if (eq == NULL)
      continue;
    const char *kend = eq;
    while (kend > s && isspace((unsigned char)kend[-1]))
      kend--;
    if (!key_is(s, (size_t)(kend - s), "public") && !key_is(s, (size_t)(kend - s), "cluster"))
      continue;
    const char *v = eq + 1;
    const char *vend = end;
    for (const char *c = v; c < vend; c++)
      if (*c == '#' || *c == ';') {
        vend = c;
        break;
      }
    while (v < vend) {
      while (v < vend && (isspace((unsigned char)*v) || *v == ','))
        v++;
      const char *w = v;
      while (w < vend && !isspace((unsigned char)*w) && *w != ',')
        w++;
      if (w > v && push(nets, n, v, (size_t)(w - v)) < 0)
        return -1;
      v = w;
    }
  }
  return 0;
}

static struct placer_nic *nic_named(struct placer_topology *topo, const char *name) {
  for (size_t i = 0; i < topo->n_nics; i++)
    if (strcmp(topo->nics[i].name, name) == 0)
      return &topo->nics[i];
  return NULL;
}

int placer_topology_collect_net(struct placer_topology *topo) {
  struct ifaddrs *ifs = NULL;
  if (getifaddrs(&ifs) == 0) {
    for (struct ifaddrs *ifa = ifs; ifa; ifa = ifa->ifa_next) {
      if (ifa->ifa_addr == NULL || ifa->ifa_name == NULL)
        continue;
      struct placer_nic *nic = nic_named(topo, ifa->ifa_name);
      if (nic == NULL)
        continue;
      char buf[INET6_ADDRSTRLEN];
      const void *src = NULL;
      if (ifa->ifa_addr->sa_family == AF_INET)
        src = &((const struct sockaddr_in *)(const void *)ifa->ifa_addr)->sin_addr;
      else if (ifa->ifa_addr->sa_family == AF_INET6)
        src = &((const struct sockaddr_in6 *)(const void *)ifa->ifa_addr)->sin6_addr;
      if (src == NULL || inet_ntop(ifa->ifa_addr->sa_family, src, buf, sizeof(buf)) == NULL)
        continue;
      if (push(&nic->ip_addresses, &nic->n_ip_addresses, buf, strlen(buf)) < 0) {
        freeifaddrs(ifs);
        return -1;
      }
    }
    freeifaddrs(ifs);
  }
  const char *conf = getenv("CEPH_CONF");
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(conf && *conf ? conf : "/etc/ceph/ceph.conf", 1 << 20, &text, NULL) == 0 &&
      placer_ceph_conf_networks(text, &topo->storage_networks, &topo->n_storage_networks) < 0)
    return -1;
  return 0;
}

void placer_topology_free_net(struct placer_topology *topo) {
  for (size_t i = 0; i < topo->n_nics; i++) {
    for (size_t k = 0; k < topo->nics[i].n_ip_addresses; k++)
      free(topo->nics[i].ip_addresses[k]);
    free(topo->nics[i].ip_addresses);
  }
  for (size_t i = 0; i < topo->n_storage_networks; i++)
    free(topo->storage_networks[i]);
  free(topo->storage_networks);
}
