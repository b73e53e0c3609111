/* Moving a whole process into a group (every thread, every hierarchy,
 * verified), recording where it was and moving it back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup/cgroup-internal.h"

/* Moving a process races with it creating threads; each round rewrites the
 * PID, so a handful of rounds is plenty. */
#define ATTACH_ROUNDS 10
#define ATTACH_PAUSE_NS 100000L /* doubled each round: 0.1 ms .. 51 ms in all */

/* The controller name of hierarchy C in /proc/PID/cgroup (NULL in v2). */
static const char *proc_controller(const struct placer_cgroup *cg, int c) {
  return cg->mode == PLACER_CGROUP_V2 ? NULL : placer_cgroup_controller_name(c);
}

static void membership_cleanup(struct placer_cgroup_membership *m) {
  placer_cgroup_membership_clear(m);
}
#define cleanup_membership __attribute__((cleanup(membership_cleanup)))

static int write_procs(const char *mount_point, const char *group, const char *pid_text, struct placer_error **err) {
  cleanup_free char *dir = cg_group_dir(mount_point, group);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  return cg_write_file(dir, "cgroup.procs", pid_text, err);
}

/* Write PID into each hierarchy's GROUPS[c] (NULL: leave that hierarchy
 * alone), then check every thread and write it again where one is
 * elsewhere (born during the move). */
static int attach_and_verify(struct placer_cgroup *cg, const char *const groups[PLACER_CGROUP_N_CONTROLLERS], pid_t pid,
                             struct placer_error **err) {
  char pid_text[24];
  snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared || groups[c] == NULL)
      continue;
    if (write_procs(cg->hier[c].mount_point, groups[c], pid_text, err) < 0)
      return -1;
  }

  /* What each thread's /proc/PID/task/TID/cgroup must say. */
  cleanup_membership struct placer_cgroup_membership expected = { { 0 } };
  char **want = expected.path;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    if (!cg->hier[c].shared && groups[c] && (want[c] = cg_path_to_proc(cg->hier[c].mount_root, groups[c])) == NULL)
      return placer_error_oom(err, NULL);

  for (int round = 0; round < ATTACH_ROUNDS; round++) {
    cleanup_free pid_t *tids = NULL;
    size_t n_tids = 0;
    if (placer_task_list(pid, &tids, &n_tids, err) < 0)
      return -1;
    bool misplaced[PLACER_CGROUP_N_CONTROLLERS] = { false };
    bool any = false;
    pid_t stray_tid = 0;
    cleanup_free char *stray_path = NULL;
    int stray_c = 0;
    for (size_t i = 0; i < n_tids; i++) {
      char task_dir[64];
      snprintf(task_dir, sizeof(task_dir), "/proc/%d/task/%d", (int)pid, (int)tids[i]);
      cleanup_free char *content = NULL;
      struct placer_error *ignored = NULL;
      if (cg_read_file(task_dir, "cgroup", &content, &ignored) < 0) {
        placer_error_free(ignored); /* the thread exited meanwhile: nothing to move */
        continue;
      }
      for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
        if (cg->hier[c].shared || want[c] == NULL)
          continue;
        cleanup_free char *have = NULL;
        bool placed =
            placer_cgroup_proc_lookup(content, proc_controller(cg, c), &have) == 0 && strcmp(have, want[c]) == 0;
        /* An exiting thread is skipped by the kernel's migration and is
         * about to disappear: it does not count as left behind. */
        if (!placed && !placer_task_exiting(pid, tids[i])) {
          misplaced[c] = any = true;
          if (stray_tid == 0) {
            stray_tid = tids[i], stray_c = c;
            stray_path = TAKE_PTR(have);
          }
        }
      }
    }
    if (!any)
      return 0;
    if (round == ATTACH_ROUNDS - 1)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                              "thread %d of pid %d stays in %s (%s) instead of %s after %d tries", (int)stray_tid,
                              (int)pid, stray_path ? stray_path : "?", placer_cgroup_controller_name(stray_c),
                              want[stray_c], ATTACH_ROUNDS);
    for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
      if (misplaced[c] && write_procs(cg->hier[c].mount_point, groups[c], pid_text, err) < 0)
        return -1;
    struct timespec pause_ts = { 0, ATTACH_PAUSE_NS << round };
    nanosleep(&pause_ts, NULL);
  }
  return 0;
}

int cg_attach_group(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err) {
  const char *groups[PLACER_CGROUP_N_CONTROLLERS];
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    groups[c] = c == PLACER_CGROUP_CPUACCT && !placer_cgroup_accounts(cg, group) ? NULL : group;
  return attach_and_verify(cg, groups, pid, err);
}

int placer_cgroup_pid_membership(struct placer_cgroup *cg, pid_t pid, struct placer_cgroup_membership *out,
                                 struct placer_error **err) {
  char dir[32];
  snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
  cleanup_free char *content = NULL;
  if (cg_read_file(dir, "cgroup", &content, err) < 0)
    return -1;
  struct placer_cgroup_membership m = { { 0 } };
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared) {
      /* One hierarchy with an earlier controller: the same group (also
       * where /proc/PID/cgroup has no line of this name, as for a cpuacct
       * that is cpu's hierarchy only because it is not mounted). */
      if ((m.path[c] = strdup(m.path[cg->hier[c].same_as])) == NULL) {
        placer_cgroup_membership_clear(&m);
        return placer_error_oom(err, NULL);
      }
      continue;
    }
    cleanup_free char *proc_path = NULL;
    if (placer_cgroup_proc_lookup(content, proc_controller(cg, c), &proc_path) < 0) {
      placer_cgroup_membership_clear(&m);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "/proc/%d/cgroup: no %s line", (int)pid,
                              cg->mode == PLACER_CGROUP_V2 ? "0::" : placer_cgroup_controller_name(c));
    }
    m.path[c] = cg_path_from_proc(cg->hier[c].mount_root, proc_path);
    if (m.path[c] == NULL) {
      placer_cgroup_membership_clear(&m);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EXDEV, "pid %d is in %s (%s), outside the mount at %s", (int)pid,
                              proc_path, placer_cgroup_controller_name(c), cg->hier[c].mount_point);
    }
  }
  *out = m;
  return 0;
}

int placer_cgroup_restore_pid(struct placer_cgroup *cg, pid_t pid, const struct placer_cgroup_membership *m,
                              struct placer_error **err) {
  const char *groups[PLACER_CGROUP_N_CONTROLLERS];
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    /* A shared hierarchy goes where its first controller's path says. */
    const char *path = m->path[cg->hier[c].shared ? cg->hier[c].same_as : c];
    if (path && !placer_cgroup_recorded_path_is_safe(path))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "move pid %d back: recorded %s group '%s' is not usable",
                              (int)pid, placer_cgroup_controller_name(c), path);
    groups[c] = path;
  }
  bool any = false;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    any = any || groups[c] != NULL;
  if (!any)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "move pid %d back: no group recorded", (int)pid);
  if (attach_and_verify(cg, groups, pid, err) < 0)
    return placer_error_prefix(err, "move pid %d back", (int)pid);
  return 0;
}

void placer_cgroup_membership_clear(struct placer_cgroup_membership *m) {
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    free(TAKE_PTR(m->path[c]));
}
