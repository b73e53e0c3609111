/* The design check: the smallest p a study's repeats let its tests reach,
 * against its alpha, and the fix it names.  The figures are the tests' own
 * exact distributions (stats.c): 3 pairs cannot go below 0.25 (Wilcoxon),
 * 3 vs 3 below 0.10 (Mann-Whitney) -- the "0 of 6 storage cells
 * conclusive, smallest p 0.25" study. */
#include <math.h>
#include <string.h>

#include "results/design.h"
#include "test_support.h"

static void expect_text(const char *got, const char *want) {
  if (strcmp(got, want) != 0)
    fail_msg("got  '%s'\nwant '%s'", got, want);
}

static void test_three_repeats_refused(void **state) {
  (void)state;
  struct placer_bench_design d;
  placer_bench_design_of(3, 4, 0.05, &d);
  assert_true(d.compares);
  assert_true(fabs(d.min_p_paired - 0.25) < 1e-12);
  assert_true(fabs(d.min_p_unpaired - 0.10) < 1e-12);
  assert_true(fabs(d.min_p - 0.10) < 1e-12);
  assert_false(d.can_conclude);
  assert_int_equal(d.repeats_unpaired, 4); /* 2 / C(8, 4) = 0.0286 */
  assert_int_equal(d.repeats_paired, 6);   /* 2 / 2^6 = 0.03125; 5 pairs: 0.0625 */
  char buf[512];
  placer_bench_design_refusal(&d, buf, sizeof(buf));
  expect_text(buf, "3 repeats: a paired p cannot go below 0.25 and an unpaired one below 0.10, so no change can be "
                   "significant at alpha 0.05; use at least 4 (6 for the paired test)");
  placer_bench_design_describe(&d, buf, sizeof(buf));
  expect_text(buf, "3 repeats: the smallest p is 0.25 paired (Wilcoxon, 3 pairs) and 0.10 unpaired (Mann-Whitney, 3 "
                   "vs 3); alpha 0.05: no change can be significant");
}

static void test_enough_repeats(void **state) {
  (void)state;
  struct placer_bench_design d;
  placer_bench_design_of(6, 2, 0.05, &d); /* the default study's minimum */
  assert_true(d.can_conclude);
  char buf[512];
  placer_bench_design_describe(&d, buf, sizeof(buf));
  expect_text(buf, "6 repeats: the smallest p is 0.0312 paired (Wilcoxon, 6 pairs) and 0.00216 unpaired "
                   "(Mann-Whitney, 6 vs 6); alpha 0.05: both tests can find a change significant");
  placer_bench_design_of(4, 2, 0.05, &d);
  assert_true(d.can_conclude);
  placer_bench_design_describe(&d, buf, sizeof(buf));
  assert_non_null(strstr(buf, "only the unpaired test can find a change significant"));
  /* A stricter alpha needs more: 4 vs 4 (0.0286) is no longer enough at 0.01. */
  placer_bench_design_of(4, 2, 0.01, &d);
  assert_false(d.can_conclude);
  assert_int_equal(d.repeats_unpaired, 5); /* 2 / C(10, 5) = 0.0079 */
  assert_int_equal(d.repeats_paired, 8);   /* 2 / 2^8 = 0.0078 */
  placer_bench_design_refusal(&d, buf, sizeof(buf));
  assert_non_null(strstr(buf, "use at least 5 (8 for the paired test)"));
}

static void test_nothing_to_judge(void **state) {
  (void)state;
  struct placer_bench_design d;
  placer_bench_design_of(1, 1, 0.05, &d); /* one variant: no change, no verdict */
  assert_false(d.compares);
  assert_true(d.can_conclude);
  char buf[256];
  placer_bench_design_describe(&d, buf, sizeof(buf));
  expect_text(buf, "1 repeat, one variant: no change to judge");
  placer_bench_design_of(1, 2, 0.05, &d);
  assert_false(d.can_conclude);
  assert_true(d.min_p == 1.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_three_repeats_refused),
    cmocka_unit_test(test_enough_repeats),
    cmocka_unit_test(test_nothing_to_judge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
