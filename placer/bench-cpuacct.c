/* CPU accounting for bench in cgroup v1 layouts that mount cpuacct apart
 * from cpu (Debian 12's hybrid layout: /sys/fs/cgroup/cpu and
 * /sys/fs/cgroup/cpuacct): the cgroup layer places processes in the cpuset,
 * memory and cpu hierarchies only, so bench adds the instance's group in the
 * cpuacct hierarchy and puts the process there too.  With cpu,cpuacct
 * mounted together, or cgroup v2, the cpu group already accounts. */
#include "bench-run.h"

#include "substitute.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mount point of the v1 hierarchy whose options hold "cpuacct", when it
 * does not also hold "cpu"; NULL otherwise. */
static char *separate_cpuacct_mount(void) {
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (f == NULL)
    return NULL;
  char *line = NULL, *found = NULL;
  size_t cap = 0;
  while (found == NULL && getline(&line, &cap, f) > 0) {
    char root[4096], mount_point[4096];
    if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mount_point) != 2 || strcmp(root, "/") != 0)
      continue;
    char *sep = strstr(line, " - ");
    char fstype[64], source[256], opts[1024];
    if (sep == NULL || sscanf(sep + 3, "%63s %255s %1023s", fstype, source, opts) != 3 ||
        strcmp(fstype, "cgroup") != 0)
      continue;
    bool acct = false, cpu = false;
    for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
      acct = acct || strcmp(o, "cpuacct") == 0;
      cpu = cpu || strcmp(o, "cpu") == 0;
    }
    if (acct && !cpu)
      found = strdup(mount_point);
    else if (acct)
      break; /* cpu,cpuacct together */
  }
  free(line);
  fclose(f);
  return found;
}

/* Only for the real hierarchy: a PLACER_CGROUP_ROOT elsewhere (tests) has no
 * separate cpuacct. */
static bool real_root(void) {
  const char *root = getenv("PLACER_CGROUP_ROOT");
  return root == NULL || *root == '\0' || strcmp(root, "/sys/fs/cgroup") == 0;
}

char *placer_bench_cpu_dir(const struct placer_cgroup *cg, const char *group) {
  if (placer_cgroup_get_mode(cg) == PLACER_CGROUP_V1 && real_root()) {
    cleanup_free char *mount = separate_cpuacct_mount();
    if (mount) {
      char *dir = NULL;
      return asprintf(&dir, "%s/%s", mount, group) < 0 ? NULL : dir;
    }
  }
  return placer_cgroup_dir(cg, PLACER_CGROUP_CPU, group);
}

int placer_bench_cpuacct_join(const struct placer_cgroup *cg, const char *group, pid_t pid,
                              struct placer_error **err) {
  if (placer_cgroup_get_mode(cg) != PLACER_CGROUP_V1 || !real_root())
    return 0;
  cleanup_free char *mount = separate_cpuacct_mount();
  if (mount == NULL)
    return 0;
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "bad group '%s'", group);
  cleanup_free char *dir = NULL;
  if (asprintf(&dir, "%s/%s", mount, group) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  for (char *s = dir + strlen(mount) + 1;; s++) {
    char *slash = strchr(s, '/');
    if (slash)
      *slash = '\0';
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", dir);
    if (slash == NULL)
      break;
    *slash = '/';
    s = slash;
  }
  cleanup_free char *procs = NULL;
  if (asprintf(&procs, "%s/cgroup.procs", dir) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  int fd = open(procs, O_WRONLY | O_CLOEXEC);
  char text[32];
  int len = snprintf(text, sizeof(text), "%d", (int)pid);
  if (fd < 0 || write(fd, text, (size_t)len) != len) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "write %s = '%s'", procs, text);
  }
  close(fd);
  return 0;
}

int placer_bench_cpuacct_path(pid_t pid, char **out) {
  *out = NULL;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return -1;
  char *line = NULL;
  size_t cap = 0;
  while (*out == NULL && getline(&line, &cap, f) > 0) {
    /* "4:cpuacct:/path" (alone: mounted apart from cpu) */
    char *c1 = strchr(line, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL || (size_t)(c2 - c1 - 1) != strlen("cpuacct") || strncmp(c1 + 1, "cpuacct", 7) != 0)
      continue;
    char *p = c2 + 1;
    p[strcspn(p, "\n")] = '\0';
    *out = strdup(*p == '/' ? p + 1 : p);
  }
  free(line);
  fclose(f);
  return *out ? 0 : -1;
}

int placer_bench_cpuacct_restore(const struct placer_cgroup *cg, const char *path, pid_t pid,
                                 struct placer_error **err) {
  if (placer_cgroup_get_mode(cg) != PLACER_CGROUP_V1 || !real_root() || path == NULL)
    return 0;
  cleanup_free char *mount = separate_cpuacct_mount();
  if (mount == NULL)
    return 0;
  if (strstr(path, "..") != NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "bad cpuacct path '%s'", path);
  cleanup_free char *procs = NULL;
  if (asprintf(&procs, "%s%s%s/cgroup.procs", mount, *path ? "/" : "", path) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  int fd = open(procs, O_WRONLY | O_CLOEXEC);
  char text[32];
  int len = snprintf(text, sizeof(text), "%d", (int)pid);
  if (fd < 0 || write(fd, text, (size_t)len) != len) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    if (e == ESRCH)
      return 0; /* gone meanwhile */
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "write %s = '%s'", procs, text);
  }
  close(fd);
  return 0;
}

int placer_bench_exec_argv(const char *exe, const char *prefix, const char *topology, const char *profile,
                           const char *instance, char *const *command, char ***out) {
  char **argv = NULL;
  int rc = placer_argv_push(&argv, exe) | placer_argv_push(&argv, "exec") | placer_argv_push(&argv, "--prefix") |
           placer_argv_push(&argv, prefix);
  if (topology)
    rc |= placer_argv_push(&argv, "--topology") | placer_argv_push(&argv, topology);
  rc |= placer_argv_push(&argv, profile) | placer_argv_push(&argv, instance) | placer_argv_push(&argv, "--");
  for (size_t i = 0; command && command[i]; i++)
    rc |= placer_argv_push(&argv, command[i]);
  if (rc != 0) {
    placer_argv_free(argv);
    return -1;
  }
  *out = argv;
  return 0;
}
