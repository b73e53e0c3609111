/* report.html's response curves: per curve and condition the table of the
 * text report (the same cells, report-curves.h), each variant's knee, SLO
 * point and figures per core, the plot of every variant's curve (the main
 * metric against the SLO's percentile, its CI as whiskers, the target as a
 * horizontal line, each SLO point marked), then the balance point read off
 * the curves. */
#include "report/report-html-internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/gnuplot.h"
#include "report/report-curves.h"

/* The percentile a curve's plot draws: the SLO's (p99 first), else p99. */
static enum placer_slo_percentile plotted(const struct placer_slo *slo) {
  static const enum placer_slo_percentile order[] = { PLACER_SLO_P99, PLACER_SLO_P999, PLACER_SLO_P50 };
  for (size_t i = 0; i < 3; i++)
    if (!isnan(slo->storage_ns[order[i]]))
      return order[i];
  return PLACER_SLO_P99;
}

/* The plot of curve NAME in condition COND, every variant's (built) curve
 * in CS; its files are curve-I-COND. */
static int plot_curve(struct page *pg, const struct placer_bench_curve *cs, size_t nv, size_t i, size_t cond) {
  const struct placer_bench_results *r = pg->r;
  enum placer_slo_percentile p = plotted(&r->slo);
  char name[64], label[256];
  snprintf(name, sizeof(name), "curve-%zu-%zu", i, cond);
  struct plot_files pf;
  if (plot_open(pg, name, &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  const char *unit = plot_metric_unit(&r->workloads[cs[0].step_workload[0]]);
  bool any = false, any_point = false;
  for (size_t v = 0; v < nv; v++) {
    fprintf(dat, "# %s: %s, %s ms (median, 95%% CI low, high), load\n", r->variants[v], unit,
            placer_slo_percentile_names[p]);
    for (size_t s = 0; cs[v].built && s < cs[v].curve.n; s++) {
      const struct placer_curve_step *st = &cs[v].curve.steps[s];
      plot_put_num(dat, st->throughput.median);
      plot_put_num(dat, st->latency_ns[p].median / 1e6);
      plot_put_num(dat, st->latency_ns[p].ci_low / 1e6);
      plot_put_num(dat, st->latency_ns[p].ci_high / 1e6);
      fprintf(dat, " %g\n", st->load);
      any |= isfinite(st->throughput.median) && st->latency_ns[p].median > 0;
    }
    if (!cs[v].built)
      fputs("- - - - -\n", dat);
    fputs("\n\n", dat);
  }
  /* the SLO points: one block per variant (its point at the target, where it is met) */
  double target = r->slo.storage_ns[p];
  for (size_t v = 0; v < nv; v++) {
    const struct placer_curve_slo_point *s = &cs[v].slo;
    bool met = cs[v].has_slo && (s->status == PLACER_CURVE_SLO_MET || s->status == PLACER_CURVE_SLO_ALWAYS_MET);
    fprintf(dat, "# SLO point of %s\n", r->variants[v]);
    if (met && isfinite(target)) {
      /* on the drawn line: the plotted percentile where the point lies between its steps */
      double lo = cs[v].curve.steps[s->lower].latency_ns[p].median,
             hi = cs[v].curve.steps[s->upper].latency_ns[p].median;
      plot_put_num(dat, s->throughput);
      plot_put_num(dat, (lo + s->fraction * (hi - lo)) / 1e6);
      fputc('\n', dat);
      any_point = true;
    } else {
      fputs("- -\n", dat);
    }
    fputs("\n\n", dat);
  }
  if (!any)
    return plot_drop(&pf);
  plot_script_head(pg, gp, name, 900, 460);
  snprintf(label, sizeof(label), "%s (%s)", unit, r->workloads[cs[0].step_workload[0]].curve);
  fputs("set xlabel ", gp);
  placer_gnuplot_quote(gp, label);
  snprintf(label, sizeof(label), "%s completion latency (ms, log scale)", placer_slo_percentile_names[p]);
  fputs("\nset ylabel ", gp);
  placer_gnuplot_quote(gp, label);
  fputs("\nset logscale y\nset xrange [0:*]\n", gp);
  if (isfinite(target))
    fprintf(gp, "set arrow from graph 0, first %g to graph 1, first %g nohead lw 2 dt 2 lc rgb 'red'\n", target / 1e6,
            target / 1e6);
  fputs("plot ", gp);
  for (size_t v = 0; v < nv; v++) {
    fputs(v ? ", " : "", gp);
    plot_data_ref(pg, gp, name);
    fprintf(gp, " index %zu using 1:2:3:4 with yerrorlines lw 2 pt 7 lc %zu title ", v, v + 1);
    placer_gnuplot_quote(gp, r->variants[v]);
  }
  for (size_t v = 0; any_point && v < nv; v++) {
    fputs(", ", gp);
    plot_data_ref(pg, gp, name);
    fprintf(gp, " index %zu using 1:2 with points pt 6 ps 3 lw 2 lc %zu notitle", nv + v, v + 1);
  }
  fputc('\n', gp);
  char caption[512], targets[96] = "";
  placer_slo_targets_text(r->slo.storage_ns, targets, sizeof(targets));
  snprintf(caption, sizeof(caption),
           "%s: %s against %s latency as %s rises, one line per variant (medians; whiskers: bootstrap 95%% CI)%s%s%s",
           r->workloads[cs[0].step_workload[0]].curve, unit, placer_slo_percentile_names[p], cs[0].curve.load_name,
           isfinite(target) ? "; dashed: the SLO, " : "", targets,
           any_point ? "; circles: each variant's SLO point" : "");
  return plot_finish(pg, name, &pf, caption);
}

/* One curve in one condition: its table, sentences and plot. */
static int curve_section(struct page *pg, const char *curve, size_t i, size_t cond) {
  const struct placer_bench_results *r = pg->r;
  struct placer_bench_curve cs[PLACER_BENCH_MAX];
  size_t nv = r->n_variants < PLACER_BENCH_MAX ? r->n_variants : PLACER_BENCH_MAX, built = 0;
  int rc = 0;
  for (size_t v = 0; v < nv; v++) {
    cs[v] = (struct placer_bench_curve){ 0 };
    if (rc == 0)
      rc = placer_bench_curve_get(r, curve, v, cond, &cs[v], pg->err);
    built += rc == 0 && cs[v].built;
  }
  FILE *f = pg->html;
  char text[400], cells[REPORT_CURVE_COLUMNS][80];
  if (rc == 0 && built > 0) {
    report_curve_title(r, curve, cond, text, sizeof(text));
    fputs("<h3>", f);
    page_html_text(f, text);
    fprintf(f, "</h3>\n<table class=\"curve\" id=\"curve-%zu-%zu\">\n<tr>", i, cond);
    size_t first = 0;
    while (!cs[first].built)
      first++;
    for (size_t k = 0; k < REPORT_CURVE_COLUMNS; k++) {
      fputs("<th>", f);
      page_html_text(f, k == 1   ? cs[first].curve.load_name
                        : k == 2 ? plot_metric_unit(&r->workloads[cs[first].step_workload[0]])
                                 : report_curve_heads[k]);
      fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t v = 0; v < nv; v++)
      for (size_t s = 0; cs[v].built && s < cs[v].curve.n; s++) {
        report_curve_step_cells(r, &cs[v], s, cells);
        fputs("<tr>", f);
        for (size_t k = 0; k < REPORT_CURVE_COLUMNS; k++) {
          fputs("<td>", f);
          page_html_text(f, cells[k]);
          fputs("</td>", f);
        }
        fputs("</tr>\n", f);
      }
    fputs("</table>\n<ul class=\"curve-notes\">\n", f);
    for (size_t v = 0; v < nv; v++) {
      if (!cs[v].built)
        continue;
      fputs("<li>", f);
      page_html_text(f, r->variants[v]);
      fputs(":<ul>", f);
      report_curve_knee_text(r, &cs[v], text, sizeof(text));
      fputs("<li>", f);
      page_html_text(f, text);
      fputs("</li>", f);
      report_curve_slo_text(&cs[v], text, sizeof(text));
      if (text[0]) {
        fputs("<li class=\"slo\">", f);
        page_html_text(f, text);
        fputs("</li>", f);
      }
      report_curve_per_core_text(r, &cs[v], text, sizeof(text));
      if (text[0]) {
        fputs("<li class=\"per-core\">", f);
        page_html_text(f, text);
        fputs("</li>", f);
      }
      fputs("</ul></li>\n", f);
    }
    fputs("</ul>\n", f);
    rc = plot_curve(pg, cs, nv, i, cond);
  }
  for (size_t v = 0; v < nv; v++)
    placer_bench_curve_clear(&cs[v]);
  return rc;
}

int page_curves(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  const char *names[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_names(r, names, PLACER_BENCH_MAX);
  if (n == 0)
    return 0;
  FILE *f = pg->html;
  fputs("<h2>Response curves</h2>\n<p>", f);
  page_html_text(f, report_curve_definitions);
  fputs("</p>\n", f);
  struct placer_bench_curve_balance b;
  if (placer_bench_curve_balance(r, &b, pg->err) < 0)
    return -1;
  if (b.computed || b.why[0]) {
    char line[512];
    report_curve_balance_text(r, &b, line, sizeof(line));
    fputs("<p id=\"curve-balance\">", f);
    page_html_text(f, line);
    fputs("</p>\n<ul id=\"curve-verdicts\">\n", f);
    for (size_t v = 0; b.computed && v < b.balance.n; v++) {
      report_curve_verdict_text(r, &b, v, line, sizeof(line));
      fputs("<li>", f);
      page_html_text(f, line);
      fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
  }
  placer_bench_curve_balance_clear(&b);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n; i++)
    for (size_t c = 0; rc == 0 && c < r->n_conditions; c++)
      rc = curve_section(pg, names[i], i, c);
  return rc;
}
