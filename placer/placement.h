/* Where an instance's cgroup is and how it is set up from its plan values:
 * the one piece that apply, run, exec and bench all need (placement.c), so
 * that apply and launch do not depend on each other. */
#ifndef PLACER_PLACEMENT_H
#define PLACER_PLACEMENT_H

#include "cgroup.h"
#include "lib/error.h"
#include "plan.h"

#define PLACER_DEFAULT_CGROUP_PREFIX "placer"

/* The prefix in force: OPT_PREFIX, else $PLACER_CGROUP_PREFIX, else "placer". */
const char *placer_apply_prefix(const char *opt_prefix);
/* Group of an instance: PREFIX/ROLE/NAME with both names sanitized. */
int placer_instance_group(const char *prefix, const char *role, const char *name, char **out,
                          struct placer_error **err);
/* Create GROUP (when missing) and give it INST's planned cpus and mems
 * (when pinned), memory limit (none: unlimited) and cpu weight, before
 * anything runs in it. */
int placer_instance_place_group(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                struct placer_error **err);
/* The same; each level it makes carries MARK (placer_cgroup_mark): 0, or 1
 * when a level could not be marked. */
int placer_instance_place_group_marked(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                       const char *mark, struct placer_error **err);

/* Give INST's role group (GROUP's parent, PREFIX/ROLE) the weight PLAN
 * gives its role, the sum of its instances' (plan-weight.c), so that
 * instances of different roles sharing CPUs compete by their own weights.
 * The group exists (placer_instance_place_group made it). */
int placer_role_place_weight(struct placer_cgroup *cg, const struct placer_plan *plan,
                             const struct placer_instance *inst, const char *group, struct placer_error **err);

#endif
