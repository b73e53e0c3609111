/* cgroup layer: mode detection, the checks every entry point does, dispatch
 * to cgroup-v1.c / cgroup-v2.c (which differ in file names and a few steps),
 * and the file I/O both share.  Names live in cgroup-names.c, moving
 * processes in cgroup-attach.c, whole subtrees (their processes, removal) in
 * cgroup-remove.c, /proc parsing in cgroup-proc.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "lib/pid-list.h"
#include "lib/textfile.h"
#include "lib/units.h"

#define DEFAULT_ROOT "/sys/fs/cgroup"

static const char *const controller_names[PLACER_CGROUP_N_CONTROLLERS] = { "cpuset", "memory", "cpu", "cpuacct" };

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
    return placer_error_oom(err, NULL);
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
    return placer_error_oom(err, NULL);
  char *text = NULL;
  size_t len = 0;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, &len) < 0) {
    if (errno == ENOMEM)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "read %s: out of memory", path);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  }
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    len--;
  text[len] = '\0';
  *out = text;
  return 0;
}

int cg_read_u64(const char *dir, const char *file, uint64_t *out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (cg_read_file(dir, file, &text, err) < 0)
    return -1;
  if (placer_parse_u64(text, out) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "read %s/%s: not a number: '%s'", dir, file, text);
  return 0;
}

int cg_write_group(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group, const char *file,
                   const char *value, struct placer_error **err) {
  cleanup_free char *dir = placer_cgroup_dir(cg, c, group);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  return cg_write_file(dir, file, value, err);
}

int cg_read_group(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group, const char *file,
                  char **out, struct placer_error **err) {
  cleanup_free char *dir = placer_cgroup_dir(cg, c, group);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  return cg_read_file(dir, file, out, err);
}

int cg_read_group_u64(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group,
                      const char *file, uint64_t *out, struct placer_error **err) {
  cleanup_free char *dir = placer_cgroup_dir(cg, c, group);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  return cg_read_u64(dir, file, out, err);
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
  struct placer_pid_list list = { 0 };
  for (const char *p = text; *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) {
      p++;
      continue;
    }
    p = end;
    if (placer_pid_list_add(&list, (pid_t)v) < 0) {
      placer_pid_list_free(&list);
      return placer_error_oom(err, NULL);
    }
  }
  *pids = placer_pid_list_take(&list, n);
  return 0;
}

/* ------------------------------------------------------------------ open / close */

static int find_all_hierarchies(struct placer_cgroup *cg, const char *mountinfo, struct placer_error **err) {
  if (cg->mode == PLACER_CGROUP_V1) {
    if (cg_mountinfo_children(mountinfo, cg->root, &cg->all, &cg->n_all) < 0)
      return placer_error_oom(err, NULL);
    return 0;
  }
  if ((cg->all = calloc(1, sizeof(*cg->all))) == NULL)
    return placer_error_oom(err, NULL);
  cg->n_all = 1;
  cg->all[0].mount_point = strdup(cg->hier[0].mount_point);
  cg->all[0].mount_root = strdup(cg->hier[0].mount_root);
  if (cg->all[0].mount_point == NULL || cg->all[0].mount_root == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

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
    return placer_error_oom(err, NULL);
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
  if (cg_read_file("/proc/self", "mountinfo", &mountinfo, err) < 0 || cg->ops->init(cg, mountinfo, err) < 0 ||
      find_all_hierarchies(cg, mountinfo, err) < 0) {
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
  for (size_t i = 0; i < cg->n_all; i++) {
    free(cg->all[i].mount_point);
    free(cg->all[i].mount_root);
  }
  free(cg->all);
  free(cg->root);
  free(cg);
}

/* ------------------------------------------------------------------ dispatch */

bool cg_group_dir_exists(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group) {
  cleanup_free char *dir = cg_group_dir(cg->hier[c].mount_point, group);
  struct stat st;
  return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* cpuacct does not count: a group made before placer knew it (or by hand)
 * exists all the same, it is only not accounted. */
bool placer_cgroup_exists(const struct placer_cgroup *cg, const char *group) {
  if (!placer_cgroup_group_is_valid(group))
    return false;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    if (c != PLACER_CGROUP_CPUACCT && !cg_group_dir_exists(cg, c, group))
      return false;
  return true;
}

char *placer_cgroup_existing_parent(const struct placer_cgroup *cg, const char *group) {
  char *path = strdup(group);
  if (path == NULL)
    return NULL;
  char *slash;
  while ((slash = strrchr(path, '/')) != NULL) {
    *slash = '\0';
    if (placer_cgroup_exists(cg, path))
      return path;
  }
  *path = '\0';
  return path;
}

bool placer_cgroup_accounts(const struct placer_cgroup *cg, const char *group) {
  return cg->hier[PLACER_CGROUP_CPUACCT].shared ||
         (placer_cgroup_group_is_valid(group) && cg_group_dir_exists(cg, PLACER_CGROUP_CPUACCT, group));
}

bool placer_cgroup_membership_is(const struct placer_cgroup *cg, const struct placer_cgroup_membership *m,
                                 const char *group) {
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (c == PLACER_CGROUP_CPUACCT && !placer_cgroup_accounts(cg, group))
      continue;
    if (m->path[c] == NULL || strcmp(m->path[c], group) != 0)
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
  return cg_write_group(cg, PLACER_CGROUP_CPUSET, group, "cpuset.cpus", cpus, err);
}

int placer_cgroup_set_mems(struct placer_cgroup *cg, const char *group, const char *mems, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg_write_group(cg, PLACER_CGROUP_CPUSET, group, "cpuset.mems", mems, err);
}

int placer_cgroup_set_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t bytes,
                                   struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  char value[32];
  if (bytes == PLACER_CGROUP_UNLIMITED)
    snprintf(value, sizeof(value), "%s", cg->ops->memory_unlimited);
  else
    snprintf(value, sizeof(value), "%" PRIu64, bytes);
  return cg_write_group(cg, PLACER_CGROUP_MEMORY, group, cg->ops->memory_limit_file, value, err);
}

int placer_cgroup_set_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned weight,
                                 struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (weight < PLACER_CGROUP_WEIGHT_MIN || weight > PLACER_CGROUP_WEIGHT_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cpu weight %u of %s is outside 1..10000", weight, group);
  char value[32];
  snprintf(value, sizeof(value), "%" PRIu64, cg->ops->weight_to_raw(weight));
  return cg_write_group(cg, PLACER_CGROUP_CPU, group, cg->ops->cpu_weight_file, value, err);
}

int placer_cgroup_parse_cpu_max(const char *text, uint64_t *quota_us, uint64_t *period_us) {
  char quota[32];
  unsigned long long period;
  char extra;
  if (text == NULL || sscanf(text, "%31s %llu %c", quota, &period, &extra) != 2 || period == 0)
    return -1;
  uint64_t q;
  if (strcmp(quota, "max") == 0 || strcmp(quota, "-1") == 0)
    q = PLACER_CGROUP_UNLIMITED;
  else if (placer_parse_u64(quota, &q) < 0 || q == 0)
    return -1;
  *quota_us = q;
  *period_us = period;
  return 0;
}

unsigned placer_cgroup_cpu_max_mcores(uint64_t quota_us, uint64_t period_us) {
  if (quota_us == PLACER_CGROUP_UNLIMITED || period_us == 0)
    return 0;
  double m = (double)quota_us * 1000.0 / (double)period_us + 0.5;
  if (m < 1)
    return 1;
  return m > (double)PLACER_CGROUP_QUOTA_MAX_MCORES ? PLACER_CGROUP_QUOTA_MAX_MCORES : (unsigned)m;
}

int placer_cgroup_set_cpu_quota(struct placer_cgroup *cg, const char *group, unsigned mcores,
                                struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (mcores && (mcores < PLACER_CGROUP_QUOTA_MIN_MCORES || mcores > PLACER_CGROUP_QUOTA_MAX_MCORES))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cpu quota %u.%03u cores of %s is outside 0.01..65536",
                            mcores / 1000, mcores % 1000, group);
  uint64_t period = PLACER_CGROUP_CPU_PERIOD_US;
  uint64_t quota = mcores ? (uint64_t)mcores * period / 1000 : PLACER_CGROUP_UNLIMITED;
  return cg->ops->write_cpu_max(cg, group, quota, period, err);
}

int placer_cgroup_read_cpu_quota_raw(struct placer_cgroup *cg, const char *group, char **out,
                                     struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg->ops->read_cpu_max(cg, group, out, err);
}

int placer_cgroup_read_cpu_quota(struct placer_cgroup *cg, const char *group, unsigned *mcores,
                                 struct placer_error **err) {
  cleanup_free char *raw = NULL;
  if (placer_cgroup_read_cpu_quota_raw(cg, group, &raw, err) < 0)
    return -1;
  uint64_t quota, period;
  if (placer_cgroup_parse_cpu_max(raw, &quota, &period) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: cpu quota '%s' is not 'QUOTA PERIOD'", group, raw);
  *mcores = placer_cgroup_cpu_max_mcores(quota, period);
  return 0;
}

int placer_cgroup_write_cpu_quota_raw(struct placer_cgroup *cg, const char *group, const char *value,
                                      struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  uint64_t quota, period;
  if (placer_cgroup_parse_cpu_max(value, &quota, &period) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: cpu quota value '%s' is not 'QUOTA PERIOD'", group,
                            value ? value : "");
  return cg->ops->write_cpu_max(cg, group, quota, period, err);
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
  return cg_read_group(cg, c, group, file, out, err);
}

int placer_cgroup_read_cpus(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  return read_group_file(cg, PLACER_CGROUP_CPUSET, group, "cpuset.cpus", out, err);
}

int placer_cgroup_read_mems(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  return read_group_file(cg, PLACER_CGROUP_CPUSET, group, "cpuset.mems", out, err);
}

int placer_cgroup_read_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t *out,
                                    struct placer_error **err) {
  const char *file = cg->ops->memory_limit_file;
  cleanup_free char *text = NULL;
  if (read_group_file(cg, PLACER_CGROUP_MEMORY, group, file, &text, err) < 0)
    return -1;
  uint64_t v;
  if (strcmp(text, cg->ops->memory_unlimited) == 0)
    v = PLACER_CGROUP_UNLIMITED;
  else if (placer_parse_u64(text, &v) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "read %s of %s: not a number: '%s'", file, group, text);
  *out = v >= cg->ops->memory_unlimited_floor ? PLACER_CGROUP_UNLIMITED : v;
  return 0;
}

int placer_cgroup_read_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned *out,
                                  struct placer_error **err) {
  uint64_t raw;
  if (cg_check_group(group, err) < 0 ||
      cg_read_group_u64(cg, PLACER_CGROUP_CPU, group, cg->ops->cpu_weight_file, &raw, err) < 0)
    return -1;
  *out = cg->ops->raw_to_weight(raw);
  return 0;
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

/* ------------------------------------------------------------------ effective values, raw weight */

/* /sys files for a root without effective cpuset files. */
struct sys_file {
  const char *dir, *file;
};

/* Hand E on in *ERR (the first error wins) and fail. */
static int pass_error(struct placer_error **err, struct placer_error *e) {
  if (err && *err == NULL)
    *err = e;
  else
    placer_error_free(e);
  return -1;
}

/* FILE of GROUP in the cpuset hierarchy; for the root, when there is no such
 * file (v2 without the cpuset controller), the first of FALLBACKS that can be
 * read, else "0" (no NUMA in /sys: one node). */
static int read_effective(const struct placer_cgroup *cg, const char *group, const char *file,
                          const struct sys_file *fallbacks, size_t n_fallbacks, char **out, struct placer_error **err) {
  struct placer_error *e = NULL;
  if (cg_read_group(cg, PLACER_CGROUP_CPUSET, group, file, out, &e) == 0)
    return 0;
  bool root = group == NULL || *group == '\0';
  for (size_t i = 0; root && e->errno_value == ENOENT && i < n_fallbacks; i++) {
    placer_error_free(e);
    e = NULL;
    if (cg_read_file(fallbacks[i].dir, fallbacks[i].file, out, &e) == 0)
      return 0;
  }
  if (root && e->errno_value == ENOENT) {
    placer_error_free(e);
    if ((*out = strdup("0")) == NULL)
      return placer_error_oom(err, NULL);
    return 0;
  }
  return pass_error(err, e);
}

int placer_cgroup_read_effective(const struct placer_cgroup *cg, const char *group, char **cpus, char **mems,
                                 struct placer_error **err) {
  static const struct sys_file cpu_fallbacks[] = { { "/sys/devices/system/cpu", "online" } };
  static const struct sys_file mem_fallbacks[] = { { "/sys/devices/system/node", "has_memory" },
                                                   { "/sys/devices/system/node", "online" } };
  if (group && *group && cg_check_group(group, err) < 0)
    return -1;
  cleanup_free char *c = NULL, *m = NULL;
  if (cpus && read_effective(cg, group, cg->ops->effective_cpus_file, cpu_fallbacks, 1, &c, err) < 0)
    return -1;
  if (mems && read_effective(cg, group, cg->ops->effective_mems_file, mem_fallbacks, 2, &m, err) < 0)
    return -1;
  if (cpus)
    *cpus = TAKE_PTR(c);
  if (mems)
    *mems = TAKE_PTR(m);
  return 0;
}

int placer_cgroup_read_cpu_raw(const struct placer_cgroup *cg, const char *group, char **out,
                               struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  return cg_read_group(cg, PLACER_CGROUP_CPU, group, cg->ops->cpu_weight_file, out, err);
}

int placer_cgroup_write_cpu_raw(const struct placer_cgroup *cg, const char *group, const char *value,
                                struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (value == NULL || *value == '\0' || value[strspn(value, "0123456789")] != '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: cpu weight value '%s' is not a number", group,
                            value ? value : "");
  return cg_write_group(cg, PLACER_CGROUP_CPU, group, cg->ops->cpu_weight_file, value, err);
}
