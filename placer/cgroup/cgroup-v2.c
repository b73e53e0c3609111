/* cgroup v2: one unified hierarchy.  Controllers must be enabled in every
 * ancestor's cgroup.subtree_control, and only leaves hold processes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/array.h"
#include "cgroup/cgroup-internal.h"
#include "lib/path-levels.h"

static const char *const needed_controllers[] = { "cpuset", "memory", "cpu" };

static int v2_init(struct placer_cgroup *cg, const char *mountinfo, struct placer_error **err) {
  struct placer_cgroup_hier *h = &cg->hier[0];
  if (cg_mountinfo_lookup(mountinfo, cg->root, NULL, &h->mount_point, &h->mount_root) < 0) {
    /* Not in our mount table (another mount namespace's view): assume
     * the root is the hierarchy's root. */
    h->mount_point = strdup(cg->root);
    h->mount_root = strdup("/");
    if (h->mount_point == NULL || h->mount_root == NULL)
      return placer_error_oom(err, NULL);
  }
  for (int c = 1; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cg->hier[c].mount_point = strdup(h->mount_point);
    cg->hier[c].mount_root = strdup(h->mount_root);
    cg->hier[c].shared = true;
    cg->hier[c].same_as = 0;
    if (cg->hier[c].mount_point == NULL || cg->hier[c].mount_root == NULL)
      return placer_error_oom(err, NULL);
  }
  return 0;
}

static bool word_in(const char *list, const char *word) {
  size_t wlen = strlen(word);
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += wlen)
    if ((p == list || p[-1] == ' ') && (p[wlen] == ' ' || p[wlen] == '\0'))
      return true;
  return false;
}

/* Let DIR's children use cpuset, memory and cpu. */
static int enable_controllers(const char *dir, struct placer_error **err) {
  cleanup_free char *enabled = NULL, *available = NULL;
  if (cg_read_file(dir, "cgroup.subtree_control", &enabled, err) < 0)
    return -1;
  char request[64] = "";
  for (size_t i = 0; i < N_OF(needed_controllers); i++) {
    if (word_in(enabled, needed_controllers[i]))
      continue;
    if (available == NULL && cg_read_file(dir, "cgroup.controllers", &available, err) < 0)
      return -1;
    if (!word_in(available, needed_controllers[i]))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOTSUP,
                              "controller '%s' is not available in %s (cgroup.controllers: '%s'); "
                              "is it bound to a cgroup v1 hierarchy?",
                              needed_controllers[i], dir, available);
    snprintf(request + strlen(request), sizeof(request) - strlen(request), "%s+%s", *request ? " " : "",
             needed_controllers[i]);
  }
  if (*request == '\0')
    return 0;
  if (cg_write_file(dir, "cgroup.subtree_control", request, err) < 0) {
    cg_error_hint(err, EBUSY, "a v2 group that holds processes cannot enable controllers for children");
    return -1;
  }
  return 0;
}

/* One level: made; every level but the leaf passes the controllers on.  A
 * new v2 cpuset is usable at once (empty means "the parent's"). */
static int v2_create_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  const char *mount = ctx;
  cleanup_free char *dir = cg_group_dir(mount, level->path);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  if (mkdir(dir, 0755) < 0 && errno != EEXIST)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", dir);
  return level->last ? 0 : enable_controllers(dir, err);
}

static int v2_create(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  const char *mount = cg->hier[0].mount_point;
  if (enable_controllers(mount, err) < 0)
    return -1;
  return placer_path_each_level(group, v2_create_level, (void *)mount, err) < 0 ? -1 : 0;
}

static uint64_t weight_as_is(unsigned weight) {
  return weight;
}

static unsigned weight_read(uint64_t raw) {
  return raw > PLACER_CGROUP_WEIGHT_MAX ? PLACER_CGROUP_WEIGHT_MAX : (unsigned)raw;
}

static int v2_attach_pid(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err) {
  if (cg_attach_group(cg, group, pid, err) < 0) {
    cg_error_hint(err, EBUSY, "a v2 group with controllers enabled for children cannot hold processes");
    return -1;
  }
  return 0;
}

static int v2_attach_tid(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err) {
  char value[24];
  snprintf(value, sizeof(value), "%d", (int)tid);
  if (cg_write_group(cg, PLACER_CGROUP_CPUSET, group, "cgroup.threads", value, err) < 0) {
    cg_error_hint(err, EOPNOTSUPP, "cgroup v2 moves single threads only inside a threaded subtree; move the process");
    return -1;
  }
  return 0;
}

static int v2_read_cpu_max(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  return cg_read_group(cg, PLACER_CGROUP_CPU, group, "cpu.max", out, err);
}

static int v2_write_cpu_max(struct placer_cgroup *cg, const char *group, uint64_t quota_us, uint64_t period_us,
                            struct placer_error **err) {
  char value[64];
  if (quota_us == PLACER_CGROUP_UNLIMITED)
    snprintf(value, sizeof(value), "max %" PRIu64, period_us);
  else
    snprintf(value, sizeof(value), "%" PRIu64 " %" PRIu64, quota_us, period_us);
  return cg_write_group(cg, PLACER_CGROUP_CPU, group, "cpu.max", value, err);
}

const struct placer_cgroup_ops placer_cgroup_ops_v2 = {
  .name = "v2",
  .memory_limit_file = "memory.max",
  .memory_unlimited = "max",
  .memory_unlimited_floor = PLACER_CGROUP_UNLIMITED,
  .cpu_weight_file = "cpu.weight",
  .effective_cpus_file = "cpuset.cpus.effective",
  .effective_mems_file = "cpuset.mems.effective",
  .cpu_usage_file = "cpu.stat",
  .parse_cpu_usage = placer_cgroup_parse_cpu_stat,
  .init = v2_init,
  .create = v2_create,
  .weight_to_raw = weight_as_is,
  .raw_to_weight = weight_read,
  .read_cpu_max = v2_read_cpu_max,
  .write_cpu_max = v2_write_cpu_max,
  .attach_pid = v2_attach_pid,
  .attach_tid = v2_attach_tid,
};
