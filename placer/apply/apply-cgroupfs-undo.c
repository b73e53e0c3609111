/* The cgroupfs backend undoing what apply did, from the journal in the state
 * directory: the rollback of a failed apply and `placer reset` share this. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "lib/pid-list.h"
#include "plan/plan.h"
#include "lib/textfile.h"
#include "proc.h"
#include "procmatch.h"
#include "topology/topology.h"

static char *read_small(const char *path) {
  char *text = NULL;
  return placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0 ? NULL : text;
}

static char *task_cgroup(pid_t pid, pid_t tid) {
  char path[96];
  snprintf(path, sizeof(path), "/proc/%d/task/%d/cgroup", (int)pid, (int)tid);
  return read_small(path);
}

/* A thread is visible in /proc a moment before the kernel puts it in its
 * creator's groups (copy_process() attaches the pid, then
 * cgroup_post_fork()); meanwhile it shows the root.  So a thread seen
 * elsewhere is looked at again a few times, over about 85 ms, before it
 * counts as moved alone. */
#define STRAY_RECHECKS 4
#define STRAY_PAUSE_NS 1000000L /* times 4 each time: 1, 4, 16, 64 ms */

/* Is thread TID of PID in other groups than REF, and staying there? */
static bool thread_stays_elsewhere(pid_t pid, pid_t tid, const char *ref) {
  for (int i = 0;; i++) {
    cleanup_free char *cg = task_cgroup(pid, tid);
    if (cg == NULL || placer_task_exiting(pid, tid) || strcmp(cg, ref) == 0)
      return false; /* gone meanwhile, going, or in place now */
    if (i == STRAY_RECHECKS)
      return true;
    struct timespec ts = { 0, STRAY_PAUSE_NS << (2 * i) };
    nanosleep(&ts, NULL);
  }
}

pid_t apply_stray_thread(pid_t pid) {
  cleanup_free pid_t *tids = NULL;
  size_t n = 0;
  struct placer_error *gone = NULL;
  if (placer_task_list(pid, &tids, &n, &gone) < 0) {
    placer_error_clear(&gone);
    return 0;
  }
  /* A thread in do_exit() is skipped by the kernel's migration and v1
   * shows it in the root: it is about to disappear, not misplaced.  The
   * reference is the main thread, or the first live one when it is gone. */
  cleanup_free char *ref = task_cgroup(pid, pid);
  if (ref && placer_task_exiting(pid, pid))
    free(TAKE_PTR(ref));
  for (size_t i = 0; i < n; i++) {
    if (tids[i] == pid)
      continue;
    cleanup_free char *cg = task_cgroup(pid, tids[i]);
    if (cg == NULL || placer_task_exiting(pid, tids[i]))
      continue; /* gone meanwhile, or going */
    if (ref == NULL)
      ref = TAKE_PTR(cg);
    else if (strcmp(cg, ref) != 0 && thread_stays_elsewhere(pid, tids[i], ref))
      return tids[i];
  }
  return 0;
}

int apply_open_cgroup(const struct placer_state *state, const char *root, struct placer_cgroup **out,
                      struct placer_error **err) {
  /* where this placer writes, never a root the state names */
  if (root == NULL || *root == '\0')
    root = getenv("PLACER_CGROUP_ROOT");
  if (root == NULL || *root == '\0')
    root = "/sys/fs/cgroup";
  if (state->cgroup_root && strcmp(state->cgroup_root, root) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s/%s records the cgroup root %s, but placer's is %s: nothing done", state->dir,
                            PLACER_STATE_FILE, state->cgroup_root, root);
  struct placer_cgroup *cg = NULL;
  if (placer_cgroup_open(root, &cg, err) < 0)
    return -1;
  const char *mode = placer_cgroup_mode_name(placer_cgroup_get_mode(cg));
  if (state->cgroup_mode && strcmp(state->cgroup_mode, mode) != 0) {
    placer_cgroup_close(cg);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "the state was recorded on cgroup %s but %s is cgroup %s now (rebooted into another "
                            "layout?); remove %s/%s by hand",
                            state->cgroup_mode, root, mode, state->dir, PLACER_STATE_FILE);
  }
  *out = cg;
  return 0;
}

static const char *comm_or(pid_t pid, char *buf, size_t len) {
  cleanup_free char *comm = placer_proc_comm(pid);
  snprintf(buf, len, "%s", comm ? comm : "?");
  return buf;
}

/* ------------------------------------------------------------------ strays */

static bool path_is_under(const char *path, const char *group) {
  size_t len = strlen(group);
  return path && strncmp(path, group, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* Where a process found in GROUP without having been moved there by placer
 * (a child a bound daemon forked, a daemon restarted into the group) goes:
 * where the first process placer moved into GROUP came from, else the root. */
static const struct placer_cgroup_membership *stray_target(const struct placer_state *state, const char *group) {
  for (size_t i = 0; i < state->n_journal; i++) {
    const struct placer_journal_entry *e = &state->journal[i];
    if (e->op == PLACER_JOURNAL_MOVE && e->group && path_is_under(e->group, group))
      return &e->original;
  }
  return NULL;
}

static bool group_dir_exists(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group) {
  cleanup_free char *dir = placer_cgroup_dir(cg, c, group);
  struct stat st;
  return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Move every process out of GROUP (and below) in every hierarchy. */
static int evict_strays(struct placer_cgroup *cg, const struct placer_state *state, const char *group,
                        struct placer_string_list *notes, struct placer_error **err) {
  cleanup_free pid_t *pids = NULL;
  size_t n_pids = 0;
  if (placer_cgroup_subtree_pids(cg, group, &pids, &n_pids, err) < 0)
    return -1;
  const struct placer_cgroup_membership *target = stray_target(state, group);
  int ret = 0;
  for (size_t i = 0; i < n_pids && ret == 0; i++) {
    struct placer_cgroup_membership m = { { 0 } };
    struct placer_error *gone = NULL;
    if (placer_cgroup_pid_membership(cg, pids[i], &m, &gone) < 0) {
      placer_error_clear(&gone); /* exited meanwhile */
      continue;
    }
    for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS && ret == 0; c++) {
      if (!path_is_under(m.path[c], group))
        continue;
      const char *to = target && target->path[c] && group_dir_exists(cg, c, target->path[c]) ? target->path[c] : "";
      char *copy = strdup(to);
      if (copy == NULL)
        ret = placer_error_oom(err, NULL);
      free(m.path[c]);
      m.path[c] = copy;
    }
    char comm[64];
    if (ret == 0 && placer_cgroup_restore_pid(cg, pids[i], &m, err) == 0)
      placer_string_list_addf(
          notes, "moved pid %d (%s), which placer had not bound, out of %s to %s", (int)pids[i],
          comm_or(pids[i], comm, sizeof(comm)), group,
          m.path[PLACER_CGROUP_CPUSET] && *m.path[PLACER_CGROUP_CPUSET] ? m.path[PLACER_CGROUP_CPUSET] : "the root");
    else if (ret == 0 && placer_proc_start_time(pids[i], &(uint64_t){ 0 }, &gone) < 0) {
      placer_error_clear(&gone); /* it exited while being moved: fine */
      placer_error_free(*err);
      *err = NULL;
    } else {
      ret = -1;
    }
    placer_cgroup_membership_clear(&m);
  }
  return ret;
}

/* ------------------------------------------------------------------ one entry */

static int undo_create(struct placer_cgroup *cg, const struct placer_state *state, const struct placer_journal_entry *e,
                       struct placer_string_list *notes, struct placer_error **err) {
  /* A process can fork into the group while we empty it (a child born
   * before its parent was moved out): rounds until it is empty.  Under CPU
   * load three rounds were seen to lose 1 reset in 9 to a forking tree
   * (tests/integration/apply_trees.sh); a short pause lets the forks that
   * are under way land before the next round lists the group. */
  enum { ROUNDS = 12 };
  if (placer_cgroup_subtree_has_other_mark(cg, e->group, state->state_id))
    return placer_string_list_addf(notes, "%s is left in place: groups of another placer state are below it", e->group);
  for (int round = 0; round < ROUNDS; round++) {
    if (evict_strays(cg, state, e->group, notes, err) < 0)
      return placer_error_prefix(err, "empty %s", e->group);
    struct placer_error *busy = NULL;
    if (placer_cgroup_remove(cg, e->group, &busy) == 0)
      return 0;
    if (round == ROUNDS - 1 || busy->errno_value != EBUSY) {
      *err = busy;
      return -1;
    }
    placer_error_free(busy);
    struct timespec pause = { 0, (long)(round + 1) * 2 * 1000000L }; /* 2, 4, ... 22 ms */
    nanosleep(&pause, NULL);
  }
  return 0;
}

static int undo_set(struct placer_cgroup *cg, const struct placer_journal_entry *e, struct placer_string_list *notes,
                    struct placer_error **err) {
  if (!placer_cgroup_exists(cg, e->group)) {
    placer_string_list_addf(notes, "%s is gone: its %s is not restored", e->group, placer_setting_name(e->setting));
    return 0;
  }
  switch (e->setting) {
  case PLACER_SETTING_CPUS: return placer_cgroup_set_cpus(cg, e->group, e->previous, err);
  case PLACER_SETTING_MEMS: return placer_cgroup_set_mems(cg, e->group, e->previous, err);
  case PLACER_SETTING_MEMORY_LIMIT: {
    uint64_t bytes;
    if (placer_memory_limit_parse(e->previous, &bytes) < 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: recorded memory limit '%s' is not 'max' or bytes",
                              e->group, e->previous);
    return placer_cgroup_set_memory_limit(cg, e->group, bytes, err);
  }
  case PLACER_SETTING_CPU_WEIGHT: return placer_cgroup_write_cpu_raw(cg, e->group, e->previous, err);
  case PLACER_SETTING_CPU_QUOTA: return placer_cgroup_write_cpu_quota_raw(cg, e->group, e->previous, err);
  case PLACER_SETTING_N: break;
  }
  return 0;
}

/* Put each recorded thread's affinity back where it differs now. */
static void restore_threads(pid_t pid, const struct placer_journal_entry *e, struct placer_string_list *notes) {
  for (size_t i = 0; i < e->n_threads; i++) {
    const struct placer_thread_affinity *t = &e->threads[i];
    cleanup_free char *now = NULL;
    struct placer_error *gone = NULL;
    if (t->cpus == NULL || placer_task_read_allowed(pid, t->tid, &now, NULL, &gone) < 0) {
      placer_error_clear(&gone); /* the thread has exited */
      continue;
    }
    if (placer_cpulist_equal(now, t->cpus))
      continue;
    struct placer_error *refused = NULL;
    if (placer_task_set_affinity(t->tid, t->cpus, &refused) < 0) {
      placer_string_list_addf(notes, "thread %d of pid %d keeps cpus %s (%s), ignoring", (int)t->tid, (int)pid, now,
                              refused->msg);
      placer_error_free(refused);
    }
  }
}

static int undo_move(struct placer_cgroup *cg, const struct placer_journal_entry *e, struct placer_string_list *notes,
                     struct placer_error **err) {
  char comm[64];
  if (!placer_proc_is_same(e->pid, e->start_time)) {
    placer_string_list_addf(notes, "pid %d (%s) is gone: nothing to move back", (int)e->pid,
                            e->instance ? e->instance : "?");
    return 0;
  }
  struct placer_cgroup_membership now = { { 0 } };
  struct placer_error *gone = NULL;
  if (placer_cgroup_pid_membership(cg, e->pid, &now, &gone) < 0) {
    placer_error_clear(&gone);
    placer_string_list_addf(notes, "pid %d (%s) is gone: nothing to move back", (int)e->pid,
                            e->instance ? e->instance : "?");
    return 0;
  }
  /* Only what is still where placer put it goes back: a process someone
   * else has moved since stays where they put it. */
  bool any = false, cpuset_back = false;
  int ret = 0;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS && ret == 0; c++) {
    if (now.path[c] == NULL || e->group == NULL || strcmp(now.path[c], e->group) != 0)
      continue;
    if (e->original.path[c] == NULL && c == PLACER_CGROUP_CPUACCT) {
      /* A state file from before placer moved processes in cpuacct: where
       * it was is not recorded, so leave that hierarchy alone. */
      free(TAKE_PTR(now.path[c]));
      continue;
    }
    const char *to = e->original.path[c] ? e->original.path[c] : "";
    if (*to && !group_dir_exists(cg, c, to)) {
      placer_string_list_addf(notes, "pid %d: its original %s group %s is gone: moved to the root instead", (int)e->pid,
                              placer_cgroup_controller_name(c), to);
      to = "";
    }
    char *copy = strdup(to);
    if (copy == NULL)
      ret = placer_error_oom(err, NULL);
    free(now.path[c]);
    now.path[c] = copy;
    any = true;
    if (c == PLACER_CGROUP_CPUSET)
      cpuset_back = true;
  }
  if (ret == 0 && !any)
    placer_string_list_addf(notes, "pid %d (%s) was moved out of %s by someone else: left where it is", (int)e->pid,
                            comm_or(e->pid, comm, sizeof(comm)), e->group ? e->group : "?");
  if (ret == 0 && any && placer_cgroup_restore_pid(cg, e->pid, &now, err) < 0) {
    if (placer_proc_is_same(e->pid, e->start_time))
      ret = -1;
    else {
      placer_error_free(*err);
      *err = NULL;
    }
  }
  placer_cgroup_membership_clear(&now);
  if (ret == 0 && any && cpuset_back)
    restore_threads(e->pid, e, notes);
  return ret;
}

/* Is PID in a group below PREFIX (cpuset's hierarchy), where placer put it? */
static bool in_prefix(struct placer_cgroup *cg, pid_t pid, const char *prefix) {
  struct placer_cgroup_membership m = { { 0 } };
  struct placer_error *gone = NULL;
  if (prefix == NULL || placer_cgroup_pid_membership(cg, pid, &m, &gone) < 0) {
    placer_error_free(gone);
    return false;
  }
  bool in = path_is_under(m.path[PLACER_CGROUP_CPUSET], prefix);
  placer_cgroup_membership_clear(&m);
  return in;
}

static int undo_affinity(struct placer_cgroup *cg, const struct placer_state *state,
                         const struct placer_journal_entry *e, struct placer_string_list *notes,
                         struct placer_error **err) {
  if (!placer_proc_is_same(e->pid, e->start_time))
    return 0;
  /* a thread of a process placer no longer holds is not placer's to pin */
  if (!in_prefix(cg, e->pid, state->prefix))
    return placer_string_list_addf(notes,
                                   "pid %d is not in placer's groups under %s any more: its thread %d keeps "
                                   "its affinity",
                                   (int)e->pid, state->prefix ? state->prefix : "?", (int)e->tid);
  cleanup_free char *now = NULL;
  struct placer_error *gone = NULL;
  if (placer_task_read_allowed(e->pid, e->tid, &now, NULL, &gone) < 0) {
    placer_error_clear(&gone);
    return 0;
  }
  if (placer_cpulist_equal(now, e->previous))
    return 0;
  if (placer_task_set_affinity(e->tid, e->previous, err) < 0) {
    /* The thread may have exited in between. */
    if (placer_task_read_allowed(e->pid, e->tid, NULL, NULL, &gone) < 0) {
      placer_error_clear(&gone);
      placer_error_free(*err);
      *err = NULL;
      return 0;
    }
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ the journal */

static bool created_in_scope(const struct placer_state *state, unsigned txn, const char *group) {
  for (size_t i = 0; i < state->n_journal; i++) {
    const struct placer_journal_entry *e = &state->journal[i];
    if (e->op == PLACER_JOURNAL_CREATE && (txn == 0 || e->txn == txn) && e->group && path_is_under(group, e->group))
      return true;
  }
  return false;
}

static const char *entry_what(const struct placer_journal_entry *e, char *buf, size_t len) {
  switch (e->op) {
  case PLACER_JOURNAL_CREATE: snprintf(buf, len, "remove group %s", e->group); break;
  case PLACER_JOURNAL_SET:
    snprintf(buf, len, "restore %s %s = %s", e->group, placer_setting_name(e->setting), e->previous);
    break;
  case PLACER_JOURNAL_MOVE:
    snprintf(buf, len, "move pid %d (%s) back", (int)e->pid, e->instance ? e->instance : "?");
    break;
  case PLACER_JOURNAL_AFFINITY:
    snprintf(buf, len, "restore thread %d of pid %d to cpus %s", (int)e->tid, (int)e->pid, e->previous);
    break;
  default: snprintf(buf, len, "a %s record", placer_journal_op_name(e->op)); break;
  }
  return buf;
}

/* What undoing the records of one transaction (0: all) needs. */
struct undo_ctx {
  struct placer_cgroup *cg;
  unsigned txn;
  struct placer_string_list *notes;
};

static int undo_record(void *ctx, struct placer_state *state, size_t i, struct placer_error **err) {
  struct undo_ctx *c = ctx;
  const struct placer_journal_entry *e = &state->journal[i];
  int ret = 0;
  switch (e->op) {
  case PLACER_JOURNAL_CREATE: ret = undo_create(c->cg, state, e, c->notes, err); break;
  case PLACER_JOURNAL_SET:
    /* A group that is about to be removed needs no value back. */
    ret = created_in_scope(state, c->txn, e->group) ? 0 : undo_set(c->cg, e, c->notes, err);
    break;
  case PLACER_JOURNAL_MOVE: ret = undo_move(c->cg, e, c->notes, err); break;
  case PLACER_JOURNAL_AFFINITY: ret = undo_affinity(c->cg, state, e, c->notes, err); break;
  default: ret = placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "not a record of state.json"); break;
  }
  if (ret < 0) {
    char what[512];
    placer_error_prefix(err, "%s", entry_what(e, what, sizeof(what)));
  }
  return ret;
}

size_t apply_undo(struct placer_cgroup *cg, struct placer_state *state, unsigned txn, struct placer_string_list *notes,
                  struct placer_string_list *failures) {
  /* Replaying is idempotent: a reset killed meanwhile replays the same
   * records again, newest first, and ends where this one would have (a value
   * written back again, a process back already stays, a group gone is gone). */
  struct undo_ctx c = { cg, txn, notes };
  return placer_state_journal_undo(state, txn, undo_record, &c, failures);
}

int apply_check_marks(const struct placer_cgroup *cg, const struct placer_state *state, unsigned txn,
                      struct placer_error **err) {
  for (size_t i = 0; i < state->n_journal; i++) {
    const struct placer_journal_entry *e = &state->journal[i];
    if (e->op != PLACER_JOURNAL_CREATE || e->unmarked || (txn != 0 && e->txn != txn))
      continue; /* unmarked: made where no mark could be set; nothing to check it by */
    if (placer_cgroup_mark_check(cg, e->group, state->state_id) == PLACER_CGROUP_MARK_FOREIGN)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                              "%s/%s records creating group %s, but that group does not carry this state's mark "
                              "(placer did not make it for %s): nothing done; remove the state file by hand if the "
                              "placement is gone",
                              state->dir, PLACER_STATE_FILE, e->group, state->dir);
  }
  return 0;
}

/* ------------------------------------------------------------------ reset */

int cgroupfs_reset_run(const char *state_dir, struct placer_reset_result *res, struct placer_error **err) {
  *res = (struct placer_reset_result){ .backend = "cgroupfs" };
  static const char *const keys[] = { "groups_removed", "pids_restored", NULL };
  if (state_dir == NULL)
    state_dir = placer_state_default_dir();
  res->state_dir = strdup(state_dir);
  if (res->state_dir == NULL || apply_reset_details(res, keys) < 0) {
    placer_reset_result_clear(res);
    return placer_error_oom(err, NULL);
  }
  struct placer_state *state = NULL;
  if (placer_state_open(state_dir, PLACER_STATE_LOCK_EXCLUSIVE, &state, NULL, err) < 0) {
    placer_reset_result_clear(res);
    return -1;
  }
  struct placer_string_list out = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  if (placer_state_is_empty(state)) {
    placer_string_list_addf(&out, "nothing to reset (no placer state in %s)", state_dir);
    placer_state_free(state);
    res->lines = placer_string_list_release(&out, &res->n_lines);
    return 0;
  }
  struct placer_cgroup *cg = NULL;
  if (apply_open_cgroup(state, NULL, &cg, err) < 0 || apply_check_marks(cg, state, 0, err) < 0) {
    placer_cgroup_close(cg);
    placer_state_free(state);
    placer_reset_result_clear(res);
    return -1;
  }
  res->changed = true;
  res->interrupted = state->pending_txn != 0;
  if (state->pending_txn)
    placer_string_list_addf(&out, "an apply (pid %d) was interrupted part-way: undoing what it did too",
                            (int)state->pending_pid);
  size_t before = state->n_journal, n_moves = 0, n_groups = 0;
  /* Newest first, as they are undone: the deepest groups first; each process once. */
  struct placer_pid_list moved = { 0 };
  bool oom = false;
  for (size_t i = state->n_journal; i-- > 0;) {
    const struct placer_journal_entry *e = &state->journal[i];
    n_moves += e->op == PLACER_JOURNAL_MOVE;
    n_groups += e->op == PLACER_JOURNAL_CREATE;
    if (e->op == PLACER_JOURNAL_CREATE && e->group)
      oom |= apply_reset_detail(res, keys[0], json_string(e->group)) < 0;
    if (e->op == PLACER_JOURNAL_MOVE && !placer_pid_list_has(&moved, e->pid))
      oom |= placer_pid_list_add(&moved, e->pid) < 0 || apply_reset_detail(res, keys[1], json_integer(e->pid)) < 0;
  }
  placer_pid_list_free(&moved);
  if (oom) {
    placer_cgroup_close(cg);
    placer_state_free(state);
    placer_string_list_free(&out);
    placer_reset_result_clear(res);
    return placer_error_oom(err, NULL);
  }
  size_t failed = apply_undo(cg, state, 0, &out, &failures);
  placer_cgroup_close(cg);
  int ret = 0;
  if (failed) {
    char all[2048] = "";
    for (size_t i = 0; i < failures.n; i++)
      snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? "; " : "", failures.items[i]);
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                           "reset incomplete: %zu of %zu changes could not be undone (%s); they stay recorded in %s: "
                           "fix the cause and run 'placer reset' again",
                           failed, before, all, state_dir);
  } else {
    placer_state_clear_instances(state);
    state->pending_txn = 0;
    state->pending_pid = 0;
    if (placer_state_save(state, err) < 0)
      ret = -1;
    else
      placer_string_list_addf(
          &out, "reset: %zu changes undone (%zu process moves, %zu groups created); no placer state left in %s", before,
          n_moves, n_groups, state_dir);
  }
  placer_string_list_free(&failures);
  placer_state_free(state);
  res->lines = placer_string_list_release(&out, &res->n_lines);
  res->n_undone = before;
  if (ret < 0) {
    placer_reset_result_clear(res);
    return -1;
  }
  return 0;
}

int cgroupfs_reset(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err) {
  struct placer_reset_result res;
  if (cgroupfs_reset_run(state_dir, &res, err) < 0)
    return -1;
  *lines = res.lines;
  *n_lines = res.n_lines;
  res.lines = NULL;
  res.n_lines = 0;
  placer_reset_result_clear(&res);
  return 0;
}
