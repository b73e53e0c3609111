/* The cgroupfs backend for placer watch: one more process bound to an
 * applied instance, moved in by apply's own steps (each move journaled
 * before it happens, apply-cgroupfs-steps.c), a bound qemu's vCPU threads
 * pinned one per PU by the same steps, and the journal's records of
 * processes that have exited since forgotten. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "proc.h"

/* The records of processes gone dropped from STATE (not saved); how many. */
static size_t forget_exited(struct placer_state *state) {
  size_t n = 0;
  for (size_t i = state->n_journal; i-- > 0;) {
    const struct placer_journal_entry *e = &state->journal[i];
    if ((e->op == PLACER_JOURNAL_MOVE || e->op == PLACER_JOURNAL_AFFINITY) &&
        !placer_proc_is_same(e->pid, e->start_time)) {
      placer_state_journal_remove(state, i);
      n++;
    }
  }
  return n;
}

/* An applier over what the watcher holds: its locked STATE, CG and the
 * model PL; no fault injection, no dry run. */
static const struct placer_apply_options no_faults;

static struct applier watcher_applier(struct placer_state *state, struct placer_cgroup *cg,
                                      struct placer_placement *pl) {
  return (struct applier){ .cg = cg,
                           .state = state,
                           .state_held = true,
                           .plan = pl->plan,
                           .opt = &no_faults,
                           .prefix = pl->prefix,
                           .placement = pl };
}

static void watcher_applier_clear(struct applier *a, struct target *t) {
  applier_target_clear(t);
  placer_string_list_free(&a->actions);
  placer_string_list_free(&a->notes);
  placer_string_list_free(&a->groups_changed);
}

/* BP, a pin_vcpus VM's qemu: its vCPU threads by name (never QMP from
 * the watcher's loop) and the PU of each.  One that has exited has none. */
static int bound_vcpus(struct applier *a, struct target *t, struct bound_proc *bp, struct placer_error **err) {
  struct placer_error *gone = NULL;
  if (placer_vcpu_find_by_name(bp->pid, &bp->vcpus, &bp->n_vcpus, &gone) < 0) {
    bool oom = gone && gone->errno_value == ENOMEM;
    placer_error_free(gone);
    if (oom)
      return placer_error_oom(err, NULL);
    bp->n_vcpus = 0;
  }
  bp->vcpu_source = "thread names";
  return applier_vcpu_pus(a, t, bp, err);
}

/* T's processes moved in and their threads pinned as one transaction of
 * its own (its number given back when nothing was journaled).  PID (started
 * at START_TIME) is the process asked for: one that ends while it is moved
 * or checked (v1 shows a process in do_exit() in the root) is no failure,
 * placed when a record was journaled and cgroup.procs did not refuse it
 * for being gone (ESRCH): its threads were moved, only their check failed.
 * *steps: the steps made; *gone (may be NULL): PID ended before any. */
static int journaled_steps(struct applier *a, struct target *t, pid_t pid, uint64_t start_time, size_t *steps,
                           bool *gone, struct placer_error **err) {
  /* Saved with the move's record: in a storm of short processes the state
   * written for each move stays the size of what runs.  A record appended
   * to the log (journal_appends) saves nothing else: the interval's
   * placer_apply_forget_exited() drops them and saves. */
  if (!a->state->journal_appends)
    forget_exited(a->state);
  size_t journaled_before = a->state->n_journal;
  a->txn = ++a->state->last_txn;
  int rc = applier_bind_procs(a, t, 0, err);
  if (a->state->n_journal == journaled_before)
    a->state->last_txn--; /* nothing was journaled under it */
  *steps = a->steps;
  /* One that ends while it is moved or checked (v1 shows a process in
   * do_exit() in the root) is no failure: placed when its move was
   * journaled and cgroup.procs did not refuse it for being gone (ESRCH):
   * its threads were moved, only their check failed. */
  if (rc < 0 && (!placer_proc_is_same(pid, start_time) || placer_task_exiting(pid, pid))) {
    bool written = a->state->n_journal > journaled_before && (*err)->errno_value != ESRCH;
    placer_error_clear(err);
    if (gone)
      *gone = *steps == 0 && !written;
    if (*steps == 0 && written)
      *steps = 1;
    rc = 0;
  }
  return rc;
}

int placer_apply_bind_pid(struct placer_state *state, struct placer_cgroup *cg, struct placer_placement *pl,
                          struct placer_placed *p, pid_t pid, size_t *moved, bool *gone, struct placer_error **err) {
  *moved = 0;
  *gone = false;
  uint64_t start_time = 0;
  struct placer_error *exited = NULL;
  if (placer_proc_start_time(pid, &start_time, &exited) < 0) {
    placer_error_free(exited);
    *gone = true;
    return 0;
  }
  size_t before = p->n_procs;
  if (placer_placement_bind_pid(pl, p, pid, err) < 0) {
    if (placer_proc_is_same(pid, start_time))
      return -1;
    placer_error_clear(err);
    *gone = true;
    return 0;
  }
  struct applier a = watcher_applier(state, cg, pl);
  struct target t = { .pd = p, .inst = p->inst };
  int rc = 0;
  for (size_t i = before; rc == 0 && i < p->n_procs; i++) {
    struct placer_error *left = NULL;
    size_t idx = 0;
    if (applier_add_proc(&t, p->procs[i].pid, p->procs[i].root_pid, &idx, &left) < 0) {
      if (left && left->errno_value == ENOMEM)
        rc = placer_error_oom(err, NULL);
      placer_error_clear(&left); /* exited since it was bound: nothing to move */
    } else if (p->inst->pin_vcpus && p->procs[i].root_pid == 0) {
      rc = bound_vcpus(&a, &t, &t.procs[idx], err); /* a qemu that runs already (a rescan): pinned as it is moved */
    }
  }
  if (rc == 0 && t.n_procs > 0)
    rc = journaled_steps(&a, &t, pid, start_time, moved, gone, err);
  watcher_applier_clear(&a, &t);
  return rc;
}

int placer_apply_pin_vcpus(struct placer_state *state, struct placer_cgroup *cg, struct placer_placement *pl,
                           const struct placer_placed *p, pid_t pid, size_t *changed, struct placer_error **err) {
  *changed = 0;
  const struct placer_placed_proc *bound = NULL;
  for (size_t i = 0; i < p->n_procs && bound == NULL; i++)
    if (p->procs[i].pid == pid && p->procs[i].root_pid == 0)
      bound = &p->procs[i];
  if (bound == NULL || !p->inst->pin_vcpus)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: pid %d is not a qemu whose vCPUs it pins",
                            p->inst->name, (int)pid);
  struct applier a = watcher_applier(state, cg, pl);
  struct target t = { .pd = p, .inst = p->inst };
  size_t idx = 0;
  struct placer_error *left = NULL;
  int rc = 0;
  if (applier_add_proc(&t, pid, 0, &idx, &left) < 0) {
    if (left && left->errno_value == ENOMEM)
      rc = placer_error_oom(err, NULL);
    placer_error_clear(&left);                               /* exited: nothing to pin */
  } else if (t.procs[idx].start_time == bound->start_time) { /* not another process under a reused PID */
    rc = bound_vcpus(&a, &t, &t.procs[idx], err);
    if (rc == 0)
      rc = journaled_steps(&a, &t, pid, bound->start_time, changed, NULL, err);
  }
  watcher_applier_clear(&a, &t);
  return rc;
}

int placer_apply_forget_exited(struct placer_state *state, size_t *forgotten, struct placer_error **err) {
  size_t n = forget_exited(state);
  if (forgotten)
    *forgotten = n;
  return n > 0 ? placer_state_save(state, err) : 0;
}
