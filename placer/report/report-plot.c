/* What every plot of report.html shares (report-html-internal.h): the
 * samples of a cell, a plot's data and script files, its drawing by gnuplot
 * and its figure on the page. */
#include "report/report-html-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "report/gnuplot.h"
#include "report/report.h"
#include "results/compare.h"
#include "results/metrics.h"
#include "results/stats.h"
#include "size/size.h"

double plot_clat(const struct placer_bench_run *run, const struct placer_bench_workload *w, enum what what) {
  const struct placer_bench_op *io = placer_bench_ops_latency_op(w, run->ops, run->n_ops);
  if (io == NULL)
    return NAN;
  double v = what == P50 ? io->clat_p50_ns : what == P99 ? io->clat_p99_ns : io->clat_p999_ns;
  return v > 0 ? v / 1e6 : NAN;
}

/* The done repeats' values (finite only); returns how many. */
size_t plot_samples(const struct placer_bench_results *r, size_t v, size_t c, size_t w, enum what what, double *out) {
  size_t n = 0;
  for (size_t rep = 0; rep < r->repeats; rep++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, rep);
    if (run == NULL || !run->done)
      continue;
    double x = NAN;
    switch (what) {
    case MAIN:
      x = placer_bench_run_main_metric(run, &r->workloads[w]);
      if (placer_bench_workload_uses_bandwidth(&r->workloads[w]))
        x /= 1e6;
      break;
    case NEIGHBOUR: x = run->neighbour_rate; break;
    default: x = plot_clat(run, &r->workloads[w], what); break;
    }
    if (isfinite(x))
      out[n++] = x;
  }
  return n;
}

double plot_median(const double *x, size_t n) {
  struct placer_stats_summary s;
  placer_stats_summarize(x, n, &s);
  return s.median;
}

const char *plot_metric_unit(const struct placer_bench_workload *w) {
  return placer_bench_metric_unit(w);
}

/* ---- writing files ---- */

void plot_put_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, " %.6g", x);
  else
    fputs(" -", f);
}

/* A data-file label: double-quoted, without quotes inside. */
void plot_dq(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

FILE *page_open_in(struct page *pg, const char *name, char **path) {
  if (asprintf(path, "%s/%s", pg->plots, name) < 0) {
    *path = NULL;
    placer_error_oom(pg->err, "report");
    return NULL;
  }
  FILE *f = fopen(*path, "w");
  if (f == NULL)
    placer_error_errno(pg->err, PLACER_EXIT_SYSTEM, errno, "report: create %s", *path);
  return f;
}

int page_close_file(struct page *pg, FILE *f, const char *path) {
  if (ferror(f) | (fclose(f) != 0))
    return placer_error_errno(pg->err, PLACER_EXIT_SYSTEM, errno ? errno : EIO, "report: write %s", path);
  return 0;
}

/* A plot with nothing to draw (an interrupted study), or one given up: its
 * files go, no figure. */
void plot_discard(struct plot_files *pf) {
  if (pf->dat)
    fclose(pf->dat);
  if (pf->gp)
    fclose(pf->gp);
  if (pf->dat_path)
    unlink(pf->dat_path);
  if (pf->gp_path)
    unlink(pf->gp_path);
  free(pf->dat_path);
  free(pf->gp_path);
  memset(pf, 0, sizeof(*pf));
}

int plot_drop(struct plot_files *pf) {
  plot_discard(pf);
  return 0;
}

int plot_open(struct page *pg, const char *name, struct plot_files *pf) {
  char file[96];
  memset(pf, 0, sizeof(*pf));
  snprintf(file, sizeof(file), "%s.dat", name);
  pf->dat = page_open_in(pg, file, &pf->dat_path);
  snprintf(file, sizeof(file), "%s.gp", name);
  pf->gp = pf->dat ? page_open_in(pg, file, &pf->gp_path) : NULL;
  if (pf->gp)
    return 0;
  plot_discard(pf);
  return -1;
}

/* The common head of every script: SVG, no enhanced text (names hold _).
 * The files are found through `plotdir`: DIR/report by default (`gnuplot
 * DIR/report/NAME.gp` redraws a plot), the temporary directory while placer
 * draws them (gnuplot -e "plotdir='...'"). */
double *plot_open_samples(struct page *pg, const char *name, struct plot_files *pf) {
  if (plot_open(pg, name, pf) < 0)
    return NULL;
  double *x = calloc(plot_max_repeats(pg->r), sizeof(double));
  if (x == NULL) {
    plot_discard(pf);
    placer_error_oom(pg->err, "report");
  }
  return x;
}

void plot_script_head(struct page *pg, FILE *f, const char *name, int width, int height) {
  fputs("if (!exists(\"plotdir\")) plotdir = ", f);
  placer_gnuplot_quote(f, pg->final_plots);
  fprintf(f, "\nset terminal svg size %d,%d dynamic noenhanced font 'sans,11' background rgb 'white'\n", width, height);
  fprintf(f, "set output plotdir.'/%s.svg'\n", name);
  fputs("set datafile missing '-'\nset grid ytics\nset key outside top center horizontal\n", f);
}

void plot_data_ref(struct page *pg, FILE *f, const char *name) {
  (void)pg;
  fprintf(f, "plotdir.'/%s.dat'", name);
}

void plot_clause(struct page *pg, FILE *f, const char *name, bool first, const char *spec) {
  fputs(first ? "" : ", ", f);
  plot_data_ref(pg, f, name);
  fprintf(f, " %s", spec);
}

/* Finish a plot: close its data and script, run gnuplot, link it in the
 * page; a plot whose data has no number is left out (gnuplot fails on it). */
int plot_finish(struct page *pg, const char *name, struct plot_files *pf, const char *caption) {
  int rc = -1;
  if (page_close_file(pg, pf->dat, pf->dat_path) < 0) {
    pf->dat = NULL;
    goto out;
  }
  pf->dat = NULL;
  int closed = page_close_file(pg, pf->gp, pf->gp_path);
  pf->gp = NULL;
  if (closed < 0)
    goto out;
  size_t rows, values;
  placer_gnuplot_data_stats(pf->dat_path, &rows, &values);
  if (values == 0) {
    plot_discard(pf);
    return 0;
  }
  if (placer_gnuplot_draw(pg->plots, name, pf->gp_path, pf->dat_path, pg->err) < 0)
    goto out;
  fprintf(pg->html, "<figure><img src=\"report/%s.svg\" alt=\"%s\"><figcaption>%s</figcaption></figure>\n", name, name,
          caption);
  pg->figures++;
  rc = 0;
out:
  if (pf->gp)
    fclose(pf->gp);
  free(pf->dat_path);
  free(pf->gp_path);
  memset(pf, 0, sizeof(*pf));
  return rc;
}

void page_html_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else if (*s == '"')
      fputs("&quot;", f);
    else
      fputc(*s, f);
  }
}

size_t plot_max_repeats(const struct placer_bench_results *r) {
  return r->repeats ? r->repeats : 1;
}
