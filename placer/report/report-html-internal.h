/* Internal to report.html (report-html.c: the page and its transaction;
 * report-plots.c: each plot; report-plot.c: what every plot shares: the
 * samples of a cell, a plot's two files, its drawing and its figure). */
#ifndef PLACER_REPORT_HTML_INTERNAL_H
#define PLACER_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report-html.h"

/* The page being made: its directory, where its plots are drawn and end up,
 * the results (B: the compared ones, may be NULL), the HTML so far. */
struct page {
  const char *dir;
  char *plots;       /* where the plots are drawn: TMP/report (TMP = DIR/.report-XXXXXX) */
  char *final_plots; /* where they end up: DIR/report, the scripts' default */
  const struct placer_bench_results *r, *b;
  const char *compare_dir;
  FILE *html;
  size_t figures;
  struct placer_error **err;
};

enum what { MAIN, NEIGHBOUR, P50, P99, P999 };

/* A plot's two files in the plots directory: NAME.dat (its data) and
 * NAME.gp (its gnuplot script). */
struct plot_files {
  FILE *dat, *gp;
  char *dat_path, *gp_path;
};

/* report-plot.c: a run's latency percentile in ms (its workload's latency
 * operation); the done repeats' finite values of a cell (returns how many);
 * their median; the main metric's unit; a number or "-" in a data file; a
 * string double-quoted for gnuplot; the repeats a cell may have. */
double plot_clat(const struct placer_bench_run *run, const struct placer_bench_workload *w, enum what what);
size_t plot_samples(const struct placer_bench_results *r, size_t v, size_t c, size_t w, enum what what, double *out);
double plot_median(const double *x, size_t n);
const char *plot_metric_unit(const struct placer_bench_workload *w);
void plot_put_num(FILE *f, double x);
void plot_dq(FILE *f, const char *s);
size_t plot_max_repeats(const struct placer_bench_results *r);
/* A file NAME of the plots directory opened for writing (*PATH its path),
 * and closed, a write that failed the error. */
FILE *page_open_in(struct page *pg, const char *name, char **path);
int page_close_file(struct page *pg, FILE *f, const char *path);
/* A plot's files: opened, dropped (nothing to draw), discarded (given up);
 * its script's head and its data's reference; drawn by gnuplot and its
 * figure added to the page with CAPTION. */
int plot_open(struct page *pg, const char *name, struct plot_files *pf);
/* plot_open, and room for the samples of a cell (plot_samples, freed by the
 * caller); NULL with PG->err, the files discarded. */
double *plot_open_samples(struct page *pg, const char *name, struct plot_files *pf);
int plot_drop(struct plot_files *pf);
void plot_discard(struct plot_files *pf);
void plot_script_head(struct page *pg, FILE *f, const char *name, int width, int height);
void plot_data_ref(struct page *pg, FILE *f, const char *name);
/* One clause of a plot command: ", " before all but the FIRST, NAME's data, then SPEC. */
void plot_clause(struct page *pg, FILE *f, const char *name, bool first, const char *spec);
int plot_finish(struct page *pg, const char *name, struct plot_files *pf, const char *caption);
/* S as HTML text (<, >, & and " escaped). */
void page_html_text(FILE *f, const char *s);

/* report-plots.c: each plot of the page, when there is something to draw
 * (0 also when there is not), -1 with PG->err. */
int plot_interference(struct page *pg, bool neighbours);
int plot_sweep(struct page *pg);
int plot_split(struct page *pg);
int plot_cpu(struct page *pg);
int plot_latency(struct page *pg);
int plot_recovery(struct page *pg);
int plot_compare(struct page *pg);
/* report-html-curves.c: the response curves' section, its tables, sentences
 * and plots (curve-I-C.svg), and the balance point read off the curves. */
int page_curves(struct page *pg);

#endif
