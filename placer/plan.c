/* Plan values: names of the enums, look-up and release.  The planner that
 * fills a plan is planner.c; the printers are plan-json.c and plan-text.c. */
#include <stdlib.h>
#include <string.h>

#include "plan-internal.h"

const char *placer_locality_name(enum placer_locality loc) {
  switch (loc) {
  case PLACER_LOCALITY_NONE: return "none";
  case PLACER_LOCALITY_LOCAL: return "local";
  case PLACER_LOCALITY_REMOTE: return "remote";
  }
  return "?";
}

const struct placer_instance *placer_plan_find(const struct placer_plan *plan, const char *name) {
  for (size_t i = 0; i < plan->n_instances; i++)
    if (strcmp(plan->instances[i].name, name) == 0)
      return &plan->instances[i];
  return NULL;
}

void placer_instance_clear(struct placer_instance *inst) {
  free(inst->name);
  free(inst->role);
  free(inst->device);
  free(inst->nic);
  hwloc_bitmap_free(inst->cpus);
  hwloc_bitmap_free(inst->mems);
  free(inst->match.value);
  memset(inst, 0, sizeof(*inst));
}

void placer_plan_free(struct placer_plan *plan) {
  if (plan == NULL)
    return;
  free(plan->profile_name);
  free(plan->profile_path);
  free(plan->topology_source);
  hwloc_bitmap_free(plan->reserved_cpus);
  hwloc_bitmap_free(plan->reserved_mems);
  for (size_t i = 0; i < plan->n_instances; i++)
    placer_instance_clear(&plan->instances[i]);
  free(plan->instances);
  hwloc_bitmap_free(plan->free_cpus);
  for (size_t i = 0; i < plan->n_warnings; i++)
    free(plan->warnings[i]);
  free(plan->warnings);
  placer_plan_irqs_clear(plan);
  free(plan);
}
