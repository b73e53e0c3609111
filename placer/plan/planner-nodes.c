/* The node as the planner sees it (NUMA nodes with their cores, the room
 * left on them, their distances) and the planner's messages: the error of
 * a plan that does not fit, the warnings, and the text they are made of.
 * Part of the pure planner (planner-internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/planner-internal.h"

int planner_oom(struct planner *p) {
  return placer_error_oom(p->err, "plan");
}

char *planner_vtext(const char *fmt, va_list ap) {
  char *text = NULL;
  return vasprintf(&text, fmt, ap) < 0 ? NULL : text;
}

int planner_vappend(char ***list, size_t *n, const char *fmt, va_list ap) {
  char **bigger = realloc(*list, (*n + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return -1;
  *list = bigger;
  if ((bigger[*n] = planner_vtext(fmt, ap)) == NULL)
    return -1;
  (*n)++;
  return 0;
}

int planner_infeasible(struct planner *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = planner_vtext(fmt, ap);
  va_end(ap);
  placer_error_set(p->err, PLACER_EXIT_INFEASIBLE, 0, "%s", msg ? msg : "out of memory");
  free(msg);
  return -1;
}

int planner_warn(struct planner *p, int group, size_t role, size_t index, const char *fmt, ...) {
  struct warning *bigger = realloc(p->warnings, (p->n_warnings + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return planner_oom(p);
  p->warnings = bigger;
  va_list ap;
  va_start(ap, fmt);
  char *text = planner_vtext(fmt, ap);
  va_end(ap);
  if (text == NULL)
    return planner_oom(p);
  p->warnings[p->n_warnings] = (struct warning){ group, role, index, p->n_warnings, text };
  p->n_warnings++;
  return 0;
}

size_t planner_node_pos_of_os(const struct planner *p, unsigned os) {
  for (size_t i = 0; i < p->n_nodes; i++)
    if (p->nodes[i].os == os)
      return i;
  return SIZE_MAX;
}

int planner_setup_nodes(struct planner *p) {
  const struct placer_topology *t = p->topo;
  p->n_nodes = t->n_numa_nodes;
  p->nodes = calloc(p->n_nodes ? p->n_nodes : 1, sizeof(*p->nodes));
  size_t *node_of = calloc(t->n_cores ? t->n_cores : 1, sizeof(*node_of));
  if (p->nodes == NULL || node_of == NULL) {
    free(node_of);
    return planner_oom(p);
  }
  /* A core belongs to the node of its first PU (cores never span nodes on
   * real machines; the rule only keeps odd XML files deterministic). */
  for (size_t c = 0; c < t->n_cores; c++) {
    node_of[c] = SIZE_MAX;
    int first = hwloc_bitmap_first(t->cores[c].pus);
    for (size_t i = 0; first >= 0 && i < p->n_nodes; i++)
      if (hwloc_bitmap_isset(t->numa_nodes[i].cpus, (unsigned)first)) {
        node_of[c] = i;
        p->nodes[i].n_cores++;
        break;
      }
  }
  int rc = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    p->nodes[i].os = t->numa_nodes[i].os_index;
    p->nodes[i].memory_total = t->numa_nodes[i].memory_bytes;
    p->nodes[i].memory_known = t->numa_nodes[i].memory_bytes > 0;
    p->nodes[i].cores = calloc(p->nodes[i].n_cores ? p->nodes[i].n_cores : 1, sizeof(size_t));
    p->nodes[i].n_cores = 0;
    if (p->nodes[i].cores == NULL)
      rc = -1;
  }
  for (size_t c = 0; rc == 0 && c < t->n_cores; c++)
    if (node_of[c] != SIZE_MAX) {
      struct node_info *node = &p->nodes[node_of[c]];
      node->cores[node->n_cores++] = c;
    }
  free(node_of);
  return rc < 0 ? planner_oom(p) : 0;
}

bool planner_node_has_cores(const struct planner *p, size_t pos) {
  for (size_t k = 0; k < p->nodes[pos].n_cores; k++)
    if (align_core_usable(&p->align, planner_core(p, p->nodes[pos].cores[k])))
      return true;
  return false;
}

unsigned planner_node_capacity(const struct planner *p, hwloc_const_bitmap_t used, size_t pos, enum unit unit) {
  return align_capacity(&p->align, used, p->nodes[pos].cores, p->nodes[pos].n_cores, unit);
}

void planner_scope_stats(const struct planner *p, hwloc_const_bitmap_t used, hwloc_const_bitmap_t nodeset,
                         enum unit unit, unsigned *total, unsigned *reserved, unsigned *free_units) {
  *total = *reserved = *free_units = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    if (nodeset && !hwloc_bitmap_isset(nodeset, p->nodes[i].os))
      continue;
    for (size_t k = 0; k < p->nodes[i].n_cores; k++) {
      const struct placer_core *c = planner_core(p, p->nodes[i].cores[k]);
      if (unit == UNIT_THREADS) {
        for (int pu = hwloc_bitmap_first(c->pus); pu >= 0; pu = hwloc_bitmap_next(c->pus, pu)) {
          if (!hwloc_bitmap_isset(p->usable, (unsigned)pu))
            continue;
          (*total)++;
          if (hwloc_bitmap_isset(p->reserved, (unsigned)pu))
            (*reserved)++;
          else if (!hwloc_bitmap_isset(used, (unsigned)pu))
            (*free_units)++;
        }
        continue;
      }
      if (!align_core_usable(&p->align, c))
        continue;
      unsigned weight = unit == UNIT_CORES ? 1 : (unsigned)hwloc_bitmap_weight(c->pus);
      *total += weight;
      if (hwloc_bitmap_intersects(c->pus, p->reserved))
        *reserved += weight;
      else if (!hwloc_bitmap_intersects(c->pus, used))
        *free_units += weight;
    }
  }
}

unsigned planner_order_capacity(const struct planner *p, hwloc_const_bitmap_t used, const size_t *order, size_t n,
                                enum unit unit) {
  unsigned total = 0;
  for (size_t i = 0; i < n; i++)
    total += planner_node_capacity(p, used, order[i], unit);
  return total;
}

/* Ordering distance between two nodes: hwloc's matrix when there is one,
 * else same package before other packages. */
static uint64_t node_distance(const struct planner *p, size_t a, size_t b) {
  if (a == b)
    return 0;
  uint64_t d = placer_topology_distance(p->topo, p->nodes[a].os, p->nodes[b].os);
  if (d)
    return d;
  return p->topo->numa_nodes[a].package == p->topo->numa_nodes[b].package ? 1 : 2;
}

uint64_t planner_distance_to_set(const struct planner *p, size_t pos, hwloc_const_bitmap_t nodeset) {
  uint64_t best = UINT64_MAX;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (hwloc_bitmap_isset(nodeset, p->nodes[i].os)) {
      uint64_t d = node_distance(p, i, pos);
      if (d < best)
        best = d;
    }
  return best;
}

size_t planner_nodes_by_distance(const struct planner *p, hwloc_const_bitmap_t nodeset, size_t *order,
                                 size_t *n_local) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (planner_node_has_cores(p, i) && (nodeset == NULL || hwloc_bitmap_isset(nodeset, p->nodes[i].os)))
      order[n++] = i;
  *n_local = n;
  if (nodeset == NULL)
    return n;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (planner_node_has_cores(p, i) && !hwloc_bitmap_isset(nodeset, p->nodes[i].os))
      order[n++] = i;
  /* insertion sort of the remote part: stable, n is small */
  for (size_t i = *n_local + 1; i < n; i++) {
    size_t v = order[i];
    uint64_t dv = planner_distance_to_set(p, v, nodeset);
    size_t j = i;
    while (j > *n_local && planner_distance_to_set(p, order[j - 1], nodeset) > dv) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = v;
  }
  return n;
}

uint64_t planner_node_memory_room(const struct node_info *node) {
  uint64_t budget = node->memory_total > node->memory_reserved ? node->memory_total - node->memory_reserved : 0;
  return budget > node->memory_used ? budget - node->memory_used : 0;
}

const char *planner_unit_word(enum unit unit, unsigned n) {
  if (unit == UNIT_CORES)
    return n == 1 ? "core" : "cores";
  return n == 1 ? "thread" : "threads";
}

void planner_need_text(struct cpu_need need, char *buf, size_t len) {
  snprintf(buf, len, "%u %s%s", need.amount, planner_unit_word(need.unit, need.amount),
           need.unit == UNIT_WHOLE_THREADS ? " (whole cores)" : "");
}

void planner_nodes_text(hwloc_const_bitmap_t nodeset, char *buf, size_t len) {
  cleanup_free char *list = placer_cpulist_format(nodeset);
  snprintf(buf, len, "NUMA node%s %s", hwloc_bitmap_weight(nodeset) == 1 ? "" : "s", list ? list : "?");
}

void planner_nodes_of_cpus(const struct planner *p, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < p->n_nodes; i++)
    if (hwloc_bitmap_intersects(p->topo->numa_nodes[i].cpus, cpus))
      hwloc_bitmap_set(out, p->nodes[i].os);
}

bool planner_role_whole_cores(const struct placer_role_spec *spec) {
  return spec->cpu.whole_cores || (spec->kind == PLACER_KIND_CEPH_MDS && spec->cpu.exclusive);
}

struct cpu_need planner_role_need(const struct placer_role_spec *spec) {
  struct cpu_need need;
  if (spec->cpu.cores) {
    need.unit = UNIT_CORES;
    need.amount = spec->cpu.cores;
  } else {
    need.unit = planner_role_whole_cores(spec) ? UNIT_WHOLE_THREADS : UNIT_THREADS;
    need.amount = spec->cpu.threads ? spec->cpu.threads : 1;
  }
  return need;
}

void planner_scope_text(const struct planner *p, hwloc_const_bitmap_t nodeset, enum unit unit, unsigned *available,
                        char *buf, size_t len) {
  unsigned total, reserved, free_units;
  planner_scope_stats(p, p->snapshot, nodeset, unit, &total, &reserved, &free_units);
  unsigned taken = total - reserved - free_units;
  int n = snprintf(buf, len, "%u %s%s, %u reserved for the host", total, planner_unit_word(unit, total),
                   nodeset ? " there" : "", reserved);
  if (taken && n > 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ", %u taken by earlier roles", taken);
  *available = free_units;
}
