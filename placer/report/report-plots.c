/* report.html's plots, each from the results: interference with CI
 * whiskers, the sweep and split curves with the balance point, CPU per role,
 * latency percentiles, client IOPS through a recovery, and the change of
 * every cell against a second directory.  Each writes its data and script
 * (report-plot.c) and has gnuplot draw it. */
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
#include "lib/textfile.h"
#include "size/size.h"

/* Storage kept with neighbours (% of alone) and neighbours kept with storage
 * (% of solo), per variant, with the bootstrap 95% CI as whiskers. */
int plot_interference(struct page *pg, bool neighbours) {
  const struct placer_bench_results *r = pg->r;
  int alone = placer_bench_alone_condition(r);
  if (alone < 0 || r->n_conditions < 2)
    return 0;
  const char *name = neighbours ? "interference-neighbours" : "interference-storage";
  struct plot_files pf;
  if (plot_open(pg, name, &pf) < 0)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  size_t cap = plot_max_repeats(r);
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
      plot_dq(dat, label);
      for (size_t v = 0; v < r->n_variants; v++) {
        size_t na = 0, nb;
        if (neighbours) {
          for (size_t rep = 0; rep < r->repeats; rep++) {
            double s = placer_bench_results_solo(r, v, c, rep);
            if (isfinite(s))
              a[na++] = s;
          }
          nb = plot_samples(r, v, c, w, NEIGHBOUR, b);
        } else {
          na = plot_samples(r, v, (size_t)alone, w, MAIN, a);
          nb = plot_samples(r, v, c, w, MAIN, b);
        }
        struct placer_stats_comparison cmp;
        placer_stats_compare(a, na, b, nb, &cmp);
        plot_put_num(dat, 100 * (1 + cmp.change));
        plot_put_num(dat, 100 * (1 + cmp.ci_low));
        plot_put_num(dat, 100 * (1 + cmp.ci_high));
      }
      fputc('\n', dat);
    }
  free(a);
  free(b);
  plot_script_head(pg, gp, name, 900, 420);
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
      plot_data_ref(pg, gp, name);
    fprintf(gp, " using %zu:%zu:%zu%s title ", 2 + 3 * v, 3 + 3 * v, 4 + 3 * v, v == 0 ? ":xtic(1)" : "");
    placer_gnuplot_quote(gp, r->variants[v]);
  }
  fputs(", 100 with lines dt 2 lc rgb 'black' notitle\n", gp);
  return plot_finish(pg, name, &pf,
                     neighbours ? "Interference on the neighbours: their rate with storage running, as % of their "
                                  "solo rate on the same variant's CPUs (median; whiskers: bootstrap 95% CI); what "
                                  "they keep of the first variant's solo rate is in the text report (Verdict, "
                                  "Efficiency)"
                                : "Interference on storage: its main metric with neighbours, as % of the same "
                                  "variant alone (median; whiskers: bootstrap 95% CI)");
}

/* Storage's main metric and the neighbours' rate against the neighbour
 * level, one line per variant, the balance point marked. */
int plot_sweep(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  if (r->n_conditions < 2)
    return 0;
  size_t w = r->sweep ? r->sweep_workload : 0;
  struct plot_files pf;
  double *x = plot_open_samples(pg, "sweep", &pf);
  if (x == NULL)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
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
      size_t k = plot_samples(r, v, c, w, MAIN, x);
      plot_put_num(dat, k ? plot_median(x, k) : NAN);
      any_storage |= k > 0;
      k = plot_samples(r, v, c, w, NEIGHBOUR, x);
      plot_put_num(dat, k ? plot_median(x, k) : NAN);
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
      size_t k = plot_samples(r, v, bal.index, w, MAIN, x);
      fprintf(dat, "%.6g", r->conditions[bal.index].neighbour_level);
      plot_put_num(dat, k ? plot_median(x, k) : NAN);
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
  plot_script_head(pg, gp, "sweep", 900, 460);
  fputs("set xlabel ", gp);
  placer_gnuplot_quote(gp, r->level_unit ? r->level_unit : "neighbour level");
  fputs("\nset ylabel ", gp);
  char label[256];
  snprintf(label, sizeof(label), "storage %s (%s)", plot_metric_unit(&r->workloads[w]), r->workloads[w].name);
  placer_gnuplot_quote(gp, label);
  fputs("\nset y2label ", gp);
  snprintf(label, sizeof(label), "%s (%s)", r->neighbour_name, r->neighbour_unit);
  placer_gnuplot_quote(gp, label);
  fputs("\nset ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\nset offsets 0.1,0.1,0,0\nplot ", gp);
  for (size_t v = 0; v < r->n_variants; v++) {
    fputs(v ? ", " : "", gp);
    plot_data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:2 with linespoints lw 2 pt 7 lc %zu title ", v, v + 1);
    snprintf(label, sizeof(label), "%s storage", r->variants[v]);
    placer_gnuplot_quote(gp, label);
    if (!any_neighbour)
      continue;
    fputs(", ", gp);
    plot_data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:3 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc %zu title ", v, v + 1);
    snprintf(label, sizeof(label), "%s neighbours", r->variants[v]);
    placer_gnuplot_quote(gp, label);
  }
  for (size_t v = 0; any_balance && v < r->n_variants; v++) {
    fputs(", ", gp);
    plot_data_ref(pg, gp, "sweep");
    fprintf(gp, " index %zu using 1:2 with points pt 6 ps 3 lw 2 lc %zu title ", r->n_variants + v, v + 1);
    snprintf(label, sizeof(label), "%s balance point", r->variants[v]);
    placer_gnuplot_quote(gp, label);
  }
  fputc('\n', gp);
  snprintf(label, sizeof(label),
           "%s: storage %s (solid, left axis) and the neighbours' rate (dashed, right axis) against the neighbour "
           "level; circles: the balance point%s",
           r->workloads[w].name, plot_metric_unit(&r->workloads[w]),
           any_balance ? "" : " (none found: no step keeps both fractions, or no sweep)");
  return plot_finish(pg, "sweep", &pf, label);
}

/* A placement sweep (quota, cores, weight): storage's main metric alone and
 * with the neighbours, and the neighbours' rate, against the knob.  The
 * sweep's steps are joined in the order of their knob; the variants that are
 * no step of it are labelled reference marks, each at the CPU it gives
 * storage (a pinned variant's OSDs on one CPU at 1), the unconstrained at
 * the node's CPUs; the balance point marked. */
int plot_split(struct page *pg) {
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
  bool in_cores = strcmp(r->split_parameter, "quota") == 0 || strcmp(r->split_parameter, "cores") == 0;
  bool any_storage = false, any_neighbour = false, any_reference = false;
  /* block 0: the steps (placer_bench_split_steps gives them in the order of
   * their knob); block 1: the others, as reference marks */
  for (int block = 0; block < 2; block++) {
    fprintf(dat, "%s", block == 0 ? "# the steps: " : "\n\n# reference marks, not steps of the sweep: ");
    fprintf(dat, "%s, storage alone, storage with neighbours, neighbour rate, variant\n", r->split_parameter);
    for (size_t i = 0; i < n; i++) {
      bool step = isfinite(steps[i].knob);
      if (step != (block == 0))
        continue;
      double cpus = r->storage_cpus[steps[i].variant];
      /* a weight sweep's x is no CPU: its references go at its first step */
      double x = step ? steps[i].knob : !in_cores ? NAN : isfinite(cpus) ? cpus : r->node_cpus > 0 ? r->node_cpus : NAN;
      if (!isfinite(x))
        continue;
      any_storage |= isfinite(steps[i].alone) || isfinite(steps[i].with_neighbours);
      any_neighbour |= isfinite(steps[i].neighbour_rate);
      any_reference |= !step;
      fprintf(dat, "%.6g", x);
      plot_put_num(dat, steps[i].alone * scale);
      plot_put_num(dat, steps[i].with_neighbours * scale);
      plot_put_num(dat, steps[i].neighbour_rate);
      fputc(' ', dat);
      plot_dq(dat, r->variants[steps[i].variant]);
      fputc('\n', dat);
    }
    if (block == 1 && !any_reference)
      fputs("- - - - \"\"\n", dat); /* an empty block keeps the indexes */
  }
  fputs("\n\n# balance point\n", dat);
  if (bal.found && isfinite(steps[bal.step].knob)) {
    fprintf(dat, "%.6g", steps[bal.step].knob);
    plot_put_num(dat, steps[bal.step].alone * scale);
    fputc('\n', dat);
  } else {
    fputs("- -\n", dat);
  }
  if (!any_storage)
    return plot_drop(&pf); /* gnuplot cannot autoscale an axis without a point */
  plot_script_head(pg, gp, "split", 900, 460);
  char label[256];
  snprintf(label, sizeof(label), "storage %s (%sreference marks at the CPU each gives storage)", r->split_parameter,
           in_cores ? "cores; " : "");
  fputs("set xlabel ", gp);
  placer_gnuplot_quote(gp, label);
  snprintf(label, sizeof(label), "storage %s (%s)", plot_metric_unit(w), w->name);
  fputs("\nset ylabel ", gp);
  placer_gnuplot_quote(gp, label);
  snprintf(label, sizeof(label), "%s (%s)", r->neighbour_name, r->neighbour_unit);
  fputs("\nset y2label ", gp);
  placer_gnuplot_quote(gp, label);
  fputs("\nset ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\nset offsets 0.1,0.1,0,0\nplot ", gp);
  plot_clause(pg, gp, "split", true, "index 0 using 1:2 with linespoints lw 2 pt 7 lc 1 title 'storage alone'");
  plot_clause(pg, gp, "split", false,
              "index 0 using 1:3 with linespoints lw 2 pt 5 lc 2 title 'storage with neighbours'");
  if (any_neighbour)
    plot_clause(pg, gp, "split", false,
                "index 0 using 1:4 axes x1y2 with linespoints dt 2 pt 4 lc 3 title 'neighbours'");
  if (any_reference) {
    plot_clause(pg, gp, "split", false, "index 1 using 1:2 with points pt 9 ps 1.5 lc 1 notitle");
    plot_clause(pg, gp, "split", false, "index 1 using 1:3 with points pt 11 ps 1.5 lc 2 notitle");
    plot_clause(pg, gp, "split", false, "index 1 using 1:2:5 with labels offset 0,1.2 notitle");
    if (any_neighbour)
      plot_clause(pg, gp, "split", false, "index 1 using 1:4 axes x1y2 with points pt 8 lc 3 notitle");
  }
  if (bal.found)
    plot_clause(pg, gp, "split", false,
                "index 2 using 1:2 with points pt 6 ps 3 lw 2 lc rgb 'black' title 'balance point'");
  fputc('\n', gp);
  char caption[512];
  snprintf(caption, sizeof(caption),
           "%s sweep of the storage roles: %s %s alone and with the neighbours (left axis), the neighbours' rate "
           "(dashed, right axis), the steps joined in order%s%s",
           r->split_parameter, w->name, plot_metric_unit(w),
           any_reference ? "; the other variants as labelled marks at the CPU they give storage" : "",
           bal.found ? "; circle: the balance point, the least CPU for storage that keeps its minimum fraction"
                     : "; no step keeps storage's minimum fraction (no balance point)");
  return plot_finish(pg, "split", &pf, caption);
}

/* CPU per role in cores, stacked, per variant and condition. */
int plot_cpu(struct page *pg) {
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
  double *x = plot_open_samples(pg, "cpu", &pf);
  if (x == NULL)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  fputs("# variant/condition, then cores per role:", dat);
  for (size_t k = 0; k < n_roles; k++)
    fprintf(dat, " %s", roles[k]);
  fputc('\n', dat);
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++) {
      char label[256];
      snprintf(label, sizeof(label), "%s %s", r->variants[v], r->conditions[c].name);
      plot_dq(dat, label);
      for (size_t k = 0; k < n_roles; k++) {
        size_t m = 0;
        for (size_t rep = 0; rep < r->repeats; rep++) {
          const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, rep);
          double cores = run ? placer_bench_run_role_cores(run, roles[k]) : NAN;
          if (isfinite(cores))
            x[m++] = cores;
        }
        plot_put_num(dat, m ? plot_median(x, m) : 0);
      }
      fputc('\n', dat);
    }
  free(x);
  plot_script_head(pg, gp, "cpu", 900, 420);
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
      plot_data_ref(pg, gp, "cpu");
    fprintf(gp, " using %zu%s title ", 2 + k, k == 0 ? ":xtic(1)" : "");
    placer_gnuplot_quote(gp, roles[k]);
  }
  fputc('\n', gp);
  snprintf(label, sizeof(label), "CPU used per role (cores, median over repeats) during %s, per variant and condition",
           r->workloads[w].name);
  return plot_finish(pg, "cpu", &pf, label);
}

/* Completion latency p50 / p99 / p99.9 of every workload alone, per variant. */
int plot_latency(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  int alone = placer_bench_alone_condition(r);
  size_t c = alone >= 0 ? (size_t)alone : 0;
  struct plot_files pf;
  double *x = plot_open_samples(pg, "latency", &pf);
  if (x == NULL)
    return -1;
  FILE *dat = pf.dat, *gp = pf.gp;
  fputs("# variant workload, p50 p99 p99.9 (ms, median over repeats)\n", dat);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t v = 0; v < r->n_variants; v++) {
      char label[256];
      snprintf(label, sizeof(label), "%s %s", r->variants[v], r->workloads[w].name);
      plot_dq(dat, label);
      static const enum what ps[] = { P50, P99, P999 };
      for (size_t k = 0; k < 3; k++) {
        size_t m = plot_samples(r, v, c, w, ps[k], x);
        plot_put_num(dat, m ? plot_median(x, m) : NAN);
      }
      fputc('\n', dat);
    }
  free(x);
  plot_script_head(pg, gp, "latency", 900, 420);
  fputs("set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.7 border -1\n"
        "set logscale y\nset xtics rotate by -15\nset ylabel 'completion latency (ms, log scale)'\nplot ",
        gp);
  plot_data_ref(pg, gp, "latency");
  fputs(" using 2:xtic(1) title 'p50', '' using 3 title 'p99', '' using 4 title 'p99.9'\n", gp);
  char label[256];
  snprintf(label, sizeof(label), "fio completion latency percentiles, %s (median over repeats)", r->conditions[c].name);
  return plot_finish(pg, "latency", &pf, label);
}

/* A recovery run's client IOPS, second by second, from fio's status stream,
 * against the seconds since the fault: one line per variant (its first
 * recorded run).  The fault's time is the watcher's UNCLEAN less the
 * detection time; nothing is drawn when no run has its files. */
int plot_recovery(struct page *pg) {
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
  plot_script_head(pg, gp, "recovery", 900, 420);
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
    plot_data_ref(pg, gp, "recovery");
    fprintf(gp, " index %zu using 1:2 with lines title ", block++);
    placer_gnuplot_quote(gp, pg->r->variants[v]);
  }
  fputc('\n', gp);
  char caption[256];
  snprintf(caption, sizeof(caption),
           "Client IOPS while %s was %s at 0 and back at %g s (dashed lines), until active+clean (each variant's "
           "first recovery run)",
           rec->daemon, strcmp(rec->action, "kill") == 0 ? "killed" : "out", rec->down_s);
  return plot_finish(pg, "recovery", &pf, caption);
}

/* B (compare_dir) against A (dir): the change of every cell both hold. */
int plot_compare(struct page *pg) {
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
  page_html_text(pg->html, pg->compare_dir);
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
        size_t na = plot_samples(a, v, c, w, MAIN, xa),
               nb = plot_samples(b, (size_t)vb, (size_t)cb, (size_t)wb, MAIN, xb);
        if (na == 0 || nb == 0)
          continue;
        struct placer_stats_comparison cmp;
        placer_stats_compare(xa, na, xb, nb, &cmp);
        char label[256];
        snprintf(label, sizeof(label), "%s %s %s", a->variants[v], a->conditions[c].name, a->workloads[w].name);
        plot_dq(dat, label);
        plot_put_num(dat, 100 * cmp.change);
        plot_put_num(dat, 100 * cmp.ci_low);
        plot_put_num(dat, 100 * cmp.ci_high);
        fputc('\n', dat);
        fputs("<tr><td>", pg->html);
        page_html_text(pg->html, a->variants[v]);
        fputs("</td><td>", pg->html);
        page_html_text(pg->html, a->conditions[c].name);
        fputs("</td><td>", pg->html);
        page_html_text(pg->html, a->workloads[w].name);
        fprintf(pg->html,
                "</td><td>%.0f %s</td><td>%.0f %s</td><td>%+.1f%%</td><td>[%+.1f%%, %+.1f%%]</td><td>%.3g</td></tr>\n",
                cmp.median_a, plot_metric_unit(&a->workloads[w]), cmp.median_b, plot_metric_unit(&a->workloads[w]),
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
  plot_script_head(pg, gp, "compare", 900, 460);
  fputs("set style data histogram\nset style histogram errorbars gap 2 lw 1\nset style fill solid 0.6 border -1\n"
        "set xtics rotate by -20\nset ylabel 'change of B vs A (%)'\nplot ",
        gp);
  plot_data_ref(pg, gp, "compare");
  fputs(" using 2:3:4:xtic(1) title 'B vs A, median (95% CI)', 0 with lines lc rgb 'black' notitle\n", gp);
  return plot_finish(pg, "compare", &pf,
                     "Change of each cell's main metric, B vs A (median; whiskers: bootstrap 95% CI)");
}

/* ---- the answer first ---- */

/* "p=0.002" -> "0.002", "p<0.001" -> "<0.001" */
