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

#include "apply-cgroupfs-internal.h"
#include "proc.h"
#include "procmatch.h"
#include "topology.h"
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

static bool would_exist(struct applier *a, const char *group) {
  return placer_cgroup_exists(a->cg, group) || (a->dry_run && placer_string_list_has(&a->would_create, group));
}

static bool is_new_in_dry_run(struct applier *a, const char *group) {
  return a->dry_run && !placer_cgroup_exists(a->cg, group);
}

static int ensure_groups(struct applier *a, struct target *t, struct placer_error **err) {
  cleanup_free char *path = strdup(t->group);
  if (path == NULL)
    return placer_error_oom(err, NULL);
  for (char *slash = path;; slash++) {
    slash = strchr(slash, '/');
    if (slash)
      *slash = '\0';
    if (!would_exist(a, path)) {
      struct placer_journal_entry e = { .op = PLACER_JOURNAL_CREATE, .group = strdup(path) };
      if (e.group == NULL)
        return placer_error_oom(err, NULL);
      if (step_begin(a, t, &e, err, "create group %s", path) < 0)
        return -1;
      placer_string_list_addf(&a->groups_created, "%s", path);
      if (a->dry_run)
        placer_string_list_addf(&a->would_create, "%s", path);
      else {
        int unmarked = placer_cgroup_create_marked(a->cg, path, a->state->state_id, err);
        if (unmarked < 0)
          return -1;
        if (unmarked) { /* said in its record, so that reset does not take it for another's group */
          a->state->journal[a->state->n_journal - 1].unmarked = true;
          if (placer_state_save(a->state, err) < 0)
            return -1;
        }
      }
      step_done(a, t);
    }
    if (slash == NULL)
      break;
    *slash = '/';
  }
  return 0;
}

/* Set SETTING of GROUP (the target's own, or its role group for the
 * weight) to the target's value, or to WEIGHT for the cpu weight. */
static int set_value(struct applier *a, struct target *t, const char *group, enum placer_setting setting,
                     unsigned weight, const char *previous, const char *shown_previous, const char *shown_value,
                     struct placer_error **err) {
  struct placer_journal_entry e = {
    .op = PLACER_JOURNAL_SET, .setting = setting, .group = strdup(group), .previous = strdup(previous)
  };
  if (e.group == NULL || e.previous == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  if (step_begin(a, t, &e, err, "set %s %s = %s (was %s)", group, placer_setting_name(setting), shown_value,
                 *shown_previous ? shown_previous : "empty") < 0)
    return -1;
  if (!placer_string_list_has(&a->groups_changed, group))
    placer_string_list_addf(&a->groups_changed, "%s", group);
  if (!a->dry_run) {
    int ret = 0;
    switch (setting) {
    case PLACER_SETTING_CPUS: ret = placer_cgroup_set_cpus(a->cg, group, t->cpus, err); break;
    case PLACER_SETTING_MEMS: ret = placer_cgroup_set_mems(a->cg, group, t->mems, err); break;
    case PLACER_SETTING_MEMORY_LIMIT: ret = placer_cgroup_set_memory_limit(a->cg, group, t->memory_limit, err); break;
    case PLACER_SETTING_CPU_WEIGHT: ret = placer_cgroup_set_cpu_weight(a->cg, group, weight, err); break;
    case PLACER_SETTING_CPU_QUOTA: break; /* on the role group: ensure_role_quota */
    }
    if (ret < 0)
      return -1;
  }
  step_done(a, t);
  return 0;
}

/* GROUP's cpu weight to WANT, when it differs. */
static int ensure_weight(struct applier *a, struct target *t, const char *group, unsigned want,
                         struct placer_error **err) {
  bool fresh = is_new_in_dry_run(a, group);
  unsigned weight = PLACER_CGROUP_WEIGHT_DEFAULT;
  if (!fresh && placer_cgroup_read_cpu_weight(a->cg, group, &weight, err) < 0)
    return -1;
  if (weight == want)
    return 0;
  /* The undo record keeps the file's raw value: v1 shares written by
   * someone else need not be on the weight scale. */
  cleanup_free char *raw = NULL;
  char shown[16], want_shown[16];
  if (fresh)
    raw = strdup(placer_cgroup_get_mode(a->cg) == PLACER_CGROUP_V2 ? "100" : "1024");
  else if (placer_cgroup_read_cpu_raw(a->cg, group, &raw, err) < 0)
    return -1;
  if (raw == NULL)
    return placer_error_oom(err, NULL);
  snprintf(shown, sizeof(shown), "%u", weight);
  snprintf(want_shown, sizeof(want_shown), "%u", want);
  return set_value(a, t, group, PLACER_SETTING_CPU_WEIGHT, want, raw, shown, want_shown, err);
}

static void format_limit(uint64_t bytes, char *raw, size_t raw_len, char *shown, size_t shown_len) {
  if (bytes == PLACER_CGROUP_UNLIMITED) {
    snprintf(raw, raw_len, "max");
    snprintf(shown, shown_len, "max");
  } else {
    snprintf(raw, raw_len, "%llu", (unsigned long long)bytes);
    placer_format_bytes(bytes, shown, shown_len);
  }
}

static int ensure_values(struct applier *a, struct target *t, struct placer_error **err) {
  bool fresh = is_new_in_dry_run(a, t->group);
  cleanup_free char *cpus = NULL, *mems = NULL;
  if (fresh) {
    /* What a new group will hold: v1 copies its parent's cpus/mems, v2
     * starts empty. */
    if (placer_cgroup_get_mode(a->cg) == PLACER_CGROUP_V1) {
      cleanup_free char *parent = applier_existing_parent(a->cg, t->group);
      if (parent == NULL)
        return placer_error_oom(err, NULL);
      if (placer_cgroup_read_effective(a->cg, parent, &cpus, &mems, err) < 0)
        return -1;
    } else {
      cpus = strdup("");
      mems = strdup("");
    }
  } else if (placer_cgroup_read_cpus(a->cg, t->group, &cpus, err) < 0 ||
             placer_cgroup_read_mems(a->cg, t->group, &mems, err) < 0) {
    return -1;
  }
  if (cpus == NULL || mems == NULL)
    return placer_error_oom(err, NULL);
  if (!apply_cpulist_equal(cpus, t->cpus) &&
      set_value(a, t, t->group, PLACER_SETTING_CPUS, 0, cpus, cpus, t->cpus, err) < 0)
    return -1;
  if (!apply_cpulist_equal(mems, t->mems) &&
      set_value(a, t, t->group, PLACER_SETTING_MEMS, 0, mems, mems, t->mems, err) < 0)
    return -1;

  uint64_t limit = PLACER_CGROUP_UNLIMITED;
  if (!fresh && placer_cgroup_read_memory_limit(a->cg, t->group, &limit, err) < 0)
    return -1;
  if (!apply_memory_limit_equal(limit, t->memory_limit)) {
    char raw[32], shown[32], want_raw[32], want_shown[32];
    format_limit(limit, raw, sizeof(raw), shown, sizeof(shown));
    format_limit(t->memory_limit, want_raw, sizeof(want_raw), want_shown, sizeof(want_shown));
    if (set_value(a, t, t->group, PLACER_SETTING_MEMORY_LIMIT, 0, raw, shown, want_shown, err) < 0)
      return -1;
  }

  return ensure_weight(a, t, t->group, t->weight, err);
}

/* The role group's CPU quota (PREFIX/ROLE, the instance group's parent),
 * shared by the role's instances: the first target of the role sets it,
 * also back to none when a group made earlier has one the plan does not. */
static int ensure_role_quota(struct applier *a, struct target *t, struct placer_error **err) {
  const char *slash = strrchr(t->group, '/');
  if (slash == NULL)
    return 0;
  cleanup_free char *role_group = strndup(t->group, (size_t)(slash - t->group));
  if (role_group == NULL)
    return placer_error_oom(err, NULL);
  for (struct target *o = a->targets; o < t; o++)
    if (strncmp(o->group, role_group, strlen(role_group)) == 0 && o->group[strlen(role_group)] == '/' &&
        strchr(o->group + strlen(role_group) + 1, '/') == NULL)
      return 0; /* an earlier instance of the role did it */
  unsigned want = t->inst->cpu_quota;
  bool fresh = is_new_in_dry_run(a, role_group);
  unsigned have = 0;
  cleanup_free char *raw = NULL;
  if (fresh)
    raw = strdup("max 100000");
  else if (placer_cgroup_read_cpu_quota_raw(a->cg, role_group, &raw, err) < 0 ||
           placer_cgroup_read_cpu_quota(a->cg, role_group, &have, err) < 0)
    return -1;
  if (raw == NULL)
    return placer_error_oom(err, NULL);
  if (have == want)
    return 0;
  struct placer_journal_entry e = {
    .op = PLACER_JOURNAL_SET, .setting = PLACER_SETTING_CPU_QUOTA, .group = strdup(role_group), .previous = strdup(raw)
  };
  if (e.group == NULL || e.previous == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  char shown[32], was[32];
  if (want)
    snprintf(shown, sizeof(shown), "%g cores", want / 1000.0);
  else
    snprintf(shown, sizeof(shown), "none");
  if (have)
    snprintf(was, sizeof(was), "%g cores", have / 1000.0);
  else
    snprintf(was, sizeof(was), "none");
  if (step_begin(a, t, &e, err, "set %s cpu_quota = %s (was %s)", role_group, shown, was) < 0)
    return -1;
  if (!a->dry_run && placer_cgroup_set_cpu_quota(a->cg, role_group, want, err) < 0)
    return -1;
  step_done(a, t);
  return 0;
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
  if (placer_cgroup_membership_is(a->cg, &m, t->group) && (stray = apply_stray_thread(p->pid)) == 0) {
    placer_cgroup_membership_clear(&m);
    return 0;
  }
  struct placer_journal_entry e = { .op = PLACER_JOURNAL_MOVE,
                                    .pid = p->pid,
                                    .start_time = p->start_time,
                                    .group = strdup(t->group),
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
      stray ? step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s%s) to %s again: thread %d is elsewhere",
                         (int)p->pid, p->comm, n_threads, n_threads == 1 ? "" : "s", child_of, t->group, (int)stray)
            : step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s%s) from %s to %s", (int)p->pid, p->comm,
                         n_threads, n_threads == 1 ? "" : "s", child_of, from && *from ? from : "the root", t->group);
  if (ret < 0)
    return -1;
  if (a->dry_run)
    p->moved = true;
  else if (placer_cgroup_attach_pid(a->cg, t->group, p->pid, err) < 0 && !descendant_gone(p, err))
    return -1;
  step_done(a, t);
  return 0;
}

static const char *desired_cpus(const struct target *t, const struct bound_proc *p, pid_t tid) {
  for (size_t k = 0; k < p->n_vcpus; k++)
    if (p->vcpus[k].tid == tid && p->vcpu_cpus && p->vcpu_cpus[k])
      return p->vcpu_cpus[k];
  return t->cpus;
}

/* Set every thread whose affinity differs from the plan; *fixed counts them. */
static int pin_threads(struct applier *a, struct target *t, struct bound_proc *p, unsigned *fixed,
                       struct placer_error **err) {
  *fixed = 0;
  if (a->dry_run && p->moved) {
    /* The move resets every thread to the group's cpus; only vCPU pins follow. */
    for (size_t k = 0; k < p->n_vcpus; k++) {
      if (apply_cpulist_equal(p->vcpu_cpus[k], t->cpus))
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
    if (apply_cpulist_equal(now, want))
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
  bool ok = placer_cgroup_membership_is(a->cg, &m, t->group);
  placer_cgroup_membership_clear(&m);
  if (!ok && !descendant_gone(p, err))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): not in %s in every hierarchy",
                            (int)p->pid, p->comm, t->group);
  pid_t stray = apply_stray_thread(p->pid);
  if (stray && !descendant_gone(p, err))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): thread %d is not in %s", (int)p->pid,
                            p->comm, (int)stray, t->group);
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
    if (!apply_cpulist_equal(mems, t->mems) && !placer_task_exiting(p->pid, tids[i]))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                              "verify pid %d (%s): thread %d has Mems_allowed_list %s, planned %s", (int)p->pid,
                              p->comm, (int)tids[i], mems, t->mems);
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
                              t->group, TREE_PASSES);
  }
}

int applier_apply_target(struct applier *a, struct target *t, struct placer_error **err) {
  if (ensure_groups(a, t, err) < 0 || ensure_values(a, t, err) < 0 || ensure_role_quota(a, t, err) < 0)
    return -1;
  if (t->sets_role_weight && ensure_weight(a, t, t->role_group, t->role_weight, err) < 0)
    return -1;
  for (size_t i = 0; i < t->n_procs; i++)
    if (move_process(a, t, &t->procs[i], err) < 0)
      return -1;
  if (!a->dry_run && move_new_descendants(a, t, err) < 0)
    return -1;
  for (size_t i = 0; i < t->n_procs; i++) {
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
