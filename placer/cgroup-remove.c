/* Removing groups: a whole subtree, deepest first (podman leaves conmon
 * children behind), never one that still has processes. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-internal.h"

/* A group whose last process has just exited can stay busy for a moment. */
#define RMDIR_BUSY_TRIES 100
#define RMDIR_BUSY_WAIT_NS (10 * 1000 * 1000)

/* Fail when DIR or anything below it has processes; the error names the
 * first such group and its PIDs. */
static int check_no_processes(const char *dir, struct placer_error **err) {
  cleanup_free char *procs = NULL;
  if (cg_read_file(dir, "cgroup.procs", &procs, err) < 0)
    return -1;
  if (*procs) {
    for (char *p = procs; *p; p++)
      if (*p == '\n')
        *p = ' ';
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY,
                            "cannot remove %s: it still has processes (PIDs %s); move them out first", dir, procs);
  }
  DIR *d = opendir(dir);
  if (d == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open %s", dir);
  struct dirent *de;
  int ret = 0;
  while (ret == 0 && (de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    cleanup_free char *sub = cg_group_dir(dir, de->d_name);
    ret = sub ? check_no_processes(sub, err) : placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  closedir(d);
  return ret;
}

static int rmdir_group(const char *dir, struct placer_error **err) {
  for (int i = 0; i < RMDIR_BUSY_TRIES; i++) {
    if (rmdir(dir) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "rmdir %s", dir);
    /* Busy: real processes are an error; a process that just exited is
     * not, it only needs a moment to leave. */
    if (check_no_processes(dir, err) < 0)
      return -1;
    struct timespec ts = { 0, RMDIR_BUSY_WAIT_NS };
    nanosleep(&ts, NULL);
  }
  return placer_error_errno(err, PLACER_EXIT_SYSTEM, EBUSY, "rmdir %s", dir);
}

static int remove_tree(const char *dir, struct placer_error **err) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open %s", dir);
  struct dirent *de;
  int ret = 0;
  while (ret == 0 && (de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    cleanup_free char *sub = cg_group_dir(dir, de->d_name);
    ret = sub ? remove_tree(sub, err) : placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  closedir(d);
  return ret < 0 ? ret : rmdir_group(dir, err);
}

int placer_cgroup_remove(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  /* Check every hierarchy before removing anything, so a refusal leaves
   * the groups whole rather than half removed. */
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared)
      continue;
    cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, group);
    if (dir == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    if (access(dir, F_OK) == 0 && check_no_processes(dir, err) < 0)
      return -1;
  }
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared)
      continue;
    cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, group);
    if (dir == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    if (remove_tree(dir, err) < 0)
      return -1;
  }
  return 0;
}

int placer_cgroup_remove_empty_parents(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared)
      continue;
    cleanup_free char *path = strdup(group);
    if (path == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    char *slash;
    while ((slash = strrchr(path, '/')) != NULL) {
      *slash = '\0';
      cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, path);
      if (dir == NULL)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
      if (rmdir(dir) < 0 && errno != ENOENT) {
        if (errno == EBUSY || errno == ENOTEMPTY)
          break; /* still in use: that is where pruning stops */
        return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "rmdir %s", dir);
      }
    }
  }
  return 0;
}
