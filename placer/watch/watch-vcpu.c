/* placer watch and a pin_vcpus VM's qemu (watch-apply-internal.h): each
 * vCPU thread pinned to its own PU as soon as qemu names it ("CPU 1/TCG",
 * the proc connector's comm event), and every interval each vCPU thread
 * compared with its PU: one never pinned (events lost, the scan) pinned
 * then, one someone moved put back or reported.  The pins are apply's own
 * journaled steps (placer_apply_pin_vcpus): reset undoes them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply.h"
#include "lib/cpulist.h"
#include "proc.h"
#include "vcpu.h"
#include "watch/watch-apply-internal.h"
#include "watch/watch-internal.h" /* watch_monotonic_ns: the clock of the events' timestamps */

/* The instance of the plan in force that pins the vCPUs of PID, a process
 * it binds itself (a qemu); NULL for any other process. */
static const struct placer_placed *pinning_instance(const struct keeper *k, pid_t pid) {
  for (size_t i = 0; i < k->pl->n; i++) {
    const struct placer_placed *p = &k->pl->v[i];
    for (size_t j = 0; p->inst->pin_vcpus && j < p->n_procs; j++)
      if (p->procs[j].pid == pid && p->procs[j].root_pid == 0)
        return p;
  }
  return NULL;
}

/* Is vCPU V of process PID of P off its PU (WANT, filled)?  *NOW: its
 * cpus (caller frees).  A thread that has exited, or is exiting, is not. */
static bool vcpu_off(const struct placer_placed *p, pid_t pid, const struct placer_vcpu *v, char want[16], char **now) {
  *now = NULL;
  snprintf(want, 16, "%d", placer_cpulist_nth(p->inst->cpus, v->cpu_index));
  struct placer_error *gone = NULL;
  if (placer_task_read_allowed(pid, v->tid, now, NULL, &gone) < 0) {
    placer_error_free(gone);
    return false;
  }
  return !placer_cpulist_equal(*now, want) && !placer_task_exiting(pid, v->tid);
}

/* PID's vCPU threads by name; an exited process has none. */
static int find_vcpus(pid_t pid, struct placer_vcpu **out, size_t *n, struct placer_error **err) {
  struct placer_error *gone = NULL;
  *out = NULL;
  *n = 0;
  if (placer_vcpu_find_by_name(pid, out, n, &gone) < 0) {
    bool oom = gone && gone->errno_value == ENOMEM;
    placer_error_free(gone);
    return oom ? placer_error_oom(err, NULL) : 0;
  }
  return 0;
}

int keeper_vcpu_named(void *ctx, pid_t pid, pid_t tid, uint64_t since_ns, struct placer_error **err) {
  struct keeper *k = ctx;
  if (k->by_units)
    return 0; /* through systemd, apply pins a unit's vCPUs (not journaled as these pins are): not the watcher */
  const struct placer_placed *p = pinning_instance(k, pid);
  if (p == NULL)
    return 0; /* not a qemu this plan pins: most renames on a node (ceph-osd names its 60 threads) */
  cleanup_free char *name = placer_task_comm(pid, tid);
  unsigned index = 0;
  if (name == NULL || placer_vcpu_parse_comm(name, &index) < 0)
    return 0; /* another qemu thread (or gone): it keeps the instance's cpus */
  cleanup_free struct placer_vcpu *vcpus = NULL;
  size_t n = 0;
  if (find_vcpus(pid, &vcpus, &n, err) < 0)
    return -1;
  /* Those off their PU now: this one, and others qemu named since (their
   * own events, read after, then find them pinned). */
  bool *off = calloc(n ? n : 1, sizeof(*off));
  if (off == NULL)
    return placer_error_oom(err, NULL);
  size_t n_off = 0;
  for (size_t i = 0; i < n; i++) {
    char want[16];
    cleanup_free char *now = NULL;
    off[i] = vcpu_off(p, pid, &vcpus[i], want, &now);
    n_off += off[i];
  }
  size_t changed = 0;
  if (n_off > 0 && placer_apply_pin_vcpus(k->state, k->cg, k->pl, p, pid, &changed, err) < 0) {
    free(off);
    return placer_error_prefix(err, "%s: pin vCPU %u (thread %d) of pid %d", p->inst->name, index, (int)tid, (int)pid);
  }
  uint64_t now = watch_monotonic_ns();
  for (size_t i = 0; changed > 0 && i < n; i++) {
    if (!off[i])
      continue;
    int pu = placer_cpulist_nth(p->inst->cpus, vcpus[i].cpu_index);
    if (vcpus[i].tid == tid)
      keeper_say(k, "%s: vCPU %u (thread %d) of pid %d pinned to cpu %d, %.3f ms after qemu named it", p->inst->name,
                 index, (int)tid, (int)pid, pu, now > since_ns ? (double)(now - since_ns) / 1e6 : 0.0);
    else
      keeper_say(k, "%s: vCPU %u (thread %d) of pid %d pinned to cpu %d, with vCPU %u", p->inst->name,
                 vcpus[i].cpu_index, (int)vcpus[i].tid, (int)pid, pu, index);
  }
  free(off);
  return 0;
}

/* Did this watcher (or an earlier one on this state) pin thread TID of the
 * process BP: a record of its affinity in the journal? */
static bool journal_pinned(const struct placer_state *state, const struct placer_placed_proc *bp, pid_t tid) {
  for (size_t i = 0; i < state->n_journal; i++) {
    const struct placer_journal_entry *e = &state->journal[i];
    if (e->op == PLACER_JOURNAL_AFFINITY && e->pid == bp->pid && e->start_time == bp->start_time && e->tid == tid)
      return true;
  }
  return false;
}

/* The vCPU threads of BP, P's qemu, each on its PU?  *missed: vCPUs off it
 * that no record says were pinned (their comm event lost, or the scan):
 * pinned now in either mode, as a new process is placed; *moved: those
 * pinned before and moved since by someone, said here. */
static int compare_vcpus(struct keeper *k, const struct placer_placed *p, const struct placer_placed_proc *bp,
                         size_t *missed, size_t *moved, struct placer_error **err) {
  *missed = *moved = 0;
  cleanup_free struct placer_vcpu *vcpus = NULL;
  size_t n = 0;
  if (find_vcpus(bp->pid, &vcpus, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    char want[16];
    cleanup_free char *now = NULL;
    if (!vcpu_off(p, bp->pid, &vcpus[i], want, &now))
      continue;
    if (!journal_pinned(k->state, bp, vcpus[i].tid)) {
      (*missed)++;
      continue;
    }
    (*moved)++;
    keeper_say(k, "%s: vCPU %u (thread %d) of pid %d is on cpus %s, planned %s: %s", p->inst->name, vcpus[i].cpu_index,
               (int)vcpus[i].tid, (int)bp->pid, now, want,
               k->opt->report_only ? "reported, left as it is" : "put back");
  }
  return 0;
}

int keeper_check_vcpus(struct keeper *k, bool *drifts, struct placer_error **err) {
  for (size_t i = 0; i < k->pl->n; i++) {
    const struct placer_placed *p = &k->pl->v[i];
    for (size_t j = 0; p->inst->pin_vcpus && j < p->n_procs; j++) {
      const struct placer_placed_proc *bp = &p->procs[j];
      size_t missed = 0, moved = 0, changed = 0;
      if (bp->root_pid != 0 || !placer_proc_is_same(bp->pid, bp->start_time))
        continue;
      if (compare_vcpus(k, p, bp, &missed, &moved, err) < 0)
        return placer_error_prefix(err, "%s", p->inst->name);
      /* --on-drift report pins what was never pinned, unless that would
       * put back a vCPU someone moved (the pins are one step per process) */
      bool pin = k->opt->report_only ? missed > 0 && moved == 0 : missed + moved > 0;
      struct placer_error *e = NULL;
      if (pin && placer_apply_pin_vcpus(k->state, k->cg, k->pl, p, bp->pid, &changed, &e) < 0) {
        keeper_say(k, "%s: vCPUs of pid %d: %s", p->inst->name, (int)bp->pid, e && e->msg ? e->msg : "not pinned");
        placer_error_free(e);
        pin = false;
      }
      for (size_t m = 0; m < moved; m++)
        placer_watch_count_drift(k->w, PLACER_WATCH_DRIFT_VCPU, pin);
      if (pin && missed > 0)
        keeper_say(k, "%s: %zu vCPU thread%s of pid %d pinned one per PU (found by the check)", p->inst->name, missed,
                   missed == 1 ? "" : "s", (int)bp->pid);
      if (moved > 0)
        drifts[i] = true;
    }
  }
  return 0;
}
