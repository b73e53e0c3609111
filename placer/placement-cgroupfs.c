/* The cgroupfs writer of a placement (placement.h): groups under the cgroup
 * root, their values written as the files of cgroup v1 or v2 (cgroup.h
 * hides which). */
#include "placement.h"

#include <stdlib.h>
#include <string.h>

static bool cgroupfs_exists(void *ctx, const char *where) {
  return placer_cgroup_exists(ctx, where);
}

static int cgroupfs_create(void *ctx, const char *where, const char *mark, bool *unmarked, struct placer_error **err) {
  int rc = placer_cgroup_create_marked(ctx, where, mark, err);
  if (rc < 0)
    return -1;
  *unmarked = rc > 0;
  return 0;
}

/* What a group made now would hold: a new v1 cpuset copies its parent's
 * cpus and mems, a v2 one starts empty; no limit, the default weight, no
 * quota. */
static int read_new(struct placer_cgroup *cg, const char *where, struct placer_group_values *now,
                    struct placer_error **err) {
  if (placer_cgroup_get_mode(cg) == PLACER_CGROUP_V1) {
    cleanup_free char *parent = placer_cgroup_existing_parent(cg, where);
    if (parent == NULL)
      return placer_error_oom(err, NULL);
    if (placer_cgroup_read_effective(cg, parent, &now->cpus, &now->mems, err) < 0)
      return -1;
  } else if ((now->cpus = strdup("")) == NULL || (now->mems = strdup("")) == NULL) {
    return placer_error_oom(err, NULL);
  }
  now->memory_limit = PLACER_CGROUP_UNLIMITED;
  now->cpu_weight = PLACER_CGROUP_WEIGHT_DEFAULT;
  now->cpu_quota = 0;
  return 0;
}

static bool wants(unsigned settings, enum placer_setting s) {
  return settings & PLACER_SETTING_BIT(s);
}

static int cgroupfs_read(void *ctx, const char *where, unsigned settings, struct placer_group_values *now,
                         struct placer_error **err) {
  struct placer_cgroup *cg = ctx;
  memset(now, 0, sizeof(*now));
  if (!placer_cgroup_exists(cg, where)) {
    if (read_new(cg, where, now, err) < 0)
      goto fail;
    return 0;
  }
  if ((wants(settings, PLACER_SETTING_CPUS) && placer_cgroup_read_cpus(cg, where, &now->cpus, err) < 0) ||
      (wants(settings, PLACER_SETTING_MEMS) && placer_cgroup_read_mems(cg, where, &now->mems, err) < 0) ||
      (wants(settings, PLACER_SETTING_MEMORY_LIMIT) &&
       placer_cgroup_read_memory_limit(cg, where, &now->memory_limit, err) < 0) ||
      (wants(settings, PLACER_SETTING_CPU_WEIGHT) &&
       placer_cgroup_read_cpu_weight(cg, where, &now->cpu_weight, err) < 0) ||
      (wants(settings, PLACER_SETTING_CPU_QUOTA) && placer_cgroup_read_cpu_quota(cg, where, &now->cpu_quota, err) < 0))
    goto fail;
  return 0;
fail:
  placer_group_values_clear(now);
  return -1;
}

static int cgroupfs_update(void *ctx, const char *where, enum placer_setting s, const struct placer_group_values *want,
                           struct placer_error **err) {
  struct placer_cgroup *cg = ctx;
  switch (s) {
  case PLACER_SETTING_CPUS: return placer_cgroup_set_cpus(cg, where, want->cpus, err);
  case PLACER_SETTING_MEMS: return placer_cgroup_set_mems(cg, where, want->mems, err);
  case PLACER_SETTING_MEMORY_LIMIT: return placer_cgroup_set_memory_limit(cg, where, want->memory_limit, err);
  case PLACER_SETTING_CPU_WEIGHT: return placer_cgroup_set_cpu_weight(cg, where, want->cpu_weight, err);
  case PLACER_SETTING_CPU_QUOTA: return placer_cgroup_set_cpu_quota(cg, where, want->cpu_quota, err);
  case PLACER_SETTING_N: break;
  }
  return 0;
}

static int cgroupfs_attach(void *ctx, const char *where, pid_t pid, struct placer_error **err) {
  return placer_cgroup_attach_pid(ctx, where, pid, err);
}

static int cgroupfs_destroy(void *ctx, const char *where, struct placer_error **err) {
  return placer_cgroup_remove(ctx, where, err);
}

const struct placer_writer_ops placer_writer_cgroupfs_ops = {
  .name = "cgroupfs",
  .exists = cgroupfs_exists,
  .create = cgroupfs_create,
  .read = cgroupfs_read,
  .update = cgroupfs_update,
  .attach = cgroupfs_attach,
  .destroy = cgroupfs_destroy,
};

struct placer_writer placer_writer_cgroupfs(struct placer_cgroup *cg) {
  return (struct placer_writer){ &placer_writer_cgroupfs_ops, cg };
}
