/* CPU weights between instances: the role groups' weights and each
 * instance's share of its CPUs when all are busy; see plan.h.  Pure. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"

#define WEIGHT_DEFAULT 100u /* cgroup v2 cpu.weight default; cgroup.h has it too */
#define WEIGHT_MAX 10000u

unsigned placer_weight_effective(unsigned planned) {
  return planned ? planned : WEIGHT_DEFAULT;
}

static unsigned long long role_sum(const char *const *roles, const unsigned *planned, size_t n, const char *role) {
  unsigned long long sum = 0;
  for (size_t i = 0; i < n; i++)
    if (roles[i] && strcmp(roles[i], role) == 0)
      sum += placer_weight_effective(planned[i]);
  return sum;
}

static unsigned long long max_role_sum(const char *const *roles, const unsigned *planned, size_t n) {
  unsigned long long max = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned long long s = roles[i] ? role_sum(roles, planned, n, roles[i]) : 0;
    max = s > max ? s : max;
  }
  return max;
}

/* A role's SUM as its group weight, when the largest is MAX. */
static unsigned scaled(unsigned long long sum, unsigned long long max) {
  if (sum == 0 || max <= WEIGHT_MAX)
    return (unsigned)sum;
  unsigned long long w = (sum * WEIGHT_MAX + max / 2) / max;
  return w ? (unsigned)w : 1;
}

unsigned placer_weight_role(const char *const *roles, const unsigned *planned, size_t n, const char *role) {
  return scaled(role_sum(roles, planned, n, role), max_role_sum(roles, planned, n));
}

/* PLAN's roles and weights as the arrays placer_weight_role() reads. */
static int plan_arrays(const struct placer_plan *plan, const char ***roles, unsigned **planned) {
  size_t n = plan->n_instances ? plan->n_instances : 1;
  *roles = calloc(n, sizeof(**roles));
  *planned = calloc(n, sizeof(**planned));
  if (*roles == NULL || *planned == NULL) {
    free(*roles);
    free(*planned);
    return -1;
  }
  for (size_t i = 0; i < plan->n_instances; i++) {
    (*roles)[i] = plan->instances[i].role;
    (*planned)[i] = plan->instances[i].cpu_weight;
  }
  return 0;
}

unsigned placer_plan_role_weight(const struct placer_plan *plan, const char *role) {
  const char **roles;
  unsigned *planned;
  if (plan_arrays(plan, &roles, &planned) < 0)
    return 0;
  unsigned w = placer_weight_role(roles, planned, plan->n_instances, role);
  free(roles);
  free(planned);
  return w;
}

double placer_plan_cpu_share(const struct placer_plan *plan, size_t index) {
  const char **roles;
  unsigned *planned;
  if (plan_arrays(plan, &roles, &planned) < 0)
    return 0;
  const struct placer_instance *self = &plan->instances[index];
  size_t n = plan->n_instances;
  unsigned long long max = max_role_sum(roles, planned, n);
  double mine = 0, all = 0;
  for (size_t i = 0; i < n; i++) {
    const struct placer_instance *other = &plan->instances[i];
    if (i != index && !hwloc_bitmap_intersects(other->cpus, self->cpus))
      continue;
    /* Its weight as its role group passes it on: scaled as the role's was. */
    unsigned long long sum = role_sum(roles, planned, n, other->role);
    double w = placer_weight_effective(other->cpu_weight) * (double)scaled(sum, max) / (double)sum;
    all += w;
    if (i == index)
      mine = w;
  }
  free(roles);
  free(planned);
  return mine / all;
}
