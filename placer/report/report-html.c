/* report.html: the mailing-list table and gnuplot's SVG plots of a results
 * directory -- interference with CI whiskers, the sweep curves with the
 * balance point, CPU per role, latency percentiles, client IOPS through a
 * recovery, and with a second directory the change of every cell.  Data and scripts stay beside the SVGs
 * in DIR/report/, so a plot can be redrawn or restyled by hand. */
#include "report/report-html.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "results/compare.h"
#include "results/design.h"
#include "results/metrics.h"
#include "report/gnuplot.h"
#include "report/report.h"
#include "size/size.h"
#include "results/stats.h"
#include "lib/fsfile.h"
#include "lib/stop.h"
#include "lib/textfile.h"

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

/* ---- samples of a cell ---- */

enum what { MAIN, NEIGHBOUR, P50, P99, P999 };

static double clat(const struct placer_bench_run *run, const struct placer_bench_workload *w, enum what what) {
  const struct placer_bench_op *io = placer_bench_ops_latency_op(w, run->ops, run->n_ops);
  if (io == NULL)
    return NAN;
  double v = what == P50 ? io->clat_p50_ns : what == P99 ? io->clat_p99_ns : io->clat_p999_ns;
  return v > 0 ? v / 1e6 : NAN;
}

/* The done repeats' values (finite only); returns how many. */
static size_t samples(const struct placer_bench_results *r, size_t v, size_t c, size_t w, enum what what, double *out) {
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
    default: x = clat(run, &r->workloads[w], what); break;
    }
    if (isfinite(x))
      out[n++] = x;
  }
  return n;
}

static double median_of(const double *x, size_t n) {
  struct placer_stats_summary s;
  placer_stats_summarize(x, n, &s);
  return s.median;
}

static const char *metric_unit(const struct placer_bench_workload *w) {
  return placer_bench_workload_uses_bandwidth(w) ? "MB/s" : "IOPS";
}

/* ---- writing files ---- */

static void put_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, " %.6g", x);
  else
    fputs(" -", f);
}

/* A data-file label: double-quoted, without quotes inside. */
static void dq(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

static FILE *open_in(struct page *pg, const char *name, char **path) {
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

static int close_file(struct page *pg, FILE *f, const char *path) {
  if (ferror(f) | (fclose(f) != 0))
    return placer_error_errno(pg->err, PLACER_EXIT_SYSTEM, errno ? errno : EIO, "report: write %s", path);
  return 0;
}

/* A plot's two files in the plots directory: NAME.dat (its data) and
 * NAME.gp (its gnuplot script). */
struct plot_files {
  FILE *dat, *gp;
  char *dat_path, *gp_path;
};

/* A plot with nothing to draw (an interrupted study), or one given up: its
 * files go, no figure. */
static void plot_discard(struct plot_files *pf) {
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

static int plot_drop(struct plot_files *pf) {
  plot_discard(pf);
  return 0;
}

static int plot_open(struct page *pg, const char *name, struct plot_files *pf) {
  char file[96];
  memset(pf, 0, sizeof(*pf));
  snprintf(file, sizeof(file), "%s.dat", name);
  pf->dat = open_in(pg, file, &pf->dat_path);
  snprintf(file, sizeof(file), "%s.gp", name);
  pf->gp = pf->dat ? open_in(pg, file, &pf->gp_path) : NULL;
  if (pf->gp)
    return 0;
  plot_discard(pf);
  return -1;
}

/* The common head of every script: SVG, no enhanced text (names hold _).
 * The files are found through `plotdir`: DIR/report by default (`gnuplot
 * DIR/report/NAME.gp` redraws a plot), the temporary directory while placer
 * draws them (gnuplot -e "plotdir='...'"). */
static void script_head(struct page *pg, FILE *f, const char *name, int width, int height) {
  fputs("if (!exists(\"plotdir\")) plotdir = ", f);
  placer_gnuplot_quote(f, pg->final_plots);
  fprintf(f, "\nset terminal svg size %d,%d dynamic noenhanced font 'sans,11' background rgb 'white'\n", width, height);
  fprintf(f, "set output plotdir.'/%s.svg'\n", name);
  fputs("set datafile missing '-'\nset grid ytics\nset key outside top center horizontal\n", f);
}

static void data_ref(struct page *pg, FILE *f, const char *name) {
  (void)pg;
  fprintf(f, "plotdir.'/%s.dat'", name);
}

/* Finish a plot: close its data and script, run gnuplot, link it in the
 * page; a plot whose data has no number is left out (gnuplot fails on it). */
static int finish_plot(struct page *pg, const char *name, struct plot_files *pf, const char *caption) {
  int rc = -1;
  if (close_file(pg, pf->dat, pf->dat_path) < 0) {
    pf->dat = NULL;
    goto out;
  }
  pf->dat = NULL;
  int closed = close_file(pg, pf->gp, pf->gp_path);
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

static void html_text(FILE *f, const char *s) {
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

/* ---- the plots ---- */

static size_t max_repeats(const struct placer_bench_results *r) {
  return r->repeats ? r->repeats : 1;
}

/* Storage kept with neighbours (% of alone) and neighbours kept with storage
 * (% of solo), per variant, with the bootstrap 95% CI as whiskers. */
static int plot_interference(struct page *pg, bool neighbours) {
  const struct placer_bench_results *r = pg->r;
  int alone = placer_bench_alone_condition(r);
  if (alone < 0 || r->n_conditions < 2)
    return 0;
  const char *name = neighbours ? "interference-neighbours" : "interference-storage";
  struct plot_files pf;
  if (plot_open(pg, name, &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  size_t cap = max_repeats(r);
  double *a = calloc(cap, sizeof(double)), *b = calloc(cap, sizeof(double));
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    plot_discard(&pf);
    return placer_error_oom(pg->err, "report");
  }
  fputs("# label, then per variant: kept% low% high%\n", dat);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++) {
      if ((int)c == alone)
        continue;
      char label[256];
      snprintf(label, sizeof(label), "%s %s", r->workloads[w].name, r->conditions[c].name);
      dq(dat, label);
      for (size_t v = 0; v < r->n_variants; v++) {
        size_t na = 0, nb;
        if (neighbours) {
          for (size_t rep = 0; rep < r->repeats; rep++) {
            double s = placer_bench_results_solo(r, v, c, rep);
            if (isfinite(s))
              a[na++] = s;
          }
          nb = samples(r, v, c, w, NEIGHBOUR, b);
        } else {
          na = samples(r, v, (size_t)alone, w, MAIN, a);
          nb = samples(r, v, c, w, MAIN, b);
        }
        struct placer_stats_comparison cmp;
        placer_stats_compare(a, na, b, nb, &cmp);
        put_num(dat, 100 * (1 + cmp.change));
        put_num(dat, 100 * (1 + cmp.ci_low));
        put_num(dat, 100 * (1 + cmp.ci_high));
      }
      fputc('\n', dat);
    }
  free(a);
  free(b);
  script_head(pg, gp, name, 900, 420);
  fputs("set style data histogram\nset style histogram errorbars gap 2 lw 1\n"
        "set style fill solid 0.6 border -1\nset yrange [0:*]\nset xtics rotate by -15\n",
        gp);
  if (neighbours) {
    fputs("set ylabel ", gp);
    char label[256];
    snprintf(label, sizeof(label), "%s with storage (%% of solo on the same CPUs)", r->neighbour_name);
    placer_gnuplot_quote(gp, label);
  } else {
    fputs("set ylabel 'storage with neighbours (% of the same variant alone)'", gp);
  }
  fputs("\nplot ", gp);
  for (size_t v = 0; v < r->n_variants; v++) {
    fputs(v ? ", '' " : "", gp);
    if (v == 0)
      data_ref(pg, gp, name);
    fprintf(gp, " using %zu:%zu:%zu%s title ", 2 + 3 * v, 3 + 3 * v, 4 + 3 * v, v == 0 ? ":xtic(1)" : "");
    placer_gnuplot_quote(gp, r->variants[v]);
  }
  fputs(", 100 with lines dt 2 lc rgb 'black' notitle\n", gp);
  return finish_plot(pg, name, &pf,
                     neighbours ? "Interference on the neighbours: their rate with storage running, as % of their "
                                  "solo rate on the same variant's CPUs (median; whiskers: bootstrap 95% CI); what "
                                  "they keep of the first variant's solo rate is in the text report (Verdict, "
                                  "Efficiency)"
                                : "Interference on storage: its main metric with neighbours, as % of the same "
                                  "variant alone (median; whiskers: bootstrap 95% CI)");
}

/* Storage's main metric and the neighbours' rate against the neighbour
 * level, one line per variant, the balance point marked. */
static int plot_sweep(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  if (r->n_conditions < 2)
    return 0;
  size_t w = r->sweep ? r->sweep_workload : 0;
  struct plot_files pf;
  if (plot_open(pg, "sweep", &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  double *x = calloc(max_repeats(r), sizeof(double));
  if (x == NULL) {
    plot_discard(&pf);
    return placer_error_oom(pg->err, "report");
  }
  /* levels ascending (conditions are in study order; sort indexes) */
  size_t order[PLACER_BENCH_MAX];
  size_t n = r->n_conditions < PLACER_BENCH_MAX ? r->n_conditions : PLACER_BENCH_MAX;
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    for (; j > 0 && r->conditions[order[j - 1]].neighbour_level > r->conditions[i].neighbour_level; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  bool any_balance = false, any_storage = false, any_neighbour = false;
  for (size_t v = 0; v < r->n_variants; v++) {
    fprintf(dat, "# variant %s: level, storage median, neighbour rate median\n", r->variants[v]);
    for (size_t i = 0; i < n; i++) {
      size_t c = order[i];
      fprintf(dat, "%.6g", r->conditions[c].neighbour_level);
      size_t k = samples(r, v, c, w, MAIN, x);
      put_num(dat, k ? median_of(x, k) : NAN);
      any_storage |= k > 0;
      k = samples(r, v, c, w, NEIGHBOUR, x);
      put_num(dat, k ? median_of(x, k) : NAN);
      any_neighbour |= k > 0;
      fputc('\n', dat);
    }
    fputs("\n\n", dat);
  }
  /* the balance points: one block per variant, empty when not found */
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_balance bal;
    placer_bench_sweep_balance(r, v, &bal);
    fprintf(dat, "# balance %s\n", r->variants[v]);
    if (bal.found) {
      size_t k = samples(r, v, bal.index, w, MAIN, x);
      fprintf(dat, "%.6g", r->conditions[bal.index].neighbour_level);
      put_num(dat, k ? median_of(x, k) : NAN);
      fputc('\n', dat);
      any_balance = true;
    } else {
      fputs("- -\n", dat);
    }
    fputs("\n\n", dat);
  }
  free(x);
  if (!any_storage)
    return plot_drop(&pf); /* gnuplot cannot autoscale an axis without a point */
  script_head(pg, gp, "sweep", 900, 460);
  fputs("set xlabel ", gp);
  placer_gnuplot_quote(gp, r->level_unit ? r->level_unit : "neighbour level");
  fputs("\nset ylabel ", gp);
  char label[256];
  snprintf(label, sizeof(label), "storage %s (%s)", metric_unit(&r->workloads[w]), r->workloads[w].name);
  placer_gnuplot_quote(gp, label);
  fputs("\nset y2label ", gp);
  snprintf(label, sizeof(label), "%s (%s)", r->neighbour_name, r->neighbour_unit);
  placer_gnuplot_quote(gp, label);
  fputs("\nset ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\nset offsets 0.1,0.1,0,0\nplot ", gp);
  for (size_t v = 0; v < r->n_variants; v++) {
    fputs(v ? ", " : "", gp);
    data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:2 with linespoints lw 2 pt 7 lc %zu title ", v, v + 1);
    snprintf(label, sizeof(label), "%s storage", r->variants[v]);
    placer_gnuplot_quote(gp, label);
    if (!any_neighbour)
      continue;
    fputs(", ", gp);
    data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:3 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc %zu title ", v, v + 1);
    snprintf(label, sizeof(label), "%s neighbours", r->variants[v]);
    placer_gnuplot_quote(gp, label);
  }
  for (size_t v = 0; any_balance && v < r->n_variants; v++) {
    fputs(", ", gp);
    data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:2 with points pt 6 ps 3 lw 2 lc %zu title ", r->n_variants + v, v + 1);
    snprintf(label, sizeof(label), "%s balance point", r->variants[v]);
    placer_gnuplot_quote(gp, label);
  }
  fputc('\n', gp);
  snprintf(label, sizeof(label),
           "%s: storage %s (solid, left axis) and the neighbours' rate (dashed, right axis) against the neighbour "
           "level; circles: the balance point%s",
           r->workloads[w].name, metric_unit(&r->workloads[w]),
           any_balance ? "" : " (none found: no step keeps both fractions, or no sweep)");
  return finish_plot(pg, "sweep", &pf, label);
}

/* A placement sweep (quota, cores, weight): storage's main metric alone and
 * with the neighbours, and the neighbours' rate, against the knob; the
 * unconstrained base at the node's CPUs; the balance point marked. */
static int plot_split(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  if (r->split_parameter == NULL || !r->split_parameter[0])
    return 0;
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n == 0)
    return 0;
  struct placer_bench_split_balance bal;
  placer_bench_split_balance(r, steps, n, &bal);
  struct plot_files pf;
  if (plot_open(pg, "split", &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  double scale = placer_bench_workload_uses_bandwidth(w) ? 1e-6 : 1;
  double base_x = r->node_cpus > 0 ? r->node_cpus : NAN;
  fprintf(dat, "# %s, storage alone, storage with neighbours, neighbour rate (variant)\n", r->split_parameter);
  bool any_storage = false, any_neighbour = false;
  for (size_t i = 0; i < n; i++) {
    double x = isfinite(steps[i].knob) ? steps[i].knob : base_x;
    if (!isfinite(x))
      continue;
    any_storage |= isfinite(steps[i].alone) || isfinite(steps[i].with_neighbours);
    any_neighbour |= isfinite(steps[i].neighbour_rate);
    fprintf(dat, "%.6g", x);
    put_num(dat, steps[i].alone * scale);
    put_num(dat, steps[i].with_neighbours * scale);
    put_num(dat, steps[i].neighbour_rate);
    fprintf(dat, " # %s\n", r->variants[steps[i].variant]);
  }
  fputs("\n\n# balance point\n", dat);
  if (bal.found) {
    double x = isfinite(steps[bal.step].knob) ? steps[bal.step].knob : base_x;
    fprintf(dat, "%.6g", x);
    put_num(dat, steps[bal.step].alone * scale);
    fputc('\n', dat);
  } else {
    fputs("- -\n", dat);
  }
  if (!any_storage)
    return plot_drop(&pf); /* gnuplot cannot autoscale an axis without a point */
  script_head(pg, gp, "split", 900, 460);
  char label[256];
  bool in_cores = strcmp(r->split_parameter, "quota") == 0 || strcmp(r->split_parameter, "cores") == 0;
  snprintf(label, sizeof(label), "storage %s (%sthe unconstrained base at the node's CPUs)", r->split_parameter,
           in_cores ? "cores; " : "");
  fputs("set xlabel ", gp);
  placer_gnuplot_quote(gp, label);
  snprintf(label, sizeof(label), "storage %s (%s)", metric_unit(w), w->name);
  fputs("\nset ylabel ", gp);
  placer_gnuplot_quote(gp, label);
  snprintf(label, sizeof(label), "%s (%s)", r->neighbour_name, r->neighbour_unit);
  fputs("\nset y2label ", gp);
  placer_gnuplot_quote(gp, label);
  fputs("\nset ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\nset offsets 0.1,0.1,0,0\nplot ", gp);
  data_ref(pg, gp, "split");
  fputs(" index 0 using 1:2 with linespoints lw 2 pt 7 title 'storage alone', ", gp);
  data_ref(pg, gp, "split");
  fputs(" index 0 using 1:3 with linespoints lw 2 pt 5 title 'storage with neighbours'", gp);
  if (any_neighbour) {
    fputs(", ", gp);
    data_ref(pg, gp, "split");
    fputs(" index 0 using 1:4 axes x1y2 with linespoints dt 2 pt 4 title 'neighbours'", gp);
  }
  if (bal.found) {
    fputs(", ", gp);
    data_ref(pg, gp, "split");
    fputs(" index 1 using 1:2 with points pt 6 ps 3 lw 2 lc rgb 'black' title 'balance point'", gp);
  }
  fputc('\n', gp);
  snprintf(label, sizeof(label),
           "%s sweep of the storage roles: %s %s alone and with the neighbours (left axis), the neighbours' rate "
           "(dashed, right axis)%s",
           r->split_parameter, w->name, metric_unit(w),
           bal.found ? "; circle: the balance point, the least CPU for storage that keeps its minimum fraction"
                     : "; no step keeps storage's minimum fraction (no balance point)");
  return finish_plot(pg, "split", &pf, label);
}

/* CPU per role in cores, stacked, per variant and condition. */
static int plot_cpu(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  size_t w = r->sweep ? r->sweep_workload : 0;
  const char *roles[32];
  size_t n_roles = 0;
  size_t total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  for (size_t i = 0; i < total; i++)
    for (size_t j = 0; r->runs[i].done && j < r->runs[i].n_roles; j++) {
      bool seen = false;
      for (size_t k = 0; k < n_roles; k++)
        seen |= strcmp(roles[k], r->runs[i].roles[j].role) == 0;
      if (!seen && n_roles < 32)
        roles[n_roles++] = r->runs[i].roles[j].role;
    }
  if (n_roles == 0)
    return 0;
  struct plot_files pf;
  if (plot_open(pg, "cpu", &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  double *x = calloc(max_repeats(r), sizeof(double));
  if (x == NULL) {
    plot_discard(&pf);
    return placer_error_oom(pg->err, "report");
  }
  fputs("# variant/condition, then cores per role:", dat);
  for (size_t k = 0; k < n_roles; k++)
    fprintf(dat, " %s", roles[k]);
  fputc('\n', dat);
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++) {
      char label[256];
      snprintf(label, sizeof(label), "%s %s", r->variants[v], r->conditions[c].name);
      dq(dat, label);
      for (size_t k = 0; k < n_roles; k++) {
        size_t m = 0;
        for (size_t rep = 0; rep < r->repeats; rep++) {
          const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, rep);
          double cores = run ? placer_bench_run_role_cores(run, roles[k]) : NAN;
          if (isfinite(cores))
            x[m++] = cores;
        }
        put_num(dat, m ? median_of(x, m) : 0);
      }
      fputc('\n', dat);
    }
  free(x);
  script_head(pg, gp, "cpu", 900, 420);
  fputs("set style data histogram\nset style histogram rowstacked\nset style fill solid 0.7 border -1\n"
        "set boxwidth 0.6\nset yrange [0:*]\nset xtics rotate by -15\nset ylabel ",
        gp);
  char label[256];
  snprintf(label, sizeof(label), "CPU (cores) during %s", r->workloads[w].name);
  placer_gnuplot_quote(gp, label);
  fputs("\nplot ", gp);
  for (size_t k = 0; k < n_roles; k++) {
    fputs(k ? ", '' " : "", gp);
    if (k == 0)
      data_ref(pg, gp, "cpu");
    fprintf(gp, " using %zu%s title ", 2 + k, k == 0 ? ":xtic(1)" : "");
    placer_gnuplot_quote(gp, roles[k]);
  }
  fputc('\n', gp);
  snprintf(label, sizeof(label), "CPU used per role (cores, median over repeats) during %s, per variant and condition",
           r->workloads[w].name);
  return finish_plot(pg, "cpu", &pf, label);
}

/* Completion latency p50 / p99 / p99.9 of every workload alone, per variant. */
static int plot_latency(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  int alone = placer_bench_alone_condition(r);
  size_t c = alone >= 0 ? (size_t)alone : 0;
  struct plot_files pf;
  if (plot_open(pg, "latency", &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  double *x = calloc(max_repeats(r), sizeof(double));
  if (x == NULL) {
    plot_discard(&pf);
    return placer_error_oom(pg->err, "report");
  }
  fputs("# variant workload, p50 p99 p99.9 (ms, median over repeats)\n", dat);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t v = 0; v < r->n_variants; v++) {
      char label[256];
      snprintf(label, sizeof(label), "%s %s", r->variants[v], r->workloads[w].name);
      dq(dat, label);
      static const enum what ps[] = { P50, P99, P999 };
      for (size_t k = 0; k < 3; k++) {
        size_t m = samples(r, v, c, w, ps[k], x);
        put_num(dat, m ? median_of(x, m) : NAN);
      }
      fputc('\n', dat);
    }
  free(x);
  script_head(pg, gp, "latency", 900, 420);
  fputs("set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.7 border -1\n"
        "set logscale y\nset xtics rotate by -15\nset ylabel 'completion latency (ms, log scale)'\nplot ",
        gp);
  data_ref(pg, gp, "latency");
  fputs(" using 2:xtic(1) title 'p50', '' using 3 title 'p99', '' using 4 title 'p99.9'\n", gp);
  char label[256];
  snprintf(label, sizeof(label), "fio completion latency percentiles, %s (median over repeats)", r->conditions[c].name);
  return finish_plot(pg, "latency", &pf, label);
}

/* A recovery run's client IOPS, second by second, from fio's status stream,
 * against the seconds since the fault: one line per variant (its first
 * recorded run).  The fault's time is the watcher's UNCLEAN less the
 * detection time; nothing is drawn when no run has its files. */
static int plot_recovery(struct page *pg) {
  const struct placer_bench_recovery *rec = pg->r->recovery;
  if (rec == NULL)
    return 0;
  struct plot_files pf;
  bool opened = false, any = false;
  for (size_t v = 0; v < rec->n_variants; v++) {
    const struct placer_bench_recovery_run *run = NULL;
    for (size_t k = 0; k < rec->repeats && run == NULL; k++) {
      const struct placer_bench_recovery_run *x = placer_bench_recovery_run_const(rec, v, k);
      if (x->done && x->fio_json && x->watch_log && !isnan(x->detect_s))
        run = x;
    }
    char *fio_path = NULL, *watch_path = NULL, *fio_text = NULL, *watch_text = NULL;
    size_t fio_len = 0, watch_len = 0, n = 0;
    struct placer_bench_io_point *p = NULL;
    struct placer_error *e = NULL;
    bool ok =
        run && asprintf(&fio_path, "%s/%s", pg->dir, run->fio_json) >= 0 &&
        asprintf(&watch_path, "%s/%s", pg->dir, run->watch_log) >= 0 &&
        placer_textfile_read_input("fio", fio_path, PLACER_TEXTFILE_MAX_BYTES, &fio_text, &fio_len, &e) == 0 &&
        placer_textfile_read_input("log", watch_path, PLACER_TEXTFILE_MAX_BYTES, &watch_text, &watch_len, &e) == 0 &&
        placer_bench_fio_status_points(fio_text, fio_len, &p, &n, &e) == 0 && n >= 2;
    placer_error_free(e);
    double unclean = NAN, clean, degraded;
    if (ok)
      placer_bench_parse_watch(watch_text, &unclean, &clean, &degraded);
    if (ok && !isnan(unclean) && !opened) {
      if (plot_open(pg, "recovery", &pf) < 0)
        ok = false;
      else {
        opened = true;
        fputs("# per variant (one block each): seconds since the fault, client IOPS over the second before\n", pf.dat);
      }
    }
    if (ok && !isnan(unclean)) {
      double fault = unclean - run->detect_s;
      fprintf(pf.dat, "# %s\n", pg->r->variants[v]);
      for (size_t i = 1; i < n; i++) {
        double dt = (p[i].t_ms - p[i - 1].t_ms) / 1000.0;
        if (dt > 0)
          fprintf(pf.dat, "%.3f %.1f\n", p[i].t_ms / 1000.0 - fault, (p[i].ios - p[i - 1].ios) / dt);
      }
      fputs("\n\n", pf.dat);
      any = true;
    }
    free(p);
    free(fio_path);
    free(watch_path);
    free(fio_text);
    free(watch_text);
  }
  if (!opened)
    return 0;
  if (!any) {
    plot_discard(&pf);
    return 0;
  }
  FILE *gp = pf.gp;
  script_head(pg, gp, "recovery", 900, 420);
  fputs("set xlabel 'seconds since the fault'\nset ylabel 'client IOPS (each second)'\nset yrange [0:*]\n"
        "set arrow from 0, graph 0 to 0, graph 1 nohead dashtype 2\n",
        gp);
  fprintf(gp, "set arrow from %g, graph 0 to %g, graph 1 nohead dashtype 3\nplot ", rec->down_s, rec->down_s);
  size_t block = 0;
  for (size_t v = 0; v < rec->n_variants; v++) {
    bool has = false;
    for (size_t k = 0; k < rec->repeats && !has; k++) {
      const struct placer_bench_recovery_run *x = placer_bench_recovery_run_const(rec, v, k);
      has = x->done && x->fio_json && x->watch_log && !isnan(x->detect_s);
    }
    if (!has)
      continue;
    if (block)
      fputs(", ", gp);
    data_ref(pg, gp, "recovery");
    fprintf(gp, " index %zu using 1:2 with lines title ", block++);
    placer_gnuplot_quote(gp, pg->r->variants[v]);
  }
  fputc('\n', gp);
  char caption[256];
  snprintf(caption, sizeof(caption),
           "Client IOPS while %s was %s at 0 and back at %g s (dashed lines), until active+clean (each variant's "
           "first recovery run)",
           rec->daemon, strcmp(rec->action, "kill") == 0 ? "killed" : "out", rec->down_s);
  return finish_plot(pg, "recovery", &pf, caption);
}

/* B (compare_dir) against A (dir): the change of every cell both hold. */
static int plot_compare(struct page *pg) {
  const struct placer_bench_results *a = pg->r, *b = pg->b;
  if (placer_bench_compare_same_cells(a, b, pg->err) < 0)
    return placer_error_prefix(pg->err, "report --compare");
  struct plot_files pf;
  if (plot_open(pg, "compare", &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  size_t cap = (a->repeats > b->repeats ? a->repeats : b->repeats) + 1;
  double *xa = calloc(cap, sizeof(double)), *xb = calloc(cap, sizeof(double));
  if (xa == NULL || xb == NULL) {
    plot_discard(&pf);
    free(xa);
    free(xb);
    return placer_error_oom(pg->err, "report");
  }
  fputs("<h2>Compared with ", pg->html);
  html_text(pg->html, pg->compare_dir);
  fputs("</h2>\n<table>\n<tr><th>variant</th><th>condition</th><th>workload</th><th>A median</th><th>B median</th>"
        "<th>change</th><th>95% CI</th><th>p</th></tr>\n",
        pg->html);
  fputs("# cell, change% low% high%\n", dat);
  size_t cells = 0;
  for (size_t v = 0; v < a->n_variants; v++) {
    int vb = placer_bench_results_variant_index(b, a->variants[v]);
    for (size_t c = 0; vb >= 0 && c < a->n_conditions; c++) {
      int cb = placer_bench_results_condition_index(b, a->conditions[c].name);
      for (size_t w = 0; cb >= 0 && w < a->n_workloads; w++) {
        int wb = placer_bench_results_workload_index(b, a->workloads[w].name);
        if (wb < 0)
          continue;
        size_t na = samples(a, v, c, w, MAIN, xa), nb = samples(b, (size_t)vb, (size_t)cb, (size_t)wb, MAIN, xb);
        if (na == 0 || nb == 0)
          continue;
        struct placer_stats_comparison cmp;
        placer_stats_compare(xa, na, xb, nb, &cmp);
        char label[256];
        snprintf(label, sizeof(label), "%s %s %s", a->variants[v], a->conditions[c].name, a->workloads[w].name);
        dq(dat, label);
        put_num(dat, 100 * cmp.change);
        put_num(dat, 100 * cmp.ci_low);
        put_num(dat, 100 * cmp.ci_high);
        fputc('\n', dat);
        fputs("<tr><td>", pg->html);
        html_text(pg->html, a->variants[v]);
        fputs("</td><td>", pg->html);
        html_text(pg->html, a->conditions[c].name);
        fputs("</td><td>", pg->html);
        html_text(pg->html, a->workloads[w].name);
        fprintf(pg->html,
                "</td><td>%.0f %s</td><td>%.0f %s</td><td>%+.1f%%</td><td>[%+.1f%%, %+.1f%%]</td><td>%.3g</td></tr>\n",
                cmp.median_a, metric_unit(&a->workloads[w]), cmp.median_b, metric_unit(&a->workloads[w]),
                100 * cmp.change, 100 * cmp.ci_low, 100 * cmp.ci_high, cmp.p_value);
        cells++;
      }
    }
  }
  fputs("</table>\n", pg->html);
  free(xa);
  free(xb);
  if (cells == 0) { /* as placer compare says it: nothing was compared */
    plot_discard(&pf);
    return placer_error_set(pg->err, PLACER_EXIT_USAGE, 0,
                            "report --compare: no cell (variant, condition, workload) has runs in both results");
  }
  script_head(pg, gp, "compare", 900, 460);
  fputs("set style data histogram\nset style histogram errorbars gap 2 lw 1\nset style fill solid 0.6 border -1\n"
        "set xtics rotate by -20\nset ylabel 'change of B vs A (%)'\nplot ",
        gp);
  data_ref(pg, gp, "compare");
  fputs(" using 2:3:4:xtic(1) title 'B vs A, median (95% CI)', 0 with lines lc rgb 'black' notitle\n", gp);
  return finish_plot(pg, "compare", &pf,
                     "Change of each cell's main metric, B vs A (median; whiskers: bootstrap 95% CI)");
}

/* ---- the answer first ---- */

/* "p=0.002" -> "0.002", "p<0.001" -> "<0.001" */
static const char *p_cell(const char *formatted) {
  return strncmp(formatted, "p=", 2) == 0 ? formatted + 2 : formatted[0] == 'p' ? formatted + 1 : formatted;
}

/* The verdict table: every change against A by its decisive test, the
 * verdict in a word and a colour (summary.json's summary.verdicts, which
 * report_browser.sh compares with the page's DOM). */
static int write_verdicts(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  FILE *f = pg->html;
  struct placer_bench_design d;
  placer_bench_design_of((unsigned)placer_bench_planned_repeats(r), r->n_variants, r->alpha, &d);
  if (!d.can_conclude) {
    char why[512];
    placer_bench_design_refusal(&d, why, sizeof(why));
    fputs("<p class=\"design\"><strong>Design</strong>: ", f);
    html_text(f, why);
    fputs(": every verdict is inconclusive by design.</p>\n", f);
  }
  if (r->n_variants < 2)
    return 0;
  struct placer_bench_verdict *all = NULL;
  size_t n = placer_bench_verdicts(r, &all);
  if (n == (size_t)-1)
    return placer_error_oom(pg->err, "report");
  fputs("<h2>Verdict</h2>\n<p>Each change against ", f);
  html_text(f, r->variants[0]);
  fprintf(f,
          " by its decisive test, the smaller p of the paired (Wilcoxon signed-rank) and the unpaired "
          "(Mann-Whitney) test, with that test's change and bootstrap 95%% CI; significant when p &lt; %g.</p>\n",
          r->alpha);
  fputs("<table id=\"verdict\">\n<tr><th>cell</th><th>condition</th><th>workload</th><th>metric</th><th>change</th>"
        "<th>95% CI</th><th>p</th><th>test</th><th>verdict</th></tr>\n",
        f);
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_verdict *v = &all[i];
    char ch[32], lo[32], hi[32], p[32], cell[300];
    placer_bench_format_change(v->change, ch, sizeof(ch));
    placer_bench_format_change(v->ci_low, lo, sizeof(lo));
    placer_bench_format_change(v->ci_high, hi, sizeof(hi));
    placer_bench_format_p(v->p_value, p, sizeof(p));
    fprintf(f, "<tr class=\"%s\"><td>", v->significant ? "significant" : "inconclusive");
    snprintf(cell, sizeof(cell), "%s vs %s", r->variants[v->variant], r->variants[0]);
    html_text(f, cell);
    fputs("</td><td>", f);
    html_text(f, r->conditions[v->condition].name);
    fputs("</td><td>", f);
    html_text(f, r->workloads[v->workload].name);
    fputs("</td><td>", f);
    if (v->neighbours) {
      snprintf(cell, sizeof(cell), "%s rate", r->neighbour_name[0] ? r->neighbour_name : "neighbours");
      html_text(f, cell);
    } else {
      fputs(metric_unit(&r->workloads[v->workload]), f);
    }
    fprintf(f, "</td><td>%s</td><td>", ch);
    if (isnan(v->ci_low))
      fputs("-", f);
    else
      fprintf(f, "[%s, %s]", lo, hi);
    fprintf(f, "</td><td>%s</td><td>%s</td>", p_cell(p), v->paired ? "paired" : "unpaired");
    fprintf(f, "<td class=\"verdict\" style=\"%s\">%s</td></tr>\n",
            v->significant ? "background:#c6efce;color:#006100" : "background:#ffeb9c;color:#7a5500",
            v->significant ? "significant" : "inconclusive");
  }
  fputs("</table>\n", f);
  free(all);
  return 0;
}

/* The text report beside the plots (report/report.txt), linked. */
static int write_text_report(struct page *pg, const char *text) {
  cleanup_free char *path = NULL;
  FILE *f = open_in(pg, "report.txt", &path);
  if (f == NULL)
    return -1;
  fputs(text, f);
  if (close_file(pg, f, path) < 0)
    return -1;
  fputs("<h2>Text report</h2>\n<p>The whole report as <code>placer bench</code> prints it, every table and figure: "
        "<a href=\"report/report.txt\">report/report.txt</a>.</p>\n",
        pg->html);
  return 0;
}

/* ---- the page, drawn aside and put in place at once ---- */

/* The files a page is made of in report/; anything else there is not
 * placer's and is kept when the plots are replaced. */
static bool plot_file(const char *name) {
  static const char *const plots[] = {
    "interference-storage", "interference-neighbours", "sweep", "split", "cpu", "latency", "recovery", "compare"
  };
  if (strcmp(name, "report.txt") == 0) /* the text report the page links */
    return true;
  const char *dot = strrchr(name, '.');
  if (dot == NULL || (strcmp(dot, ".dat") != 0 && strcmp(dot, ".gp") != 0 && strcmp(dot, ".svg") != 0))
    return false;
  for (size_t i = 0; i < N_OF(plots); i++)
    if (strlen(plots[i]) == (size_t)(dot - name) && strncmp(plots[i], name, (size_t)(dot - name)) == 0)
      return true;
  return false;
}

/* Remove what placer made in DIR (TMP/report's files, TMP/report.html, TMP). */
static void remove_tree(const char *tmp) {
  cleanup_free char *plots = NULL, *html = NULL;
  if (asprintf(&plots, "%s/report", tmp) < 0 || asprintf(&html, "%s/report.html", tmp) < 0)
    return;
  DIR *d = opendir(plots);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
        unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  rmdir(plots);
  unlink(html);
  rmdir(tmp);
}

/* What is in the way of DIR/NAME: 0 when it is absent or of the type the
 * page makes (IS_DIR: a directory, else a regular file). */
static int check_target(const char *dir, const char *name, bool is_dir, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0)
    return placer_error_oom(err, "report");
  struct stat st;
  if (lstat(path, &st) < 0)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: %s", path);
  if (is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
    return 0;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, is_dir ? ENOTDIR : EISDIR,
                          "report: %s is %s, not the %s placer writes there: nothing written", path,
                          placer_file_type_name((unsigned)st.st_mode), is_dir ? "plots' directory" : "page");
}

/* The old plots' directory OLD after the new one is in place at PLOTS: its
 * plots go, anything else moves into the new one; what cannot move is kept
 * as DIR/report-kept-XXXXXX, never removed. */
static void drop_old_plots(const char *dir, const char *tmp, const char *old, const char *plots) {
  DIR *d = opendir(old);
  int to = open(plots, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  while (d && to >= 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (plot_file(e->d_name))
      unlinkat(dirfd(d), e->d_name, 0);
    else /* not placer's: the new report/ has only plots, so its name is free there */
      renameat(dirfd(d), e->d_name, to, e->d_name);
  }
  if (to >= 0)
    close(to);
  if (d)
    closedir(d);
  if (rmdir(old) == 0)
    return;
  char *kept = NULL;
  if (asprintf(&kept, "%s/report-kept-%s", dir, tmp + strlen(tmp) - 6) >= 0)
    rename(old, kept);
  free(kept);
}

/* Put TMP/report and TMP/report.html in place of DIR's: the plots'
 * directory exchanged whole (renameat2 RENAME_EXCHANGE; a file system
 * without it: moved aside and back on failure), then the page renamed over
 * the old one; the old plots go, other files in the old report/ move into
 * the new one. */
static int publish(const char *dir, const char *tmp, char **html_out, struct placer_error **err) {
  cleanup_free char *plots = NULL, *new_plots = NULL, *html = NULL, *new_html = NULL, *aside = NULL;
  if (asprintf(&plots, "%s/report", dir) < 0 || asprintf(&new_plots, "%s/report", tmp) < 0 ||
      asprintf(&html, "%s/report.html", dir) < 0 || asprintf(&new_html, "%s/report.html", tmp) < 0 ||
      asprintf(&aside, "%s/old-report", tmp) < 0)
    return placer_error_oom(err, "report");
  bool had_plots = access(plots, F_OK) == 0, exchanged = false;
  if (had_plots) {
    if (renameat2(AT_FDCWD, new_plots, AT_FDCWD, plots, RENAME_EXCHANGE) == 0) {
      exchanged = true;
    } else if (rename(plots, aside) < 0) {
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: move %s aside", plots);
    }
  }
  if (!exchanged && rename(new_plots, plots) < 0) {
    int e = errno;
    if (had_plots)
      rename(aside, plots);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "report: rename %s to %s", new_plots, plots);
  }
  /* now TMP/report (exchanged) or TMP/old-report holds the old plots */
  const char *old = exchanged ? new_plots : aside;
  if (rename(new_html, html) < 0) {
    int e = errno;
    if (exchanged)
      renameat2(AT_FDCWD, new_plots, AT_FDCWD, plots, RENAME_EXCHANGE);
    else {
      rename(plots, new_plots);
      if (had_plots)
        rename(aside, plots);
    }
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "report: rename %s to %s", new_html, html);
  }
  if (had_plots)
    drop_old_plots(dir, tmp, old, plots);
  *html_out = TAKE_PTR(html);
  return 0;
}

int placer_report_html_write(const char *dir, const struct placer_bench_results *r, const char *compare_dir,
                             const struct placer_bench_results *b, char **written, struct placer_error **err) {
  struct page pg = { .dir = dir, .r = r, .b = b, .compare_dir = compare_dir, .err = err };
  char *tmp = NULL, *tmp_html = NULL, *html_path = NULL, *text = NULL;
  int rc = -1;
  /* Nothing in DIR changes until every plot is drawn: the page is made in
   * DIR/.report-XXXXXX (on DIR's file system, for the renames). */
  if (check_target(dir, "report.html", false, err) < 0 || check_target(dir, "report", true, err) < 0 ||
      placer_bench_report(r, &text, err) < 0)
    goto out;
  char *real = realpath(dir, NULL); /* the scripts' default: absolute, to redraw from anywhere */
  int n = asprintf(&pg.final_plots, "%s/report", real ? real : dir);
  free(real);
  if (n < 0 || asprintf(&tmp, "%s/.report-XXXXXX", dir) < 0) {
    placer_error_oom(err, "report");
    goto out;
  }
  if (mkdtemp(tmp) == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: create a directory in %s", dir);
    free(tmp);
    tmp = NULL;
    goto out;
  }
  if (asprintf(&pg.plots, "%s/report", tmp) < 0 || asprintf(&tmp_html, "%s/report.html", tmp) < 0) {
    placer_error_oom(err, "report");
    goto out;
  }
  if (mkdir(pg.plots, 0755) < 0) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: mkdir %s", pg.plots);
    goto out;
  }
  pg.html = fopen(tmp_html, "we");
  if (pg.html == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: create %s", tmp_html);
    goto out;
  }
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", pg.html);
  html_text(pg.html, r->title ? r->title : "placer bench");
  fputs("</title>\n<style>\nbody { font-family: sans-serif; margin: 2em; max-width: 1000px; }\n"
        "pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 12px; }\n"
        "figure { margin: 1.5em 0; } img { max-width: 100%; border: 1px solid #ddd; }\n"
        "table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 6px; }\n"
        "#verdict td { text-align: right; } #verdict td:first-child, #verdict td:nth-child(2), "
        "#verdict td:nth-child(3) { text-align: left; }\n"
        "p.design { background: #ffeb9c; padding: 0.5em; }\n"
        "</style>\n</head>\n<body>\n<h1>",
        pg.html);
  html_text(pg.html, r->title ? r->title : "placer bench");
  fputs("</h1>\n<p>Results directory <code>", pg.html);
  html_text(pg.html, dir);
  fprintf(pg.html, "</code>: %zu variant%s, %zu condition%s, %zu workload%s, %zu repeat%s%s.</p>\n", r->n_variants,
          r->n_variants == 1 ? "" : "s", r->n_conditions, r->n_conditions == 1 ? "" : "s", r->n_workloads,
          r->n_workloads == 1 ? "" : "s", r->repeats, r->repeats == 1 ? "" : "s",
          r->interrupted ? "; <strong>interrupted</strong>: the cells with no runs are empty" : "");
  if (write_verdicts(&pg) < 0)
    goto out;
  /* the balance point, in words and drawn, before the other plots */
  bool split = r->split_parameter && r->split_parameter[0];
  if (split || r->sweep) {
    char *sentence = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&sentence, &len);
    if (m == NULL) {
      placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report");
      goto out;
    }
    placer_bench_report_balance(r, m);
    fclose(m);
    fputs("<h2>Balance point</h2>\n<p id=\"balance\">", pg.html);
    html_text(pg.html, sentence ? sentence : "");
    fputs("</p>\n", pg.html);
    free(sentence);
    if ((split ? plot_split(&pg) : plot_sweep(&pg)) < 0)
      goto out;
  }
  fputs("<h2>Plots</h2>\n", pg.html);
  bool sweep_drawn = !split && r->sweep; /* with the balance point */
  if (plot_interference(&pg, false) < 0 || plot_interference(&pg, true) < 0 || (!sweep_drawn && plot_sweep(&pg) < 0) ||
      plot_cpu(&pg) < 0 || plot_latency(&pg) < 0 || plot_recovery(&pg) < 0 || (b && plot_compare(&pg) < 0))
    goto out;
  if (pg.figures == 0)
    fputs("<p>No plot: no finished run has figures to draw.</p>\n", pg.html);
  if (write_text_report(&pg, text) < 0)
    goto out;
  fputs("<p>Made by <code>placer report</code> with gnuplot; the data and scripts of every plot are in "
        "<code>report/</code> beside it.</p>\n</body>\n</html>\n",
        pg.html);
  FILE *f = pg.html;
  pg.html = NULL;
  if (ferror(f) | (fclose(f) != 0)) { /* a full disk: no half page */
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno ? errno : EIO, "report: write %s", tmp_html);
    goto out;
  }
  if (placer_stop_requested) { /* asked to stop after the last plot: DIR stays as it was */
    placer_error_set(err, PLACER_EXIT_INTERRUPTED, EINTR, "report: interrupted; %s as it was", dir);
    goto out;
  }
  if (publish(dir, tmp, &html_path, err) < 0)
    goto out;
  if (written)
    *written = TAKE_PTR(html_path);
  rc = 0;
out:
  if (pg.html)
    fclose(pg.html);
  if (tmp)
    remove_tree(tmp);
  free(tmp);
  free(tmp_html);
  free(pg.plots);
  free(pg.final_plots);
  free(html_path);
  free(text);
  return rc;
}

int placer_report_html_dir(const char *dir, const char *compare_dir, char **written, struct placer_error **err) {
  struct placer_bench_results *a = NULL, *b = NULL;
  int rc = -1;
  if (placer_bench_results_load_dir(dir, &a, err) == 0 &&
      (compare_dir == NULL || placer_bench_results_load_dir(compare_dir, &b, err) == 0))
    rc = placer_report_html_write(dir, a, compare_dir, b, written, err);
  placer_bench_results_free(a);
  placer_bench_results_free(b);
  return rc;
}
