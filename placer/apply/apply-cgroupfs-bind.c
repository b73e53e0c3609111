/* The cgroupfs backend for placer watch: one more process bound to an
 * applied instance, moved in by apply's own steps (each move journaled
 * before it happens, apply-cgroupfs-steps.c), and the journal's records of
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
  struct placer_apply_options no_faults = { 0 };
  struct applier a = { .cg = cg,
                       .state = state,
                       .state_held = true,
                       .plan = pl->plan,
                       .opt = &no_faults,
                       .prefix = pl->prefix,
                       .placement = pl };
  struct target t = { .pd = p, .inst = p->inst };
  int rc = 0;
  for (size_t i = before; rc == 0 && i < p->n_procs; i++) {
    struct placer_error *left = NULL;
    if (applier_add_proc(&t, p->procs[i].pid, p->procs[i].root_pid, NULL, &left) < 0) {
      if (left && left->errno_value == ENOMEM)
        rc = placer_error_oom(err, NULL);
      placer_error_clear(&left); /* exited since it was bound: nothing to move */
    }
  }
  if (rc == 0 && t.n_procs > 0) {
    /* Saved with the move's record: in a storm of short processes the
     * state written for each move stays the size of what runs.  A record
     * appended to the log (journal_appends) saves nothing else: the
     * interval's placer_apply_forget_exited() drops them and saves. */
    if (!state->journal_appends)
      forget_exited(state);
    size_t journaled_before = state->n_journal;
    a.txn = ++state->last_txn;
    rc = applier_bind_procs(&a, &t, 0, err);
    if (state->n_journal == journaled_before)
      state->last_txn--; /* nothing was journaled under it */
    *moved = a.steps;
    /* One that ends while it is moved or checked (v1 shows a process in
     * do_exit() in the root) is no failure: placed when its move was
     * journaled and cgroup.procs did not refuse it for being gone (ESRCH):
     * its threads were moved, only their check failed. */
    if (rc < 0 && (!placer_proc_is_same(pid, start_time) || placer_task_exiting(pid, pid))) {
      bool written = state->n_journal > journaled_before && (*err)->errno_value != ESRCH;
      placer_error_clear(err);
      *gone = *moved == 0 && !written;
      if (*moved == 0 && written)
        *moved = 1;
      rc = 0;
    }
  }
  applier_target_clear(&t);
  placer_string_list_free(&a.actions);
  placer_string_list_free(&a.notes);
  placer_string_list_free(&a.groups_changed);
  return rc;
}

int placer_apply_forget_exited(struct placer_state *state, size_t *forgotten, struct placer_error **err) {
  size_t n = forget_exited(state);
  if (forgotten)
    *forgotten = n;
  return n > 0 ? placer_state_save(state, err) : 0;
}
