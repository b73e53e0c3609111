/* The neighbours' share of their solo rate against the solo run of its own
 * pass (results/neighbour-share.c), on hand-built results of a machine whose
 * load drifts between passes: the first variant's solo rate is 1000, 700,
 * 1200, 900 and 1100 bogo ops/s in passes 0..4, and next to storage the
 * neighbours keep 50%, 60%, 55%, 52% and 58% of it under unpinned, 90%,
 * 110%, 80%, 100% and 95% under pinned.  Per pass the shares are those
 * figures, so unpinned keeps their median 55% and pinned 95%; one pooled
 * denominator (the median rate over the median solo rate, 1000) read 50% and
 * 90%.  The same figures go to the balance point (neighbour_min_fraction
 * 92%: pinned passes at 95%, not at 90%), the verdict line, summary.json (a
 * recorded fixture, tests/fixtures/results/shares-per-pass/) and the
 * report's lines on a share over 100% (beyond noise, or within it).
 * Results written before every pass measured a solo run (the first pass's
 * only) divide every pass by it, said pooled. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report_support.h"
#include "results/results.h"
#include "test_support.h"

#define NR 5

static const char *const variants[] = { "unpinned", "pinned" };
static const double solo0[NR] = { 1000, 700, 1200, 900, 1100 };
static const double kept[2][NR] = { { 0.50, 0.60, 0.55, 0.52, 0.58 }, { 0.90, 1.10, 0.80, 1.00, 0.95 } };

static void fill(struct placer_bench_results *r, size_t v, size_t c, size_t k, double iops, double nb) {
  struct placer_bench_run *run = placer_bench_results_run(r, v, c, 0, k);
  struct placer_bench_op io = { .iops = iops, .total_ios = (uint64_t)(iops * 15), .runtime_ms = 15000 };
  io.io_bytes = io.total_ios * 4096;
  io.bw_bytes = (uint64_t)(iops * 4096);
  io.clat_p50_ns = io.clat_p99_ns = io.clat_p999_ns = io.clat_mean_ns = 5e6;
  set_ops(run, false, &io, NULL);
  run->duration_s = 15;
  run->neighbour_rate = nb;
  run->done = true;
}

/* PER_PASS: a solo run in every pass (else the first pass's only). */
static struct placer_bench_results *build(bool per_pass) {
  const struct placer_bench_workload w[] = {
    { .name = "4k-randwrite", .pattern = "randwrite", .block_size_bytes = 4096 }
  };
  const struct placer_bench_condition c[] = { { "alone", 0 }, { "vms", 2 } };
  struct placer_bench_spec spec = {
    .title = "the neighbours' share per pass",
    .storage_role = "osd",
    .neighbour_name = "the VMs",
    .neighbour_unit = "bogo ops/s",
    .level_unit = "neighbour cores",
    .variants = variants,
    .n_variants = 2,
    .workloads = w,
    .n_workloads = 1,
    .conditions = c,
    .n_conditions = 2,
    .repeats = NR,
    .sweep = true,
    .storage_min_fraction = 0.90,
    .neighbour_min_fraction = 0.92,
  };
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_new(&spec, &r, &err) < 0)
    fail_msg("%s", err->msg);
  for (size_t v = 0; v < 2; v++)
    for (size_t k = 0; k < NR; k++) {
      fill(r, v, 0, k, 2000 + 10 * (double)k, NAN);
      fill(r, v, 1, k, 1900 + 10 * (double)k, kept[v][k] * solo0[k]);
      if (per_pass || k == 0) {
        placer_bench_results_set_solo(r, 0, 1, k, solo0[k]);
        placer_bench_results_set_solo(r, v, 1, k, v ? 600 + (double)k : solo0[k]);
      }
    }
  return r;
}

static void test_same_pass(void **state) {
  (void)state;
  struct placer_bench_results *r = build(true);
  double s, n, own;
  placer_bench_kept(r, 0, 1, 0, &s, &n, &own);
  assert_true(fabs(n - 0.55) < 1e-12);
  placer_bench_kept(r, 1, 1, 0, &s, &n, &own);
  assert_true(fabs(n - 0.95) < 1e-12); /* one pooled denominator: 900 / 1000 = 0.90 */
  /* its own solo rate, 600..604 on its own CPUs: rate_k / (600 + k), median over the passes */
  double own_k[NR];
  for (size_t k = 0; k < NR; k++)
    own_k[k] = kept[1][k] * solo0[k] / (600 + (double)k);
  assert_true(fabs(own - placer_stats_median(own_k, NR)) < 1e-12);
  /* the balance point at 92%: storage keeps 1920 / 2020 = 95% of unpinned's alone
   * rate and the VMs 95% of its solo rate (at 90% they would miss it) */
  struct placer_bench_balance b;
  placer_bench_sweep_balance(r, 1, &b);
  assert_true(b.found && b.level == 2);
  placer_bench_sweep_balance(r, 0, &b);
  assert_false(b.found);
  /* summary.json and the report say the same */
  char *json = json_of(r), *text = report_of(r);
  assert_non_null(strstr(json, "\"neighbour_kept\": 0.95,"));
  assert_non_null(strstr(json, "\"neighbour_kept\": 0.55,"));
  assert_non_null(strstr(text, "of unpinned's solo rate pinned keeps 95%, unpinned 55%"));
  free(json);
  free(text);
  /* the share's CI: the bootstrap of the median of the 5 passes' shares */
  struct placer_bench_share sh;
  assert_int_equal(placer_bench_neighbour_share(r, 1, 1, 0, 0, &sh), 0);
  assert_int_equal(sh.n, NR);
  assert_false(sh.pooled);
  assert_true(fabs(sh.median - 0.95) < 1e-12);
  double low, high;
  assert_int_equal(placer_stats_bootstrap_median_ci(kept[1], NR, PLACER_STATS_BOOTSTRAP_RESAMPLES,
                                                    PLACER_STATS_BOOTSTRAP_SEED, 0.95, &low, &high),
                   0);
  assert_true(sh.ci_low == low && sh.ci_high == high && low < 0.95 && high > 0.95);
  /* each run against its own pass's solo run */
  for (size_t k = 0; k < NR; k++)
    assert_true(fabs(placer_bench_run_neighbour_share(r, 1, 1, 0, k, 0) - kept[1][k]) < 1e-12);
  assert_true(isnan(placer_bench_run_neighbour_share(r, 1, 0, 0, 0, 0))); /* alone: none */
  check_fixture("shares-per-pass", r);
  placer_bench_results_free(r);
}

/* Results written before every pass measured a solo run: the first pass's
 * (1000) divides every pass, and the share says it was pooled. */
static void test_first_pass_only(void **state) {
  (void)state;
  struct placer_bench_results *r = build(false);
  assert_true(placer_bench_pass_solo(r, 0, 1, 3) == 1000);
  struct placer_bench_share sh;
  assert_int_equal(placer_bench_neighbour_share(r, 1, 1, 0, 0, &sh), 0);
  assert_true(sh.pooled && sh.n == NR);
  assert_true(fabs(sh.median - 0.9) < 1e-12); /* 900, 770, 960, 900, 1045 over 1000 */
  /* the report names what a share over 100% is: pinned's pass 4 alone, 104.5%, is
   * not a median, so no line; the pooled 90% is not over 100% either */
  char *text = report_of(r);
  assert_null(strstr(text, "above unpinned's solo rate"));
  free(text);
  placer_bench_results_free(r);
}

/* A share over 100% is a measured fact: the report says whether its CI holds 100%. */
static void test_over_100(void **state) {
  (void)state;
  struct placer_bench_results *r = build(true);
  /* pinned's VMs at 1.02, 1.10, 1.05, 1.08, 1.04 of each pass's solo rate: CI above 1 */
  static const double over[NR] = { 1.02, 1.10, 1.05, 1.08, 1.04 };
  for (size_t k = 0; k < NR; k++)
    placer_bench_results_run(r, 1, 1, 0, k)->neighbour_rate = over[k] * solo0[k];
  char *text = report_of(r);
  assert_non_null(strstr(text, "  pinned, vms (neighbour cores: 2), during 4k-randwrite: 105% (95% CI "));
  assert_non_null(strstr(text, "above 100% beyond noise"));
  free(text);
  /* ... and at 0.96, 1.10, 1.05, 0.98, 1.04 its CI holds 100%: within noise */
  static const double near[NR] = { 0.96, 1.10, 1.05, 0.98, 1.04 };
  for (size_t k = 0; k < NR; k++)
    placer_bench_results_run(r, 1, 1, 0, k)->neighbour_rate = near[k] * solo0[k];
  text = report_of(r);
  assert_non_null(strstr(text, "  pinned, vms (neighbour cores: 2), during 4k-randwrite: 104% (95% CI "));
  assert_non_null(strstr(text, "100% is within the CI: within noise"));
  free(text);
  placer_bench_results_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_pass),
    cmocka_unit_test(test_first_pass_only),
    cmocka_unit_test(test_over_100),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
