/* The smallest p a study's design can reach, against its alpha; see design.h. */
#include "results/design.h"

#include <math.h>
#include <stdio.h>

#include "results/stats.h"

/* The least n (up to the cap) with which MIN_P(n) goes below alpha; 0 when none. */
static unsigned least_repeats(double (*min_p)(size_t), double alpha) {
  for (unsigned n = 1; n <= PLACER_BENCH_DESIGN_MAX_REPEATS; n++)
    if (min_p(n) < alpha)
      return n;
  return 0;
}

static double mann_whitney_balanced(size_t n) {
  return placer_stats_mann_whitney_min_p(n, n);
}

void placer_bench_design_of(unsigned repeats, size_t n_variants, double alpha, struct placer_bench_design *out) {
  *out = (struct placer_bench_design){
    .compares = n_variants > 1,
    .repeats = repeats,
    .alpha = alpha,
    .min_p_paired = placer_stats_wilcoxon_min_p(repeats),
    .min_p_unpaired = placer_stats_mann_whitney_min_p(repeats, repeats),
  };
  out->min_p = fmin(out->min_p_paired, out->min_p_unpaired);
  out->can_conclude = !out->compares || out->min_p < alpha;
  out->repeats_paired = least_repeats(placer_stats_wilcoxon_min_p, alpha);
  out->repeats_unpaired = least_repeats(mann_whitney_balanced, alpha);
}

/* 0.25, 0.10 (two decimals from 0.1 up, as the report prints p), else three
 * significant digits: 0.0312, 0.00216. */
static void fmt_p(double p, char *buf, size_t len) {
  snprintf(buf, len, p >= 0.1 ? "%.2f" : "%.3g", p);
}

static const char *plural(unsigned n) {
  return n == 1 ? "" : "s";
}

void placer_bench_design_refusal(const struct placer_bench_design *d, char *buf, size_t len) {
  char paired[32], unpaired[32], alpha[32];
  fmt_p(d->min_p_paired, paired, sizeof(paired));
  fmt_p(d->min_p_unpaired, unpaired, sizeof(unpaired));
  snprintf(alpha, sizeof(alpha), "%g", d->alpha);
  unsigned need = d->repeats_unpaired && (d->repeats_unpaired < d->repeats_paired || !d->repeats_paired)
                      ? d->repeats_unpaired
                      : d->repeats_paired;
  char fix[96];
  if (need == 0)
    snprintf(fix, sizeof(fix), "no number of repeats up to %d reaches it: raise alpha",
             PLACER_BENCH_DESIGN_MAX_REPEATS);
  else if (d->repeats_paired && d->repeats_paired != need)
    snprintf(fix, sizeof(fix), "use at least %u (%u for the paired test)", need, d->repeats_paired);
  else
    snprintf(fix, sizeof(fix), "use at least %u", need);
  snprintf(buf, len,
           "%u repeat%s: a paired p cannot go below %s and an unpaired one below %s, so no change can be significant "
           "at alpha %s; %s",
           d->repeats, plural(d->repeats), paired, unpaired, alpha, fix);
}

void placer_bench_design_describe(const struct placer_bench_design *d, char *buf, size_t len) {
  char paired[32], unpaired[32];
  fmt_p(d->min_p_paired, paired, sizeof(paired));
  fmt_p(d->min_p_unpaired, unpaired, sizeof(unpaired));
  if (!d->compares) {
    snprintf(buf, len, "%u repeat%s, one variant: no change to judge", d->repeats, plural(d->repeats));
    return;
  }
  snprintf(buf, len,
           "%u repeat%s: the smallest p is %s paired (Wilcoxon, %u pairs) and %s unpaired (Mann-Whitney, %u vs %u); "
           "alpha %g: %s",
           d->repeats, plural(d->repeats), paired, d->repeats, unpaired, d->repeats, d->repeats, d->alpha,
           d->can_conclude ? (d->min_p_paired < d->alpha ? "both tests can find a change significant"
                                                         : "only the unpaired test can find a change significant")
                           : "no change can be significant");
}
