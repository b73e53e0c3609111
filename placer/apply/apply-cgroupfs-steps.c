/* The cgroupfs backend of placer apply, the changes: create a group, set a
 * value, move a process, pin a thread, each journaled first so that
 * apply-cgroupfs-undo.c can take it back. */
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

/* Threads born while we pin are fixed in the next round. */
#define AFFINITY_ROUNDS 5
/* Looks at the process trees after the moves (move_new_descendants). */
#define TREE_PASSES 8

/* Record ENTRY (not in a dry run) and say what the step does.  After this,
 * the caller carries the step out and calls step_done(). */
static int step_begin(struct applier *a, struct target *t, struct placer_journal_entry *entry,
                      struct placer_error **err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int step_begin(struct applier *a, struct target *t, struct placer_journal_entry *entry,
                      struct placer_error **err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *line = apply_vformat(fmt, ap);
  va_end(ap);
  placer_string_list_addf(&a->actions, "%s: %s", t->inst->name, line ? line : "?");
  free(line);
  if (a->dry_run) {
    placer_journal_entry_clear(entry);
    a->steps++;
    t->changes++;
    return 0;
  }
  entry->txn = a->txn;
  if (placer_state_journal_add(a->state, entry, err) < 0)
    return -1;
  /* Test hook (docs/apply.md): fail, or die as if killed, just before
   * carrying out step N+1, its undo record already written. */
  const struct placer_apply_faults *f = &a->opt->faults;
  if (f->fail && a->steps == f->after_steps) {
    if (f->sigkill)
      raise(SIGKILL);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "fault injected before step %u (test hook PLACER_FAULT_AFTER_STEPS=%u)", a->steps + 1,
                            f->after_steps);
  }
  return 0;
}

static void step_done(struct applier *a, struct target *t) {
  if (a->dry_run)
    return;
  a->steps++;
  t->changes++;
  unsigned delay_ms = a->opt->faults.step_delay_ms;
  if (delay_ms > 0) {
    struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
  }
}

/* The value SETTING of WHERE (a value of NOW) as a journal record keeps
 * it, raw (RAW, for the undo: v1 shares written by someone else need not
 * be on the weight scale; the quota with its period), and as the action
 * line shows it. */
static int shown_value(struct applier *a, const char *where, enum placer_setting s, const struct placer_group_values *v,
                       char **raw, char *shown, size_t len, struct placer_error **err) {
  switch (s) {
  case PLACER_SETTING_CPUS:
  case PLACER_SETTING_MEMS: {
    const char *list = s == PLACER_SETTING_CPUS ? v->cpus : v->mems;
    snprintf(shown, len, "%s", *list ? list : "empty");
    return raw && (*raw = strdup(list)) == NULL ? placer_error_oom(err, NULL) : 0;
  }
  case PLACER_SETTING_MEMORY_LIMIT:
    if (v->memory_limit == PLACER_CGROUP_UNLIMITED)
      snprintf(shown, len, "max");
    else
      placer_format_bytes(v->memory_limit, shown, len);
    if (raw &&
        (v->memory_limit == PLACER_CGROUP_UNLIMITED ? (*raw = strdup("max")) == NULL
                                                    : asprintf(raw, "%llu", (unsigned long long)v->memory_limit) < 0))
      return placer_error_oom(err, NULL);
    return 0;
  case PLACER_SETTING_CPU_WEIGHT:
    snprintf(shown, len, "%u", v->cpu_weight);
    return raw ? placer_cgroup_read_cpu_raw(a->cg, where, raw, err) : 0;
  case PLACER_SETTING_CPU_QUOTA:
    if (v->cpu_quota)
      snprintf(shown, len, "%g cores", v->cpu_quota / 1000.0);
    else
      snprintf(shown, len, "none");
    return raw ? placer_cgroup_read_cpu_quota_raw(a->cg, where, raw, err) : 0;
  case PLACER_SETTING_N: break;
  }
  return 0;
}

/* Before each step of writing the target's values (placement-write.c):
 * its undo record journaled and its action line said; a dry run only says
 * it. */
static int before_step(void *ctx, const struct placer_placed *p, enum placer_write_step step, const char *where,
                       enum placer_setting s, const struct placer_group_values *now,
                       const struct placer_group_values *want, struct placer_error **err) {
  struct applier *a = ctx;
  struct target *t = &a->targets[p - a->placement->v];
  if (step == PLACER_WRITE_CREATE) {
    struct placer_journal_entry e = { .op = PLACER_JOURNAL_CREATE, .group = strdup(where) };
    if (e.group == NULL)
      return placer_error_oom(err, NULL);
    if (step_begin(a, t, &e, err, "create group %s", where) < 0)
      return -1;
    placer_string_list_addf(&a->groups_created, "%s", where);
    return a->dry_run ? 1 : 0;
  }
  char was[64], to[64];
  cleanup_free char *raw = NULL;
  if (shown_value(a, where, s, now, a->dry_run ? NULL : &raw, was, sizeof(was), err) < 0 ||
      shown_value(a, where, s, want, NULL, to, sizeof(to), err) < 0)
    return -1;
  struct placer_journal_entry e = {
    .op = PLACER_JOURNAL_SET, .setting = s, .group = strdup(where), .previous = raw ? TAKE_PTR(raw) : strdup("")
  };
  if (e.group == NULL || e.previous == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  if (step_begin(a, t, &e, err, "set %s %s = %s (was %s)", where, placer_setting_name(s), to, was) < 0)
    return -1;
  if (!placer_string_list_has(&a->groups_changed, where))
    placer_string_list_addf(&a->groups_changed, "%s", where);
  return a->dry_run ? 1 : 0;
}

static int after_step(void *ctx, const struct placer_placed *p, enum placer_write_step step, bool unmarked,
                      struct placer_error **err) {
  struct applier *a = ctx;
  if (step == PLACER_WRITE_CREATE && unmarked) {
    /* said in its record, so that reset does not take it for another's group */
    a->state->journal[a->state->n_journal - 1].unmarked = true;
    if (placer_state_save(a->state, err) < 0)
      return -1;
  }
  step_done(a, &a->targets[p - a->placement->v]);
  return 0;
}

/* The target's group (each missing level), its values and, for the first
 * instance of its role, the role group's quota and weight: each step
 * journaled before it happens. */
static int ensure_values(struct applier *a, struct target *t, struct placer_error **err) {
  struct placer_writer w = placer_writer_cgroupfs(a->cg);
  struct placer_write_hooks hooks = { a, before_step, after_step };
  return placer_placed_write(&w, t->pd, PLACER_GROUP_SETTINGS, t->pd->role_writes, a->state->state_id, &hooks,
                             &a->would_create, err) < 0
             ? -1
             : 0;
}

/* Each thread's Cpus_allowed_list now. */
static int snapshot_threads(pid_t pid, struct placer_thread_affinity **out, size_t *n, struct placer_error **err) {
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(pid, &tids, &n_tids, err) < 0)
    return -1;
  struct placer_thread_affinity *t = calloc(n_tids ? n_tids : 1, sizeof(*t));
  if (t == NULL)
    return placer_error_oom(err, NULL);
  size_t count = 0;
  for (size_t i = 0; i < n_tids; i++) {
    struct placer_error *gone = NULL;
    char *cpus = NULL;
    if (placer_task_read_allowed(pid, tids[i], &cpus, NULL, &gone) < 0) {
      placer_error_clear(&gone);
      continue;
    }
    t[count].tid = tids[i];
    t[count++].cpus = cpus;
  }
  *out = t;
  *n = count;
  return 0;
}

/* A descendant that exits while we work on it is no failure: it is simply
 * no longer there to bind.  Returns whether P is such a one now (and then
 * drops *ERR). */
static bool descendant_gone(struct bound_proc *p, struct placer_error **err) {
  /* In do_exit() it is not moved by the kernel, and v1 shows it in the root. */
  if (p->root_pid == 0 || (placer_proc_is_same(p->pid, p->start_time) && !placer_task_exiting(p->pid, p->pid)))
    return false;
  p->gone = true;
  placer_error_free(*err);
  *err = NULL;
  return true;
}

static int move_process(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  struct placer_cgroup_membership m = { { 0 } };
  if (p->gone || descendant_gone(p, err))
    return 0;
  if (!placer_proc_is_same(p->pid, p->start_time))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ESRCH, "pid %d (%s) exited during apply", (int)p->pid, p->comm);
  if (placer_cgroup_pid_membership(a->cg, p->pid, &m, err) < 0)
    return descendant_gone(p, err) ? 0 : placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  pid_t stray = 0;
  if (placer_cgroup_membership_is(a->cg, &m, t->pd->group) && (stray = apply_stray_thread(p->pid)) == 0) {
    placer_cgroup_membership_clear(&m);
    return 0;
  }
  struct placer_journal_entry e = { .op = PLACER_JOURNAL_MOVE,
                                    .pid = p->pid,
                                    .start_time = p->start_time,
                                    .group = strdup(t->pd->group),
                                    .instance = strdup(t->inst->name),
                                    .original = m };
  if (e.group == NULL || e.instance == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  if (snapshot_threads(p->pid, &e.threads, &e.n_threads, err) < 0) {
    placer_journal_entry_clear(&e);
    return descendant_gone(p, err) ? 0 : placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  }
  size_t n_threads = e.n_threads;
  const char *from = m.path[PLACER_CGROUP_CPUSET];
  char child_of[48] = "";
  if (p->root_pid)
    snprintf(child_of, sizeof(child_of), ", below pid %d", (int)p->root_pid);
  int ret =
      stray
          ? step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s%s) to %s again: thread %d is elsewhere",
                       (int)p->pid, p->comm, n_threads, n_threads == 1 ? "" : "s", child_of, t->pd->group, (int)stray)
          : step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s%s) from %s to %s", (int)p->pid, p->comm, n_threads,
                       n_threads == 1 ? "" : "s", child_of, from && *from ? from : "the root", t->pd->group);
  if (ret < 0)
    return -1;
  if (a->dry_run)
    p->moved = true;
  else if (placer_cgroup_attach_pid(a->cg, t->pd->group, p->pid, err) < 0 && !descendant_gone(p, err))
    return -1;
  step_done(a, t);
  return 0;
}

static const char *desired_cpus(const struct target *t, const struct bound_proc *p, pid_t tid) {
  for (size_t k = 0; k < p->n_vcpus; k++)
    if (p->vcpus[k].tid == tid && p->vcpu_cpus && p->vcpu_cpus[k])
      return p->vcpu_cpus[k];
  return t->pd->values.cpus;
}

/* Set every thread whose affinity differs from the plan; *fixed counts them. */
static int pin_threads(struct applier *a, struct target *t, struct bound_proc *p, unsigned *fixed,
                       struct placer_error **err) {
  *fixed = 0;
  if (a->dry_run && p->moved) {
    /* The move resets every thread to the group's cpus; only vCPU pins follow. */
    for (size_t k = 0; k < p->n_vcpus; k++) {
      if (placer_cpulist_equal(p->vcpu_cpus[k], t->pd->values.cpus))
        continue;
      struct placer_journal_entry e = { 0 };
      step_begin(a, t, &e, err, "pin vCPU %u (thread %d) of pid %d to cpu %s", p->vcpus[k].cpu_index,
                 (int)p->vcpus[k].tid, (int)p->pid, p->vcpu_cpus[k]);
      (*fixed)++;
    }
    return 0;
  }
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (p->gone)
    return 0;
  if (placer_task_list(p->pid, &tids, &n_tids, err) < 0)
    return descendant_gone(p, err) ? 0 : placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *now = NULL;
    struct placer_error *gone = NULL;
    if (placer_task_read_allowed(p->pid, tids[i], &now, NULL, &gone) < 0) {
      placer_error_clear(&gone);
      continue;
    }
    const char *want = desired_cpus(t, p, tids[i]);
    if (placer_cpulist_equal(now, want))
      continue;
    /* A thread in do_exit() was left in the old group by the move (the
     * kernel skips it) and is about to go: nothing to pin. */
    if (placer_task_exiting(p->pid, tids[i]))
      continue;
    struct placer_journal_entry e = {
      .op = PLACER_JOURNAL_AFFINITY, .pid = p->pid, .start_time = p->start_time, .tid = tids[i], .previous = strdup(now)
    };
    if (e.previous == NULL)
      return placer_error_oom(err, NULL);
    cleanup_free char *name = placer_task_comm(p->pid, tids[i]);
    if (step_begin(a, t, &e, err, "set thread %d (%s) of pid %d to cpus %s (was %s)", (int)tids[i], name ? name : "?",
                   (int)p->pid, want, now) < 0)
      return -1;
    if (!a->dry_run && placer_task_set_affinity(tids[i], want, err) < 0) {
      /* A thread that has just exited (or begun to) is no failure. */
      struct placer_error *gone2 = NULL;
      if (placer_task_read_allowed(p->pid, tids[i], NULL, NULL, &gone2) < 0 || placer_task_exiting(p->pid, tids[i])) {
        placer_error_free(gone2);
        placer_error_free(*err);
        *err = NULL;
      } else {
        return placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
      }
    }
    step_done(a, t);
    (*fixed)++;
  }
  return 0;
}

/* Every thread in the group in every hierarchy, with the planned mems. */
static int verify_process(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  struct placer_cgroup_membership m = { { 0 } };
  if (p->gone)
    return 0;
  if (placer_cgroup_pid_membership(a->cg, p->pid, &m, err) < 0)
    return descendant_gone(p, err) ? 0 : placer_error_prefix(err, "verify pid %d (%s)", (int)p->pid, p->comm);
  bool ok = placer_cgroup_membership_is(a->cg, &m, t->pd->group);
  placer_cgroup_membership_clear(&m);
  if (!ok && !descendant_gone(p, err))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): not in %s in every hierarchy",
                            (int)p->pid, p->comm, t->pd->group);
  pid_t stray = apply_stray_thread(p->pid);
  if (stray && !descendant_gone(p, err))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): thread %d is not in %s", (int)p->pid,
                            p->comm, (int)stray, t->pd->group);
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (p->gone)
    return 0;
  if (placer_task_list(p->pid, &tids, &n_tids, err) < 0)
    return descendant_gone(p, err) ? 0 : -1;
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *mems = NULL;
    struct placer_error *gone = NULL;
    if (placer_task_read_allowed(p->pid, tids[i], NULL, &mems, &gone) < 0) {
      placer_error_clear(&gone);
      continue;
    }
    if (!placer_cpulist_equal(mems, t->pd->values.mems) && !placer_task_exiting(p->pid, tids[i]))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                              "verify pid %d (%s): thread %d has Mems_allowed_list %s, planned %s", (int)p->pid,
                              p->comm, (int)tids[i], mems, t->pd->values.mems);
  }
  return 0;
}

/* Processes fork while we move them: a child forked by a process already
 * moved is born in the group, one forked just before its parent moved is
 * not.  Look at the trees again and move what is new, until a pass finds
 * nothing to move. */
static int move_new_descendants(struct applier *a, struct target *t, struct placer_error **err) {
  for (int pass = 0;; pass++) {
    unsigned steps_before = a->steps;
    cleanup_free pid_t *stop = NULL;
    size_t n_stop = 0;
    if (applier_other_pids(a, t, &stop, &n_stop, err) < 0)
      return -1;
    size_t n_roots = t->n_procs;
    for (size_t r = 0; r < n_roots; r++) {
      if (t->procs[r].root_pid != 0)
        continue;
      pid_t root = t->procs[r].pid;
      cleanup_free pid_t *desc = NULL;
      size_t n = 0;
      if (placer_proc_descendants(root, stop, n_stop, &desc, &n, err) < 0)
        return -1;
      for (size_t k = 0; k < n; k++) {
        size_t before = t->n_procs, idx = 0;
        struct placer_error *gone = NULL;
        if (applier_add_proc(t, desc[k], root, &idx, &gone) < 0) {
          bool oom = gone && gone->errno_value == ENOMEM;
          placer_error_clear(&gone);
          if (oom)
            return placer_error_oom(err, NULL);
          continue; /* exited since the scan */
        }
        if (t->n_procs > before && move_process(a, t, &t->procs[idx], err) < 0)
          return -1;
      }
    }
    if (a->steps == steps_before)
      return 0;
    if (pass + 1 == TREE_PASSES)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                              "new processes keep appearing outside %s below its bound processes after %d passes",
                              t->pd->group, TREE_PASSES);
  }
}

/* T's processes from FIRST on: every thread pinned as planned (vCPUs one
 * per PU), then checked in the group with the planned mems. */
static int pin_and_verify(struct applier *a, struct target *t, size_t first, struct placer_error **err) {
  for (size_t i = first; i < t->n_procs; i++) {
    struct bound_proc *p = &t->procs[i];
    unsigned fixed = 1;
    for (int round = 0; fixed > 0; round++) {
      if (round == AFFINITY_ROUNDS)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                                "pid %d (%s): threads keep changing affinity after %d rounds", (int)p->pid, p->comm,
                                AFFINITY_ROUNDS);
      if (pin_threads(a, t, p, &fixed, err) < 0)
        return -1;
      if (a->dry_run)
        break;
    }
    if (!a->dry_run && verify_process(a, t, p, err) < 0)
      return -1;
  }
  return 0;
}

int applier_apply_target(struct applier *a, struct target *t, struct placer_error **err) {
  if (ensure_values(a, t, err) < 0)
    return -1;
  for (size_t i = 0; i < t->n_procs; i++)
    if (move_process(a, t, &t->procs[i], err) < 0)
      return -1;
  if (!a->dry_run && move_new_descendants(a, t, err) < 0)
    return -1;
  return pin_and_verify(a, t, 0, err);
}

int applier_bind_procs(struct applier *a, struct target *t, size_t first, struct placer_error **err) {
  for (size_t i = first; i < t->n_procs; i++)
    if (move_process(a, t, &t->procs[i], err) < 0)
      return -1;
  return pin_and_verify(a, t, first, err);
}
