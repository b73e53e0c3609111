/* The planner's NICs: which carry the storage network (`nic: auto`), and
 * the profile's NIC globs matched against the node's NICs.  Part of the
 * pure planner (planner-internal.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner-internal.h"
#include "lib/cidr.h"

static bool nic_in_networks(const struct placer_nic *nic, char *const *nets, size_t n_nets) {
  for (size_t k = 0; k < nic->n_ip_addresses; k++)
    for (size_t j = 0; j < n_nets; j++)
      if (placer_cidr_contains(nets[j], nic->ip_addresses[k]))
        return true;
  return false;
}

/* a before b: faster (link speed when the machine told it, then the PCI
 * link), ties in name order (the NIC list is sorted by name) */
static bool nic_faster(const struct placer_nic *a, const struct placer_nic *b) {
  if (a->speed_mbps != b->speed_mbps)
    return a->speed_mbps > b->speed_mbps;
  return a->pci_link_gbps > b->pci_link_gbps;
}

/* Same PCI card: domain:bus:device equal, any function ("0000:15:00.1"). */
static bool same_card(const char *a, const char *b) {
  const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
  size_t la = da ? (size_t)(da - a) : strlen(a), lb = db ? (size_t)(db - b) : strlen(b);
  return la == lb && strncmp(a, b, la) == 0;
}

bool planner_nic_is_auto(const char *glob) {
  return strcmp(glob, "auto") == 0;
}

static bool profile_uses_auto(const struct placer_profile *profile) {
  for (size_t i = 0; i < profile->reserve.nics.n; i++)
    if (planner_nic_is_auto(profile->reserve.nics.items[i]))
      return true;
  for (size_t i = 0; i < profile->n_roles; i++)
    if (profile->roles[i].near == PLACER_NEAR_NIC && planner_nic_is_auto(profile->roles[i].nic))
      return true;
  return false;
}

int planner_select_storage_nics(struct planner *p) {
  const struct placer_topology *t = p->topo;
  p->storage_nic = calloc(t->n_nics ? t->n_nics : 1, sizeof(*p->storage_nic));
  if (p->storage_nic == NULL)
    return planner_oom(p);
  char *const *nets = p->profile->storage_networks.items;
  size_t n_nets = p->profile->storage_networks.n;
  const char *from = "storage_network";
  if (n_nets == 0) {
    nets = t->storage_networks;
    n_nets = t->n_storage_networks;
    from = "ceph.conf";
  }
  size_t hits = 0;
  for (size_t i = 0; i < t->n_nics; i++)
    if (nic_in_networks(&t->nics[i], nets, n_nets)) {
      p->storage_nic[i] = true;
      hits++;
    }
  if (hits) {
    snprintf(p->auto_why, sizeof(p->auto_why), "holding an address in the %s network %s", from, nets[0]);
    return 0;
  }
  if (n_nets && profile_uses_auto(p->profile) &&
      planner_warn(p, 0, 0, 0, "nic: auto: no NIC holds an address in the %s network %s%s; taking the fastest NIC",
                   from, nets[0], n_nets > 1 ? " (or the others given)" : "") < 0)
    return -1;
  bool any_ethernet = false;
  for (size_t i = 0; i < t->n_nics; i++)
    any_ethernet |= t->nics[i].pci_busid && t->nics[i].ethernet;
  const struct placer_nic *best = NULL;
  for (size_t i = 0; i < t->n_nics; i++) {
    const struct placer_nic *nic = &t->nics[i];
    if (nic->pci_busid == NULL || (any_ethernet && !nic->ethernet))
      continue;
    if (best == NULL || nic_faster(nic, best))
      best = nic;
  }
  if (best == NULL) {
    snprintf(p->auto_why, sizeof(p->auto_why), "no NIC on PCI%s", n_nets ? " and none in the storage network" : "");
    return 0;
  }
  for (size_t i = 0; i < t->n_nics; i++)
    if (t->nics[i].pci_busid && t->nics[i].ethernet == best->ethernet &&
        same_card(t->nics[i].pci_busid, best->pci_busid))
      p->storage_nic[i] = true;
  char link[48] = "";
  if (best->speed_mbps)
    snprintf(link, sizeof(link), ", %llu Mb/s", (unsigned long long)best->speed_mbps);
  else if (best->pci_link_gbps > 0)
    snprintf(link, sizeof(link), ", PCI link %.2f GB/s", best->pci_link_gbps);
  snprintf(p->auto_why, sizeof(p->auto_why), "the fastest %sNIC on PCI (%s%s)%s", best->ethernet ? "Ethernet " : "",
           best->pci_busid, link, n_nets ? "; none holds an address in the storage network" : "");
  return 0;
}

/* NIC i matches a profile's NIC glob, `auto` being the storage NICs. */
static bool nic_matches(const struct planner *p, const char *glob, size_t i) {
  if (planner_nic_is_auto(glob))
    return p->storage_nic[i];
  return fnmatch(glob, p->topo->nics[i].name, 0) == 0;
}

bool planner_nic_list_matches(const struct planner *p, const struct placer_string_list *globs, size_t i) {
  for (size_t k = 0; k < globs->n; k++)
    if (nic_matches(p, globs->items[k], i))
      return true;
  return false;
}

char *planner_nic_names(const struct placer_topology *topo) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (f == NULL)
    return NULL;
  for (size_t i = 0; i < topo->n_nics; i++)
    fprintf(f, "%s%s", i ? ", " : "", topo->nics[i].name);
  if (topo->n_nics == 0)
    fputs("none", f);
  fclose(f);
  return buf;
}

const struct placer_nic *planner_nic_for(const struct planner *p, const char *glob) {
  for (size_t i = 0; i < p->topo->n_nics; i++)
    if (nic_matches(p, glob, i))
      return &p->topo->nics[i];
  return NULL;
}
