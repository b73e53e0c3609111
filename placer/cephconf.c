/* A Ceph OSD's own affinity settings from ceph.conf and its command line
 * (cephconf.h): text parsing, no cluster needed; the warning apply gives
 * for a running OSD reads its /proc/PID/cmdline and its ceph.conf. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cephconf.h"
#include "lib/cpulist.h"
#include "lib/textfile.h"

void placer_ceph_numa_init(struct placer_ceph_numa *n) {
  memset(n, 0, sizeof(*n));
  n->auto_affinity = -1;
  n->numa_node = -1;
}

/* "osd numa auto-affinity" -> "osd_numa_auto_affinity", trimmed, in OUT. */
static void normalize_key(const char *s, size_t len, char *out, size_t out_len) {
  size_t k = 0;
  while (len > 0 && isspace((unsigned char)*s))
    s++, len--;
  while (len > 0 && isspace((unsigned char)s[len - 1]))
    len--;
  for (size_t i = 0; i < len && k + 1 < out_len; i++) {
    char c = s[i];
    out[k++] = (c == ' ' || c == '-' || c == '\t') ? '_' : (char)tolower((unsigned char)c);
  }
  out[k] = '\0';
}

static int parse_bool(const char *v) {
  if (strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0 || strcmp(v, "1") == 0)
    return 1;
  if (strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "off") == 0 || strcmp(v, "0") == 0)
    return 0;
  return -1;
}

static void set_value(struct placer_ceph_numa *n, const char *key, const char *value, const char *source) {
  if (strcmp(key, "osd_numa_auto_affinity") == 0) {
    int b = parse_bool(value);
    if (b >= 0) {
      n->auto_affinity = b;
      snprintf(n->auto_source, sizeof(n->auto_source), "%s", source);
    }
  } else if (strcmp(key, "osd_numa_node") == 0) {
    char *end = NULL;
    long v = strtol(value, &end, 10);
    if (end != value && *end == '\0' && v >= -1 && v < 4096) {
      n->numa_node = (int)v;
      snprintf(n->node_source, sizeof(n->node_source), "%s", source);
    }
  }
}

/* Rank of a section for daemon NAME: 1 [global], 2 [osd], 3 [osd.N]; 0 others. */
static int section_rank(const char *section, const char *name) {
  if (strcmp(section, "global") == 0)
    return 1;
  if (strcmp(section, "osd") == 0)
    return 2;
  if (name && strcmp(section, name) == 0)
    return 3;
  return 0;
}

void placer_ceph_numa_from_conf(struct placer_ceph_numa *n, const char *text, const char *path, const char *name) {
  /* three passes so that the most specific section wins whatever the order */
  for (int want = 1; want <= 3; want++) {
    int rank = 0;
    char section[128] = "";
    for (const char *line = text; line && *line;) {
      const char *nl = strchr(line, '\n');
      size_t len = nl ? (size_t)(nl - line) : strlen(line);
      const char *p = line;
      while (len > 0 && isspace((unsigned char)*p))
        p++, len--;
      if (len > 0 && *p == '[') {
        const char *close = memchr(p, ']', len);
        if (close) {
          normalize_key(p + 1, (size_t)(close - p - 1), section, sizeof(section));
          /* section names keep their dots: "osd.3" */
          rank = section_rank(section, name);
        }
      } else if (len > 0 && *p != '#' && *p != ';' && rank == want) {
        const char *eq = memchr(p, '=', len);
        if (eq) {
          char key[128], value[128];
          normalize_key(p, (size_t)(eq - p), key, sizeof(key));
          size_t vlen = len - (size_t)(eq + 1 - p);
          const char *v = eq + 1;
          /* a trailing comment */
          for (size_t i = 0; i < vlen; i++)
            if (v[i] == '#' || v[i] == ';') {
              vlen = i;
              break;
            }
          while (vlen > 0 && isspace((unsigned char)*v))
            v++, vlen--;
          while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
            vlen--;
          snprintf(value, sizeof(value), "%.*s", (int)vlen, v);
          char source[256];
          snprintf(source, sizeof(source), "%s [%s]", path ? path : "ceph.conf", section);
          set_value(n, key, value, source);
        }
      }
      line = nl ? nl + 1 : NULL;
    }
  }
}

void placer_ceph_numa_from_cmdline(struct placer_ceph_numa *n, const struct placer_cmdline *cl) {
  for (size_t i = 0; i < cl->argc; i++) {
    const char *a = cl->argv[i];
    if (strncmp(a, "--", 2) != 0)
      continue;
    const char *eq = strchr(a, '=');
    char key[128];
    normalize_key(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), key, sizeof(key));
    if (strcmp(key, "osd_numa_auto_affinity") != 0 && strcmp(key, "osd_numa_node") != 0)
      continue;
    const char *value = eq ? eq + 1 : (i + 1 < cl->argc ? cl->argv[i + 1] : NULL);
    if (value == NULL)
      continue;
    set_value(n, key, value, "the command line");
  }
}

int placer_ceph_cmdline_conf(const struct placer_cmdline *cl, char **conf, char **id) {
  const char *c = NULL, *cluster = "ceph", *i_d = NULL;
  for (size_t i = 0; i < cl->argc; i++) {
    const char *a = cl->argv[i];
    const char *next = i + 1 < cl->argc ? cl->argv[i + 1] : NULL;
    if ((strcmp(a, "-c") == 0 || strcmp(a, "--conf") == 0) && next)
      c = next;
    else if (strncmp(a, "--conf=", 7) == 0)
      c = a + 7;
    else if (strcmp(a, "--cluster") == 0 && next)
      cluster = next;
    else if (strncmp(a, "--cluster=", 10) == 0)
      cluster = a + 10;
    else if ((strcmp(a, "-i") == 0 || strcmp(a, "--id") == 0) && next)
      i_d = next;
    else if (strncmp(a, "--id=", 5) == 0)
      i_d = a + 5;
  }
  *conf = c ? strdup(c) : NULL;
  if (c == NULL && strchr(cluster, '/') == NULL && asprintf(conf, "/etc/ceph/%s.conf", cluster) < 0)
    *conf = NULL;
  *id = i_d ? strdup(i_d) : NULL;
  return 0;
}

char *placer_ceph_numa_warning(const struct placer_ceph_numa *n, const char *inst, const char *mems) {
  char *msg = NULL;
  char node_part[512] = "";
  if (n->numa_node >= 0) {
    hwloc_bitmap_t m = hwloc_bitmap_alloc();
    bool inside = m && mems && placer_cpulist_parse(mems, m) == 0 && hwloc_bitmap_isset(m, (unsigned)n->numa_node) &&
                  hwloc_bitmap_weight(m) == 1;
    hwloc_bitmap_free(m);
    if (!inside)
      snprintf(node_part, sizeof(node_part),
               "; osd_numa_node = %d (%s) makes it bind itself to node %d's CPUs, but the plan puts it on node%s %s: "
               "remove it ('ceph config rm %s osd_numa_node' and from ceph.conf)",
               n->numa_node, n->node_source, n->numa_node, mems && strpbrk(mems, ",-") ? "s" : "", mems ? mems : "?",
               inst);
  }
  if (n->auto_affinity != 0) {
    char how[320];
    if (n->auto_affinity == 1)
      snprintf(how, sizeof(how), "true (%s)", n->auto_source);
    else
      snprintf(how, sizeof(how),
               "true (Ceph's default; not turned off in ceph.conf or the command line; the "
               "cluster's config database is not read)");
    if (asprintf(&msg,
                 "%s: osd_numa_auto_affinity is %s: an OSD whose storage and network sit on one NUMA node sets its "
                 "own threads' affinity to that node's CPUs after it starts, replacing this placement (status then "
                 "shows DRIFT); turn it off with 'ceph config set osd osd_numa_auto_affinity false' (or "
                 "'osd numa auto affinity = false' in [osd] of ceph.conf) and restart the OSD%s",
                 inst, how, node_part) < 0)
      msg = NULL;
  } else if (*node_part) {
    if (asprintf(&msg, "%s: osd_numa_auto_affinity is off (%s)%s", inst, n->auto_source, node_part) < 0)
      msg = NULL;
  }
  return msg;
}

bool placer_ceph_osd_affinity_warning(pid_t pid, const char *inst, const char *mems, char **msg) {
  *msg = NULL;
  struct placer_cmdline cl = { NULL, 0 };
  struct placer_error *e = NULL;
  if (placer_proc_read_cmdline(pid, &cl, &e) < 0) {
    placer_error_free(e);
    return false;
  }
  bool is_osd = cl.argc > 0 && strstr(cl.argv[0], "ceph-osd") != NULL;
  if (!is_osd) {
    placer_cmdline_clear(&cl);
    return false;
  }
  char *conf = NULL, *id = NULL;
  struct placer_ceph_numa n;
  placer_ceph_numa_init(&n);
  if (placer_ceph_cmdline_conf(&cl, &conf, &id) == 0 && conf) {
    char *text = NULL;
    char name[128];
    snprintf(name, sizeof(name), "osd.%s", id ? id : "?");
    if (placer_textfile_read_path(conf, 1 << 20, &text, NULL) == 0)
      placer_ceph_numa_from_conf(&n, text, conf, name);
    free(text);
  }
  placer_ceph_numa_from_cmdline(&n, &cl);
  free(conf);
  free(id);
  placer_cmdline_clear(&cl);
  *msg = placer_ceph_numa_warning(&n, inst, mems);
  return true;
}
