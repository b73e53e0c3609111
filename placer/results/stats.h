/* Statistics over benchmark repeats: descriptive summaries and the A/B comparison
 * (bootstrap CI of the change of medians, Mann-Whitney U p-value). Pure and
 * deterministic: the same samples always give the same bytes in a report. */
#ifndef PLACER_STATS_H
#define PLACER_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each returns NAN for an empty sample (and on allocation failure). */
double placer_stats_mean(const double *x, size_t n);
double placer_stats_min(const double *x, size_t n);
double placer_stats_max(const double *x, size_t n);
double placer_stats_median(const double *x, size_t n);
/* p in [0, 100] of an already sorted sample (no allocation); linear
 * interpolation between closest ranks (numpy's default, Python's
 * statistics.quantiles(method="inclusive")): 0 -> min, 100 -> max. */
double placer_stats_percentile_sorted(const double *sorted, size_t n, double p);

struct placer_stats_summary {
  size_t n;
  double min, max, mean, median; /* NAN when n == 0 */
};
void placer_stats_summarize(const double *x, size_t n, struct placer_stats_summary *out);

/* splitmix64: small, fast, and the same sequence on every platform. */
uint64_t placer_stats_splitmix64(uint64_t *state);

#define PLACER_STATS_BOOTSTRAP_RESAMPLES 2000
#define PLACER_STATS_BOOTSTRAP_SEED UINT64_C(0x706c61636572) /* "placer" */

/* Percentile-bootstrap CI of the relative change of medians, median(b)/median(a) - 1:
 * `resamples` times, resample a and b with replacement (splitmix64 from `seed`),
 * then take the (1-level)/2 and (1+level)/2 percentiles of the resampled changes.
 * Sets *low and *high to NAN when a or b is empty or a resample of a has median 0.
 * Returns 0, or -1 only on allocation failure (both NAN). */
int placer_stats_bootstrap_change_ci(const double *a, size_t na, const double *b, size_t nb, unsigned resamples,
                                     uint64_t seed, double level, double *low, double *high);

/* Mann-Whitney U test, two-sided. *u_a is U for sample a: the number of pairs
 * (a_i, b_j) with a_i > b_j, ties counting 1/2. Exact distribution (dynamic
 * programming over the C(na+nb, na) rank arrangements) when both samples have at
 * most PLACER_STATS_MW_EXACT_MAX values and no value is tied; otherwise the
 * normal approximation with tie correction and continuity correction (as
 * scipy.stats.mannwhitneyu's defaults). p is NAN when a or b is empty, 1 when
 * every value is tied. */
#define PLACER_STATS_MW_EXACT_MAX 10
struct placer_stats_mann_whitney {
  double u_a;
  double p_value;
  bool exact;
};
void placer_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                               struct placer_stats_mann_whitney *out);

/* Wilcoxon signed-rank test of D (paired differences), two-sided, zeros
 * dropped (scipy.stats.wilcoxon's zero_method="wilcox"). *w_plus: the sum of
 * the ranks of |d| over the positive d.  Exact distribution (all 2^n sign
 * patterns, by dynamic programming) when at most PLACER_STATS_WILCOXON_EXACT_MAX
 * values remain, none was zero and no |d| is tied; otherwise the normal
 * approximation with tie correction and no continuity correction (scipy
 * 1.10's defaults).  p is NAN when no non-zero d remains. */
#define PLACER_STATS_WILCOXON_EXACT_MAX 50
struct placer_stats_wilcoxon {
  size_t n; /* non-zero differences used */
  double w_plus;
  double p_value;
  bool exact;
};
void placer_stats_wilcoxon(const double *d, size_t n, struct placer_stats_wilcoxon *out);

/* The smallest two-sided p each test can give for samples of these sizes:
 * the test itself run on the most extreme outcome (every b above every a;
 * n positive differences of distinct sizes), so it is the same distribution
 * the verdict uses -- exact for continuous data (no ties) within the exact
 * ranges above.  Mann-Whitney 3 vs 3: 0.1, 4 vs 4: 0.0286; Wilcoxon 3 pairs:
 * 0.25, 6 pairs: 0.03125.  1 when a size is 0. */
double placer_stats_mann_whitney_min_p(size_t na, size_t nb);
double placer_stats_wilcoxon_min_p(size_t n_pairs);

/* Percentile-bootstrap CI of the median of X (resampled with replacement,
 * splitmix64 from SEED); NAN when X is empty.  -1 only on allocation failure. */
int placer_stats_bootstrap_median_ci(const double *x, size_t n, unsigned resamples, uint64_t seed, double level,
                                     double *low, double *high);

/* Percentile bootstrap of a statistic of several groups of runs resampled
 * together (the repeats of each step of a response curve): each of RESAMPLES
 * resamples draws, for every group g, N[g] indices into it with replacement
 * (splitmix64 from SEED, as the other intervals), and STATISTIC computes one
 * value from those PICKS (picks[g][0..n[g])).  *LOW and *HIGH are the
 * (1-level)/2 and (1+level)/2 percentiles of the values; NAN when a group is
 * empty or a value is NAN.  -1 only on allocation failure (both NAN). */
typedef double (*placer_stats_resampled)(const size_t *const *picks, const size_t *n, size_t groups, void *arg);
int placer_stats_bootstrap_groups_ci(const size_t *n, size_t groups, unsigned resamples, uint64_t seed, double level,
                                     placer_stats_resampled statistic, void *arg, double *low, double *high);

/* Paired "B vs A": pair i is (a_i, b_i), two runs adjacent in time (the same
 * pass of an interleaved study).  The change is the median pair ratio
 * b_i/a_i - 1, its 95% CI the bootstrap of the median of the pair ratios
 * (2000 resamples of pairs, fixed seed), p the Wilcoxon signed-rank test of
 * log(b_i/a_i).  Pairs with a value <= 0 or NAN are skipped. */
struct placer_stats_paired {
  size_t n_pairs;
  double change, ci_low, ci_high, p_value; /* NAN when undefined */
  bool exact;
};
void placer_stats_paired_compare(const double *a, const double *b, size_t n, struct placer_stats_paired *out);

/* Everything the report says about "B vs A" for one cell. */
struct placer_stats_comparison {
  double median_a, median_b;
  double change;          /* median_b / median_a - 1; NAN when undefined */
  double ci_low, ci_high; /* bootstrap 95% CI of change (2000 resamples, fixed seed) */
  double p_value;         /* Mann-Whitney, two-sided */
  bool exact;             /* p_value from the exact distribution */
};
void placer_stats_compare(const double *a, size_t na, const double *b, size_t nb, struct placer_stats_comparison *out);

#endif
