/* cgroup v1 (and the hybrid layout): one hierarchy per controller, each
 * found in mountinfo; cpuset, memory, cpu and cpuacct are handled separately. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup/cgroup-internal.h"
#include "lib/path-levels.h"

/* memory.limit_in_bytes reads back "no limit" as LONG_MAX rounded down to
 * a page (9223372036854771712 with 4 KiB pages); anything this large is it. */
#define V1_UNLIMITED_FLOOR (UINT64_C(1) << 62)

static int v1_init(struct placer_cgroup *cg, const char *mountinfo, struct placer_error **err) {
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    const char *name = placer_cgroup_controller_name(c);
    struct placer_cgroup_hier *h = &cg->hier[c];
    if (cg_mountinfo_lookup(mountinfo, cg->root, name, &h->mount_point, &h->mount_root) < 0) {
      if (c != PLACER_CGROUP_CPUACCT)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "no cgroup v1 '%s' hierarchy mounted under %s", name,
                                cg->root);
      /* No cpuacct mount (a test root with cpuset, memory and cpu only):
       * account in cpu's hierarchy, as with "cpu,cpuacct". */
      h->mount_point = strdup(cg->hier[PLACER_CGROUP_CPU].mount_point);
      h->mount_root = strdup(cg->hier[PLACER_CGROUP_CPU].mount_root);
      if (h->mount_point == NULL || h->mount_root == NULL)
        return placer_error_oom(err, NULL);
    }
    /* Controllers mounted together (say "cpu,cpuacct") are one hierarchy:
     * walk it once. */
    h->same_as = c;
    for (int prev = c - 1; prev >= 0; prev--)
      if (strcmp(cg->hier[prev].mount_point, h->mount_point) == 0) {
        h->shared = true;
        h->same_as = cg->hier[prev].same_as;
      }
  }
  return 0;
}

static char *dir_of(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group) {
  return cg_group_dir(cg->hier[c].mount_point, group);
}

/* A new v1 cpuset has empty cpus and mems, and no task may enter it (nor a
 * child be given CPUs) until they are set: copy the parent's. */
static int populate_cpuset(const char *parent, const char *dir, struct placer_error **err) {
  static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
  for (size_t i = 0; i < 2; i++) {
    cleanup_free char *have = NULL, *from_parent = NULL;
    if (cg_read_file(dir, files[i], &have, err) < 0)
      return -1;
    if (*have)
      continue;
    if (cg_read_file(parent, files[i], &from_parent, err) < 0)
      return -1;
    if (*from_parent == '\0')
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOSPC, "%s/%s is empty: cannot populate %s", parent, files[i],
                              dir);
    if (cg_write_file(dir, files[i], from_parent, err) < 0)
      return -1;
  }
  return 0;
}

static int level_missing_in_cpuacct_only(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  (void)err;
  const struct placer_cgroup *cg = ctx;
  return !cg_group_dir_exists(cg, PLACER_CGROUP_CPUACCT, level->path) &&
         cg_group_dir_exists(cg, PLACER_CGROUP_CPUSET, level->path);
}

/* May GROUP be made in a separately mounted cpuacct?  Not below a level
 * that exists in cpuset but not in cpuacct (made by hand, or by a placer
 * before cpuacct was part of the layer): making it there would leave a
 * cpuacct group behind that nobody removes.  Such a group does not
 * account (placer_cgroup_accounts). */
static bool cpuacct_may_create(const struct placer_cgroup *cg, const char *group) {
  struct placer_error *err = NULL;
  int rc = placer_path_each_level(group, level_missing_in_cpuacct_only, (void *)cg, &err);
  placer_error_free(err);
  return rc == 0;
}

struct v1_level {
  struct placer_cgroup *cg;
  int controller;
};

/* One level in one controller's hierarchy: made, and a cpuset given its
 * parent's cpus and mems (v1 leaves a new one empty). */
static int v1_create_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  struct v1_level *v = ctx;
  cleanup_free char *dir = dir_of(v->cg, v->controller, level->path);
  cleanup_free char *parent =
      level->parent ? dir_of(v->cg, v->controller, level->parent) : strdup(v->cg->hier[v->controller].mount_point);
  if (dir == NULL || parent == NULL)
    return placer_error_oom(err, NULL);
  if (mkdir(dir, 0755) < 0 && errno != EEXIST)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", dir);
  if (v->controller == PLACER_CGROUP_CPUSET && populate_cpuset(parent, dir, err) < 0)
    return -1;
  return 0;
}

static int v1_create(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  bool acct = cpuacct_may_create(cg, group);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared || (c == PLACER_CGROUP_CPUACCT && !acct))
      continue;
    /* Each level in turn, root side first: "placer", "placer/osd", ... */
    struct v1_level v = { .cg = cg, .controller = c };
    if (placer_path_each_level(group, v1_create_level, &v, err) < 0)
      return -1;
  }
  /* So that a process's pages follow it to the instance's nodes when it is
   * moved in or its mems change (v2 always does this). */
  cleanup_free char *leaf = dir_of(cg, PLACER_CGROUP_CPUSET, group);
  if (leaf == NULL)
    return placer_error_oom(err, NULL);
  return cg_write_file(leaf, "cpuset.memory_migrate", "1", err);
}

/* Writing a PID to v1 cgroup.procs moves all its threads, but only in that
 * one hierarchy: cg_attach_group writes it in each. */
static int v1_attach_pid(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err) {
  return cg_attach_group(cg, group, pid, err);
}

/* v1 `tasks` takes one thread id. */
static int v1_attach_tid(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err) {
  char value[24];
  snprintf(value, sizeof(value), "%d", (int)tid);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (cg->hier[c].shared || (c == PLACER_CGROUP_CPUACCT && !placer_cgroup_accounts(cg, group)))
      continue;
    if (cg_write_group(cg, c, group, "tasks", value, err) < 0)
      return -1;
  }
  return 0;
}

/* v1 keeps quota and period in two files; -1 is no quota. */
static int v1_read_cpu_max(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err) {
  cleanup_free char *quota = NULL, *period = NULL;
  if (cg_read_group(cg, PLACER_CGROUP_CPU, group, "cpu.cfs_quota_us", &quota, err) < 0 ||
      cg_read_group(cg, PLACER_CGROUP_CPU, group, "cpu.cfs_period_us", &period, err) < 0)
    return -1;
  bool none = quota[0] == '-';
  if (asprintf(out, "%s %s", none ? "max" : quota, period) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}

static int v1_write_cpu_max(struct placer_cgroup *cg, const char *group, uint64_t quota_us, uint64_t period_us,
                            struct placer_error **err) {
  char quota[32], period[32];
  snprintf(period, sizeof(period), "%" PRIu64, period_us);
  if (quota_us == PLACER_CGROUP_UNLIMITED)
    snprintf(quota, sizeof(quota), "-1");
  else
    snprintf(quota, sizeof(quota), "%" PRIu64, quota_us);
  /* No quota first, so that a new period never meets an old quota it
   * cannot carry; then the period, then the quota. */
  if (cg_write_group(cg, PLACER_CGROUP_CPU, group, "cpu.cfs_quota_us", "-1", err) < 0 ||
      cg_write_group(cg, PLACER_CGROUP_CPU, group, "cpu.cfs_period_us", period, err) < 0)
    return -1;
  if (quota_us == PLACER_CGROUP_UNLIMITED)
    return 0;
  return cg_write_group(cg, PLACER_CGROUP_CPU, group, "cpu.cfs_quota_us", quota, err);
}

const struct placer_cgroup_ops placer_cgroup_ops_v1 = {
  .name = "v1",
  .memory_limit_file = "memory.limit_in_bytes",
  .memory_unlimited = "-1",
  .memory_unlimited_floor = V1_UNLIMITED_FLOOR,
  .cpu_weight_file = "cpu.shares",
  .effective_cpus_file = "cpuset.effective_cpus",
  .effective_mems_file = "cpuset.effective_mems",
  .cpu_usage_file = "cpuacct.usage",
  .parse_cpu_usage = placer_cgroup_parse_cpuacct_usage,
  .init = v1_init,
  .create = v1_create,
  .weight_to_raw = placer_cgroup_weight_to_shares, /* linear, cgroup-names.c */
  .raw_to_weight = placer_cgroup_shares_to_weight,
  .read_cpu_max = v1_read_cpu_max,
  .write_cpu_max = v1_write_cpu_max,
  .attach_pid = v1_attach_pid,
  .attach_tid = v1_attach_tid,
};
