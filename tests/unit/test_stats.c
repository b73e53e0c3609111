/* Statistics over repeats: known samples -> known median, percentile, bootstrap
 * CI and Mann-Whitney p. Reference values were computed independently with
 * Python 3.11 (statistics module, exact distributions by brute-force
 * enumeration with fractions.Fraction); each test says how. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/stats.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* p-th percentile of an unsorted sample, through placer_stats_percentile_sorted. */
static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double placer_stats_percentile(const double *x, size_t n, double p) {
  if (n == 0)
    return NAN;
  double *s = malloc(n * sizeof(*s));
  if (s == NULL)
    return NAN;
  memcpy(s, x, n * sizeof(*s));
  qsort(s, n, sizeof(*s), compare_double);
  double v = placer_stats_percentile_sorted(s, n, p);
  free(s);
  return v;
}

static void test_descriptive(void **state) {
  /* statistics.median -> 2210, statistics.mean -> 2195.8 */
  const double x[] = { 2388, 1903, 2210, 2501, 1977 };
  struct placer_stats_summary s;
  placer_stats_summarize(x, N(x), &s);
  assert_int_equal(s.n, 5);
  assert_true(s.min == 1903 && s.max == 2501);
  assert_true(s.median == 2210);
  assert_true(fabs(s.mean - 2195.8) < 1e-9);
  /* Even n: the mean of the middle two; statistics.median([3.5,1,7.25,2]) = 2.75. */
  const double y[] = { 3.5, 1.0, 7.25, 2.0 };
  assert_true(placer_stats_median(y, N(y)) == 2.75);
  /* statistics.quantiles(y, n=4, method="inclusive") = [1.75, 2.75, 4.4375];
   * quantiles(y, n=100, method="inclusive")[89] (the 90th) = 6.125. */
  assert_true(placer_stats_percentile(y, N(y), 25) == 1.75);
  assert_true(placer_stats_percentile(y, N(y), 50) == 2.75);
  assert_true(placer_stats_percentile(y, N(y), 75) == 4.4375);
  assert_true(fabs(placer_stats_percentile(y, N(y), 90) - 6.125) < 1e-12);
  assert_true(placer_stats_percentile(y, N(y), 0) == 1.0);
  assert_true(placer_stats_percentile(y, N(y), 100) == 7.25);
  /* One value is its own median and every percentile. */
  const double one[] = { 42 };
  assert_true(placer_stats_median(one, 1) == 42 && placer_stats_percentile(one, 1, 99.9) == 42);
}

static void test_empty_is_nan(void **state) {
  struct placer_stats_summary s;
  placer_stats_summarize(NULL, 0, &s);
  assert_int_equal(s.n, 0);
  assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.median));
  assert_true(isnan(placer_stats_percentile(NULL, 0, 50)));
  const double x[] = { 1, 2 };
  assert_true(isnan(placer_stats_percentile(x, 2, 101)));
  struct placer_stats_comparison c;
  placer_stats_compare(x, 2, NULL, 0, &c);
  assert_true(isnan(c.median_b) && isnan(c.change) && isnan(c.ci_low) && isnan(c.ci_high) && isnan(c.p_value));
}

static void test_splitmix64_reference(void **state) {
  /* The reference sequence of splitmix64 from state 0 (Vigna's splitmix64.c). */
  uint64_t s = 0;
  assert_true(placer_stats_splitmix64(&s) == UINT64_C(0xe220a8397b1dcdaf));
  assert_true(placer_stats_splitmix64(&s) == UINT64_C(0x6e789e6aa1b965f4));
  assert_true(placer_stats_splitmix64(&s) == UINT64_C(0x06c45d188009454f));
}

static void test_mann_whitney_exact(void **state) {
  /* [1,2,3] vs [4,5,6]: U_a = 0, the most extreme of C(6,3) = 20 equally likely
   * arrangements on either side: p = 2 * 1/20 = 0.1. */
  const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
  struct placer_stats_mann_whitney mw;
  placer_stats_mann_whitney(a, 3, b, 3, &mw);
  assert_true(mw.exact);
  assert_true(mw.u_a == 0);
  assert_true(fabs(mw.p_value - 0.1) < 1e-15);
  /* Order does not matter: U_b = 9, same p. */
  placer_stats_mann_whitney(b, 3, a, 3, &mw);
  assert_true(mw.u_a == 9 && fabs(mw.p_value - 0.1) < 1e-15);
  /* Brute-force enumeration: [10,20,30,40] vs [15,25,35] U=6 (the middle) -> p = 1. */
  const double c[] = { 10, 20, 30, 40 }, d[] = { 15, 25, 35 };
  placer_stats_mann_whitney(c, 4, d, 3, &mw);
  assert_true(mw.exact && mw.u_a == 6 && mw.p_value == 1.0);
  /* Brute-force enumeration of C(11,5) = 462 arrangements: U = 7, P(U <= 7) = 41/462,
   * p = 41/231. */
  const double e[] = { 1.5, 3.1, 4.7, 6.2, 8.8 }, f[] = { 2.2, 5.3, 7.9, 9.4, 10.6, 11.1 };
  placer_stats_mann_whitney(e, 5, f, 6, &mw);
  assert_true(mw.exact && mw.u_a == 7);
  assert_true(fabs(mw.p_value - 41.0 / 231.0) < 1e-15);
}

static void test_mann_whitney_normal(void **state) {
  /* Ties -> normal approximation with tie and continuity correction (by hand:
   * U = 2.5, var = 4*4/12 * (9 - (8-2 + 27-3 + 8-2)/(8*7)) = 11.1428...,
   * z = (|2.5 - 8| - 0.5)/sqrt(var), p = erfc(z/sqrt 2) = 0.13665824773814753). */
  const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 };
  struct placer_stats_mann_whitney mw;
  placer_stats_mann_whitney(a, 4, b, 4, &mw);
  assert_false(mw.exact);
  assert_true(mw.u_a == 2.5);
  assert_true(fabs(mw.p_value - 0.13665824773814753) < 1e-12);
  /* More than PLACER_STATS_MW_EXACT_MAX values: 1..12 vs 7..18 (6 ties) -> U = 18,
   * p = 0.0019823713592535376 by the same formula. */
  double g[12], h[12];
  for (int i = 0; i < 12; i++) {
    g[i] = i + 1;
    h[i] = i + 7;
  }
  placer_stats_mann_whitney(g, 12, h, 12, &mw);
  assert_false(mw.exact);
  assert_true(mw.u_a == 18);
  assert_true(fabs(mw.p_value - 0.0019823713592535376) < 1e-12);
  /* All values equal: no evidence at all. */
  const double same[] = { 5, 5, 5 };
  placer_stats_mann_whitney(same, 3, same, 3, &mw);
  assert_true(mw.p_value == 1.0);
}

static void test_bootstrap_exact_distribution(void **state) {
  /* a = [10] (its resampled median is always 10); b = [10,12,14] resampled has
   * median 10 with probability 7/27, 12 with 13/27, 14 with 7/27. With 2000
   * resamples the 2.5th and 97.5th percentiles of the change are 0 and 0.4 for
   * any PRNG stream (each tail holds ~26%). */
  const double a[] = { 10 }, b[] = { 10, 12, 14 };
  double lo, hi;
  assert_int_equal(placer_stats_bootstrap_change_ci(a, 1, b, 3, 2000, 12345, 0.95, &lo, &hi), 0);
  assert_true(lo == 0.0);
  assert_true(fabs(hi - 0.4) < 1e-12);
  /* Constant samples: no spread at all. */
  const double c[] = { 100, 100, 100 }, d[] = { 110, 110, 110 };
  assert_int_equal(placer_stats_bootstrap_change_ci(c, 3, d, 3, 2000, 1, 0.95, &lo, &hi), 0);
  assert_true(fabs(lo - 0.1) < 1e-12 && fabs(hi - 0.1) < 1e-12);
  /* A zero median in A makes the relative change undefined. */
  const double z[] = { 0, 0, 1 };
  assert_int_equal(placer_stats_bootstrap_change_ci(z, 3, d, 3, 2000, 1, 0.95, &lo, &hi), 0);
  assert_true(isnan(lo) && isnan(hi));
}

static void test_compare_deterministic(void **state) {
  /* The pinning experiment's shape (MACHINE-NOTES): unpinned vs pinned 4K
   * randwrite IOPS, 5 repeats. Reference: a Python re-implementation of the
   * documented algorithm (splitmix64 from seed 0x706c61636572, index =
   * (r * n) >> 64, a's draws then b's per resample, statistics.median, linear
   * percentile) gives the CI (-0.431323283082077, -0.2412746585735963). */
  const double a[] = { 2388, 1903, 2210, 2501, 1977 }, b[] = { 1436, 1358, 1500, 1402, 1466 };
  struct placer_stats_comparison c;
  placer_stats_compare(a, 5, b, 5, &c);
  assert_true(c.median_a == 2210 && c.median_b == 1436);
  assert_true(fabs(c.change - (1436.0 / 2210.0 - 1.0)) < 1e-15);
  assert_true(fabs(c.ci_low - -0.431323283082077) < 1e-12);
  assert_true(fabs(c.ci_high - -0.2412746585735963) < 1e-12);
  assert_true(c.ci_low <= c.change && c.change <= c.ci_high);
  /* Complete separation of 5 vs 5: p = 2/C(10,5) = 2/252. */
  assert_true(c.exact);
  assert_true(fabs(c.p_value - 2.0 / 252.0) < 1e-15);
  /* Same inputs, same bytes. */
  struct placer_stats_comparison again;
  placer_stats_compare(a, 5, b, 5, &again);
  assert_true(again.ci_low == c.ci_low && again.ci_high == c.ci_high && again.p_value == c.p_value);
}

/* Wilcoxon signed-rank against scipy 1.10.1 (Debian 12's python3-scipy):
 * scipy.stats.wilcoxon(d) with its defaults (zero_method="wilcox",
 * correction=False, method="auto": exact for n <= 50 without zeros, else
 * normal) and, for the tied sample, method="approx" (scipy 1.10 would use
 * the exact table despite the ties; placer uses the tie-corrected normal
 * approximation there).  W+ by hand from the ranks of |d|. */
static void test_wilcoxon_scipy(void **state) {
  (void)state;
  static const struct {
    double d[10];
    size_t n;
    double w_plus, p;
    bool exact;
  } cases[] = {
    /* ranks 1(-0.02) 2 3 4 5: W+ = 14 */
    { { 0.10, -0.02, 0.05, 0.07, 0.12 }, 5, 14, 0.125, true },
    /* |d| ranks: 0.2:1 0.3:2 0.6:3 0.8:4 1.1:5 1.5:6 1.9:7 2.1:8; W- = 2 + 5 = 7, W+ = 29 */
    { { 1.5, -0.3, 2.1, 0.8, -1.1, 0.6, 1.9, 0.2 }, 8, 29, 0.1484375, true },
    /* ties (1,1 / 2,2 / 4,4,4): tie-corrected normal, scipy method="approx" */
    { { 1, 2, 2, -3, 4, 4, 4, 5, -1, 6 }, 10, 48.5, 0.03164177738597928, false },
    /* a zero is dropped (n = 5); zeros make scipy use the normal approximation */
    { { 0.0, 0.3, 0.1, 0.2, -0.05, 0.4 }, 6, 14, 0.07961580146011343, false },
    /* all positive: the smallest exact two-sided p for n = 7, 2/2^7 */
    { { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7 }, 7, 28, 0.015625, true },
  };
  for (size_t i = 0; i < N(cases); i++) {
    struct placer_stats_wilcoxon w;
    placer_stats_wilcoxon(cases[i].d, cases[i].n, &w);
    if (fabs(w.w_plus - cases[i].w_plus) > 1e-9 || fabs(w.p_value - cases[i].p) > 1e-12 || w.exact != cases[i].exact)
      fail_msg("case %zu: W+ %g p %.17g exact %d, want W+ %g p %.17g exact %d", i, w.w_plus, w.p_value, w.exact,
               cases[i].w_plus, cases[i].p, cases[i].exact);
  }
  /* n = 60 > 50: normal approximation; scipy 1.10.1 wilcoxon(d6) = (585.0, 0.015126799117971637)
   * for these values (numpy default_rng(1).normal(0.3, 1, 60) rounded to 6 places). */
  static const double d6[60] = {
    0.645584,  1.121618,  0.630437,  -1.003157, 1.205356,  0.746375,  -0.236953, 0.881118,  0.664572,  0.594132,
    0.328422,  0.846713,  -0.436454, 0.13709,   -0.182119, 0.898846,  0.339722,  0.007543,  -0.481908, 0.042808,
    0.308142,  0.024397,  1.594064,  1.306724,  -2.411162, -1.589013, 0.125228,  -0.12219,  0.513643,  0.517322,
    2.417839,  -0.812021, -0.077605, 2.342772,  0.946703,  0.963063,  -0.214006, -1.348075, 0.467465,  0.409014,
    -0.927352, -0.383227, 0.227956,  -0.644752, 0.20173,   0.395483,  0.335586,  -0.206292, 0.893748,  1.191167,
    0.620848,  -0.51823,  1.031652,  -0.20144,  1.179161,  -0.771787, 1.214467,  0.279937,  -0.948749, -0.013899,
  };
  struct placer_stats_wilcoxon w;
  placer_stats_wilcoxon(d6, 60, &w);
  assert_false(w.exact);
  assert_true(fabs(fmin(w.w_plus, 60 * 61 / 2 - w.w_plus) - 585.0) < 1e-9);
  assert_true(fabs(w.p_value - 0.015126799117971637) < 1e-12);
  double none[2] = { 0, 0 };
  placer_stats_wilcoxon(none, 2, &w);
  assert_true(isnan(w.p_value));
}

/* Paired A/B: 5 pairs where B is ~40% lower in every pass.  The pair ratios'
 * median - 1 = 1407/2340 - 1 = -0.39871794871794874 (numpy); Wilcoxon on
 * log ratios, all negative: exact p = 2/2^5 = 0.0625 (scipy 1.10.1).  The CI
 * lies within the pair ratios' range and holds the change. */
static void test_paired_compare(void **state) {
  (void)state;
  const double a[5] = { 2388, 2340, 2460, 2401, 2377 }, b[5] = { 1436, 1407, 1479, 1450, 1420 };
  struct placer_stats_paired p;
  placer_stats_paired_compare(a, b, 5, &p);
  assert_int_equal(p.n_pairs, 5);
  assert_true(fabs(p.change - (1407.0 / 2340.0 - 1)) < 1e-12);
  assert_true(fabs(p.p_value - 0.0625) < 1e-12);
  assert_true(p.exact);
  double lo = 1e9, hi = -1e9;
  for (int i = 0; i < 5; i++) {
    lo = fmin(lo, b[i] / a[i] - 1);
    hi = fmax(hi, b[i] / a[i] - 1);
  }
  assert_true(p.ci_low >= lo - 1e-12 && p.ci_high <= hi + 1e-12);
  assert_true(p.ci_low <= p.change && p.change <= p.ci_high);
  struct placer_stats_paired q;
  placer_stats_paired_compare(a, b, 5, &q);
  assert_true(q.ci_low == p.ci_low && q.ci_high == p.ci_high); /* deterministic */
  const double bad_a[3] = { 0, NAN, 5 }, bad_b[3] = { 1, 2, 5 };
  placer_stats_paired_compare(bad_a, bad_b, 3, &p);
  assert_int_equal(p.n_pairs, 1);
  assert_true(fabs(p.change) < 1e-12);
  assert_true(isnan(p.p_value)); /* the one pair is a zero difference */
}

/* The smallest p a design can reach comes from the tests' own distributions:
 * Wilcoxon's 2 / 2^n for n pairs (0.25 for 3: the "3 repeats"), and
 * Mann-Whitney's 2 / C(na + nb, na) (0.1 for 3 vs 3, 0.0286 for 4 vs 4);
 * scipy.stats.wilcoxon(range(1, 7)) gives 0.03125, mannwhitneyu([0,1,2,3],
 * [4,5,6,7]) 0.02857142857142857. */
static void test_min_p(void **state) {
  assert_true(fabs(placer_stats_wilcoxon_min_p(3) - 0.25) < 1e-12);
  assert_true(fabs(placer_stats_wilcoxon_min_p(5) - 0.0625) < 1e-12);
  assert_true(fabs(placer_stats_wilcoxon_min_p(6) - 0.03125) < 1e-12);
  assert_true(fabs(placer_stats_wilcoxon_min_p(1) - 1.0) < 1e-12);
  assert_true(fabs(placer_stats_mann_whitney_min_p(3, 3) - 0.1) < 1e-12);
  assert_true(fabs(placer_stats_mann_whitney_min_p(4, 4) - 2.0 / 70.0) < 1e-12);
  assert_true(fabs(placer_stats_mann_whitney_min_p(2, 2) - 2.0 / 6.0) < 1e-12);
  assert_true(fabs(placer_stats_mann_whitney_min_p(1, 1) - 1.0) < 1e-12);
  assert_true(placer_stats_mann_whitney_min_p(0, 3) == 1.0 && placer_stats_wilcoxon_min_p(0) == 1.0);
  /* Beyond the exact ranges the approximations answer, still far below 0.05. */
  assert_true(placer_stats_mann_whitney_min_p(12, 12) < 1e-4);
  assert_true(placer_stats_wilcoxon_min_p(60) < 1e-9);
  /* The same figure a real comparison reaches: 3 vs 3 completely separated. */
  const double a[3] = { 10, 11, 12 }, b[3] = { 20, 21, 22 };
  struct placer_stats_comparison c;
  placer_stats_compare(a, 3, b, 3, &c);
  assert_true(c.p_value == placer_stats_mann_whitney_min_p(3, 3));
  struct placer_stats_paired pr;
  placer_stats_paired_compare(a, b, 3, &pr);
  assert_true(pr.p_value == placer_stats_wilcoxon_min_p(3));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_descriptive),           cmocka_unit_test(test_empty_is_nan),
    cmocka_unit_test(test_splitmix64_reference),  cmocka_unit_test(test_mann_whitney_exact),
    cmocka_unit_test(test_mann_whitney_normal),   cmocka_unit_test(test_bootstrap_exact_distribution),
    cmocka_unit_test(test_compare_deterministic), cmocka_unit_test(test_wilcoxon_scipy),
    cmocka_unit_test(test_paired_compare),        cmocka_unit_test(test_min_p),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
