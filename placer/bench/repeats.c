/* Dynamic repeats: after each pass from `repeats.min` on, is every change
 * against the baseline known closely enough (the main metric's 95% CI of
 * every cell narrower than ci_width), or has the cap been reached?  The
 * decision is pure (placer_bench_repeats_decide, results.h); bench records
 * its reason in the results' stop_reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/internal.h"

bool placer_bench_repeats_decide(const struct placer_bench_results *r, size_t done, unsigned max, double ci_width,
                                 char *reason, size_t len) {
  double widest = 0;
  const char *wv = NULL, *wc = NULL, *ww = NULL;
  bool undefined = false;
  for (size_t v = 1; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t w = 0; w < r->n_workloads; w++) {
        struct placer_stats_comparison cmp;
        struct placer_stats_paired pair;
        placer_bench_compare(r, v, c, w, &cmp, NULL);
        placer_bench_compare_paired(r, v, c, w, &pair, NULL);
        /* The narrower of the two analyses decides (both are honest CIs). */
        double width = cmp.ci_high - cmp.ci_low, pw = pair.ci_high - pair.ci_low;
        if (!isnan(pw) && (isnan(width) || pw < width))
          width = pw;
        if (isnan(width)) {
          undefined = true;
          width = INFINITY;
        }
        if (width > widest || wv == NULL) {
          widest = width;
          wv = r->variants[v];
          wc = r->conditions[c].name;
          ww = r->workloads[w].name;
        }
      }
  if (wv == NULL) {
    snprintf(reason, len, "no comparison to narrow (one variant): %zu repeats, the minimum", done);
    return true;
  }
  if (!undefined && widest <= ci_width) {
    snprintf(reason, len,
             "every change's 95%% CI is narrower than %.1f points after %zu repeats (widest %.1f: %s, %s, %s)",
             100 * ci_width, done, 100 * widest, wv, wc, ww);
    return true;
  }
  if (done >= max) {
    if (isinf(widest))
      snprintf(reason, len, "the cap of %u repeats; %s, %s, %s has no CI", max, wv, wc, ww);
    else
      snprintf(reason, len, "the cap of %u repeats; the widest 95%% CI is still %.1f points (%s, %s, %s)", max,
               100 * widest, wv, wc, ww);
    return true;
  }
  return false;
}

bool bench_repeats_enough(struct bench *b, size_t done) {
  const struct placer_study *s = b->study;
  struct placer_bench_results *r = b->results;
  if (r == NULL || s->repeats_max <= s->repeats)
    return done >= s->repeats;
  char reason[512];
  if (!placer_bench_repeats_decide(r, done, s->repeats_max, s->ci_width, reason, sizeof(reason)))
    return false;
  free(r->stop_reason);
  r->stop_reason = strdup(reason);
  r->repeats_run = done;
  return true;
}
