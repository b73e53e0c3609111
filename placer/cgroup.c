/* cgroup layer: mode detection, the checks every entry point does, dispatch
 * to cgroup-v1.c / cgroup-v2.c, and the file I/O both share.  Names live in
 * cgroup-names.c, moving processes in cgroup-attach.c, removal in
 * cgroup-remove.c, /proc parsing in cgroup-proc.c. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup-internal.h"

#define DEFAULT_ROOT "/sys/fs/cgroup"

static const char *const controller_names[PLACER_CGROUP_N_CONTROLLERS] = { "cpuset", "memory", "cpu" };

const char *placer_cgroup_controller_name(enum placer_cgroup_controller c) {
  return (unsigned)c < PLACER_CGROUP_N_CONTROLLERS ? controller_names[c] : "?";
}

const char *placer_cgroup_mode_name(enum placer_cgroup_mode mode) {
  return mode == PLACER_CGROUP_V2 ? "v2" : "v1";
}

enum placer_cgroup_mode placer_cgroup_get_mode(const struct placer_cgroup *cg) {
  return cg->mode;
}

/* ------------------------------------------------------------------ file helpers */

char *cg_group_dir(const char *dir, const char *group) {
  char *s = NULL;
  if (group == NULL || *group == '\0')
    return strdup(dir);
  if (asprintf(&s, "%s/%s", dir, group) < 0)
    return NULL;
  return s;
}

char *placer_cgroup_dir(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group) {
  if ((unsigned)c >= PLACER_CGROUP_N_CONTROLLERS)
    return NULL;
  return cg_group_dir(cg->hier[c].mount_point, group);
}

int cg_write_file(const char *dir, const char *file, const char *value, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, file) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s = '%s'", path, value);
  /* One write(2): cgroupfs parses each write as a whole value. */
  size_t len = strlen(value);
  ssize_t n = write(fd, value, len);
  if (n < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s = '%s'", path, value);
  if ((size_t)n != len)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EIO, "write %s = '%s': short write", path, value);
  return 0;
}

int cg_read_file(const char *dir, const char *file, char **out, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, file) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  size_t cap = 4096, len = 0;
  cleanup_free char *buf = malloc(cap);
  if (buf == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "read %s: out of memory", path);
  for (;;) {
    ssize_t n = read(fd, buf + len, cap - len - 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
    if (n == 0)
      break;
    len += (size_t)n;
    if (cap - len - 1 == 0) {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "read %s: out of memory", path);
      buf = bigger;
      cap *= 2;
    }
  }
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
    len--;
  buf[len] = '\0';
  *out = TAKE_PTR(buf);
  return 0;
}

int cg_read_u64(const char *dir, const char *file, uint64_t *out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (cg_read_file(dir, file, &text, err) < 0)
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-')
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "read %s/%s: not a number: '%s'", dir, file, text);
  *out = v;
  return 0;
}

void cg_error_hint(struct placer_error **err, int errno_value, const char *hint) {
  if (err == NULL || *err == NULL || (*err)->errno_value != errno_value)
    return;
  char *msg = NULL;
  if (asprintf(&msg, "%s (%s)", (*err)->msg, hint) < 0)
    return;
  free((*err)->msg);
  (*err)->msg = msg;
}

int cg_parse_pids(const char *text, pid_t **pids, size_t *n, struct placer_error **err) {
  size_t cap = 0, count = 0;
  pid_t *list = NULL;
  for (const char *p = text; *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) {
      p++;
      continue;
    }
    p = end;
    if (count == cap) {
      cap = cap ? cap * 2 : 16;
      pid_t *bigger = realloc(list, cap * sizeof(*list));
      if (bigger == NULL) {
        free(list);
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
      }
      list = bigger;
    }
    list[count++] = (pid_t)v;
  }
  *pids = list;
  *n = count;
  return 0;
}

/* ------------------------------------------------------------------ open / close */

int placer_cgroup_open(const char *root, struct placer_cgroup **out, struct placer_error **err) {
  if (root == NULL || *root == '\0')
    root = getenv("PLACER_CGROUP_ROOT");
  if (root == NULL || *root == '\0')
    root = DEFAULT_ROOT;
  struct statfs sfs;
  if (statfs(root, &sfs) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "cgroup root %s", root);

  struct placer_cgroup *cg = calloc(1, sizeof(*cg));
  if (cg == NULL || (cg->root = strdup(root)) == NULL) {
    free(cg);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  /* Like crun: cgroup2 magic at the root means unified.  Anything else
   * (tmpfs normally; a plain directory when tests mount v1 hierarchies
   * somewhere else) is searched for v1 controller mounts. */
  if ((unsigned long)sfs.f_type == (unsigned long)CGROUP2_SUPER_MAGIC) {
    cg->mode = PLACER_CGROUP_V2;
    cg->ops = &placer_cgroup_ops_v2;
  } else if ((unsigned long)sfs.f_type == (unsigned long)CGROUP_SUPER_MAGIC) {
    placer_cgroup_close(cg);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "cgroup root %s is one v1 hierarchy; give the directory holding them (e.g. /sys/fs/cgroup)",
                            root);
  } else {
    cg->mode = PLACER_CGROUP_V1;
    cg->ops = &placer_cgroup_ops_v1;
  }
  cleanup_free char *mountinfo = NULL;
  if (cg_read_file("/proc/self", "mountinfo", &mountinfo, err) < 0 || cg->ops->init(cg, mountinfo, err) < 0) {
    enum placer_cgroup_mode mode = cg->mode;
    placer_cgroup_close(cg);
    return placer_error_prefix(err, "cgroup %s at %s", placer_cgroup_mode_name(mode), root);
  }
  *out = cg;
  return 0;
}

void placer_cgroup_close(struct placer_cgroup *cg) {
  if (cg == NULL)
    return;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    free(cg->hier[c].mount_point);
    free(cg->hier[c].mount_root);
  }
  free(cg->root);
  free(cg);
}

/* ------------------------------------------------------------------ dispatch */

bool placer_cgroup_exists(const struct placer_cgroup *cg, const char *group) {
  if (!placer_cgroup_group_is_valid(group))
    return false;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, group);
    struct stat st;
    if (dir == NULL || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
      return false;
  }
  return true;
}

int placer_cgroup_create(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->create(cg, group, err);
}

int placer_cgroup_set_cpus(struct placer_cgroup *cg, const char *group, const char *cpus, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->set_cpus(cg, group, cpus, err);
}

int placer_cgroup_set_mems(struct placer_cgroup *cg, const char *group, const char *mems, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->set_mems(cg, group, mems, err);
}

int placer_cgroup_set_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t bytes,
                                   struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->set_memory_limit(cg, group, bytes, err);
}

int placer_cgroup_set_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned weight,
                                 struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (weight < PLACER_CGROUP_WEIGHT_MIN || weight > PLACER_CGROUP_WEIGHT_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cpu weight %u of %s is outside 1..10000", weight, group);
  return cg->ops->set_cpu_weight(cg, group, weight, err);
}

int placer_cgroup_attach_pid(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (pid <= 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "move pid %d: not a pid", (int)pid);
  if (cg->ops->attach_pid(cg, group, pid, err) < 0)
    return placer_error_prefix(err, "move pid %d to %s", (int)pid, group);
  return 0;
}

int placer_cgroup_attach_tid(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (tid <= 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "move thread %d: not a thread id", (int)tid);
  if (cg->ops->attach_tid(cg, group, tid, err) < 0)
    return placer_error_prefix(err, "move thread %d to %s", (int)tid, group);
  return 0;
}

static int read_group_file(struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group,
                           const char *file, char **out, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, group);
  if (dir == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  return cg_read_file(dir, file, out, err);
}

int placer_cgroup_read_cpus(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  return read_group_file(cg, PLACER_CGROUP_CPUSET, group, "cpuset.cpus", out, err);
}

int placer_cgroup_read_mems(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  return read_group_file(cg, PLACER_CGROUP_CPUSET, group, "cpuset.mems", out, err);
}

int placer_cgroup_read_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t *out,
                                    struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->read_memory_limit(cg, group, out, err);
}

int placer_cgroup_read_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned *out,
                                  struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->read_cpu_weight(cg, group, out, err);
}

static int compare_pid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

int placer_cgroup_list_pids(struct placer_cgroup *cg, const char *group, pid_t **pids, size_t *n_pids,
                            struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (read_group_file(cg, PLACER_CGROUP_CPUSET, group, "cgroup.procs", &text, err) < 0)
    return -1;
  if (cg_parse_pids(text, pids, n_pids, err) < 0)
    return -1;
  if (*n_pids > 1)
    qsort(*pids, *n_pids, sizeof(**pids), compare_pid);
  return 0;
}
