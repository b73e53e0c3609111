/* The text report's lines on the neighbours' shares above 100%: each run's
 * rate next to storage over the solo rate of its own pass, so a median share
 * over 100% is a measured fact; the line says whether its 95% CI holds 100%
 * (within noise) or not (docs/bench.md, "The neighbours' solo rate"). */
#include "report/report-internal.h"

#include <math.h>
#include <stdio.h>

int report_share_lines(const struct placer_bench_results *r, FILE *out) {
  bool any = false;
  for (size_t c = 0; c < r->n_conditions; c++)
    for (size_t w = 0; w < r->n_workloads; w++)
      for (size_t v = 0; v < r->n_variants; v++) {
        struct placer_bench_share k;
        if (placer_bench_neighbour_share(r, v, c, w, 0, &k) < 0)
          return -1;
        if (!(k.median > 1))
          continue;
        if (!any)
          fprintf(out,
                  "\n%s above %s's solo rate (each run against the solo run of its own pass; 95%% CI of the "
                  "median):\n",
                  report_neighbours(r), r->variants[0]);
        any = true;
        char m[32], lo[32], hi[32], cond[128];
        report_fmt_percent(k.median, m, sizeof(m));
        report_fmt_percent(k.ci_low, lo, sizeof(lo));
        report_fmt_percent(k.ci_high, hi, sizeof(hi));
        report_condition_label(r, c, cond, sizeof(cond));
        char ci[96] = "";
        if (k.n >= 2 && !isnan(k.ci_low))
          snprintf(ci, sizeof(ci), " (95%% CI %s-%s)", lo, hi);
        const char *noise = ci[0] == '\0'   ? "one pass: no CI, its noise unknown"
                            : k.ci_low <= 1 ? "100% is within the CI: within noise"
                                            : "above 100% beyond noise: they did more next to storage than alone";
        fprintf(out, "  %s, %s, during %s: %s%s: %s%s\n", r->variants[v], cond, r->workloads[w].name, m, ci, noise,
                k.pooled ? " (against the solo runs of other passes: results written before every pass measured one; "
                           "the CI leaves their noise out)"
                         : "");
      }
  return 0;
}
