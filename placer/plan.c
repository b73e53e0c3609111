/* Plan values: names of the enums, look-up and release.  The planner that
 * fills a plan is planner.c; the printers are plan-json.c and plan-text.c. */
#include <stdlib.h>
#include <string.h>

#include "plan-internal.h"

const char *placer_role_kind_name(enum placer_role_kind kind) {
  switch (kind) {
  case PLACER_KIND_CEPH_OSD: return "ceph-osd";
  case PLACER_KIND_CEPH_MDS: return "ceph-mds";
  case PLACER_KIND_CEPH_MON: return "ceph-mon";
  case PLACER_KIND_CEPH_MGR: return "ceph-mgr";
  case PLACER_KIND_VM: return "vm";
  case PLACER_KIND_FIO: return "fio";
  case PLACER_KIND_GENERIC: return "generic";
  }
  return "?";
}

const char *placer_locality_name(enum placer_locality loc) {
  switch (loc) {
  case PLACER_LOCALITY_NONE: return "none";
  case PLACER_LOCALITY_LOCAL: return "local";
  case PLACER_LOCALITY_REMOTE: return "remote";
  }
  return "?";
}

const char *placer_match_kind_name(enum placer_match_kind kind) {
  switch (kind) {
  case PLACER_MATCH_NONE: return "none";
  case PLACER_MATCH_CEPH_ID: return "ceph_id";
  case PLACER_MATCH_CONTAINER: return "container";
  case PLACER_MATCH_QEMU_NAME: return "qemu_name";
  case PLACER_MATCH_PIDFILE: return "pidfile";
  case PLACER_MATCH_CMDLINE: return "cmdline";
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
  free(plan);
}
