/* The strategy for roles with a number of instances (count: N,
 * per_device, per_numa): each instance in turn near its target, or in the
 * role's pool; a shortage said for the whole role when the role as a whole
 * asks for more than there is.  Part of the pure planner
 * (planner-internal.h, planner_strategies[] in planner.c). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/planner-internal.h"

static bool glob_list_match(const struct placer_string_list *globs, const char *name) {
  for (size_t i = 0; i < globs->n; i++)
    if (fnmatch(globs->items[i], name, 0) == 0)
      return true;
  return false;
}

/* What one role will place, worked out before placing: per instance its
 * device / NUMA node, so that errors can speak for the whole role. */
struct slot {
  const struct placer_blockdev *dev;
  size_t numa_pos;
};

static int role_slots(struct planner *p, const struct placer_role_spec *spec, struct slot **out, size_t *n_out) {
  size_t n = 0, cap = 0;
  struct slot *slots = NULL;
#define PUSH(d, pos)                                              \
  do {                                                            \
    if (n == cap) {                                               \
      cap = cap ? cap * 2 : 8;                                    \
      struct slot *bigger = realloc(slots, cap * sizeof(*slots)); \
      if (bigger == NULL) {                                       \
        free(slots);                                              \
        return planner_oom(p);                                    \
      }                                                           \
      slots = bigger;                                             \
    }                                                             \
    slots[n++] = (struct slot){ (d), (pos) };                     \
  } while (0)
  switch (spec->count_mode) {
  case PLACER_COUNT_FIXED:
    for (unsigned i = 0; i < spec->count; i++)
      PUSH(NULL, 0);
    break;
  case PLACER_COUNT_PER_DEVICE:
    for (size_t d = 0; d < p->topo->n_blockdevs; d++)
      if (glob_list_match(&spec->devices, p->topo->blockdevs[d].name))
        for (unsigned i = 0; i < spec->count; i++)
          PUSH(&p->topo->blockdevs[d], 0);
    break;
  case PLACER_COUNT_PER_NUMA:
    for (size_t pos = 0; pos < p->n_nodes; pos++)
      if (planner_node_has_cores(p, pos))
        for (unsigned i = 0; i < spec->count; i++)
          PUSH(NULL, pos);
    break;
  case PLACER_COUNT_FILL: break;
  }
#undef PUSH
  *out = slots;
  *n_out = n;
  return 0;
}

static int no_device_error(struct planner *p, const struct placer_role_spec *spec) {
  char *buf = NULL, *have = NULL;
  size_t size = 0, hsize = 0;
  FILE *f = open_memstream(&buf, &size);
  FILE *h = open_memstream(&have, &hsize);
  if (f == NULL || h == NULL) {
    if (f)
      fclose(f);
    if (h)
      fclose(h);
    free(buf);
    free(have);
    return planner_oom(p);
  }
  for (size_t i = 0; i < spec->devices.n; i++)
    fprintf(f, "%s'%s'", i ? ", " : "", spec->devices.items[i]);
  for (size_t i = 0; i < p->topo->n_blockdevs; i++)
    fprintf(h, "%s%s", i ? ", " : "", p->topo->blockdevs[i].name);
  if (p->topo->n_blockdevs == 0)
    fputs("none", h);
  fclose(f);
  fclose(h);
  planner_infeasible(p, "role '%s': no block device matches %s (block devices here: %s)", spec->name, buf ? buf : "?",
                     have ? have : "?");
  free(buf);
  free(have);
  return -1;
}

/* For a role of whole cores, the free threads it may not take: each the SMT
 * sibling of a core another role holds a thread of (into BUF, "" when none). */
static void split_cores_text(const struct planner *p, const struct placer_role_spec *spec, hwloc_const_bitmap_t nodes,
                             struct cpu_need need, char *buf, size_t len) {
  buf[0] = '\0';
  if (need.unit == UNIT_THREADS)
    return;
  unsigned total, reserved, free_threads, free_whole;
  planner_scope_stats(p, p->used, nodes, UNIT_THREADS, &total, &reserved, &free_threads);
  planner_scope_stats(p, p->used, nodes, UNIT_WHOLE_THREADS, &total, &reserved, &free_whole);
  if (free_threads <= free_whole)
    return;
  unsigned split = free_threads - free_whole;
  snprintf(buf, len, "; %u thread%s %s free, each the SMT sibling of a core another role holds a thread of%s", split,
           split == 1 ? "" : "s", split == 1 ? "is" : "are",
           spec->kind == PLACER_KIND_CEPH_MDS ? ": an MDS takes whole cores that no other role shares" : "");
}

/* The message when an instance finds no room: for the whole role when the
 * role as a whole asks for more than there was, else for the instance. */
static int shortage(struct planner *p, struct role_state *rs, size_t n_slots, const struct target *targets,
                    size_t failed, bool there, struct cpu_need need) {
  const struct placer_role_spec *spec = rs->spec;
  const char *instance = rs->n ? rs->inst[rs->n - 1].name : spec->name;
  hwloc_const_bitmap_t nodes = there ? targets[failed].nodes : NULL;
  char per[64], scope[160];
  planner_need_text(need, per, sizeof(per));
  unsigned available;
  planner_scope_text(p, nodes, need.unit, &available, scope, sizeof(scope));
  char split[192];
  split_cores_text(p, spec, nodes, need, split, sizeof(split));
  /* the instances of this role that want the same place */
  size_t k = there ? 0 : n_slots;
  for (size_t i = 0; there && i < n_slots; i++)
    if (planner_same_target(&targets[i], &targets[failed]))
      k++;
  if (k > 1 && k * need.amount > available) {
    if (!there)
      return planner_infeasible(p, "role '%s': needs %zu x %s = %zu %s, only %u available (%s)%s", spec->name, k, per,
                                k * need.amount, planner_unit_word(need.unit, 2), available, scope, split);
    char where[96];
    planner_nodes_text(nodes, where, sizeof(where));
    return planner_infeasible(
        p, "role '%s': needs %zu x %s = %zu %s on %s (strict locality), only %u available there (%s)%s", spec->name, k,
        per, k * need.amount, planner_unit_word(need.unit, 2), where, available, scope, split);
  }
  unsigned total, reserved, left;
  planner_scope_stats(p, p->used, nodes, need.unit, &total, &reserved, &left);
  const char *whole = need.unit == UNIT_WHOLE_THREADS ? " in whole free cores" : "";
  if (there)
    return planner_infeasible(p, "role '%s': %s needs %s %s (strict locality), only %u %s left there%s (%s)%s",
                              spec->name, instance, per, targets[failed].what, left, planner_unit_word(need.unit, left),
                              whole, scope, split);
  return planner_infeasible(p, "role '%s': %s needs %s, only %u %s left%s (%s)%s", spec->name, instance, per, left,
                            planner_unit_word(need.unit, left), whole, scope, split);
}

/* Place a pool (for its first member): like an instance, without memory. */
static int place_pool(struct planner *p, struct role_state *rs, const struct target *t) {
  struct pool_state *pool = rs->pool;
  hwloc_const_bitmap_t nodes = t->unknown ? NULL : t->nodes;
  struct request req = planner_role_request(p, rs->spec, pool->need, nodes, 0);
  struct outcome o = planner_choose(p, &req, pool->cpus);
  enum choice c = o.choice;
  if (c == NO_ROOM || c == NO_ROOM_THERE) {
    char per[64], scope[160];
    unsigned available;
    planner_need_text(pool->need, per, sizeof(per));
    planner_scope_text(p, c == NO_ROOM_THERE ? nodes : NULL, pool->need.unit, &available, scope, sizeof(scope));
    if (c == NO_ROOM_THERE)
      return planner_infeasible(p, "role '%s': pool '%s' needs %s %s (strict locality), only %u available there (%s)",
                                rs->spec->name, pool->name, per, t->what, available, scope);
    return planner_infeasible(p, "role '%s': pool '%s' needs %s, only %u available (%s)", rs->spec->name, pool->name,
                              per, available, scope);
  }
  planner_commit(p, pool->cpus);
  pool->placed = true;
  char subject[160];
  snprintf(subject, sizeof(subject), "%s: pool '%s'", rs->inst[rs->n - 1].name, pool->name);
  return req.align == PLACER_ALIGN_CACHE ? planner_split_warning(p, rs, subject, pool->cpus, pool->need, &o) : 0;
}

int planner_place_fixed(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct slot *slots = NULL;
  size_t n_slots = 0;
  if (role_slots(p, spec, &slots, &n_slots) < 0)
    return -1;
  if (spec->count_mode == PLACER_COUNT_PER_DEVICE && n_slots == 0) {
    free(slots);
    return no_device_error(p, spec);
  }
  if (n_slots == 0) {
    free(slots);
    return planner_infeasible(p, "role '%s': no NUMA node has usable cores", spec->name);
  }
  struct target *targets = calloc(n_slots, sizeof(*targets));
  if (targets == NULL) {
    free(slots);
    return planner_oom(p);
  }
  int rc = -1;
  for (size_t i = 0; i < n_slots; i++)
    if (planner_target_for(p, spec, i, slots[i].dev, slots[i].numa_pos, &targets[i]) < 0)
      goto out;
  struct cpu_need need = planner_role_need(spec);
  if (p->profile->pin && spec->cpu.exclusive) {
    /* the whole role at once, so the message speaks for all of it */
    unsigned total, reserved, free_units;
    planner_scope_stats(p, p->used, NULL, need.unit, &total, &reserved, &free_units);
    if ((uint64_t)n_slots * need.amount > free_units) {
      shortage(p, rs, n_slots, targets, 0, false, need);
      goto out;
    }
  }
  for (size_t i = 0; i < n_slots; i++) {
    const struct target *t = &targets[i];
    struct placer_instance *inst = planner_new_instance(p, rs, slots[i].dev ? slots[i].dev->name : NULL, t->nic);
    if (inst == NULL)
      goto out;
    if (!p->profile->pin) {
      hwloc_bitmap_copy(inst->cpus, p->usable);
    } else if (rs->pool) {
      if (!rs->pool->placed && place_pool(p, rs, t) < 0)
        goto out;
      hwloc_bitmap_copy(inst->cpus, rs->pool->cpus);
      if (planner_locality_of_pool_member(p, rs, inst, t) < 0)
        goto out;
    } else {
      if (t->unknown && spec->policy == PLACER_POLICY_STRICT) {
        planner_infeasible(p, "role '%s': %s: %s (strict locality)", spec->name, inst->name, t->why);
        goto out;
      }
      hwloc_const_bitmap_t nodes = t->unknown ? NULL : t->nodes;
      struct request req = planner_role_request(p, spec, need, nodes, inst->memory_bytes);
      if (spec->has_irqs && slots[i].dev)
        placer_plan_irq_queue_cpus(p->topo, slots[i].dev->name, p->prefer);
      struct outcome o = planner_choose(p, &req, inst->cpus);
      hwloc_bitmap_zero(p->prefer);
      if (o.choice == NO_ROOM || o.choice == NO_ROOM_THERE) {
        shortage(p, rs, n_slots, targets, i, o.choice == NO_ROOM_THERE, need);
        goto out;
      }
      planner_commit(p, inst->cpus);
      if (planner_placed_warnings(p, rs, inst, t, need, &req, &o) < 0)
        goto out;
    }
    if (planner_settle_memory(p, rs, inst) < 0)
      goto out;
  }
  rc = 0;
out:
  for (size_t i = 0; i < n_slots; i++)
    planner_target_clear(&targets[i]);
  free(targets);
  free(slots);
  return rc;
}
