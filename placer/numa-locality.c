/* Memory locality from /proc/PID/numa_maps (see numa-locality.h); the host's
 * nodes from libnuma. */
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/cpulist.h"
#include "lib/textfile.h"
#include "numa-locality.h"

void placer_numa_usage_clear(struct placer_numa_usage *u) {
  if (u == NULL)
    return;
  free(u->node_bytes);
  *u = (struct placer_numa_usage){ 0 };
}

uint64_t placer_numa_usage_bytes(const struct placer_numa_usage *u) {
  uint64_t sum = 0;
  for (size_t i = 0; i < u->n_nodes; i++)
    sum += u->node_bytes[i];
  return sum;
}

static int parse_ulong(const char *s, const char *end, unsigned long long *out) {
  if (s == end || *s < '0' || *s > '9')
    return -1;
  unsigned long long v = 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9' || v > (~0ULL - 9) / 10)
      return -1;
    v = v * 10 + (unsigned long long)(*s - '0');
  }
  *out = v;
  return 0;
}

/* One line: add its N<node>=<pages> entries to BYTES (n_nodes entries, grown)
 * and to *TOTAL, the sum over them, which must stay below 2^64 (no machine
 * has that much: a count that large is malformed, not memory to add up). */
static int parse_line(const char *line, const char *eol, unsigned lineno, uint64_t **bytes, size_t *n_nodes,
                      uint64_t *total, struct placer_error **err) {
  unsigned long long page_kib = 4;
  struct {
    unsigned long long node, pages;
  } entries[64];
  size_t n = 0;
  for (const char *p = line; p < eol;) {
    while (p < eol && *p == ' ')
      p++;
    const char *tok = p;
    while (p < eol && *p != ' ')
      p++;
    const char *eq = memchr(tok, '=', (size_t)(p - tok));
    if (eq == NULL)
      continue;
    if (eq - tok == 17 && strncmp(tok, "kernelpagesize_kB", 17) == 0) {
      if (parse_ulong(eq + 1, p, &page_kib) < 0 || page_kib == 0)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "numa_maps line %u: bad \"%.*s\"", lineno, (int)(p - tok),
                                tok);
    } else if (tok[0] == 'N' && eq > tok + 1 && tok[1] >= '0' && tok[1] <= '9') {
      if (n == N_OF(entries))
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "numa_maps line %u: more than %zu node entries", lineno, n);
      if (parse_ulong(tok + 1, eq, &entries[n].node) < 0 || parse_ulong(eq + 1, p, &entries[n].pages) < 0)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "numa_maps line %u: bad \"%.*s\"", lineno, (int)(p - tok),
                                tok);
      if (entries[n].node >= PLACER_NUMA_MAX_NODES)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "numa_maps line %u: node %llu is beyond %d", lineno,
                                entries[n].node, PLACER_NUMA_MAX_NODES - 1);
      n++;
    }
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t page_bytes, add;
    if (__builtin_mul_overflow(page_kib, 1024, &page_bytes) ||
        __builtin_mul_overflow(entries[i].pages, page_bytes, &add) || __builtin_add_overflow(*total, add, total))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                              "numa_maps line %u: N%llu=%llu pages of %llu kB: more than 2^64 bytes in all", lineno,
                              entries[i].node, entries[i].pages, page_kib);
    size_t node = (size_t)entries[i].node;
    if (node >= *n_nodes) {
      uint64_t *bigger = realloc(*bytes, (node + 1) * sizeof(*bigger));
      if (bigger == NULL)
        return placer_error_oom(err, "numa_maps");
      memset(bigger + *n_nodes, 0, (node + 1 - *n_nodes) * sizeof(*bigger));
      *bytes = bigger;
      *n_nodes = node + 1;
    }
    (*bytes)[node] += add; /* <= *total: no wrap */
  }
  return 0;
}

int placer_numa_maps_parse(const char *text, struct placer_numa_usage *u, struct placer_error **err) {
  /* Into a copy, so that *u is unchanged on a malformed line. */
  size_t n_nodes = u->n_nodes;
  uint64_t *bytes = NULL;
  if (n_nodes) {
    if ((bytes = malloc(n_nodes * sizeof(*bytes))) == NULL)
      return placer_error_oom(err, "numa_maps");
    memcpy(bytes, u->node_bytes, n_nodes * sizeof(*bytes));
  }
  uint64_t total = placer_numa_usage_bytes(u);
  unsigned lineno = 1;
  for (const char *line = text; *line; lineno++) {
    const char *eol = strchr(line, '\n');
    if (eol == NULL)
      eol = line + strlen(line);
    if (parse_line(line, eol, lineno, &bytes, &n_nodes, &total, err) < 0) {
      free(bytes);
      return -1;
    }
    line = *eol ? eol + 1 : eol;
  }
  free(u->node_bytes);
  u->node_bytes = bytes;
  u->n_nodes = n_nodes;
  u->n_processes++;
  return 0;
}

int placer_numa_usage_add_pid(const char *proc_root, pid_t pid, struct placer_numa_usage *u,
                              struct placer_error **err) {
  cleanup_free char *path = NULL, *text = NULL;
  if (asprintf(&path, "%s/%d/numa_maps", proc_root, (int)pid) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "numa_maps of %d", (int)pid);
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0) {
    int e = errno;
    if (e == ENOENT || e == ESRCH)
      return 1;
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "read %s", path);
  }
  if (placer_numa_maps_parse(text, u, err) < 0)
    return placer_error_prefix(err, "%s", path);
  return 0;
}

int placer_numa_locality(const struct placer_numa_usage *u, const char *planned_mems, struct placer_numa_locality *out,
                         struct placer_error **err) {
  hwloc_bitmap_t mems = hwloc_bitmap_alloc();
  if (mems == NULL)
    return placer_error_oom(err, "memory locality");
  if (planned_mems == NULL || placer_cpulist_parse(planned_mems, mems) < 0) {
    hwloc_bitmap_free(mems);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "memory locality: bad node list \"%s\"",
                            planned_mems ? planned_mems : "");
  }
  struct placer_numa_locality l = { 0, 0, NAN };
  for (size_t i = 0; i < u->n_nodes; i++) {
    l.resident_bytes += u->node_bytes[i];
    if (hwloc_bitmap_isset(mems, (unsigned)i))
      l.local_bytes += u->node_bytes[i];
  }
  hwloc_bitmap_free(mems);
  if (l.resident_bytes > 0)
    l.local_share = (double)l.local_bytes / (double)l.resident_bytes;
  *out = l;
  return 0;
}

/* A share in whole percent that is 100 or 0 only when exactly so. */
static int percent(uint64_t part, uint64_t whole) {
  int pct = (int)lround(100.0 * (double)part / (double)whole);
  if (pct == 100 && part < whole)
    return 99;
  if (pct == 0 && part > 0)
    return -1; /* "<1%" */
  return pct;
}

static void append_percent(char *buf, size_t size, int pct) {
  size_t len = strlen(buf);
  if (pct < 0)
    snprintf(buf + len, size - len, "<1%%");
  else
    snprintf(buf + len, size - len, "%d%%", pct);
}

char *placer_numa_locality_format(const struct placer_numa_usage *u, const char *planned_mems) {
  struct placer_numa_locality l;
  struct placer_error *e = NULL;
  if (placer_numa_locality(u, planned_mems, &l, &e) < 0) {
    placer_error_free(e);
    return NULL;
  }
  if (l.resident_bytes == 0)
    return strdup("-");
  hwloc_bitmap_t mems = hwloc_bitmap_alloc();
  if (mems == NULL || placer_cpulist_parse(planned_mems, mems) < 0) {
    hwloc_bitmap_free(mems);
    return NULL;
  }
  char buf[256] = "";
  append_percent(buf, sizeof(buf), percent(l.local_bytes, l.resident_bytes));
  /* Other nodes, largest first (ties: lower node first). */
  bool *shown = calloc(u->n_nodes ? u->n_nodes : 1, sizeof(*shown));
  if (shown == NULL) {
    hwloc_bitmap_free(mems);
    return NULL;
  }
  bool first = true;
  for (;;) {
    size_t best = u->n_nodes;
    for (size_t i = 0; i < u->n_nodes; i++)
      if (!shown[i] && u->node_bytes[i] > 0 && !hwloc_bitmap_isset(mems, (unsigned)i) &&
          (best == u->n_nodes || u->node_bytes[i] > u->node_bytes[best]))
        best = i;
    if (best == u->n_nodes)
      break;
    shown[best] = true;
    size_t len = strlen(buf);
    if (len + 32 >= sizeof(buf)) {
      snprintf(buf + len, sizeof(buf) - len, ", ...");
      first = false;
      break;
    }
    snprintf(buf + len, sizeof(buf) - len, "%sN%zu ", first ? " (" : ", ", best);
    append_percent(buf, sizeof(buf), percent(u->node_bytes[best], l.resident_bytes));
    first = false;
  }
  if (!first)
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ")");
  free(shown);
  hwloc_bitmap_free(mems);
  return strdup(buf);
}

void placer_numa_host_read(struct placer_numa_host *out) {
  struct placer_numa_host h = { false, 1, NULL };
  if (numa_available() >= 0) {
    h.available = true;
    h.n_nodes = numa_max_node() + 1;
    h.node_bytes = calloc((size_t)h.n_nodes, sizeof(*h.node_bytes));
    for (int i = 0; h.node_bytes && i < h.n_nodes; i++) {
      long long size = numa_node_size64(i, NULL);
      h.node_bytes[i] = size > 0 ? (uint64_t)size : 0;
    }
  }
  *out = h;
}

void placer_numa_host_clear(struct placer_numa_host *h) {
  if (h == NULL)
    return;
  free(h->node_bytes);
  *h = (struct placer_numa_host){ false, 1, NULL };
}
