/* Effective cpus/mems of a cgroup or the root; see cgroup-extra.h. */
#include "cgroup-extra.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* The first line of PATH, or NULL with errno set. */
static char *read_line(const char *path) {
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return NULL;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  int saved = errno;
  fclose(f);
  if (n < 0) {
    free(line);
    errno = saved ? saved : EIO;
    return NULL;
  }
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
    line[--n] = '\0';
  return line;
}

static int read_one(const struct placer_cgroup *cg, const char *group, const char *v1_file, const char *v2_file,
                    const char *sys_fallback, const char *sys_fallback2, char **out, struct placer_error **err) {
  cleanup_free char *dir = placer_cgroup_dir(cg, PLACER_CGROUP_CPUSET, group ? group : "");
  cleanup_free char *path = NULL;
  if (dir == NULL ||
      asprintf(&path, "%s/%s", dir, placer_cgroup_get_mode(cg) == PLACER_CGROUP_V2 ? v2_file : v1_file) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  char *value = read_line(path);
  if (value == NULL && errno == ENOENT && (group == NULL || *group == '\0')) {
    value = read_line(sys_fallback);
    if (value == NULL && sys_fallback2)
      value = read_line(sys_fallback2);
    if (value == NULL && errno == ENOENT)
      value = strdup("0"); /* no NUMA in /sys: one node */
  }
  if (value == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  *out = value;
  return 0;
}

int placer_cgroup_read_effective(const struct placer_cgroup *cg, const char *group, char **cpus, char **mems,
                                 struct placer_error **err) {
  cleanup_free char *c = NULL, *m = NULL;
  if (cpus && read_one(cg, group, "cpuset.effective_cpus", "cpuset.cpus.effective", "/sys/devices/system/cpu/online",
                       NULL, &c, err) < 0)
    return -1;
  if (mems && read_one(cg, group, "cpuset.effective_mems", "cpuset.mems.effective",
                       "/sys/devices/system/node/has_memory", "/sys/devices/system/node/online", &m, err) < 0)
    return -1;
  if (cpus)
    *cpus = TAKE_PTR(c);
  if (mems)
    *mems = TAKE_PTR(m);
  return 0;
}

static char *cpu_weight_path(const struct placer_cgroup *cg, const char *group) {
  cleanup_free char *dir = placer_cgroup_dir(cg, PLACER_CGROUP_CPU, group);
  char *path = NULL;
  if (dir == NULL ||
      asprintf(&path, "%s/%s", dir, placer_cgroup_get_mode(cg) == PLACER_CGROUP_V2 ? "cpu.weight" : "cpu.shares") < 0)
    return NULL;
  return path;
}

int placer_cgroup_read_cpu_raw(const struct placer_cgroup *cg, const char *group, char **out,
                               struct placer_error **err) {
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup path '%s' is not allowed", group ? group : "");
  cleanup_free char *path = cpu_weight_path(cg, group);
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  char *value = read_line(path);
  if (value == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  *out = value;
  return 0;
}

int placer_cgroup_write_cpu_raw(const struct placer_cgroup *cg, const char *group, const char *value,
                                struct placer_error **err) {
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup path '%s' is not allowed", group ? group : "");
  for (const char *p = value; *p; p++)
    if (*p < '0' || *p > '9')
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cpu weight value '%s' is not a number", value);
  cleanup_free char *path = cpu_weight_path(cg, group);
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s = '%s'", path, value);
  size_t len = strlen(value);
  if (write(fd, value, len) != (ssize_t)len)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s = '%s'", path, value);
  return 0;
}
