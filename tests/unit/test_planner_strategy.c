/* The planner's strategy table (planner_strategies[] in planner.c): every
 * entry whole and of its own name, a broken table caught, and for every
 * kind of role exactly one strategy that applies: the one, and the phase,
 * that the if-chains of place_role() and phase_of() chose before the table
 * (what the golden plans were made with). */
#include <string.h>

#include "plan/planner-internal.h"
#include "lib/array.h"
#include "test_support.h"

static void test_table_whole(void **state) {
  (void)state;
  assert_true(planner_n_strategies > 0);
  const char *wrong = planner_strategies_check(planner_strategies, planner_n_strategies);
  if (wrong)
    fail_msg("planner_strategies[]: %s", wrong);
}

static bool never(const struct placer_profile *profile, const struct placer_role_spec *spec) {
  (void)profile, (void)spec;
  return false;
}

static int no_place(struct planner *p, struct role_state *rs) {
  (void)p, (void)rs;
  return -1;
}

static void test_broken_tables_caught(void **state) {
  (void)state;
  struct planner_strategy table[2] = {
    { "one", 0, never, no_place },
    { "two", 2, never, no_place },
  };
  assert_null(planner_strategies_check(table, N_OF(table)));
  table[1].name = "one";
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "two strategies of one name");
  table[1].name = "";
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without a name");
  table[1].name = NULL;
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without a name");
  table[1].name = "two";
  table[1].phase = PLANNER_PHASES;
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without a phase");
  table[1].phase = -1;
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without a phase");
  table[1].phase = 1;
  table[1].applies = NULL;
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without applies");
  table[1].applies = never;
  table[1].place = NULL;
  assert_string_equal(planner_strategies_check(table, N_OF(table)), "a strategy without place");
}

/* What place_role() and phase_of() said before the table. */
static const char *expected_name(bool pin, const struct placer_role_spec *spec) {
  if (spec->count_mode != PLACER_COUNT_FILL)
    return spec->near == PLACER_NEAR_NONE ? "anywhere" : "near";
  if (!pin)
    return "fill-unpinned";
  if (spec->cpu.pool) /* a pinned profile gives every role with a pool name a pool */
    return spec->cpu.span_numa ? "fill-pool-span" : "fill-pool-per-node";
  return "fill-exclusive";
}

static int expected_phase(const struct placer_role_spec *spec) {
  if (spec->count_mode == PLACER_COUNT_FILL)
    return 2;
  return spec->near == PLACER_NEAR_NONE ? 1 : 0;
}

static void test_one_strategy_per_role(void **state) {
  (void)state;
  static const enum placer_count_mode counts[] = { PLACER_COUNT_FIXED, PLACER_COUNT_FILL, PLACER_COUNT_PER_DEVICE,
                                                   PLACER_COUNT_PER_NUMA };
  static const enum placer_near nears[] = { PLACER_NEAR_NONE, PLACER_NEAR_DEVICE, PLACER_NEAR_NIC, PLACER_NEAR_NUMA,
                                            PLACER_NEAR_SPREAD };
  char pool_name[] = "pool";
  size_t roles = 0;
  for (size_t c = 0; c < N_OF(counts); c++)
    for (size_t n = 0; n < N_OF(nears); n++)
      for (int bits = 0; bits < 8; bits++) {
        struct placer_profile profile = { .pin = bits & 1 };
        struct placer_role_spec spec = { .name = "r", .count_mode = counts[c], .near = nears[n] };
        spec.cpu.pool = bits & 2 ? pool_name : NULL;
        spec.cpu.span_numa = bits & 4;
        size_t applies = 0;
        for (size_t i = 0; i < planner_n_strategies; i++)
          applies += planner_strategies[i].applies(&profile, &spec);
        if (applies != 1)
          fail_msg("count mode %d, near %d, pin %d, pool %d, span_numa %d: %zu strategies apply", counts[c], nears[n],
                   bits & 1, !!(bits & 2), !!(bits & 4), applies);
        const struct planner_strategy *s = planner_strategy_for(&profile, &spec);
        assert_non_null(s);
        if (strcmp(s->name, expected_name(profile.pin, &spec)) != 0 || s->phase != expected_phase(&spec))
          fail_msg("count mode %d, near %d, pin %d, pool %d, span_numa %d: strategy %s in phase %d, expected %s in "
                   "phase %d",
                   counts[c], nears[n], bits & 1, !!(bits & 2), !!(bits & 4), s->name, s->phase,
                   expected_name(profile.pin, &spec), expected_phase(&spec));
        roles++;
      }
  assert_int_equal(roles, 4 * 5 * 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table_whole),
    cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_one_strategy_per_role),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
