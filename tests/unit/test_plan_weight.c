/* CPU weights between instances (plan-weight.c): the role group's weight
 * and each instance's share of its CPUs when all are busy, on plans built by
 * hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

struct spec {
  const char *role;
  const char *cpus;
  unsigned weight;
};

static struct placer_plan *make_plan(const struct spec *s, size_t n) {
  struct placer_plan *plan = calloc(1, sizeof(*plan));
  assert_non_null(plan);
  plan->instances = calloc(n, sizeof(*plan->instances));
  assert_non_null(plan->instances);
  plan->n_instances = n;
  for (size_t i = 0; i < n; i++) {
    struct placer_instance *inst = &plan->instances[i];
    inst->role = (char *)s[i].role;
    inst->cpu_weight = s[i].weight;
    inst->cpus = hwloc_bitmap_alloc();
    assert_int_equal(hwloc_bitmap_list_sscanf(inst->cpus, s[i].cpus), 0);
  }
  return plan;
}

static void free_plan(struct placer_plan *plan) {
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_free(plan->instances[i].cpus);
  free(plan->instances);
  free(plan);
}

static void test_effective_and_role(void **state) {
  (void)state;
  assert_int_equal(placer_weight_effective(0), 100);
  assert_int_equal(placer_weight_effective(900), 900);
  const char *const roles[] = { "a", "a", "a", "b", "b" };
  const unsigned none[] = { 0, 0, 0, 0, 0 };
  assert_int_equal(placer_weight_role(roles, none, N(roles), "a"), 300);
  assert_int_equal(placer_weight_role(roles, none, N(roles), "b"), 200);
  assert_int_equal(placer_weight_role(roles, none, N(roles), "c"), 0);
  const unsigned mixed[] = { 900, 0, 1, 50, 0 };
  assert_int_equal(placer_weight_role(roles, mixed, N(roles), "a"), 1001);
  assert_int_equal(placer_weight_role(roles, mixed, N(roles), "b"), 150);
  /* Beyond cpu.weight's range: every role scaled alike, ratios kept. */
  const unsigned big[] = { 10000, 10000, 0, 5000, 0 };
  assert_int_equal(placer_weight_role(roles, big, N(roles), "a"), 10000);
  assert_int_equal(placer_weight_role(roles, big, N(roles), "b"), 2537); /* 5100 * 10000 / 20100 */
  const unsigned tiny[] = { 10000, 10000, 10000, 1, 0 };
  assert_int_equal(placer_weight_role(roles, tiny, N(roles), "b"), 34); /* 101 * 10000 / 30000 */
}

static void test_role_weight(void **state) {
  (void)state;
  const struct spec s[] = {
    { "fio", "0", 900 },
    { "neighbour", "0", 100 },
    { "osd", "1", 0 },
    { "osd", "1", 300 },
  };
  struct placer_plan *plan = make_plan(s, N(s));
  assert_int_equal(placer_plan_role_weight(plan, "fio"), 900);
  assert_int_equal(placer_plan_role_weight(plan, "neighbour"), 100);
  assert_int_equal(placer_plan_role_weight(plan, "osd"), 400);
  assert_int_equal(placer_plan_role_weight(plan, "nope"), 0);
  free_plan(plan);
}

static void test_cpu_share(void **state) {
  (void)state;
  /* 9:1 in a shared pool on cpu 0; two OSDs of one role sharing cpu 1 at
   * 1:3; an exclusive instance alone on cpus 2-3. */
  const struct spec s[] = {
    { "fio", "0", 900 }, { "neighbour", "0", 100 }, { "osd", "1", 0 }, { "osd", "1", 300 }, { "mon", "2-3", 50 },
  };
  struct placer_plan *plan = make_plan(s, N(s));
  assert_true(fabs(placer_plan_cpu_share(plan, 0) - 0.9) < 1e-9);
  assert_true(fabs(placer_plan_cpu_share(plan, 1) - 0.1) < 1e-9);
  assert_true(fabs(placer_plan_cpu_share(plan, 2) - 0.25) < 1e-9);
  assert_true(fabs(placer_plan_cpu_share(plan, 3) - 0.75) < 1e-9);
  assert_true(fabs(placer_plan_cpu_share(plan, 4) - 1.0) < 1e-9);
  free_plan(plan);

  /* Unpinned: every instance on every CPU, default weights: equal shares. */
  const struct spec u[] = { { "a", "0-1", 0 }, { "b", "0-1", 0 }, { "b", "0-1", 0 }, { "c", "0-1", 0 } };
  plan = make_plan(u, N(u));
  for (size_t i = 0; i < N(u); i++)
    assert_true(fabs(placer_plan_cpu_share(plan, i) - 0.25) < 1e-9);
  free_plan(plan);
}

/* 200 instances of one role at the default weight and one of another at
 * 100 in one pool: the role weights are scaled (10000 : 50), and the shares
 * stay those of a flat group, 1/201 each. */
static void test_cpu_share_scaled(void **state) {
  (void)state;
  struct spec s[201];
  for (size_t i = 0; i < N(s); i++)
    s[i] = (struct spec){ i ? "vm" : "fio", "0-3", 0 };
  struct placer_plan *plan = make_plan(s, N(s));
  assert_int_equal(placer_plan_role_weight(plan, "vm"), 10000);
  assert_int_equal(placer_plan_role_weight(plan, "fio"), 50);
  assert_true(fabs(placer_plan_cpu_share(plan, 0) - 1.0 / 201) < 1e-9);
  assert_true(fabs(placer_plan_cpu_share(plan, 7) - 1.0 / 201) < 1e-9);
  free_plan(plan);
}

/* placer_plan_weights takes every instance at once, per distinct set of
 * CPUs (#35: per instance, the shares of a 4096-instance pool took
 * minutes): the same figures as the definition, summed instance by
 * instance over overlapping sets, on a mix of pools that overlap, exclusive
 * instances, roles interleaved and scaled weights. */
static void test_weights_at_once(void **state) {
  (void)state;
  struct spec s[600];
  for (size_t i = 0; i < N(s); i++) {
    static const char *const cpus[] = { "0-3", "2-5", "6", "7", "0-7", "4-5" };
    static const char *const roles[] = { "vm", "fio", "osd", "vm", "mon" };
    s[i] = (struct spec){ roles[(i / 7) % 5], cpus[(i * 13) % 6], (unsigned)((i * 37) % 5) * 250 };
  }
  struct placer_plan *plan = make_plan(s, N(s));
  unsigned *role_weights = calloc(N(s), sizeof(*role_weights));
  double *shares = calloc(N(s), sizeof(*shares));
  assert_int_equal(placer_plan_weights(plan, role_weights, shares), 0);
  for (size_t i = 0; i < N(s); i++) {
    assert_int_equal(role_weights[i], placer_plan_role_weight(plan, s[i].role));
    /* the definition: its weight, as its group passes it on, over those of every instance on its CPUs */
    double mine = 0, all = 0;
    for (size_t j = 0; j < N(s); j++) {
      if (j != i && !hwloc_bitmap_intersects(plan->instances[j].cpus, plan->instances[i].cpus))
        continue;
      unsigned long long sum = 0;
      for (size_t k = 0; k < N(s); k++)
        if (strcmp(s[k].role, s[j].role) == 0)
          sum += placer_weight_effective(s[k].weight);
      double w = placer_weight_effective(s[j].weight) * (double)placer_plan_role_weight(plan, s[j].role) / (double)sum;
      all += w;
      mine = j == i ? w : mine;
    }
    if (fabs(shares[i] - mine / all) > 1e-12)
      fail_msg("instance %zu: share %.15g, by definition %.15g", i, shares[i], mine / all);
  }
  free(role_weights);
  free(shares);
  free_plan(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_effective_and_role), cmocka_unit_test(test_role_weight),     cmocka_unit_test(test_cpu_share),
    cmocka_unit_test(test_cpu_share_scaled),   cmocka_unit_test(test_weights_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
