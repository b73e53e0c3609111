/* Which of a study's roles are storage, neighbours or clients, and the CPU a
 * variant gives its storage roles, read off its plan: where its
 * response curve sits in a CPU split (report.html's sweep plot, the balance
 * point from curves, the per-core figures per core allocated).  A pinned
 * variant whose OSDs have one CPU of their own is at 1, a quota step at its
 * quota, the unconstrained base nowhere (NAN). */
#include "bench/internal.h"

#include <math.h>
#include <string.h>

/* A role of the class CLASS ("storage", "neighbours", "clients"): storage is
 * the sweep's roles, else every ceph-osd role (no Ceph: fio's);
 * neighbours the study's neighbours' roles; clients everything that is not
 * Ceph nor storage. */
bool bench_role_in_class(const struct placer_study *s, const struct placer_role_spec *r, const char *cls) {
  bool storage = s->sweep.roles.n                               ? placer_string_list_has(&s->sweep.roles, r->name)
                 : s->cluster.type == PLACER_STUDY_CLUSTER_NONE ? r->kind == PLACER_KIND_FIO
                                                                : r->kind == PLACER_KIND_CEPH_OSD;
  if (strcmp(cls, "storage") == 0)
    return storage;
  if (strcmp(cls, "neighbours") == 0) {
    for (size_t i = 0; i < s->n_neighbours; i++)
      if (strcmp(s->neighbours[i].role, r->name) == 0)
        return true;
    return false;
  }
  return !storage && !placer_role_kind_is_ceph(r->kind); /* clients */
}

double bench_storage_cpus(const struct bench *b, const struct variant *v) {
  const struct placer_plan *plan = v->plan;
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  if (cpus == NULL)
    return NAN;
  bool any = false, all_pinned = true, all_quota = true;
  double quota = 0;
  const char *counted[PLACER_BENCH_MAX];
  size_t n_counted = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    const struct placer_role_spec *role = placer_profile_role(v->profile, inst->role);
    if (role == NULL || !bench_role_in_class(b->study, role, "storage"))
      continue;
    any = true;
    if (inst->pinned)
      hwloc_bitmap_or(cpus, cpus, inst->cpus);
    else
      all_pinned = false;
    /* the quota is the role group's: once per role */
    bool seen = false;
    for (size_t k = 0; k < n_counted && !seen; k++)
      seen = strcmp(counted[k], inst->role) == 0;
    if (seen)
      continue;
    if (n_counted < PLACER_BENCH_MAX)
      counted[n_counted++] = inst->role;
    if (inst->cpu_quota)
      quota += inst->cpu_quota / 1000.0;
    else
      all_quota = false;
  }
  double given = INFINITY;
  if (any && all_pinned)
    given = hwloc_bitmap_weight(cpus);
  if (any && all_quota && quota < given)
    given = quota;
  hwloc_bitmap_free(cpus);
  /* the whole node is no limit: the unconstrained base */
  return isfinite(given) && given < (double)plan->topo_pus ? given : NAN;
}
