/* The cgroupfs backend of placer apply, before the first change: the targets
 * from the plan, every --pid/--qmp argument, the processes the matchers
 * find, the groups' room in their parents, and a state directory of the same
 * subtree. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "lib/cpulist.h"
#include "lib/pid-list.h"
#include "proc.h"
#include "procmatch.h"
#include "topology/topology.h"
#include "lib/units.h"
#include "vcpu.h"

int applier_add_proc(struct target *t, pid_t pid, pid_t root_pid, size_t *index, struct placer_error **err) {
  for (size_t i = 0; i < t->n_procs; i++)
    if (t->procs[i].pid == pid) {
      if (index)
        *index = i;
      return 0;
    }
  struct bound_proc *bigger = realloc(t->procs, (t->n_procs + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return placer_error_oom(err, NULL);
  t->procs = bigger;
  struct bound_proc *p = &t->procs[t->n_procs];
  memset(p, 0, sizeof(*p));
  if (placer_proc_start_time(pid, &p->start_time, err) < 0)
    return placer_error_prefix(err, "%s", t->inst->name);
  char *comm = placer_proc_comm(pid);
  p->comm = comm ? comm : strdup("?");
  p->pid = pid;
  p->root_pid = root_pid;
  if (index)
    *index = t->n_procs;
  t->n_procs++;
  return 0;
}

int applier_other_pids(const struct applier *a, const struct target *t, pid_t **out, size_t *n,
                       struct placer_error **err) {
  size_t total = 0;
  for (size_t i = 0; i < a->n_targets; i++)
    if (&a->targets[i] != t)
      total += a->targets[i].n_procs;
  pid_t *v = malloc((total ? total : 1) * sizeof(*v));
  if (v == NULL)
    return placer_error_oom(err, NULL);
  size_t k = 0;
  for (size_t i = 0; i < a->n_targets; i++)
    for (size_t j = 0; &a->targets[i] != t && j < a->targets[i].n_procs; j++)
      v[k++] = a->targets[i].procs[j].pid;
  *out = v;
  *n = k;
  return 0;
}

/* The vCPUs of P and the PU each goes to: the k-th vCPU (by cpu-index) on
 * the k-th PU of the instance's cpus. */
static int plan_vcpus(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  if (placer_vcpu_find(p->pid, t->pd->qmp_socket, &p->vcpus, &p->n_vcpus, &p->vcpu_source, err) < 0)
    return placer_error_prefix(err, "%s: vCPUs of pid %d", t->inst->name, (int)p->pid);
  if (p->n_vcpus == 0) {
    placer_string_list_addf(&a->notes,
                            "%s: pid %d (%s): no vCPU threads found (no QMP answer, no 'CPU n/KVM' or 'CPU n/TCG' "
                            "threads): vCPUs not pinned one by one",
                            t->inst->name, (int)p->pid, p->comm);
    return 0;
  }
  return applier_vcpu_pus(a, t, p, err);
}

int applier_vcpu_pus(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  unsigned n_pus = (unsigned)hwloc_bitmap_weight(t->inst->cpus);
  if ((p->vcpu_cpus = calloc(p->n_vcpus ? p->n_vcpus : 1, sizeof(*p->vcpu_cpus))) == NULL)
    return placer_error_oom(err, NULL);
  if (n_pus < p->n_vcpus)
    placer_string_list_addf(&a->notes, "%s: pid %d has %zu vCPUs on %u PUs: some vCPUs share a PU", t->inst->name,
                            (int)p->pid, p->n_vcpus, n_pus);
  for (size_t k = 0; k < p->n_vcpus; k++)
    if (asprintf(&p->vcpu_cpus[k], "%d", placer_cpulist_nth(t->inst->cpus, p->vcpus[k].cpu_index)) < 0)
      return placer_error_oom(err, NULL);
  return 0;
}

static int check_subset(const char *inst, const char *what, const char *want, const char *where, const char *allowed,
                        struct placer_error **err) {
  hwloc_bitmap_t w = hwloc_bitmap_alloc(), al = hwloc_bitmap_alloc();
  int ret = 0;
  if (w == NULL || al == NULL) {
    ret = placer_error_oom(err, NULL);
  } else if (placer_cpulist_parse(allowed, al) < 0) {
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: cannot parse %s '%s'", where, what, allowed);
  } else if (placer_cpulist_parse(want, w) < 0 || hwloc_bitmap_iszero(w)) {
    ret = placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL, "%s: planned %s '%s' is empty or invalid", inst, what,
                           want);
  } else if (!hwloc_bitmap_isincluded(w, al)) {
    hwloc_bitmap_andnot(w, w, al);
    cleanup_free char *missing = placer_cpulist_format(w);
    ret = placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL,
                           "%s: planned %s %s, but %s has only %s (%s missing); was the plan made for another "
                           "machine (--topology)?",
                           inst, what, want, where, allowed, missing ? missing : "?");
  }
  hwloc_bitmap_free(w);
  hwloc_bitmap_free(al);
  return ret;
}

int applier_build_targets(struct applier *a, struct placer_error **err) {
  const struct placer_plan *plan = a->plan;
  const struct placer_apply_options *opt = a->opt;
  for (size_t i = 0; i < opt->n_pids; i++)
    if (placer_plan_find(plan, opt->pids[i].instance) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: the plan has no instance '%s'",
                              opt->pids[i].instance, opt->pids[i].value, opt->pids[i].instance);
  for (size_t i = 0; i < opt->n_qmps; i++)
    if (placer_plan_find(plan, opt->qmps[i].instance) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--qmp %s=%s: the plan has no instance '%s'",
                              opt->qmps[i].instance, opt->qmps[i].value, opt->qmps[i].instance);
  if (plan->n_instances == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "the plan has no instances: nothing to apply");
  if (placer_placement_compute(plan, a->prefix, opt->qmps, opt->n_qmps, &a->placement, err) < 0)
    return -1;
  a->targets = calloc(plan->n_instances, sizeof(*a->targets));
  if (a->targets == NULL)
    return placer_error_oom(err, NULL);
  a->n_targets = plan->n_instances;
  for (size_t i = 0; i < a->n_targets; i++) {
    a->targets[i].pd = &a->placement->v[i];
    a->targets[i].inst = a->placement->v[i].inst;
  }
  return 0;
}

int applier_check_fit(struct applier *a, struct placer_error **err) {
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    cleanup_free char *parent = placer_cgroup_existing_parent(a->cg, t->pd->group);
    cleanup_free char *cpus = NULL, *mems = NULL;
    if (parent == NULL)
      return placer_error_oom(err, NULL);
    if (placer_cgroup_read_effective(a->cg, parent, &cpus, &mems, err) < 0)
      return placer_error_prefix(err, "%s", t->inst->name);
    char where[512];
    snprintf(where, sizeof(where), "cgroup %s", *parent ? parent : "root");
    if (check_subset(t->inst->name, "cpus", t->pd->values.cpus, where, cpus, err) < 0 ||
        check_subset(t->inst->name, "mems", t->pd->values.mems, where, mems, err) < 0)
      return -1;
  }
  return 0;
}

int applier_resolve_processes(struct applier *a, struct placer_error **err) {
  /* The model binds them, with the checks both backends make. */
  if (!a->opt->processes_by_watcher &&
      placer_placement_bind(a->placement, a->opt->pids, a->opt->n_pids, a->opt->strict, err) < 0)
    return -1;
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    const struct placer_placed *pd = t->pd;
    t->explicit_pids = pd->by_pid;
    if (pd->note && (t->note = strdup(pd->note)) == NULL)
      return placer_error_oom(err, NULL);
    if ((t->procs = calloc(pd->n_procs ? pd->n_procs : 1, sizeof(*t->procs))) == NULL)
      return placer_error_oom(err, NULL);
    for (size_t k = 0; k < pd->n_procs; k++) {
      struct bound_proc *p = &t->procs[t->n_procs++];
      p->pid = pd->procs[k].pid;
      p->start_time = pd->procs[k].start_time;
      p->root_pid = pd->procs[k].root_pid;
      if ((p->comm = strdup(pd->procs[k].comm)) == NULL)
        return placer_error_oom(err, NULL);
      if (t->inst->pin_vcpus && p->root_pid == 0 && plan_vcpus(a, t, p, err) < 0)
        return -1;
    }
  }
  return 0;
}

/* The state directory must describe the same subtree and profile. */
int applier_check_state(struct applier *a, const char *cgroup_root, struct placer_error **err) {
  struct placer_state *s = a->state;
  if (placer_state_is_empty(s))
    return 0;
  const char *mode = placer_cgroup_mode_name(placer_cgroup_get_mode(a->cg));
  if (s->prefix && strcmp(s->prefix, a->prefix) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s holds placer groups under '%s', not '%s': use the same prefix, or run 'placer reset' "
                            "first",
                            s->dir, s->prefix, a->prefix);
  if ((s->cgroup_mode && strcmp(s->cgroup_mode, mode) != 0) ||
      (s->cgroup_root && strcmp(s->cgroup_root, cgroup_root) != 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s was applied to cgroup %s at %s, this is cgroup %s at %s: run 'placer reset' first",
                            s->dir, s->cgroup_mode ? s->cgroup_mode : "?", s->cgroup_root ? s->cgroup_root : "?", mode,
                            cgroup_root);
  if (s->n_instances > 0) {
    if (s->profile_name && a->plan->profile_name && strcmp(s->profile_name, a->plan->profile_name) != 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "profile '%s' is applied (state %s); run 'placer reset' before applying '%s'",
                              s->profile_name, s->dir, a->plan->profile_name);
    for (size_t i = 0; i < s->n_instances; i++)
      if (placer_plan_find(a->plan, s->instances[i].name) == NULL)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                "%s is applied but no longer in the plan of '%s'; run 'placer reset' first",
                                s->instances[i].name, a->plan->profile_name ? a->plan->profile_name : "?");
  }
  return 0;
}
