/* The cgroupfs backend of placer apply, after the changes: the instances
 * recorded in the state and the report the command prints. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "proc.h"
#include "procmatch.h"
#include "topology/topology.h"
#include "lib/units.h"
#include "vcpu.h"

int applier_record_instances(struct applier *a, struct placer_error **err) {
  struct placer_state *s = a->state;
  struct placer_state_instance *list = calloc(a->n_targets, sizeof(*list));
  if (list == NULL)
    return placer_error_oom(err, NULL);
  bool oom = false;
  for (size_t i = 0; i < a->n_targets; i++) {
    const struct target *t = &a->targets[i];
    const struct placer_instance *inst = t->inst;
    struct placer_state_instance *si = &list[i];
    si->name = strdup(inst->name);
    si->role = strdup(inst->role);
    si->kind = inst->kind;
    si->group = strdup(t->pd->group);
    si->pinned = inst->pinned;
    si->cpus = strdup(t->pd->values.cpus);
    si->mems = strdup(t->pd->values.mems);
    si->has_memory_limit = inst->has_memory_limit;
    si->memory_bytes = inst->memory_bytes;
    si->cpu_weight = inst->cpu_weight;
    si->cpu_quota = inst->cpu_quota;
    si->pin_vcpus = inst->pin_vcpus;
    si->match.kind = inst->match.kind;
    si->match.value = inst->match.value ? strdup(inst->match.value) : NULL;
    si->qmp_socket = t->pd->qmp_socket ? strdup(t->pd->qmp_socket) : NULL;
    si->by_pid = t->explicit_pids;
    si->procs = calloc(t->n_procs ? t->n_procs : 1, sizeof(*si->procs));
    if (!si->name || !si->role || !si->group || !si->cpus || !si->mems || !si->procs ||
        (inst->match.value && !si->match.value) || (t->pd->qmp_socket && !si->qmp_socket))
      oom = true;
    /* The bound processes; status finds their descendants anew. */
    si->n_procs = 0;
    for (size_t k = 0; si->procs && k < t->n_procs; k++)
      if (t->procs[k].root_pid == 0)
        si->procs[si->n_procs++] = (struct placer_state_process){ t->procs[k].pid, t->procs[k].start_time };
  }
  if (oom) {
    for (size_t i = 0; i < a->n_targets; i++)
      placer_state_instance_clear(&list[i]);
    free(list);
    return placer_error_oom(err, NULL);
  }
  placer_state_clear_instances(s);
  s->instances = list;
  s->n_instances = a->n_targets;
  return 0;
}

int applier_build_report(struct applier *a, struct placer_apply_report **out, struct placer_error **err) {
  struct placer_apply_report *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return placer_error_oom(err, NULL);
  r->profile_name = a->plan->profile_name ? strdup(a->plan->profile_name) : NULL;
  r->cgroup_mode = placer_cgroup_mode_name(placer_cgroup_get_mode(a->cg));
  snprintf(r->where, sizeof(r->where), "cgroup %s", r->cgroup_mode);
  r->state_dir = strdup(a->state->dir);
  r->dry_run = a->dry_run;
  r->steps = a->steps;
  r->actions = placer_string_list_release(&a->actions, &r->n_actions);
  r->notes = placer_string_list_release(&a->notes, &r->n_notes);
  r->groups_created = placer_string_list_release(&a->groups_created, &r->n_groups_created);
  r->groups_changed = placer_string_list_release(&a->groups_changed, &r->n_groups_changed);
  r->instances = calloc(a->n_targets, sizeof(*r->instances));
  if (r->instances == NULL) {
    placer_apply_report_free(r);
    return placer_error_oom(err, NULL);
  }
  r->n_instances = a->n_targets;
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    struct placer_apply_instance_report *ri = &r->instances[i];
    ri->name = strdup(t->inst->name);
    ri->group = strdup(t->pd->group);
    ri->cpus = strdup(t->pd->values.cpus);
    ri->mems = strdup(t->pd->values.mems);
    ri->has_memory_limit = t->inst->has_memory_limit;
    ri->memory_bytes = t->inst->memory_bytes;
    ri->note = TAKE_PTR(t->note);
    ri->changes = t->changes;
    ri->bound = calloc(t->n_procs ? t->n_procs : 1, sizeof(*ri->bound));
    if (ri->bound == NULL)
      continue;
    for (size_t k = 0; k < t->n_procs; k++) {
      struct bound_proc *p = &t->procs[k];
      if (p->root_pid != 0)
        continue;
      struct placer_apply_bound *b = &ri->bound[ri->n_bound++];
      b->pid = p->pid;
      b->comm = TAKE_PTR(p->comm);
      pid_t *tids = NULL;
      size_t n = 0;
      struct placer_error *gone = NULL;
      if (placer_task_list(p->pid, &tids, &n, &gone) < 0)
        placer_error_clear(&gone);
      free(tids);
      b->n_threads = n;
      for (size_t d = 0; d < t->n_procs; d++)
        if (t->procs[d].root_pid == p->pid && !t->procs[d].gone &&
            placer_proc_is_same(t->procs[d].pid, t->procs[d].start_time))
          b->n_descendants++;
      ri->n_vcpus_pinned += p->n_vcpus;
      if (p->n_vcpus)
        ri->vcpu_source = p->vcpu_source;
    }
  }
  *out = r;
  return 0;
}
