/* An instance: made, and its memory charged to its nodes; where it should
 * run (its target: near a device, a NIC, on a NUMA node, spread); and the
 * warnings when it runs elsewhere or over more caches than it needs.
 * Shared by the strategies (planner-fixed.c, planner-fill.c).  Part of the
 * pure planner (planner-internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner-internal.h"
#include "lib/units.h"

struct placer_instance *planner_new_instance(struct planner *p, struct role_state *rs, const char *device,
                                             const char *nic) {
  const struct placer_role_spec *spec = rs->spec;
  /* per_numa and per_device multiply a count by the node's nodes and
   * devices: what one role and one plan may hold is bounded all the same */
  if (rs->n >= PLACER_PROFILE_MAX_COUNT)
    return planner_infeasible(p, "role '%s': more than %d instances (at most %d per role)", spec->name,
                              PLACER_PROFILE_MAX_COUNT, PLACER_PROFILE_MAX_COUNT),
           NULL;
  if (p->n_instances_made >= PLACER_PLAN_MAX_INSTANCES)
    return planner_infeasible(p, "role '%s': the plan would hold more than %d instances", spec->name,
                              PLACER_PLAN_MAX_INSTANCES),
           NULL;
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? rs->cap * 2 : 4;
    struct placer_instance *bigger = realloc(rs->inst, cap * sizeof(*bigger));
    if (bigger == NULL)
      return planner_oom(p), NULL;
    rs->inst = bigger;
    rs->cap = cap;
  }
  struct placer_instance *inst = &rs->inst[rs->n];
  p->n_instances_made++;
  memset(inst, 0, sizeof(*inst));
  unsigned index = spec->first_index + (unsigned)rs->n;
  if (asprintf(&inst->name, "%s.%u", spec->name, index) < 0)
    inst->name = NULL;
  inst->role = strdup(spec->name);
  inst->kind = spec->kind;
  inst->index = index;
  inst->device = device ? strdup(device) : NULL;
  inst->nic = nic ? strdup(nic) : NULL;
  inst->pinned = p->profile->pin;
  inst->cpus = hwloc_bitmap_alloc();
  inst->mems = hwloc_bitmap_alloc();
  inst->l3s = hwloc_bitmap_alloc();
  inst->has_memory_limit = spec->has_memory;
  inst->memory_bytes = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  inst->cpu_weight = spec->cpu.weight;
  inst->cpu_quota = spec->cpu.quota;
  inst->exclusive = p->profile->pin && spec->has_cpu && spec->cpu.exclusive;
  inst->whole_cores = spec->has_cpu && (spec->cpu.whole_cores || (p->profile->pin && planner_role_whole_cores(spec)));
  inst->locality = PLACER_LOCALITY_NONE;
  inst->numa_node = -1;
  inst->match.kind = spec->match_kind;
  inst->pin_vcpus = spec->cpu.pin_vcpus;
  if (spec->match_template)
    inst->match.value =
        placer_match_expand(spec->match_template, inst->name ? inst->name : "", spec->name, index, device);
  rs->n++;
  if (inst->name == NULL || inst->role == NULL || (device && inst->device == NULL) || (nic && inst->nic == NULL) ||
      inst->cpus == NULL || inst->mems == NULL || inst->l3s == NULL ||
      (spec->match_template && inst->match.value == NULL)) {
    planner_oom(p);
    return NULL;
  }
  return inst;
}

int planner_settle_memory(struct planner *p, struct role_state *rs, struct placer_instance *inst) {
  if (rs->spec->mems == PLACER_MEMS_ALL || !inst->pinned) {
    hwloc_bitmap_zero(inst->mems);
    for (size_t i = 0; i < p->n_nodes; i++)
      if (hwloc_bitmap_iszero(p->topo->allowed_mems) || hwloc_bitmap_isset(p->topo->allowed_mems, p->nodes[i].os))
        hwloc_bitmap_set(inst->mems, p->nodes[i].os);
  } else {
    planner_nodes_of_cpus(p, inst->cpus, inst->mems);
  }
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return planner_oom(p);
  planner_nodes_of_cpus(p, inst->cpus, cpu_nodes);
  inst->numa_node = hwloc_bitmap_weight(cpu_nodes) == 1 ? hwloc_bitmap_first(cpu_nodes) : -1;
  hwloc_bitmap_free(cpu_nodes);
  if (!inst->has_memory_limit)
    return 0;
  unsigned k = (unsigned)hwloc_bitmap_weight(inst->mems);
  if (k == 0)
    return 0;
  unsigned nth = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    struct node_info *node = &p->nodes[i];
    if (!hwloc_bitmap_isset(inst->mems, node->os))
      continue;
    uint64_t share = inst->memory_bytes / k + (nth++ < inst->memory_bytes % k ? 1 : 0);
    uint64_t room = planner_node_memory_room(node);
    node->memory_used += share;
    if (!node->memory_known || share <= room)
      continue;
    if (rs->spec->policy == PLACER_POLICY_STRICT) {
      char need[32], left[32], total[32], host[32];
      placer_format_bytes(share, need, sizeof(need));
      placer_format_bytes(room, left, sizeof(left));
      placer_format_bytes(node->memory_total, total, sizeof(total));
      placer_format_bytes(node->memory_reserved, host, sizeof(host));
      return planner_infeasible(
          p,
          "role '%s': %s needs %s of memory on NUMA node %u, only %s left there (%s, %s reserved for "
          "the host, the rest to earlier instances; strict policy)",
          rs->spec->name, inst->name, need, node->os, left, total, host);
    }
    if (node->first_over == NULL && (node->first_over = strdup(inst->name)) == NULL)
      return planner_oom(p);
  }
  return 0;
}

void planner_target_clear(struct target *t) {
  hwloc_bitmap_free(t->nodes);
  memset(t, 0, sizeof(*t));
}

static size_t nth_node_with_cores(const struct planner *p, size_t k) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_nodes; i++)
    n += planner_node_has_cores(p, i);
  if (n == 0)
    return SIZE_MAX;
  k %= n;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (planner_node_has_cores(p, i) && k-- == 0)
      return i;
  return SIZE_MAX;
}

/* Near a block device or a NIC (KIND: "" or "NIC "): its NUMA nodes (the
 * only node's on a one-node machine), or unknown, with why. */
static void near_device(const struct planner *p, struct target *t, hwloc_const_bitmap_t nodes, const char *name,
                        const char *kind) {
  hwloc_bitmap_copy(t->nodes, nodes);
  if (hwloc_bitmap_iszero(t->nodes) && p->n_nodes == 1)
    hwloc_bitmap_set(t->nodes, p->nodes[0].os);
  if (hwloc_bitmap_iszero(t->nodes)) {
    t->unknown = true;
    snprintf(t->what, sizeof(t->what), "near %s", name);
    snprintf(t->why, sizeof(t->why), "the NUMA locality of %s%s is unknown", kind, name);
    return;
  }
  char where[96];
  planner_nodes_text(t->nodes, where, sizeof(where));
  snprintf(t->what, sizeof(t->what), "near %s (%s)", name, where);
}

int planner_target_for(struct planner *p, const struct placer_role_spec *spec, size_t k,
                       const struct placer_blockdev *dev, size_t numa_pos, struct target *t) {
  memset(t, 0, sizeof(*t));
  if (spec->near == PLACER_NEAR_NONE)
    return 0;
  t->nodes = hwloc_bitmap_alloc();
  if (t->nodes == NULL)
    return planner_oom(p);
  char where[96];
  switch (spec->near) {
  case PLACER_NEAR_DEVICE: near_device(p, t, dev->numa_nodes, dev->name, ""); return 0;
  case PLACER_NEAR_NIC: {
    const struct placer_nic *nic = planner_nic_for(p, spec->nic);
    if (nic == NULL) {
      cleanup_free char *names = planner_nic_names(p->topo);
      t->unknown = true;
      snprintf(t->what, sizeof(t->what), "near NIC '%s'", spec->nic);
      if (planner_nic_is_auto(spec->nic))
        snprintf(t->why, sizeof(t->why), "nic: auto found no storage NIC: %s (NICs here: %s)", p->auto_why,
                 names ? names : "?");
      else
        snprintf(t->why, sizeof(t->why), "no NIC matches '%s' (NICs here: %s)", spec->nic, names ? names : "?");
      return 0;
    }
    t->nic = nic->name;
    near_device(p, t, nic->numa_nodes, nic->name, "NIC ");
    return 0;
  }
  case PLACER_NEAR_NUMA:
    hwloc_bitmap_set(t->nodes, spec->count_mode == PLACER_COUNT_PER_NUMA ? p->nodes[numa_pos].os : spec->numa);
    break;
  case PLACER_NEAR_SPREAD: {
    size_t pos = nth_node_with_cores(p, k);
    if (pos == SIZE_MAX)
      return planner_infeasible(p, "role '%s': no NUMA node has usable cores", spec->name);
    hwloc_bitmap_set(t->nodes, p->nodes[pos].os);
    break;
  }
  default: break;
  }
  planner_nodes_text(t->nodes, where, sizeof(where));
  snprintf(t->what, sizeof(t->what), "on %s", where);
  return 0;
}

bool planner_same_target(const struct target *a, const struct target *b) {
  if (a->unknown || b->unknown || !a->nodes || !b->nodes)
    return false;
  return hwloc_bitmap_isequal(a->nodes, b->nodes);
}

int planner_locality_of_pool_member(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                                    const struct target *t) {
  if (t->nodes == NULL && !t->unknown) {
    inst->locality = PLACER_LOCALITY_NONE;
    return 0;
  }
  if (t->unknown) {
    if (rs->spec->policy == PLACER_POLICY_STRICT)
      return planner_infeasible(p, "role '%s': %s: %s (strict locality)", rs->spec->name, inst->name, t->why);
    inst->locality = PLACER_LOCALITY_REMOTE;
    return planner_warn(p, 1, rs->pos, rs->n - 1, "%s: %s; placed without locality", inst->name, t->why);
  }
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return planner_oom(p);
  planner_nodes_of_cpus(p, inst->cpus, cpu_nodes);
  bool local = hwloc_bitmap_isincluded(cpu_nodes, t->nodes);
  char where[96];
  planner_nodes_text(cpu_nodes, where, sizeof(where));
  hwloc_bitmap_free(cpu_nodes);
  if (local) {
    inst->locality = PLACER_LOCALITY_LOCAL;
    return 0;
  }
  if (rs->spec->policy == PLACER_POLICY_STRICT)
    return planner_infeasible(p, "role '%s': %s wants to run %s (strict locality), but its pool '%s' is on %s",
                              rs->spec->name, inst->name, t->what, rs->pool->name, where);
  inst->locality = PLACER_LOCALITY_REMOTE;
  return planner_warn(p, 1, rs->pos, rs->n - 1, "%s: wants to run %s, but its pool '%s' is on %s", inst->name, t->what,
                      rs->pool->name, where);
}

void planner_l3_list_text(const struct planner *p, hwloc_const_bitmap_t cpus, char *buf, size_t len) {
  hwloc_bitmap_t l3s = hwloc_bitmap_alloc();
  cleanup_free char *list = NULL;
  if (l3s) {
    align_l3s_of(p->topo, cpus, l3s);
    list = placer_cpulist_format(l3s);
  }
  snprintf(buf, len, "%s", list ? list : "?");
  hwloc_bitmap_free(l3s);
}

int planner_split_warning(struct planner *p, struct role_state *rs, const char *subject, hwloc_const_bitmap_t cpus,
                          struct cpu_need need, const struct outcome *o) {
  if (o->score.l3s <= o->score.min_l3s || o->score.min_l3s == 0)
    return 0;
  char per[64], l3s[96], where[96];
  planner_need_text(need, per, sizeof(per));
  planner_l3_list_text(p, cpus, l3s, sizeof(l3s));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL)
    return planner_oom(p);
  planner_nodes_of_cpus(p, cpus, nodes);
  planner_nodes_text(nodes, where, sizeof(where));
  hwloc_bitmap_free(nodes);
  if (o->score.min_l3s == 1)
    return planner_warn(p, 1, rs->pos, rs->n - 1,
                        "%s: %s span %u L3 domains (L3 %s): no L3 of %s had %s free (the most: %u, in L3 %d)", subject,
                        per, o->score.l3s, l3s, where, per, o->score.best_free, o->score.best_l3);
  return planner_warn(
      p, 1, rs->pos, rs->n - 1,
      "%s: %s span %u L3 domains (L3 %s) where %u would hold them: the L3s of %s with room were taken in part", subject,
      per, o->score.l3s, l3s, o->score.min_l3s, where);
}

static int remote_warning(struct planner *p, struct role_state *rs, hwloc_const_bitmap_t cpus, const struct target *t,
                          struct cpu_need need, const char *subject, const struct outcome *o) {
  char per[64], where[96], why[160] = "";
  planner_need_text(need, per, sizeof(per));
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return planner_oom(p);
  planner_nodes_of_cpus(p, cpus, cpu_nodes);
  planner_nodes_text(cpu_nodes, where, sizeof(where));
  uint64_t dist = 0;
  if (hwloc_bitmap_weight(cpu_nodes) == 1 && hwloc_bitmap_weight(t->nodes) >= 1)
    dist = placer_topology_distance(p->topo, (unsigned)hwloc_bitmap_first(t->nodes),
                                    (unsigned)hwloc_bitmap_first(cpu_nodes));
  hwloc_bitmap_free(cpu_nodes);
  if (o->passed_over != SIZE_MAX) {
    uint64_t d = placer_topology_distance(p->topo, (unsigned)hwloc_bitmap_first(t->nodes), p->nodes[o->passed_over].os);
    if (d)
      snprintf(why, sizeof(why), "; NUMA node %u (distance %llu) has the CPUs but no memory left",
               p->nodes[o->passed_over].os, (unsigned long long)d);
    else
      snprintf(why, sizeof(why), "; NUMA node %u has the CPUs but no memory left", p->nodes[o->passed_over].os);
  }
  /* what was free there before this instance took its part of it */
  hwloc_bitmap_t before = hwloc_bitmap_dup(p->used);
  if (before == NULL)
    return planner_oom(p);
  hwloc_bitmap_andnot(before, before, cpus);
  unsigned total, reserved, free_units;
  planner_scope_stats(p, before, t->nodes, need.unit, &total, &reserved, &free_units);
  hwloc_bitmap_free(before);
  if (o->spread)
    return planner_warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; spread evenly over %s", subject,
                        per, t->what, free_units, where);
  if (dist)
    return planner_warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; placed on %s (distance %llu)%s",
                        subject, per, t->what, free_units, where, (unsigned long long)dist, why);
  return planner_warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; placed on %s%s", subject, per,
                      t->what, free_units, where, why);
}

int planner_placed_warnings(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                            const struct target *t, struct cpu_need need, const struct request *req,
                            const struct outcome *o) {
  if (t->unknown) {
    inst->locality = PLACER_LOCALITY_REMOTE;
    if (planner_warn(p, 1, rs->pos, rs->n - 1, "%s: %s; placed without locality", inst->name, t->why) < 0)
      return -1;
  } else if (o->choice == CHOSE_LOCAL) {
    inst->locality = PLACER_LOCALITY_LOCAL;
  } else if (o->choice == CHOSE_REMOTE) {
    inst->locality = PLACER_LOCALITY_REMOTE;
    if (remote_warning(p, rs, inst->cpus, t, need, inst->name, o) < 0)
      return -1;
  }
  return req->align == PLACER_ALIGN_CACHE ? planner_split_warning(p, rs, inst->name, inst->cpus, need, o) : 0;
}
