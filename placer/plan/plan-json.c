/* A plan as JSON: the contract other tools and CI checks read (schema 1,
 * documented in docs/profiles.md).  Keys are added in a fixed order so the
 * same plan always prints the same bytes. */
#include <math.h>
#include <stdlib.h>

#include "plan/plan.h"

static json_t *cpulist(hwloc_const_bitmap_t set) {
  char *text = set ? placer_cpulist_format(set) : NULL;
  json_t *j = json_string(text ? text : "");
  free(text);
  return j;
}

static json_t *string_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

json_t *placer_plan_mds_to_json(const struct placer_plan_mds *m) {
  json_t *j = json_object();
  json_object_set_new(j, "cores", json_integer(m->n_cores));
  json_object_set_new(j, "first_pus", cpulist(m->first_pus));
  json_object_set_new(j, "smt_siblings", cpulist(m->siblings));
  json_object_set_new(j, "not_held", cpulist(m->not_held));
  json_t *shared = json_array();
  for (size_t k = 0; k < m->n_shared_with; k++)
    json_array_append_new(shared, json_string(m->shared_with[k]));
  json_object_set_new(j, "shared_with", shared);
  json_object_set_new(j, "nic_numa_nodes", cpulist(m->nic_nodes));
  json_object_set_new(j, "cache_memory_limit_bytes",
                      m->has_cache_limit ? json_integer((json_int_t)m->cache_limit_bytes) : json_null());
  return j;
}

static json_t *instance_to_json(const struct placer_plan *plan, size_t index, unsigned role_weight, double share) {
  const struct placer_instance *inst = &plan->instances[index];
  json_t *j = json_object();
  json_object_set_new(j, "name", json_string(inst->name));
  json_object_set_new(j, "role", json_string(inst->role));
  json_object_set_new(j, "kind", json_string(placer_role_kind_name(inst->kind)));
  json_object_set_new(j, "device", string_or_null(inst->device));
  json_object_set_new(j, "nic", string_or_null(inst->nic));
  json_object_set_new(j, "cpus", cpulist(inst->cpus));
  json_object_set_new(j, "mems", cpulist(inst->mems));
  json_object_set_new(j, "memory_bytes",
                      inst->has_memory_limit ? json_integer((json_int_t)inst->memory_bytes) : json_null());
  json_object_set_new(j, "exclusive", json_boolean(inst->exclusive));
  json_object_set_new(j, "locality", json_string(placer_locality_name(inst->locality)));
  /* beyond the contract's minimum: what apply and the launchers need */
  json_object_set_new(j, "index", json_integer(inst->index));
  json_object_set_new(j, "pinned", json_boolean(inst->pinned));
  json_object_set_new(j, "whole_cores", json_boolean(inst->whole_cores));
  json_object_set_new(j, "numa_node", inst->numa_node >= 0 ? json_integer(inst->numa_node) : json_null());
  json_t *l3 = json_array();
  unsigned id;
  hwloc_bitmap_foreach_begin(id, inst->l3s) {
    json_array_append_new(l3, json_integer(id));
  }
  hwloc_bitmap_foreach_end();
  json_object_set_new(j, "l3", l3);
  json_object_set_new(j, "cpu_weight", inst->cpu_weight ? json_integer(inst->cpu_weight) : json_null());
  json_object_set_new(j, "role_cpu_weight", json_integer(role_weight));
  /* Rounded so the same plan always prints the same, short, bytes. */
  json_object_set_new(j, "cpu_share", json_real(round(share * 10000) / 10000));
  if (inst->cpu_quota) /* only when set: older readers and goldens stay as they were */
    json_object_set_new(j, "cpu_quota_cores", json_real(inst->cpu_quota / 1000.0));
  json_t *match = json_object();
  json_object_set_new(match, "kind", json_string(placer_match_kind_name(inst->match.kind)));
  json_object_set_new(match, "value", string_or_null(inst->match.value));
  json_object_set_new(j, "match", match);
  if (inst->kind == PLACER_KIND_VM)
    json_object_set_new(j, "pin_vcpus", json_boolean(inst->pin_vcpus));
  const struct placer_plan_mds *mds = placer_plan_mds_of(plan, index);
  if (mds)
    json_object_set_new(j, "mds", placer_plan_mds_to_json(mds));
  return j;
}

json_t *placer_plan_to_json(const struct placer_plan *plan) {
  json_t *j = json_object();
  json_object_set_new(j, "schema", json_integer(PLACER_PLAN_JSON_SCHEMA));
  json_object_set_new(j, "profile", json_string(plan->profile_name));

  json_t *topo = json_object();
  json_object_set_new(topo, "source", json_string(plan->topology_source));
  json_object_set_new(topo, "numa_nodes", json_integer(plan->topo_numa_nodes));
  json_object_set_new(topo, "cores", json_integer(plan->topo_cores));
  json_object_set_new(topo, "pus", json_integer(plan->topo_pus));
  json_object_set_new(j, "topology", topo);

  json_t *reserved = json_object();
  json_object_set_new(reserved, "cpus", cpulist(plan->reserved_cpus));
  json_object_set_new(reserved, "mems", cpulist(plan->reserved_mems));
  json_object_set_new(reserved, "memory_bytes", json_integer((json_int_t)plan->reserved_memory_bytes));
  json_object_set_new(j, "reserved", reserved);

  json_t *instances = json_array();
  /* every instance's weights at once: per instance, a plan of thousands took minutes */
  unsigned *role_weights = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*role_weights));
  double *shares = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*shares));
  bool weighed = role_weights && shares && placer_plan_weights(plan, role_weights, shares) == 0;
  for (size_t i = 0; weighed && i < plan->n_instances; i++)
    json_array_append_new(instances, instance_to_json(plan, i, role_weights[i], shares[i]));
  free(role_weights);
  free(shares);
  if (!weighed) { /* out of memory: no document rather than one without its instances */
    json_decref(instances);
    json_decref(j);
    return NULL;
  }
  json_object_set_new(j, "instances", instances);

  json_t *free_set = json_object();
  json_object_set_new(free_set, "cpus", cpulist(plan->free_cpus));
  json_object_set_new(j, "free", free_set);

  placer_plan_irqs_to_json(plan, j);
  json_t *warnings = json_array();
  for (size_t i = 0; i < plan->n_warnings; i++)
    json_array_append_new(warnings, json_string(plan->warnings[i]));
  json_object_set_new(j, "warnings", warnings);
  return j;
}
