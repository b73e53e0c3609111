/* CPU weights between instances: the role group's weight and each
 * instance's share of its CPUs when all are busy; see plan.h.  Pure. */
#include <string.h>

#include "plan.h"

#define WEIGHT_DEFAULT 100u /* cgroup v2 cpu.weight default; cgroup.h has it too */
#define WEIGHT_MIN 1u
#define WEIGHT_MAX 10000u

unsigned placer_weight_effective(unsigned planned) {
  return planned ? planned : WEIGHT_DEFAULT;
}

unsigned placer_weight_role_sum(const unsigned *planned, size_t n) {
  unsigned long long sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += placer_weight_effective(planned[i]);
  if (sum < WEIGHT_MIN)
    return WEIGHT_MIN;
  return sum > WEIGHT_MAX ? WEIGHT_MAX : (unsigned)sum;
}

unsigned placer_plan_role_weight(const struct placer_plan *plan, const char *role) {
  unsigned long long sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    if (strcmp(plan->instances[i].role, role) != 0)
      continue;
    sum += placer_weight_effective(plan->instances[i].cpu_weight);
    n++;
  }
  if (n == 0)
    return 0;
  return sum > WEIGHT_MAX ? WEIGHT_MAX : (unsigned)sum;
}

double placer_plan_cpu_share(const struct placer_plan *plan, size_t index) {
  const struct placer_instance *self = &plan->instances[index];
  double mine = placer_weight_effective(self->cpu_weight), all = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *other = &plan->instances[i];
    if (i == index || hwloc_bitmap_intersects(other->cpus, self->cpus))
      all += placer_weight_effective(other->cpu_weight);
  }
  return mine / all;
}
