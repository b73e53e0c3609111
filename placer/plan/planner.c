/* The planner: topology + profile -> plan.  Pure and deterministic: it reads
 * only its two inputs, iterates in topology order and never looks at the
 * clock, the environment or pointer values.
 *
 * This file is the driver: the host reserve (planner-reserve.c); then each
 * role placed by its strategy (planner_strategies[] below: roles with a
 * locality (device, NIC, NUMA node, spread) in profile order, then roles
 * without one, then the roles with count: fill, which take what is left);
 * then the plan assembled.  Instances are listed in profile order whatever
 * the order they were placed in.  The parts: planner-internal.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner-internal.h"
#include "lib/array.h"
#include "lib/units.h"

/* ---- the strategies ---- */

static bool fixed_near(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  (void)profile;
  return spec->count_mode != PLACER_COUNT_FILL && spec->near != PLACER_NEAR_NONE;
}

static bool fixed_anywhere(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  (void)profile;
  return spec->count_mode != PLACER_COUNT_FILL && spec->near == PLACER_NEAR_NONE;
}

static bool fill_unpinned(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  return spec->count_mode == PLACER_COUNT_FILL && !profile->pin;
}

/* a role has a pool when the profile pins and the role names one (setup_pools) */
static bool fill_per_node(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  return spec->count_mode == PLACER_COUNT_FILL && profile->pin && spec->cpu.pool && !spec->cpu.span_numa;
}

static bool fill_span(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  return spec->count_mode == PLACER_COUNT_FILL && profile->pin && spec->cpu.pool && spec->cpu.span_numa;
}

static bool fill_exclusive(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  return spec->count_mode == PLACER_COUNT_FILL && profile->pin && spec->cpu.pool == NULL;
}

/* Exactly one entry applies to any role (test_planner_strategy checks every
 * combination); the order of the phases is the order of placing. */
const struct planner_strategy planner_strategies[] = {
  { "near", 0, fixed_near, planner_place_fixed },
  { "anywhere", 1, fixed_anywhere, planner_place_fixed },
  { "fill-unpinned", 2, fill_unpinned, planner_place_fill_unpinned },
  { "fill-pool-per-node", 2, fill_per_node, planner_place_fill_per_node },
  { "fill-pool-span", 2, fill_span, planner_place_fill_span },
  { "fill-exclusive", 2, fill_exclusive, planner_place_fill_exclusive },
};

const size_t planner_n_strategies = N_OF(planner_strategies);

const struct planner_strategy *planner_strategy_for(const struct placer_profile *profile,
                                                    const struct placer_role_spec *spec) {
  for (size_t i = 0; i < planner_n_strategies; i++)
    if (planner_strategies[i].applies(profile, spec))
      return &planner_strategies[i];
  return NULL;
}

const char *planner_strategies_check(const struct planner_strategy *table, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const struct planner_strategy *s = &table[i];
    if (s->name == NULL || s->name[0] == '\0')
      return "a strategy without a name";
    if (s->phase < 0 || s->phase >= PLANNER_PHASES)
      return "a strategy without a phase";
    if (s->applies == NULL)
      return "a strategy without applies";
    if (s->place == NULL)
      return "a strategy without place";
    for (size_t k = 0; k < i; k++)
      if (strcmp(table[k].name, s->name) == 0)
        return "two strategies of one name";
  }
  return NULL;
}

/* ---- the driver ---- */

bool placer_plan_aligns_by_cache(const struct placer_topology *topo, const struct placer_role_spec *spec) {
  if (spec->cpu.align == PLACER_ALIGN_AUTO)
    return align_several_l3_per_node(topo);
  return spec->cpu.align == PLACER_ALIGN_CACHE;
}

static int place_role(struct planner *p, struct role_state *rs, const struct planner_strategy *strategy) {
  hwloc_bitmap_copy(p->snapshot, p->used);
  const struct placer_role_spec *spec = rs->spec;
  if (spec->near == PLACER_NEAR_NUMA && spec->count_mode != PLACER_COUNT_PER_NUMA &&
      planner_node_pos_of_os(p, spec->numa) == SIZE_MAX) {
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    for (size_t i = 0; all && i < p->n_nodes; i++)
      hwloc_bitmap_set(all, p->nodes[i].os);
    cleanup_free char *list = all ? placer_cpulist_format(all) : NULL;
    hwloc_bitmap_free(all);
    return planner_infeasible(p, "role '%s': NUMA node %u does not exist (NUMA nodes here: %s)", spec->name, spec->numa,
                              list ? list : "?");
  }
  return strategy->place(p, rs);
}

static int setup_pools(struct planner *p) {
  const struct placer_profile *profile = p->profile;
  p->pools = calloc(profile->n_roles ? profile->n_roles : 1, sizeof(*p->pools));
  if (p->pools == NULL)
    return planner_oom(p);
  for (size_t i = 0; i < profile->n_roles; i++) {
    const struct placer_role_spec *spec = &profile->roles[i];
    if (!p->profile->pin || spec->cpu.pool == NULL)
      continue;
    struct pool_state *pool = NULL;
    for (size_t j = 0; j < p->n_pools; j++)
      if (strcmp(p->pools[j].name, spec->cpu.pool) == 0)
        pool = &p->pools[j];
    struct cpu_need need = planner_role_need(spec);
    if (pool == NULL) {
      pool = &p->pools[p->n_pools++];
      pool->name = spec->cpu.pool;
      pool->need = need;
      pool->fill = spec->count_mode == PLACER_COUNT_FILL;
      pool->cpus = hwloc_bitmap_alloc();
      if (pool->cpus == NULL)
        return planner_oom(p);
    } else if (need.amount > pool->need.amount) {
      pool->need.amount = need.amount; /* the biggest member sizes the pool */
    }
    p->roles[i].pool = pool;
  }
  return 0;
}

static int compare_warnings(const void *a, const void *b) {
  const struct warning *x = a, *y = b;
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  if (x->role != y->role)
    return x->role < y->role ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static int memory_warnings(struct planner *p) {
  for (size_t i = 0; i < p->n_nodes; i++) {
    const struct node_info *node = &p->nodes[i];
    if (node->first_over == NULL)
      continue;
    uint64_t budget = node->memory_total > node->memory_reserved ? node->memory_total - node->memory_reserved : 0;
    char used[32], have[32], total[32], host[32];
    placer_format_bytes(node->memory_used, used, sizeof(used));
    placer_format_bytes(budget, have, sizeof(have));
    placer_format_bytes(node->memory_total, total, sizeof(total));
    placer_format_bytes(node->memory_reserved, host, sizeof(host));
    if (planner_warn(
            p, 2, i, 0,
            "NUMA node %u: memory over-committed: instances need %s, %s available (%s, %s reserved for the host); "
            "from %s on",
            node->os, used, have, total, host, node->first_over) < 0)
      return -1;
  }
  return 0;
}

static int assemble(struct planner *p, struct placer_plan *plan) {
  const struct placer_topology *t = p->topo;
  plan->profile_name = strdup(p->profile->name);
  plan->profile_path = p->profile->path ? strdup(p->profile->path) : NULL;
  plan->topology_source = strdup(t->source ? t->source : "");
  plan->topo_numa_nodes = (unsigned)t->n_numa_nodes;
  plan->topo_cores = (unsigned)t->n_cores;
  plan->topo_pus = (unsigned)hwloc_bitmap_weight(t->online_cpus);
  plan->reserved_cpus = hwloc_bitmap_dup(p->reserved);
  plan->reserved_mems = hwloc_bitmap_alloc();
  plan->free_cpus = hwloc_bitmap_alloc();
  if (!plan->profile_name || !plan->topology_source || !plan->reserved_cpus || !plan->reserved_mems || !plan->free_cpus)
    return planner_oom(p);
  planner_nodes_of_cpus(p, p->reserved, plan->reserved_mems);
  for (size_t i = 0; i < p->n_nodes; i++)
    plan->reserved_memory_bytes += p->nodes[i].memory_reserved;
  size_t n = 0;
  for (size_t r = 0; r < p->profile->n_roles; r++)
    n += p->roles[r].n;
  plan->instances = calloc(n ? n : 1, sizeof(*plan->instances));
  if (plan->instances == NULL)
    return planner_oom(p);
  for (size_t r = 0; r < p->profile->n_roles; r++) {
    struct role_state *rs = &p->roles[r];
    if (rs->n == 0)
      continue;
    for (size_t i = 0; i < rs->n; i++)
      align_l3s_of(t, rs->inst[i].cpus, rs->inst[i].l3s);
    memcpy(&plan->instances[plan->n_instances], rs->inst, rs->n * sizeof(*rs->inst));
    plan->n_instances += rs->n;
    rs->n = 0; /* moved */
  }
  /* free: what neither the reserve nor an instance holds.  Not usable - used:
   * a pool keeps every PU it was given, also those no instance took when a
   * count: fill role stopped at max_count, and those are nobody's. */
  hwloc_bitmap_andnot(plan->free_cpus, p->usable, p->reserved);
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_andnot(plan->free_cpus, plan->free_cpus, plan->instances[i].cpus);

  if (p->n_warnings)
    qsort(p->warnings, p->n_warnings, sizeof(*p->warnings), compare_warnings);
  plan->warnings = calloc(p->n_warnings ? p->n_warnings : 1, sizeof(char *));
  if (plan->warnings == NULL)
    return planner_oom(p);
  for (size_t i = 0; i < p->n_warnings; i++) {
    plan->warnings[plan->n_warnings++] = p->warnings[i].text;
    p->warnings[i].text = NULL;
  }
  plan->nic_cores = TAKE_PTR(p->nic_cores);
  plan->n_nic_cores = p->n_nic_cores;
  p->n_nic_cores = 0;
  return 0;
}

static void planner_release(struct planner *p) {
  hwloc_bitmap_free(p->usable);
  hwloc_bitmap_free(p->used);
  hwloc_bitmap_free(p->reserved);
  hwloc_bitmap_free(p->snapshot);
  hwloc_bitmap_free(p->prefer);
  for (size_t i = 0; i < p->n_nodes; i++) {
    free(p->nodes[i].cores);
    free(p->nodes[i].first_over);
  }
  free(p->nodes);
  if (p->roles)
    for (size_t r = 0; r < p->profile->n_roles; r++) {
      for (size_t i = 0; i < p->roles[r].n; i++)
        placer_instance_clear(&p->roles[r].inst[i]);
      free(p->roles[r].inst);
    }
  free(p->roles);
  for (size_t i = 0; i < p->n_pools; i++) {
    hwloc_bitmap_free(p->pools[i].cpus);
    for (size_t k = 0; p->pools[i].node_cpus && k < p->n_nodes; k++)
      hwloc_bitmap_free(p->pools[i].node_cpus[k]);
    free(p->pools[i].node_cpus);
  }
  free(p->pools);
  for (size_t i = 0; i < p->n_warnings; i++)
    free(p->warnings[i].text);
  free(p->warnings);
  free(p->storage_nic);
  for (size_t i = 0; i < p->n_nic_cores; i++) {
    free(p->nic_cores[i].nic);
    hwloc_bitmap_free(p->nic_cores[i].cpus);
  }
  free(p->nic_cores);
  free(p->owner);
}

/* What the cache alignment reads: who holds each PU, and whether align:
 * auto means cache here.  A role that asks for cache alignment on a
 * topology that knows no shared cache gets a note, not an error. */
static int setup_align(struct planner *p) {
  int last = hwloc_bitmap_last(p->topo->online_cpus);
  p->n_owner = last >= 0 ? (size_t)last + 1 : 0;
  p->owner = calloc(p->n_owner ? p->n_owner : 1, sizeof(*p->owner));
  if (p->owner == NULL)
    return planner_oom(p);
  p->several_l3 = align_several_l3_per_node(p->topo);
  p->align.owner = p->owner;
  p->align.n_owner = p->n_owner;
  if (!p->profile->pin || align_has_caches(p->topo))
    return 0;
  for (size_t r = 0; r < p->profile->n_roles; r++)
    if (p->profile->roles[r].cpu.align == PLACER_ALIGN_CACHE &&
        planner_warn(p, 0, r + 1, 0,
                     "role '%s': align: cache, but the topology knows no cache shared by cores (no L3, no L2 "
                     "cluster): aligned to cores and NUMA nodes",
                     p->profile->roles[r].name) < 0)
      return -1;
  return 0;
}

int placer_plan_compute(const struct placer_topology *topo, const struct placer_profile *profile,
                        struct placer_plan **out, struct placer_error **err) {
  struct planner p = { .topo = topo, .profile = profile, .err = err };
  struct placer_plan *plan = NULL;
  int rc = -1;
  p.usable = hwloc_bitmap_alloc();
  p.used = hwloc_bitmap_alloc();
  p.reserved = hwloc_bitmap_alloc();
  p.snapshot = hwloc_bitmap_alloc();
  p.prefer = hwloc_bitmap_alloc();
  p.roles = calloc(profile->n_roles ? profile->n_roles : 1, sizeof(*p.roles));
  if (!p.usable || !p.used || !p.reserved || !p.snapshot || !p.prefer || !p.roles) {
    planner_oom(&p);
    goto out;
  }
  hwloc_bitmap_copy(p.usable, topo->online_cpus);
  if (topo->allowed_cpus)
    hwloc_bitmap_and(p.usable, p.usable, topo->allowed_cpus);
  if (hwloc_bitmap_iszero(p.usable)) { /* an empty allowed cpuset: no plan on CPUs placer may not use */
    planner_infeasible(&p, "topology '%s': no CPU is allowed here (its allowed cpuset has none of its online CPUs)",
                       topo->source);
    goto out;
  }
  p.align = (struct align_ctx){ topo, p.usable, p.used, p.reserved, NULL, 0 };
  for (size_t r = 0; r < profile->n_roles; r++) {
    p.roles[r].spec = &profile->roles[r];
    p.roles[r].pos = r;
  }
  if (planner_setup_nodes(&p) < 0 || setup_pools(&p) < 0 || planner_select_storage_nics(&p) < 0 || setup_align(&p) < 0)
    goto out;
  if (p.n_nodes == 0) {
    planner_infeasible(&p, "topology '%s' has no NUMA node", topo->source);
    goto out;
  }
  if (planner_reserve(&p) < 0)
    goto out;
  for (int phase = 0; phase < PLANNER_PHASES; phase++)
    for (size_t r = 0; r < profile->n_roles; r++) {
      const struct planner_strategy *strategy = planner_strategy_for(profile, &profile->roles[r]);
      if (strategy == NULL) { /* never: test_planner_strategy finds one for every kind of role */
        planner_infeasible(&p, "role '%s': no placement strategy applies", profile->roles[r].name);
        goto out;
      }
      if (strategy->phase == phase && place_role(&p, &p.roles[r], strategy) < 0)
        goto out;
    }
  if (memory_warnings(&p) < 0)
    goto out;
  plan = calloc(1, sizeof(*plan));
  if (plan == NULL) {
    planner_oom(&p);
    goto out;
  }
  if (assemble(&p, plan) < 0 || placer_plan_mds(topo, plan, err) < 0 || placer_plan_irqs(topo, profile, plan, err) < 0)
    goto out;
  *out = TAKE_PTR(plan);
  rc = 0;
out:
  placer_plan_free(plan);
  planner_release(&p);
  return rc;
}
