/* Launch backends: the registry and what the backends share (process
 * liveness, killing a group, cleaning every hierarchy); see launch.h. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct placer_launch_ops *const backends[] = {
  &placer_launch_exec,
  &placer_launch_podman,
};

const struct placer_launch_ops *placer_launch_find(const char *name) {
  for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
    if (name && strcmp(backends[i]->name, name) == 0)
      return backends[i];
  return NULL;
}

void placer_launch_record_clear(struct placer_launch_record *rec) {
  if (rec == NULL)
    return;
  free(rec->profile);
  free(rec->instance);
  free(rec->role);
  free(rec->backend);
  free(rec->group);
  free(rec->container_name);
  free(rec->container_id);
  free(rec->container_cgroup);
  free(rec->log_path);
  free(rec->accel);
  free(rec->joined_by);
  for (size_t i = 0; rec->argv && rec->argv[i]; i++)
    free(rec->argv[i]);
  free(rec->argv);
  memset(rec, 0, sizeof(*rec));
}

/* /proc/PID/stat: state (field 3) and starttime (field 22).  The command
 * name in field 2 may hold blanks and ')', so parse after the last ')'. */
static int read_stat(pid_t pid, char *state, unsigned long long *start_time) {
  char path[64], buf[1024];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return -1;
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *p = strrchr(buf, ')');
  if (p == NULL)
    return -1;
  p++;
  unsigned long long value = 0;
  char st = 0;
  /* After ')': " S ppid pgrp session tty tpgid flags minflt cminflt majflt
   * cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime" */
  if (sscanf(p, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &st, &value) != 2)
    return -1;
  *state = st;
  *start_time = value;
  return 0;
}

unsigned long long placer_launch_start_time(pid_t pid) {
  char st;
  unsigned long long t;
  return pid > 0 && read_stat(pid, &st, &t) == 0 ? t : 0;
}

bool placer_launch_pid_alive(pid_t pid, unsigned long long start_time) {
  char st;
  unsigned long long t;
  if (pid <= 0 || read_stat(pid, &st, &t) < 0)
    return false;
  if (st == 'Z' || st == 'X' || st == 'x')
    return false;
  return start_time == 0 || t == start_time;
}

/* ------------------------------------------------------------------ groups */

/* Append the PIDs in DIR/cgroup.procs and in every group below DIR. */
static void collect_pids(const char *dir, pid_t **pids, size_t *n) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  FILE *f = fopen(path, "re");
  if (f) {
    long v;
    while (fscanf(f, "%ld", &v) == 1) {
      if (v <= 0 || !placer_launch_pid_alive((pid_t)v, 0))
        continue;
      bool dup = false;
      for (size_t i = 0; i < *n; i++)
        dup = dup || (*pids)[i] == (pid_t)v;
      if (dup)
        continue;
      pid_t *grown = realloc(*pids, (*n + 1) * sizeof(pid_t));
      if (grown == NULL)
        break;
      *pids = grown;
      (*pids)[(*n)++] = (pid_t)v;
    }
    fclose(f);
  }
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    collect_pids(path, pids, n);
  }
  closedir(d);
}

static void group_pids(struct placer_cgroup *cg, const char *group, pid_t **pids, size_t *n) {
  *pids = NULL;
  *n = 0;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cleanup_free char *dir = placer_cgroup_dir(cg, (enum placer_cgroup_controller)c, group);
    if (dir)
      collect_pids(dir, pids, n);
  }
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Signal everything in GROUP, wait up to TIMEOUT_S for it to be empty.
 * Returns the number of processes still there. */
static size_t signal_and_wait(struct placer_cgroup *cg, const char *group, int sig, double timeout_s) {
  pid_t *pids;
  size_t n;
  group_pids(cg, group, &pids, &n);
  for (size_t i = 0; i < n; i++)
    kill(pids[i], sig);
  free(pids);
  double end = now_s() + timeout_s;
  for (;;) {
    group_pids(cg, group, &pids, &n);
    free(pids);
    if (n == 0 || now_s() >= end)
      return n;
    sleep_ms(50);
  }
}

int placer_launch_kill_group(struct placer_cgroup *cg, const char *group, unsigned timeout_s,
                             struct placer_error **err) {
  if (signal_and_wait(cg, group, SIGTERM, timeout_s) == 0)
    return 0;
  if (signal_and_wait(cg, group, SIGKILL, 5.0) == 0)
    return 0;
  pid_t *pids;
  size_t n;
  group_pids(cg, group, &pids, &n);
  char list[256] = "";
  for (size_t i = 0; i < n && strlen(list) < sizeof(list) - 16; i++)
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", i ? " " : "", (int)pids[i]);
  free(pids);
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY, "group %s: PIDs %s survived SIGKILL", group, list);
}

/* ------------------------------------------------------------------ containers.conf */

static char *existing(const char *dir, const char *rel) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, rel) < 0)
    return NULL;
  char *real = realpath(path, NULL);
  free(path);
  return real; /* NULL when it does not exist */
}

char *placer_containers_conf_path(void) {
  const char *env = getenv("PLACER_CONTAINERS_CONF");
  if (env && *env)
    return strdup(env);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      /* build/placer -> containers/ of the tree; PREFIX/bin/placer -> PREFIX/share/placer */
      static const char *const rels[] = {
        "../containers/containers.conf",
        "../share/placer/containers.conf",
        "../../containers/containers.conf",
      };
      for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
        char *p = existing(exe, rels[i]);
        if (p)
          return p;
      }
    }
  }
#ifdef PLACER_SOURCE_DIR
  return existing(PLACER_SOURCE_DIR, "containers/containers.conf");
#else
  return NULL;
#endif
}

/* ------------------------------------------------------------------ every hierarchy */

/* rmdir DIR and everything below it, deepest first.  ENOENT is fine. */
static int rmdir_tree(const char *dir, struct placer_error **err) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open %s", dir);
  struct dirent *de;
  int ret = 0;
  while (ret == 0 && (de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    char sub[4096];
    snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
    ret = rmdir_tree(sub, err);
  }
  closedir(d);
  if (ret < 0)
    return ret;
  /* A process that just exited may take a moment to leave the group. */
  for (int i = 0; i < 50; i++) {
    if (rmdir(dir) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY)
      break;
    sleep_ms(20);
  }
  return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "rmdir %s", dir);
}

/* Remove the groups that become empty once GROUP is gone: "placer/osd"
 * and "placer" when nothing else lives there. */
static void prune_parents(const char *mount_point, const char *group) {
  char path[4096];
  snprintf(path, sizeof(path), "%s", group);
  char *slash;
  while ((slash = strrchr(path, '/')) != NULL) {
    *slash = '\0';
    char dir[8192];
    snprintf(dir, sizeof(dir), "%s/%s", mount_point, path);
    if (rmdir(dir) < 0 && errno != ENOENT)
      break;
  }
}

int placer_launch_remove_group(struct placer_cgroup *cg, const char *group, bool prune, struct placer_error **err) {
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "refusing to remove group '%s'", group);
  if (placer_cgroup_remove(cg, group, err) < 0)
    return -1;
  /* podman (runc) makes the group in every v1 hierarchy (pids, blkio,
   * devices, freezer, ...) and in the hybrid cgroup2 mount, not only in the
   * three placer uses. */
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (f == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open /proc/self/mountinfo");
  char *line = NULL;
  size_t cap = 0;
  int ret = 0;
  while (ret == 0 && getline(&line, &cap, f) > 0) {
    char root[4096], mount_point[4096];
    if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mount_point) != 2)
      continue;
    char *sep = strstr(line, " - ");
    if (sep == NULL)
      continue;
    char fstype[64];
    if (sscanf(sep + 3, "%63s", fstype) != 1 || (strcmp(fstype, "cgroup") != 0 && strcmp(fstype, "cgroup2") != 0))
      continue;
    if (strcmp(root, "/") != 0)
      continue; /* a bind mount of a sub-hierarchy: not where placer's paths live */
    char dir[8192];
    snprintf(dir, sizeof(dir), "%s/%s", mount_point, group);
    ret = rmdir_tree(dir, err);
    if (ret == 0 && prune)
      prune_parents(mount_point, group);
  }
  free(line);
  fclose(f);
  if (ret == 0 && prune)
    ret = placer_cgroup_remove_empty_parents(cg, group, err);
  return ret;
}
