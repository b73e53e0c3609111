/* The model of a placed instance, computed once from the plan: its groups,
 * every value with its default, its role's weight and quota, the IRQs
 * steered for it (placement.h). */
#include "placement.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int placer_role_group(const char *prefix, const char *role, char **out, struct placer_error **err) {
  cleanup_free char *role_s = NULL;
  if (placer_cgroup_sanitize_name(role, &role_s, err) < 0)
    return -1;
  return placer_cgroup_path_join(prefix, role_s, out, err);
}

/* ------------------------------------------------------------------ values */

void placer_group_values_clear(struct placer_group_values *v) {
  free(v->cpus);
  free(v->mems);
  memset(v, 0, sizeof(*v));
}

bool placer_memory_limit_equal(uint64_t have, uint64_t want) {
  if (have == PLACER_CGROUP_UNLIMITED || want == PLACER_CGROUP_UNLIMITED)
    return have == want;
  long page = sysconf(_SC_PAGESIZE);
  uint64_t p = page > 0 ? (uint64_t)page : 4096;
  return have / p == want / p;
}

bool placer_group_value_equal(enum placer_setting s, const struct placer_group_values *have,
                              const struct placer_group_values *want) {
  switch (s) {
  case PLACER_SETTING_CPUS: return placer_cpulist_equal(have->cpus, want->cpus);
  case PLACER_SETTING_MEMS: return placer_cpulist_equal(have->mems, want->mems);
  case PLACER_SETTING_MEMORY_LIMIT: return placer_memory_limit_equal(have->memory_limit, want->memory_limit);
  case PLACER_SETTING_CPU_WEIGHT: return have->cpu_weight == want->cpu_weight;
  case PLACER_SETTING_CPU_QUOTA: return have->cpu_quota == want->cpu_quota;
  case PLACER_SETTING_N: break;
  }
  return false;
}

/* INST's group values: the plan's, and the defaults where it gives none. */
static int instance_values(const struct placer_instance *inst, struct placer_group_values *v,
                           struct placer_error **err) {
  if (inst->cpu_weight > PLACER_CGROUP_WEIGHT_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: cpu weight %u is outside 1..10000", inst->name,
                            inst->cpu_weight);
  v->cpus = placer_cpulist_format(inst->cpus); /* every allowed PU when unpinned: the planner says so */
  v->mems = placer_cpulist_format(inst->mems);
  if (v->cpus == NULL || v->mems == NULL)
    return placer_error_oom(err, NULL);
  v->memory_limit = inst->has_memory_limit ? inst->memory_bytes : PLACER_CGROUP_UNLIMITED;
  v->cpu_weight = placer_weight_effective(inst->cpu_weight);
  v->planned = (inst->pinned ? PLACER_SETTING_BIT(PLACER_SETTING_CPUS) | PLACER_SETTING_BIT(PLACER_SETTING_MEMS) : 0) |
               (inst->has_memory_limit ? PLACER_SETTING_BIT(PLACER_SETTING_MEMORY_LIMIT) : 0) |
               (inst->cpu_weight ? PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT) : 0);
  return 0;
}

/* The role's quota, on its group, which all its instances share. */
static void role_quota(const struct placer_instance *inst, struct placer_group_values *role) {
  role->cpu_quota = inst->cpu_quota;
  if (inst->cpu_quota)
    role->planned |= PLACER_SETTING_BIT(PLACER_SETTING_CPU_QUOTA);
}

void placer_placed_clear(struct placer_placed *p) {
  free(p->group);
  free(p->role_group);
  placer_group_values_clear(&p->values);
  placer_group_values_clear(&p->role);
  free(p->irqs);
  for (size_t i = 0; i < p->n_procs; i++)
    free(p->procs[i].comm);
  free(p->procs);
  free(p->note);
  memset(p, 0, sizeof(*p));
}

int placer_placed_of_instance(const struct placer_instance *inst, const char *group, struct placer_placed *out,
                              struct placer_error **err) {
  memset(out, 0, sizeof(*out));
  out->inst = inst;
  /* GROUP is PREFIX/ROLE/NAME: its parent is the role's */
  const char *slash = strrchr(group, '/');
  if ((out->group = strdup(group)) == NULL ||
      (out->role_group = slash ? strndup(group, (size_t)(slash - group)) : strdup("")) == NULL) {
    placer_placed_clear(out);
    return placer_error_oom(err, NULL);
  }
  if (instance_values(inst, &out->values, err) < 0) {
    placer_placed_clear(out);
    return -1;
  }
  role_quota(inst, &out->role);
  out->role_writes = slash ? PLACER_SETTING_BIT(PLACER_SETTING_CPU_QUOTA) : 0;
  return 0;
}

void placer_placement_free(struct placer_placement *pl) {
  if (pl == NULL)
    return;
  for (size_t i = 0; i < pl->n; i++)
    placer_placed_clear(&pl->v[i]);
  free(pl->v);
  free(pl->prefix);
  free(pl);
}

const struct placer_placed *placer_placement_find(const struct placer_placement *pl, const char *name) {
  for (size_t i = 0; pl && name && i < pl->n; i++)
    if (strcmp(pl->v[i].inst->name, name) == 0)
      return &pl->v[i];
  return NULL;
}

/* The IRQs of PLAN steered for INST: those of a rule of its own (an
 * "osd.0+osd.1" rule is both instances'). */
static int instance_irqs(const struct placer_plan *plan, struct placer_placed *p, struct placer_error **err) {
  const char *name = p->inst->name;
  size_t len = strlen(name);
  for (size_t k = 0; k < plan->n_irqs; k++) {
    const char *of = plan->irqs[k].instance;
    bool mine = false;
    for (const char *at = of; at && !mine; at = strchr(at, '+'), at = at ? at + 1 : NULL)
      mine = strncmp(at, name, len) == 0 && (at[len] == '\0' || at[len] == '+');
    if (!mine)
      continue;
    size_t *bigger = realloc(p->irqs, (p->n_irqs + 1) * sizeof(*bigger));
    if (bigger == NULL)
      return placer_error_oom(err, NULL);
    p->irqs = bigger;
    p->irqs[p->n_irqs++] = k;
  }
  return 0;
}

static int place_one(const struct placer_plan *plan, const char *prefix, size_t i, unsigned role_weight,
                     struct placer_placed *p, struct placer_error **err) {
  const struct placer_instance *inst = &plan->instances[i];
  p->inst = inst;
  if (placer_instance_group(prefix, inst->role, inst->name, &p->group, err) < 0 ||
      placer_role_group(prefix, inst->role, &p->role_group, err) < 0)
    return placer_error_prefix(err, "%s", inst->name);
  if (instance_values(inst, &p->values, err) < 0)
    return -1;
  /* Role groups compete as siblings: each gets the sum of its instances'
   * weights (plan-weight.c), so that instances of different roles sharing
   * CPUs compete by their own. */
  p->role.cpu_weight = role_weight ? role_weight : PLACER_CGROUP_WEIGHT_DEFAULT;
  p->role.planned = PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT);
  role_quota(inst, &p->role);
  return instance_irqs(plan, p, err);
}

/* A name of a placed instance and its place in the plan, sorted by both. */
struct keyed {
  const char *key;
  size_t index;
};
static int by_key_then_index(const void *a, const void *b) {
  const struct keyed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Each role's first instance writes its role group; two instances may not
 * share a group (sanitized names may meet: "a b" and "a_b").  Sorted, so
 * that a plan of thousands of instances is not compared pair by pair. */
static int check_groups(struct placer_placement *pl, struct placer_error **err) {
  cleanup_free struct keyed *order = calloc(pl->n ? pl->n : 1, sizeof(*order));
  if (order == NULL)
    return placer_error_oom(err, NULL);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < pl->n; i++)
      order[i] = (struct keyed){ pass == 0 ? pl->v[i].role_group : pl->v[i].group, i };
    qsort(order, pl->n, sizeof(*order), by_key_then_index);
    for (size_t k = 0; k < pl->n; k++) {
      struct placer_placed *p = &pl->v[order[k].index];
      bool same = k > 0 && strcmp(order[k - 1].key, order[k].key) == 0;
      if (pass == 0)
        p->role_writes = same ? 0 : PLACER_ROLE_SETTINGS;
      else if (same)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s and %s would share the group %s",
                                pl->v[order[k - 1].index].inst->name, p->inst->name, p->group);
    }
  }
  return 0;
}

int placer_placement_compute(const struct placer_plan *plan, const char *prefix, const struct placer_instance_arg *qmps,
                             size_t n_qmps, struct placer_placement **out, struct placer_error **err) {
  struct placer_placement *pl = calloc(1, sizeof(*pl));
  cleanup_free unsigned *role_weights = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*role_weights));
  if (pl == NULL || role_weights == NULL || (pl->prefix = strdup(placer_apply_prefix(prefix))) == NULL ||
      (pl->v = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*pl->v))) == NULL ||
      placer_plan_weights(plan, role_weights, NULL) < 0) {
    placer_placement_free(pl);
    return placer_error_oom(err, NULL);
  }
  pl->plan = plan;
  for (size_t i = 0; i < plan->n_instances; i++) {
    struct placer_placed *p = &pl->v[pl->n++];
    if (place_one(plan, pl->prefix, i, role_weights[i], p, err) < 0) {
      placer_placement_free(pl);
      return -1;
    }
    for (size_t k = 0; k < n_qmps; k++)
      if (p->qmp_socket == NULL && strcmp(qmps[k].instance, p->inst->name) == 0)
        p->qmp_socket = qmps[k].value;
  }
  if (check_groups(pl, err) < 0) {
    placer_placement_free(pl);
    return -1;
  }
  *out = pl;
  return 0;
}
