/* Instance groups: their names and their plan values; see placement.h. */
#include "placement.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpulist.h"

const char *placer_apply_prefix(const char *opt_prefix) {
  if (opt_prefix && *opt_prefix)
    return opt_prefix;
  const char *env = getenv("PLACER_CGROUP_PREFIX");
  return env && *env ? env : PLACER_DEFAULT_CGROUP_PREFIX;
}

int placer_instance_group(const char *prefix, const char *role, const char *name, char **out,
                          struct placer_error **err) {
  cleanup_free char *role_s = NULL, *name_s = NULL, *mid = NULL;
  if (placer_cgroup_sanitize_name(role, &role_s, err) < 0 || placer_cgroup_sanitize_name(name, &name_s, err) < 0 ||
      placer_cgroup_path_join(prefix, role_s, &mid, err) < 0 || placer_cgroup_path_join(mid, name_s, out, err) < 0)
    return -1;
  return 0;
}

int placer_instance_place_group(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                struct placer_error **err) {
  return placer_instance_place_group_marked(cg, inst, group, NULL, err) < 0 ? -1 : 0;
}

int placer_instance_place_group_marked(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                       const char *mark, struct placer_error **err) {
  int unmarked = placer_cgroup_create_marked(cg, group, mark, err);
  if (unmarked < 0)
    return -1;
  if (inst->pinned) {
    cleanup_free char *cpus = placer_cpulist_format(inst->cpus);
    cleanup_free char *mems = placer_cpulist_format(inst->mems);
    if (cpus == NULL || mems == NULL)
      return placer_error_oom(err, NULL);
    if (placer_cgroup_set_mems(cg, group, mems, err) < 0 || placer_cgroup_set_cpus(cg, group, cpus, err) < 0)
      return -1;
  }
  if (placer_cgroup_set_memory_limit(cg, group, inst->has_memory_limit ? inst->memory_bytes : PLACER_CGROUP_UNLIMITED,
                                     err) < 0)
    return -1;
  if (inst->cpu_weight && placer_cgroup_set_cpu_weight(cg, group, inst->cpu_weight, err) < 0)
    return -1;
  /* The role's quota on its group (GROUP's parent), which all its
   * instances share; none where the plan gives none. */
  const char *slash = strrchr(group, '/');
  if (slash) {
    cleanup_free char *role_group = strndup(group, (size_t)(slash - group));
    if (role_group == NULL)
      return placer_error_oom(err, NULL);
    unsigned have = 0;
    if (placer_cgroup_read_cpu_quota(cg, role_group, &have, err) < 0)
      return -1;
    if (have != inst->cpu_quota && placer_cgroup_set_cpu_quota(cg, role_group, inst->cpu_quota, err) < 0)
      return -1;
  }
  return unmarked;
}

int placer_role_place_weight(struct placer_cgroup *cg, const struct placer_plan *plan,
                             const struct placer_instance *inst, const char *group, struct placer_error **err) {
  const char *slash = strrchr(group, '/');
  unsigned weight = placer_plan_role_weight(plan, inst->role);
  if (slash == NULL || weight == 0)
    return 0;
  cleanup_free char *role_group = strndup(group, (size_t)(slash - group));
  if (role_group == NULL)
    return placer_error_oom(err, NULL);
  return placer_cgroup_set_cpu_weight(cg, role_group, weight, err);
}
