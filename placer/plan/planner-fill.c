/* The strategies for count: fill: as many instances as fit in what is
 * left, in CPU and in memory: unpinned, in a pool per node, in one pool
 * over nodes (span_numa), or one exclusive instance after another.  Part
 * of the pure planner (planner-internal.h, planner_strategies[] in
 * planner.c). */
#include <stdio.h>
#include <stdlib.h>

#include "plan/planner-internal.h"
#include "lib/units.h"

/* How many instances of memory_bytes fit on nodes (evenly split) without
 * over-committing any node whose memory is known; UINT32_MAX: no limit. */
static unsigned memory_fit_count(const struct planner *p, hwloc_const_bitmap_t nodes, uint64_t memory_bytes) {
  unsigned k = (unsigned)hwloc_bitmap_weight(nodes);
  if (memory_bytes == 0 || k == 0)
    return UINT32_MAX;
  uint64_t share = (memory_bytes + k - 1) / k;
  unsigned fit = UINT32_MAX;
  for (size_t i = 0; i < p->n_nodes; i++) {
    if (!hwloc_bitmap_isset(nodes, p->nodes[i].os) || !p->nodes[i].memory_known)
      continue;
    uint64_t n = planner_node_memory_room(&p->nodes[i]) / share;
    if (n < fit)
      fit = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
  }
  return fit;
}

static int fill_empty(struct planner *p, struct role_state *rs, struct cpu_need need, hwloc_const_bitmap_t nodes,
                      const char *memory_note) {
  char per[64], scope[160];
  unsigned available;
  planner_need_text(need, per, sizeof(per));
  planner_scope_text(p, nodes, need.unit, &available, scope, sizeof(scope));
  if (memory_note && *memory_note)
    return planner_infeasible(p, "role '%s': no room left for one instance: %s", rs->spec->name, memory_note);
  return planner_infeasible(p, "role '%s': no room left for one instance: needs %s, only %u available (%s)",
                            rs->spec->name, per, available, scope);
}

/* Units of a unit kind that a set of PUs holds. */
static unsigned units_in(const struct planner *p, hwloc_const_bitmap_t cpus, enum unit unit) {
  if (unit == UNIT_THREADS)
    return (unsigned)hwloc_bitmap_weight(cpus);
  unsigned n = 0;
  for (size_t c = 0; c < p->topo->n_cores; c++) {
    const struct placer_core *core = planner_core(p, c);
    if (!hwloc_bitmap_iszero(core->pus) && hwloc_bitmap_isincluded(core->pus, cpus))
      n += unit == UNIT_CORES ? 1 : (unsigned)hwloc_bitmap_weight(core->pus);
  }
  return n;
}

/* COUNT instances of a count: fill pool on CPUS (one node's pool, or a
 * whole span_numa pool).  Aligned to caches, the pool is cut into parts
 * that each lie in one L3 (align_split_pool) and each instance runs on one
 * part, in order, while its part's node has its memory; otherwise all run
 * on CPUS.  How many it placed, or -1. */
static int place_pool_members(struct planner *p, struct role_state *rs, const struct target *t,
                              hwloc_const_bitmap_t cpus, unsigned count, uint64_t memory) {
  const struct placer_role_spec *spec = rs->spec;
  struct cpu_need need = planner_role_need(spec);
  size_t cap = p->topo->n_l3_groups + 1;
  hwloc_bitmap_t *parts = calloc(cap, sizeof(*parts));
  unsigned *counts = calloc(cap, sizeof(*counts));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  int n_parts = 0, placed = -1;
  if (parts == NULL || counts == NULL || nodes == NULL) {
    planner_oom(p);
    goto out;
  }
  if (planner_role_align(p, spec) == PLACER_ALIGN_CACHE &&
      (n_parts = align_split_pool(&p->align, cpus, need, parts, counts, cap)) < 0) {
    planner_oom(p);
    goto out;
  }
  if (n_parts < 2) {
    for (int i = 0; i < n_parts; i++)
      hwloc_bitmap_free(parts[i]);
    parts[0] = hwloc_bitmap_dup(cpus);
    counts[0] = count;
    n_parts = 1;
    if (parts[0] == NULL) {
      planner_oom(p);
      goto out;
    }
  }
  placed = 0;
  for (int i = 0; i < n_parts && (unsigned)placed < count; i++) {
    planner_nodes_of_cpus(p, parts[i], nodes);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t k = 0; k < p->n_nodes; k++)
        hwloc_bitmap_set(nodes, p->nodes[k].os);
    size_t first = rs->n;
    for (unsigned k = 0; k < counts[i] && (unsigned)placed < count; k++) {
      if (n_parts > 1 && memory_fit_count(p, nodes, memory) == 0)
        break;
      struct placer_instance *inst = planner_new_instance(p, rs, NULL, t->nic);
      if (inst == NULL)
        goto fail;
      hwloc_bitmap_copy(inst->cpus, parts[i]);
      if (planner_locality_of_pool_member(p, rs, inst, t) < 0 || planner_settle_memory(p, rs, inst) < 0)
        goto fail;
      placed++;
    }
    /* the part made of what every L3 had left over: its instances span L3s */
    hwloc_bitmap_t l3s = hwloc_bitmap_alloc();
    if (l3s == NULL) {
      planner_oom(p);
      goto fail;
    }
    align_l3s_of(p->topo, parts[i], l3s);
    bool several = hwloc_bitmap_weight(l3s) > 1;
    hwloc_bitmap_free(l3s);
    if (n_parts > 1 && several && rs->n > first) {
      char list[96];
      planner_l3_list_text(p, parts[i], list, sizeof(list));
      unsigned units = units_in(p, parts[i], need.unit);
      if (planner_warn(
              p, 1, rs->pos, first,
              "%s: with %zu more, on what pool '%s' has left in L3 %s (%u %s) after the instances that each fit "
              "in one L3",
              rs->inst[first].name, rs->n - first - 1, rs->pool->name, list, units,
              planner_unit_word(need.unit, units)) < 0)
        goto fail;
    }
  }
  goto out;
fail:
  placed = -1;
out:
  for (int i = 0; parts && i < n_parts; i++)
    hwloc_bitmap_free(parts[i]);
  free(parts);
  free(counts);
  hwloc_bitmap_free(nodes);
  return placed;
}

int planner_place_fill_per_node(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct pool_state *pool = rs->pool;
  struct cpu_need need = planner_role_need(spec);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  struct target t;
  if (planner_target_for(p, spec, 0, NULL, 0, &t) < 0)
    return -1;
  int rc = -1;
  size_t *order = calloc(p->n_nodes ? p->n_nodes : 1, sizeof(*order));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL || order == NULL) {
    planner_oom(p);
    goto out;
  }
  if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
    planner_infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
    goto out;
  }
  size_t n_local;
  size_t n = planner_nodes_by_distance(p, t.unknown ? NULL : t.nodes, order, &n_local);
  size_t use = n_local;
  if (!pool->placed) {
    pool->node_cpus = calloc(p->n_nodes, sizeof(*pool->node_cpus));
    if (pool->node_cpus == NULL) {
      planner_oom(p);
      goto out;
    }
    if (planner_order_capacity(p, p->used, order, n_local, need.unit) == 0 && t.nodes && !t.unknown &&
        spec->policy == PLACER_POLICY_PREFERRED)
      use = n;
    for (size_t i = 0; i < use; i++) {
      unsigned cap = planner_node_capacity(p, p->used, order[i], need.unit);
      if (cap < need.amount)
        continue;
      hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
      if (cpus == NULL) {
        planner_oom(p);
        goto out;
      }
      pool->node_cpus[order[i]] = cpus;
      struct cpu_need all = { need.unit, cap };
      if (!planner_take(p, &order[i], 1, all, PLACER_ALIGN_NUMA, cpus, NULL)) {
        hwloc_bitmap_zero(cpus);
        continue;
      }
      planner_commit(p, cpus);
    }
    pool->placed = true;
  }
  unsigned placed = 0;
  char note[256] = "";
  for (size_t pos = 0; pos < p->n_nodes; pos++) {
    hwloc_bitmap_t cpus = pool->node_cpus[pos];
    if (cpus == NULL || hwloc_bitmap_iszero(cpus))
      continue;
    unsigned count = units_in(p, cpus, need.unit) / need.amount;
    hwloc_bitmap_zero(nodes);
    hwloc_bitmap_set(nodes, p->nodes[pos].os);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t i = 0; i < p->n_nodes; i++)
        hwloc_bitmap_set(nodes, p->nodes[i].os);
    unsigned by_memory = memory_fit_count(p, nodes, memory);
    if (by_memory < count)
      count = by_memory;
    if (spec->max_count && spec->max_count - placed < count)
      count = spec->max_count - placed;
    if (by_memory == 0 && note[0] == '\0') {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      snprintf(note, sizeof(note), "needs %s of memory, not that much left on NUMA node %u", m, p->nodes[pos].os);
    }
    int got = place_pool_members(p, rs, &t, cpus, count, memory);
    if (got < 0)
      goto out;
    placed += (unsigned)got;
  }
  if (placed == 0) {
    fill_empty(p, rs, need, t.unknown ? NULL : t.nodes, note);
    goto out;
  }
  rc = 0;
out:
  free(order);
  hwloc_bitmap_free(nodes);
  planner_target_clear(&t);
  return rc;
}

int planner_place_fill_span(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct pool_state *pool = rs->pool;
  struct cpu_need need = planner_role_need(spec);
  struct target t;
  if (planner_target_for(p, spec, 0, NULL, 0, &t) < 0)
    return -1;
  int rc = -1;
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL) {
    planner_oom(p);
    goto out;
  }
  if (!pool->placed) {
    size_t order[p->n_nodes ? p->n_nodes : 1];
    size_t n_local;
    size_t n = planner_nodes_by_distance(p, t.unknown ? NULL : t.nodes, order, &n_local);
    if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
      planner_infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
      goto out;
    }
    unsigned local = planner_order_capacity(p, p->used, order, n_local, need.unit);
    size_t use = n_local;
    if (local == 0 && t.nodes && !t.unknown && spec->policy == PLACER_POLICY_PREFERRED)
      use = n;
    struct cpu_need all = { need.unit, planner_order_capacity(p, p->used, order, use, need.unit) };
    if (all.amount == 0 || !planner_take(p, order, use, all, PLACER_ALIGN_NUMA, pool->cpus, NULL)) {
      fill_empty(p, rs, need, t.unknown ? NULL : t.nodes, NULL);
      goto out;
    }
    planner_commit(p, pool->cpus);
    pool->placed = true;
  }
  unsigned count = units_in(p, pool->cpus, need.unit) / need.amount;
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  planner_nodes_of_cpus(p, pool->cpus, nodes);
  if (spec->mems == PLACER_MEMS_ALL) {
    hwloc_bitmap_zero(nodes);
    for (size_t i = 0; i < p->n_nodes; i++)
      hwloc_bitmap_set(nodes, p->nodes[i].os);
  }
  unsigned by_memory = memory_fit_count(p, nodes, memory);
  if (by_memory < count)
    count = by_memory;
  if (spec->max_count && spec->max_count < count)
    count = spec->max_count;
  if (count == 0) {
    char note[256] = "";
    if (by_memory == 0) {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      cleanup_free char *list = placer_cpulist_format(nodes);
      snprintf(note, sizeof(note), "needs %s of memory, not that much left on NUMA node(s) %s", m, list ? list : "?");
    }
    fill_empty(p, rs, need, NULL, note);
    goto out;
  }
  if (place_pool_members(p, rs, &t, pool->cpus, count, memory) < 0)
    goto out;
  rc = 0;
out:
  hwloc_bitmap_free(nodes);
  planner_target_clear(&t);
  return rc;
}

int planner_place_fill_exclusive(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct cpu_need need = planner_role_need(spec);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
  int rc = -1;
  if (cpus == NULL || nodes == NULL) {
    planner_oom(p);
    goto out;
  }
  char memory_note[256] = "";
  for (size_t k = 0; spec->max_count == 0 || k < spec->max_count; k++) {
    struct target t;
    if (planner_target_for(p, spec, k, NULL, 0, &t) < 0)
      goto out;
    if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
      planner_infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
      planner_target_clear(&t);
      goto out;
    }
    hwloc_const_bitmap_t target = t.unknown ? NULL : t.nodes;
    struct request req = planner_role_request(p, spec, need, target, memory);
    struct outcome o = planner_choose(p, &req, cpus);
    if (o.choice == NO_ROOM || o.choice == NO_ROOM_THERE) {
      planner_target_clear(&t);
      break;
    }
    planner_nodes_of_cpus(p, cpus, nodes);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t i = 0; i < p->n_nodes; i++)
        hwloc_bitmap_set(nodes, p->nodes[i].os);
    if (memory_fit_count(p, nodes, memory) == 0) {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      cleanup_free char *list = placer_cpulist_format(nodes);
      snprintf(memory_note, sizeof(memory_note), "needs %s of memory, not that much left on NUMA node(s) %s", m,
               list ? list : "?");
      planner_target_clear(&t);
      break;
    }
    struct placer_instance *inst = planner_new_instance(p, rs, NULL, t.nic);
    if (inst == NULL) {
      planner_target_clear(&t);
      goto out;
    }
    hwloc_bitmap_copy(inst->cpus, cpus);
    planner_commit(p, cpus);
    int wrc = planner_placed_warnings(p, rs, inst, &t, need, &req, &o);
    planner_target_clear(&t);
    if (wrc < 0 || planner_settle_memory(p, rs, inst) < 0)
      goto out;
  }
  if (rs->n == 0) {
    fill_empty(p, rs, need, NULL, memory_note);
    goto out;
  }
  rc = 0;
out:
  hwloc_bitmap_free(cpus);
  hwloc_bitmap_free(nodes);
  return rc;
}

int planner_place_fill_unpinned(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  unsigned count = UINT32_MAX;
  struct cpu_need need = planner_role_need(spec);
  if (spec->has_cpu) {
    unsigned total = 0;
    for (size_t i = 0; i < p->n_nodes; i++)
      total += planner_node_capacity(p, p->reserved, i, need.unit);
    count = total / need.amount;
  }
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL)
    return planner_oom(p);
  for (size_t i = 0; i < p->n_nodes; i++)
    hwloc_bitmap_set(nodes, p->nodes[i].os);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  unsigned by_memory = memory_fit_count(p, nodes, memory);
  hwloc_bitmap_free(nodes);
  if (by_memory < count)
    count = by_memory;
  if (spec->max_count && spec->max_count < count)
    count = spec->max_count;
  if (count == UINT32_MAX)
    return planner_infeasible(p,
                              "role '%s': cannot tell how many instances fit: the topology does not give the NUMA "
                              "nodes' memory",
                              spec->name);
  if (count == 0)
    return fill_empty(p, rs, need, NULL, by_memory == 0 ? "not enough memory left" : NULL);
  for (unsigned i = 0; i < count; i++) {
    struct placer_instance *inst = planner_new_instance(p, rs, NULL, NULL);
    if (inst == NULL)
      return -1;
    hwloc_bitmap_copy(inst->cpus, p->usable);
    if (planner_settle_memory(p, rs, inst) < 0)
      return -1;
  }
  return 0;
}
