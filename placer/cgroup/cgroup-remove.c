/* Whole subtrees of a group, in every hierarchy mounted under the root:
 * their processes (listed, signalled without ever hitting a reused PID) and
 * their removal, deepest first (podman leaves conmon children behind),
 * never while a process is left. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "lib/pid-list.h"
#include "proc.h"

/* A group whose last process has just exited can stay busy for a moment. */
#define RMDIR_BUSY_TRIES 100
#define RMDIR_BUSY_WAIT_NS (10 * 1000 * 1000)

/* FN(DIR/NAME, ARG, ERR) for each child group NAME of DIR, until one fails.
 * A DIR that does not exist has no children. */
static int for_each_child(const char *dir, int (*fn)(const char *sub, void *arg, struct placer_error **err), void *arg,
                          struct placer_error **err) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open %s", dir);
  struct dirent *de;
  int ret = 0;
  while (ret == 0 && (de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    cleanup_free char *sub = cg_group_dir(dir, de->d_name);
    ret = sub ? fn(sub, arg, err) : placer_error_oom(err, NULL);
  }
  closedir(d);
  return ret;
}

/* ------------------------------------------------------------------ processes */

/* The PIDs in TEXT (a cgroup.procs) not in S yet. */
static int pid_set_add_text(struct placer_pid_list *s, const char *text, struct placer_error **err) {
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (cg_parse_pids(text, &pids, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (pids[i] > 0 && placer_pid_list_add_new(s, pids[i]) < 0)
      return placer_error_oom(err, NULL);
  return 0;
}

/* The PIDs in DIR/cgroup.procs and below.  A group removed meanwhile has none. */
static int collect_tree(const char *dir, void *arg, struct placer_error **err) {
  struct placer_pid_list *s = arg;
  cleanup_free char *procs = NULL;
  struct placer_error *e = NULL;
  if (cg_read_file(dir, "cgroup.procs", &procs, &e) < 0) {
    if (e->errno_value == ENOENT || e->errno_value == ENODEV) {
      placer_error_free(e);
      return 0;
    }
    if (err && *err == NULL)
      *err = TAKE_PTR(e);
    placer_error_free(e);
    return -1;
  }
  if (pid_set_add_text(s, procs, err) < 0)
    return -1;
  return for_each_child(dir, collect_tree, arg, err);
}

int placer_cgroup_subtree_pids(struct placer_cgroup *cg, const char *group, pid_t **pids, size_t *n_pids,
                               struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  struct placer_pid_list s = { 0 };
  for (size_t i = 0; i < cg->n_all; i++) {
    cleanup_free char *dir = cg_group_dir(cg->all[i].mount_point, group);
    if (dir == NULL || collect_tree(dir, &s, err) < 0) {
      placer_pid_list_free(&s);
      return dir ? -1 : placer_error_oom(err, NULL);
    }
  }
  placer_pid_list_sort(&s);
  *pids = placer_pid_list_take(&s, n_pids);
  return 0;
}

bool placer_cgroup_pid_in_subtree(const struct placer_cgroup *cg, pid_t pid, const char *group) {
  char dir[32];
  snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
  cleanup_free char *content = NULL;
  struct placer_error *gone = NULL;
  if (cg_read_file(dir, "cgroup", &content, &gone) < 0) {
    placer_error_clear(&gone);
    return false;
  }
  for (size_t i = 0; i < cg->n_all; i++) {
    cleanup_free char *want = cg_path_to_proc(cg->all[i].mount_root, group);
    size_t wlen = want ? strlen(want) : 0;
    /* Lines are "ID:CONTROLLERS:PATH"; PATH may hold ':' itself. */
    for (const char *line = content; want && line && *line;) {
      const char *eol = strchr(line, '\n');
      size_t len = eol ? (size_t)(eol - line) : strlen(line);
      const char *c1 = memchr(line, ':', len);
      const char *path = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
      if (path) {
        path++;
        size_t plen = len - (size_t)(path - line);
        if (plen >= wlen && strncmp(path, want, wlen) == 0 && (plen == wlen || path[wlen] == '/'))
          return true;
      }
      line = eol ? eol + 1 : NULL;
    }
  }
  return false;
}

/* SIG to PID, which must be in GROUP's subtree: the pidfd pins the process,
 * so if the PID was reused after it was listed, the check sees the new
 * process (outside the subtree) or the signal finds the old one gone. */
static void signal_member(const struct placer_cgroup *cg, pid_t pid, const char *group, int sig) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd >= 0) {
    if (placer_cgroup_pid_in_subtree(cg, pid, group))
      syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
    close(pidfd);
    return;
  }
  if (errno != ENOSYS)
    return; /* gone */
#endif
  if (placer_cgroup_pid_in_subtree(cg, pid, group))
    kill(pid, sig); /* a kernel without pidfds (< 5.3) */
}

int placer_cgroup_signal_subtree(struct placer_cgroup *cg, const char *group, int sig, size_t *n_live,
                                 struct placer_error **err) {
  cleanup_free pid_t *pids = NULL;
  size_t n = 0, live = 0;
  if (placer_cgroup_subtree_pids(cg, group, &pids, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    char state = placer_task_state(pids[i], pids[i], NULL);
    if (state == '\0' || state == 'Z' || state == 'X' || state == 'x')
      continue; /* gone, or only waiting to be reaped */
    live++;
    if (sig != 0)
      signal_member(cg, pids[i], group, sig);
  }
  if (n_live)
    *n_live = live;
  return 0;
}

/* ------------------------------------------------------------------ removal */

/* True when every PID in PROCS (cgroup.procs' text) is exiting, a zombie or
 * gone: a process that was just killed, which leaves its groups once its
 * exit is done and it is reaped (a large qemu takes a while to free its
 * memory on a loaded machine, and its parent may be slow to reap it). */
static bool only_exiting(const char *procs) {
  for (const char *p = procs; *p;) {
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p)
      break;
    if (!placer_task_exiting((pid_t)pid, (pid_t)pid))
      return false;
    p = end + strspn(end, "\n");
  }
  return true;
}

/* Fail when DIR or anything below it has processes; the error names the
 * first such group and its PIDs.  Processes that are only exiting are given
 * EXIT_WAIT_TRIES x 50 ms to leave. */
#define EXIT_WAIT_TRIES 100
static int check_no_processes(const char *dir, void *arg, struct placer_error **err) {
  cleanup_free char *procs = NULL;
  for (int i = 0;; i++) {
    free(procs);
    procs = NULL;
    if (cg_read_file(dir, "cgroup.procs", &procs, err) < 0)
      return -1;
    if (*procs == '\0' || i == EXIT_WAIT_TRIES || !only_exiting(procs))
      break;
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  if (*procs) {
    for (char *p = procs; *p; p++)
      if (*p == '\n')
        *p = ' ';
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY,
                            "cannot remove %s: it still has processes (PIDs %s); move them out first", dir, procs);
  }
  return for_each_child(dir, check_no_processes, arg, err);
}

static int rmdir_group(const char *dir, struct placer_error **err) {
  for (int i = 0; i < RMDIR_BUSY_TRIES; i++) {
    if (rmdir(dir) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "rmdir %s", dir);
    /* Busy: real processes are an error; a process that just exited is
     * not, it only needs a moment to leave. */
    if (check_no_processes(dir, NULL, err) < 0)
      return -1;
    struct timespec ts = { 0, RMDIR_BUSY_WAIT_NS };
    nanosleep(&ts, NULL);
  }
  return placer_error_errno(err, PLACER_EXIT_SYSTEM, EBUSY, "rmdir %s", dir);
}

static int remove_tree(const char *dir, void *arg, struct placer_error **err) {
  if (for_each_child(dir, remove_tree, arg, err) < 0)
    return -1;
  return rmdir_group(dir, err);
}

int placer_cgroup_remove(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  /* Check every hierarchy before removing anything, so a refusal leaves
   * the groups whole rather than half removed. */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < cg->n_all; i++) {
      cleanup_free char *dir = cg_group_dir(cg->all[i].mount_point, group);
      if (dir == NULL)
        return placer_error_oom(err, NULL);
      if (access(dir, F_OK) < 0)
        continue;
      if ((pass == 0 ? check_no_processes(dir, NULL, err) : remove_tree(dir, NULL, err)) < 0)
        return -1;
    }
  }
  return 0;
}

int placer_cgroup_remove_empty_parents(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  for (size_t i = 0; i < cg->n_all; i++) {
    cleanup_free char *path = strdup(group);
    if (path == NULL)
      return placer_error_oom(err, NULL);
    char *slash;
    while ((slash = strrchr(path, '/')) != NULL) {
      *slash = '\0';
      cleanup_free char *dir = cg_group_dir(cg->all[i].mount_point, path);
      if (dir == NULL)
        return placer_error_oom(err, NULL);
      if (rmdir(dir) < 0 && errno != ENOENT) {
        if (errno == EBUSY || errno == ENOTEMPTY)
          break; /* still in use: that is where pruning stops */
        return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "rmdir %s", dir);
      }
    }
  }
  return 0;
}
