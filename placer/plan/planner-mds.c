/* What the plan says of each MDS (plan->mds; docs/profiles.md, "The MDS"):
 * the whole cores it holds and that no other instance holds a PU of, its NIC,
 * and the cache its memory gives it.  The placing itself is the planner's
 * (planner_role_whole_cores: an MDS of its own CPUs takes whole cores; its
 * default locality, the storage NIC, is the profile's); this reads the placed
 * instances back so that `placer plan` says what the MDS got.  Pure. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan-internal.h"
#include "plan/planner-internal.h"
#include "lib/units.h"

/* The least memory an MDS daemon is given: Red Hat Ceph Storage's hardware
 * guide, "2 GB per daemon" (minimum recommendations).  Less is a warning:
 * half of it as cache leaves too little beside it (docs/profiles.md). */
#define MDS_MEMORY_MIN (2ULL << 30)

uint64_t placer_mds_cache_limit(uint64_t memory_bytes) {
  return memory_bytes / PLACER_MDS_MEMORY_PER_CACHE;
}

const struct placer_plan_mds *placer_plan_mds_of(const struct placer_plan *plan, size_t index) {
  for (size_t i = 0; i < plan->n_mds; i++)
    if (plan->mds[i].instance == index)
      return &plan->mds[i];
  return NULL;
}

void placer_plan_mds_clear(struct placer_plan *plan) {
  for (size_t i = 0; i < plan->n_mds; i++) {
    struct placer_plan_mds *m = &plan->mds[i];
    hwloc_bitmap_free(m->first_pus);
    hwloc_bitmap_free(m->siblings);
    hwloc_bitmap_free(m->not_held);
    hwloc_bitmap_free(m->nic_nodes);
    for (size_t k = 0; k < m->n_shared_with; k++)
      free(m->shared_with[k]);
    free(m->shared_with);
  }
  free(plan->mds);
  plan->mds = NULL;
  plan->n_mds = 0;
}

/* M's cores: every core of TOPO that holds a PU of its cpus. */
static void cores_of(const struct placer_topology *topo, const struct placer_instance *inst, struct placer_plan_mds *m,
                     hwloc_bitmap_t core_pus) {
  for (size_t c = 0; c < topo->n_cores; c++) {
    hwloc_const_bitmap_t pus = topo->cores[c].pus;
    if (!hwloc_bitmap_intersects(pus, inst->cpus))
      continue;
    m->n_cores++;
    hwloc_bitmap_set(m->first_pus, (unsigned)hwloc_bitmap_first(pus));
    hwloc_bitmap_or(core_pus, core_pus, pus);
  }
  hwloc_bitmap_and(m->siblings, core_pus, inst->cpus);
  hwloc_bitmap_andnot(m->siblings, m->siblings, m->first_pus);
  hwloc_bitmap_andnot(m->not_held, core_pus, inst->cpus);
}

static int fill(const struct placer_topology *topo, const struct placer_plan *plan, size_t index,
                struct placer_plan_mds *m) {
  const struct placer_instance *inst = &plan->instances[index];
  m->instance = index;
  m->first_pus = hwloc_bitmap_alloc();
  m->siblings = hwloc_bitmap_alloc();
  m->not_held = hwloc_bitmap_alloc();
  m->nic_nodes = hwloc_bitmap_alloc();
  m->shared_with = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*m->shared_with));
  hwloc_bitmap_t core_pus = hwloc_bitmap_alloc();
  int rc = -1;
  if (!m->first_pus || !m->siblings || !m->not_held || !m->nic_nodes || !m->shared_with || !core_pus)
    goto out;
  m->has_cache_limit = inst->has_memory_limit;
  m->cache_limit_bytes = inst->has_memory_limit ? placer_mds_cache_limit(inst->memory_bytes) : 0;
  for (size_t i = 0; inst->nic && i < topo->n_nics; i++)
    if (strcmp(topo->nics[i].name, inst->nic) == 0)
      hwloc_bitmap_copy(m->nic_nodes, topo->nics[i].numa_nodes);
  if (inst->pinned) {
    cores_of(topo, inst, m, core_pus);
    for (size_t k = 0; k < plan->n_instances; k++)
      if (k != index && plan->instances[k].pinned && hwloc_bitmap_intersects(plan->instances[k].cpus, core_pus) &&
          (m->shared_with[m->n_shared_with++] = strdup(plan->instances[k].name)) == NULL)
        goto out;
  }
  rc = 0;
out:
  hwloc_bitmap_free(core_pus);
  return rc;
}

static int warn(struct placer_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct placer_plan *plan, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = planner_vappend(&plan->warnings, &plan->n_warnings, fmt, ap);
  va_end(ap);
  return rc;
}

/* An MDS given less than Red Hat's least: its cache is half of it, and a
 * small MDS's resident memory runs past twice its cache (measured here:
 * 2.4 times a 256 MiB cache), so its memory limit may OOM-kill it. */
static int small_memory_warning(struct placer_plan *plan, const struct placer_plan_mds *m) {
  const struct placer_instance *inst = &plan->instances[m->instance];
  if (!m->has_cache_limit || inst->memory_bytes >= MDS_MEMORY_MIN)
    return 0;
  char memory[32], cache[32];
  placer_format_bytes(inst->memory_bytes, memory, sizeof(memory));
  placer_format_bytes(m->cache_limit_bytes, cache, sizeof(cache));
  return warn(plan,
              "%s: %s of memory, under the 2 GiB an MDS needs at least (Red Hat's hardware guide): its cache gets %s, "
              "and a small MDS's resident memory runs past twice its cache (docs/profiles.md, \"The MDS\"), so its "
              "memory limit may kill it",
              inst->name, memory, cache);
}

int placer_plan_mds(const struct placer_topology *topo, struct placer_plan *plan, struct placer_error **err) {
  size_t n = 0;
  for (size_t i = 0; i < plan->n_instances; i++)
    n += plan->instances[i].kind == PLACER_KIND_CEPH_MDS;
  if (n == 0)
    return 0;
  plan->mds = calloc(n, sizeof(*plan->mds));
  if (plan->mds == NULL)
    return placer_error_oom(err, "plan the MDS");
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_CEPH_MDS &&
        (fill(topo, plan, i, &plan->mds[plan->n_mds]) < 0 || small_memory_warning(plan, &plan->mds[plan->n_mds++]) < 0))
      return placer_error_oom(err, "plan the MDS");
  return 0;
}
