/* Plan values: names of the enums, look-up and release.  The planner that
 * fills a plan is planner.c; the printers are plan-json.c and plan-text.c. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan-internal.h"

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

/* The role kind whose Ceph daemons Ceph calls TYPE ("osd": ceph-osd), by
 * the kinds' names in role.c. */
static bool ceph_kind_of(const char *type, size_t len, enum placer_role_kind *kind) {
  for (int k = 0; placer_role_kind_names[k]; k++) {
    const char *name = placer_role_kind_names[k];
    if (placer_role_kind_is_ceph((enum placer_role_kind)k) && strncmp(name, "ceph-", 5) == 0 &&
        strlen(name + 5) == len && strncmp(name + 5, type, len) == 0) {
      *kind = (enum placer_role_kind)k;
      return true;
    }
  }
  return false;
}

const struct placer_instance *placer_plan_find_daemon(const struct placer_plan *plan, const char *name) {
  const char *dot = strchr(name, '.');
  enum placer_role_kind kind;
  if (dot && dot != name && dot[1] && ceph_kind_of(name, (size_t)(dot - name), &kind))
    for (size_t i = 0; i < plan->n_instances; i++) {
      const struct placer_instance *inst = &plan->instances[i];
      if (inst->kind == kind && inst->match.kind == PLACER_MATCH_CEPH_ID && inst->match.value &&
          strcmp(inst->match.value, dot + 1) == 0)
        return inst;
    }
  return placer_plan_find(plan, name);
}

void placer_instance_clear(struct placer_instance *inst) {
  free(inst->name);
  free(inst->role);
  free(inst->device);
  free(inst->nic);
  hwloc_bitmap_free(inst->cpus);
  hwloc_bitmap_free(inst->mems);
  hwloc_bitmap_free(inst->l3s);
  free(inst->match.value);
  memset(inst, 0, sizeof(*inst));
}

void placer_plan_irqs_clear(struct placer_plan *plan) {
  for (size_t i = 0; i < plan->n_nic_cores; i++) {
    free(plan->nic_cores[i].nic);
    hwloc_bitmap_free(plan->nic_cores[i].cpus);
  }
  free(plan->nic_cores);
  for (size_t i = 0; i < plan->n_irq_rules; i++) {
    struct placer_plan_irq_rule *r = &plan->irq_rules[i];
    free(r->device);
    free(r->instance);
    hwloc_bitmap_free(r->cpus);
    free(r->where);
  }
  free(plan->irq_rules);
  for (size_t i = 0; i < plan->n_irqs; i++) {
    struct placer_plan_irq *q = &plan->irqs[i];
    free(q->name);
    free(q->device);
    free(q->instance);
    free(q->from);
    free(q->to);
    free(q->effective);
  }
  free(plan->irqs);
  plan->nic_cores = NULL;
  plan->irq_rules = NULL;
  plan->irqs = NULL;
  plan->n_nic_cores = plan->n_irq_rules = plan->n_irqs = 0;
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
  placer_plan_mds_clear(plan);
  free(plan);
}
