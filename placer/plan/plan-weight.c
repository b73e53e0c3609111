/* CPU weights between instances: the role groups' weights and each
 * instance's share of its CPUs when all are busy; see plan.h.  Pure.
 * Linear in instances for a given node: the roles' sums are taken once
 * (roles are few), and the shares per distinct set of CPUs (a shared pool
 * is one set however many instances it holds); printing a plan of 4096
 * instances took minutes when each instance summed every other (#35). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

#define WEIGHT_DEFAULT 100u /* cgroup v2 cpu.weight default; cgroup.h has it too */
#define WEIGHT_MAX 10000u

unsigned placer_weight_effective(unsigned planned) {
  return planned ? planned : WEIGHT_DEFAULT;
}

/* The role groups of N instances: each distinct role's sum of weights,
 * the largest, and every instance's role (OF[i], an index into them). */
struct role_sums {
  const char **names;
  unsigned long long *sums, max;
  size_t n, *of;
};

static void role_sums_free(struct role_sums *t) {
  free(t->names);
  free(t->sums);
  free(t->of);
}

static int role_sums_make(const char *const *roles, const unsigned *planned, size_t n, struct role_sums *t) {
  memset(t, 0, sizeof(*t));
  size_t cap = n ? n : 1;
  t->names = calloc(cap, sizeof(*t->names));
  t->sums = calloc(cap, sizeof(*t->sums));
  t->of = calloc(cap, sizeof(*t->of));
  if (t->names == NULL || t->sums == NULL || t->of == NULL) {
    role_sums_free(t);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (roles[i] == NULL) {
      t->of[i] = SIZE_MAX;
      continue;
    }
    size_t k = 0;
    if (i > 0 && t->of[i - 1] != SIZE_MAX && strcmp(t->names[t->of[i - 1]], roles[i]) == 0)
      k = t->of[i - 1]; /* the role of the instance before: the common case, no search */
    else
      while (k < t->n && strcmp(t->names[k], roles[i]) != 0)
        k++;
    if (k == t->n)
      t->names[t->n++] = roles[i];
    t->of[i] = k;
    t->sums[k] += placer_weight_effective(planned[i]);
  }
  for (size_t k = 0; k < t->n; k++)
    t->max = t->sums[k] > t->max ? t->sums[k] : t->max;
  return 0;
}

/* A role's SUM as its group weight, when the largest is MAX. */
static unsigned scaled(unsigned long long sum, unsigned long long max) {
  if (sum == 0 || max <= WEIGHT_MAX)
    return (unsigned)sum;
  unsigned long long w = (sum * WEIGHT_MAX + max / 2) / max;
  return w ? (unsigned)w : 1;
}

static unsigned role_weight(const struct role_sums *t, const char *role) {
  for (size_t k = 0; k < t->n; k++)
    if (strcmp(t->names[k], role) == 0)
      return scaled(t->sums[k], t->max);
  return 0;
}

unsigned placer_weight_role(const char *const *roles, const unsigned *planned, size_t n, const char *role) {
  struct role_sums t;
  if (role_sums_make(roles, planned, n, &t) < 0)
    return 0;
  unsigned w = role_weight(&t, role);
  role_sums_free(&t);
  return w;
}

/* PLAN's roles and weights as the arrays placer_weight_role() reads, and their sums. */
static int plan_role_sums(const struct placer_plan *plan, struct role_sums *t) {
  size_t n = plan->n_instances ? plan->n_instances : 1;
  const char **roles = calloc(n, sizeof(*roles));
  unsigned *planned = calloc(n, sizeof(*planned));
  int rc = -1;
  if (roles && planned) {
    for (size_t i = 0; i < plan->n_instances; i++) {
      roles[i] = plan->instances[i].role;
      planned[i] = plan->instances[i].cpu_weight;
    }
    rc = role_sums_make(roles, planned, plan->n_instances, t);
  }
  free(roles);
  free(planned);
  return rc;
}

unsigned placer_plan_role_weight(const struct placer_plan *plan, const char *role) {
  struct role_sums t;
  if (plan_role_sums(plan, &t) < 0)
    return 0;
  unsigned w = role_weight(&t, role);
  role_sums_free(&t);
  return w;
}

int placer_plan_weights(const struct placer_plan *plan, unsigned *role_weights, double *cpu_shares) {
  size_t n = plan->n_instances;
  struct role_sums t;
  if (plan_role_sums(plan, &t) < 0)
    return -1;
  /* every instance's weight as its role group passes it on: scaled as the role's was */
  double *w = calloc(n ? n : 1, sizeof(*w)), *set_weight = calloc(n ? n : 1, sizeof(*set_weight));
  double *set_all = calloc(n ? n : 1, sizeof(*set_all));
  size_t *set_of = calloc(n ? n : 1, sizeof(*set_of)), *set_first = calloc(n ? n : 1, sizeof(*set_first));
  int rc = -1;
  if (w == NULL || set_weight == NULL || set_all == NULL || set_of == NULL || set_first == NULL)
    goto out;
  size_t n_sets = 0;
  for (size_t i = 0; i < n; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    unsigned long long sum = t.of[i] == SIZE_MAX ? placer_weight_effective(inst->cpu_weight) : t.sums[t.of[i]];
    w[i] = placer_weight_effective(inst->cpu_weight) * (double)scaled(sum, t.max) / (double)sum;
    if (role_weights)
      role_weights[i] = scaled(sum, t.max);
    /* its set of CPUs among the distinct ones (a pool's instances follow each other: the one before first) */
    size_t s = 0;
    if (i > 0 && hwloc_bitmap_isequal(plan->instances[set_first[set_of[i - 1]]].cpus, inst->cpus))
      s = set_of[i - 1];
    else
      while (s < n_sets && !hwloc_bitmap_isequal(plan->instances[set_first[s]].cpus, inst->cpus))
        s++;
    if (s == n_sets)
      set_first[n_sets++] = i;
    set_of[i] = s;
    set_weight[s] += w[i];
  }
  /* every set's competition: the weights of every set that overlaps it, itself included */
  for (size_t a = 0; a < n_sets; a++)
    for (size_t b = 0; b < n_sets; b++)
      if (a == b || hwloc_bitmap_intersects(plan->instances[set_first[a]].cpus, plan->instances[set_first[b]].cpus))
        set_all[a] += set_weight[b];
  for (size_t i = 0; cpu_shares && i < n; i++)
    cpu_shares[i] = w[i] / set_all[set_of[i]];
  rc = 0;
out:
  free(w);
  free(set_weight);
  free(set_all);
  free(set_of);
  free(set_first);
  role_sums_free(&t);
  return rc;
}

double placer_plan_cpu_share(const struct placer_plan *plan, size_t index) {
  double *shares = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*shares));
  double share = shares && placer_plan_weights(plan, NULL, shares) == 0 ? shares[index] : 0;
  free(shares);
  return share;
}
