/* The neighbours' share of their solo rate: each run's rate next to storage
 * over the solo rate measured in the same pass (the one denominator of every
 * "neighbours keep" figure: the kept and own shares, the interference ratio,
 * the sweeps' balance point, the efficiency, the curves), and its median and
 * 95% CI over the passes.  Definitions: docs/bench.md, "The neighbours' solo
 * rate: one denominator per pass". */
#include <math.h>
#include <stdlib.h>

#include "results/results.h"
#include "results/stats.h"

double placer_bench_solo_median(const struct placer_bench_results *r, size_t v, size_t c) {
  double *values = malloc(r->repeats * sizeof(*values));
  if (values == NULL)
    return NAN;
  size_t n = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    double x = placer_bench_results_solo(r, v, c, k);
    if (!isnan(x))
      values[n++] = x;
  }
  double med = placer_stats_median(values, n);
  free(values);
  return med;
}

double placer_bench_pass_solo(const struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat) {
  double solo = placer_bench_results_solo(r, variant, condition, repeat);
  /* results written before the solo rate was measured in every pass (the
   * first pass only): the solo rates there are, pooled */
  return isnan(solo) ? placer_bench_solo_median(r, variant, condition) : solo;
}

double placer_bench_run_neighbour_share(const struct placer_bench_results *r, size_t variant, size_t condition,
                                        size_t workload, size_t repeat, size_t solo_variant) {
  if (condition >= r->n_conditions || !(r->conditions[condition].neighbour_level > 0))
    return NAN;
  const struct placer_bench_run *run = placer_bench_results_run_const(r, variant, condition, workload, repeat);
  if (run == NULL || !run->done || !isfinite(run->neighbour_rate))
    return NAN;
  return placer_bench_ratio(run->neighbour_rate, placer_bench_pass_solo(r, solo_variant, condition, repeat));
}

int placer_bench_neighbour_share(const struct placer_bench_results *r, size_t variant, size_t condition,
                                 size_t workload, size_t solo_variant, struct placer_bench_share *out) {
  *out = (struct placer_bench_share){ NAN, NAN, NAN, 0, false };
  if (variant >= r->n_variants || solo_variant >= r->n_variants || workload >= r->n_workloads)
    return 0;
  double *shares = malloc((r->repeats ? r->repeats : 1) * sizeof(*shares));
  if (shares == NULL)
    return -1;
  size_t n = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    double x = placer_bench_run_neighbour_share(r, variant, condition, workload, k, solo_variant);
    if (isnan(x))
      continue;
    shares[n++] = x;
    out->pooled |= isnan(placer_bench_results_solo(r, solo_variant, condition, k));
  }
  out->n = n;
  int rc = 0;
  if (n) {
    out->median = placer_stats_median(shares, n);
    rc = placer_stats_bootstrap_median_ci(shares, n, PLACER_STATS_BOOTSTRAP_RESAMPLES, PLACER_STATS_BOOTSTRAP_SEED,
                                          0.95, &out->ci_low, &out->ci_high);
  }
  free(shares);
  return rc;
}
