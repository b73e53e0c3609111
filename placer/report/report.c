/* The terminal summary of a bench study (report.h): the header, a table per
 * block size, interference, then the sections of report-sweep.c and
 * report-roles.c; from a results directory, the one way it is made. */
#include "report/report-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "results/design.h"
#include "lib/text-table.h"
#include "lib/textfile.h"
#include "lib/units.h"

static size_t runs_done(const struct placer_bench_results *r) {
  size_t n = 0, total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  for (size_t i = 0; i < total; i++)
    n += r->runs[i].done;
  return n;
}

/* --- sections ------------------------------------------------------------------- */

static void header(const struct placer_bench_results *r, FILE *out) {
  size_t planned = report_planned_repeats(r);
  size_t total = r->n_variants * r->n_conditions * r->n_workloads * planned;
  /* free text from a study or a summary.json: no escape sequence reaches the terminal */
  cleanup_free char *title = placer_text_escape(r->title[0] ? r->title : "(untitled)");
  fprintf(out, "placer bench: %s\n", title ? title : "?");
  fprintf(out, "%zu repeat%s per cell, %zu of %zu runs done. Medians, with min-max over repeats.\n", planned,
          planned == 1 ? "" : "s", runs_done(r), total);
  if (r->stop_reason) {
    cleanup_free char *why = placer_text_escape(r->stop_reason);
    fprintf(out, "Repeats: stopped at %zu: %s.\n", planned, why ? why : "?");
  }
  if (r->n_variants > 1)
    fprintf(out,
            "Changes: each variant vs %s, median change with bootstrap 95%% CI and Mann-Whitney p; \"paired\": the\n"
            "median ratio of runs of the same pass (adjacent in time), bootstrap 95%% CI, Wilcoxon signed-rank p.\n",
            r->variants[0]);
  if (r->interrupted)
    fprintf(out, "INTERRUPTED: these are the results so far; missing cells show \"-\".\n");
  struct placer_bench_design d;
  placer_bench_design_of((unsigned)planned, r->n_variants, r->alpha, &d);
  if (!d.can_conclude) {
    char why[512];
    placer_bench_design_refusal(&d, why, sizeof(why));
    fprintf(out, "DESIGN: %s: every verdict below is inconclusive by design.\n", why);
  }
}

/* Workloads A and B go in one table: block workloads of one block size; a
 * metadata workload has its own. */
static bool same_table(const struct placer_bench_workload *a, const struct placer_bench_workload *b) {
  if (a->kind != b->kind)
    return false;
  return a->kind == PLACER_BENCH_WORKLOAD_BLOCK ? a->block_size_bytes == b->block_size_bytes : a == b;
}

/* One block: the workloads of one block size (or one metadata workload), in
 * the order first seen. */
static int block_table(const struct placer_bench_results *r, size_t first, FILE *out) {
  size_t ws[PLACER_BENCH_MAX], n_ws = 0;
  for (size_t w = 0; w < r->n_workloads && n_ws < PLACER_BENCH_MAX; w++)
    if (same_table(&r->workloads[w], &r->workloads[first]))
      ws[n_ws++] = w;
  struct placer_table t = { 0 };
  char label[160], a[64], b[64], c[64];
  const struct placer_bench_workload *head = &r->workloads[first];
  if (head->kind == PLACER_BENCH_WORKLOAD_METADATA)
    snprintf(label, sizeof(label), "%s: %llu files, %u directories, %u jobs", head->name,
             (unsigned long long)head->files, head->directories, head->jobs);
  else
    placer_bench_format_block_size(head->block_size_bytes, label, sizeof(label));
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", label);
  for (size_t i = 0; i < n_ws; i++) {
    const struct placer_bench_workload *w = &r->workloads[ws[i]];
    placer_table_cell_l(&t, "%s", head->kind == PLACER_BENCH_WORKLOAD_METADATA ? "create, stat, delete" : w->pattern);
    if (w->curve) /* a load step: over its min-max column, the widest */
      placer_table_cell_r(&t, "%s %g", w->load_name, w->load);
    else
      placer_table_cell_r(&t, "%s", "");
    placer_table_cell_r(&t, "%s", "");
  }
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t i = 0; i < n_ws; i++) {
    placer_table_cell_r(&t, "%s", report_metric_name(&r->workloads[ws[i]]));
    placer_table_cell_r(&t, "min-max");
    placer_table_cell_r(&t, "p99 ms");
  }
  bool partial = false;
  for (size_t cond = 0; cond < r->n_conditions; cond++) {
    report_condition_label(r, cond, label, sizeof(label));
    placer_table_row(&t, true);
    placer_table_cell_l(&t, "%s", label);
    for (size_t v = 0; v < r->n_variants; v++) {
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "  %s", r->variants[v]);
      for (size_t i = 0; i < n_ws; i++) {
        const struct placer_bench_workload *w = &r->workloads[ws[i]];
        struct placer_bench_cell_stats s;
        placer_bench_cell_stats(r, v, cond, ws[i], &s);
        bool short_cell = s.n_done > 0 && s.n_done < report_planned_repeats(r);
        partial |= short_cell;
        report_fmt_rate(report_display(w, s.main.median), a, sizeof(a));
        placer_table_cell_r(&t, "%s%s", a, short_cell ? "*" : "");
        report_fmt_rate(report_display(w, s.main.min), a, sizeof(a));
        report_fmt_rate(report_display(w, s.main.max), b, sizeof(b));
        if (s.main.n)
          placer_table_cell_r(&t, "%s-%s", a, b);
        else
          placer_table_cell_r(&t, DASH);
        report_fmt_ms(s.p99_ns.median, c, sizeof(c));
        placer_table_cell_r(&t, "%s", c);
      }
    }
    for (size_t v = 1; v < r->n_variants; v++) {
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "  %s vs %s", r->variants[v], r->variants[0]);
      for (size_t i = 0; i < n_ws; i++) {
        struct placer_stats_comparison cmp;
        placer_bench_compare(r, v, cond, ws[i], &cmp, NULL);
        placer_bench_format_change(cmp.change, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        placer_bench_format_change(cmp.ci_low, b, sizeof(b));
        placer_bench_format_change(cmp.ci_high, c, sizeof(c));
        if (isnan(cmp.ci_low))
          placer_table_cell_r(&t, DASH);
        else
          placer_table_cell_r(&t, "[%s, %s]", b, c);
        placer_bench_format_p(cmp.p_value, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "    paired");
      for (size_t i = 0; i < n_ws; i++) {
        struct placer_stats_paired pair;
        placer_bench_compare_paired(r, v, cond, ws[i], &pair, NULL);
        placer_bench_format_change(pair.change, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        placer_bench_format_change(pair.ci_low, b, sizeof(b));
        placer_bench_format_change(pair.ci_high, c, sizeof(c));
        if (isnan(pair.ci_low))
          placer_table_cell_r(&t, DASH);
        else
          placer_table_cell_r(&t, "[%s, %s]", b, c);
        placer_bench_format_p(pair.p_value, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
    }
  }
  fprintf(out, "\n");
  int rc = placer_table_print(&t, out);
  if (partial)
    fprintf(out, "* fewer repeats than planned\n");
  return rc;
}

static int interference_table(const struct placer_bench_results *r, FILE *out) {
  int alone = placer_bench_alone_condition(r);
  if (alone < 0 || r->n_conditions < 2)
    return 0;
  struct placer_table t = { 0 };
  char label[128], a[32];
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t w = 0; w < r->n_workloads; w++) {
    report_workload_label(&r->workloads[w], label, sizeof(label));
    placer_table_cell_l(&t, "%s", label);
    placer_table_cell_r(&t, "%s", "");
  }
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t w = 0; w < r->n_workloads; w++) {
    placer_table_cell_r(&t, "storage");
    placer_table_cell_r(&t, "neighbours");
  }
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++) {
      if ((int)c == alone)
        continue;
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "%s, %s", r->variants[v], r->conditions[c].name);
      for (size_t w = 0; w < r->n_workloads; w++) {
        double storage, neighbour;
        placer_bench_interference(r, v, c, w, &storage, &neighbour);
        report_fmt_fixed(storage, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        report_fmt_fixed(neighbour, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
    }
  fprintf(out,
          "\nInterference, each variant against itself (the Verdict's, Sweep's and Efficiency's \"kept\" are against "
          "%s):\nstorage with neighbours / the same variant alone; %s with storage / %s solo on the same variant's "
          "CPUs\n",
          r->variants[0], report_neighbours(r), report_neighbours(r));
  return placer_table_print(&t, out);
}

int placer_bench_report_text(const struct placer_bench_results *r, const json_t *hardware_baseline, char **out,
                             struct placer_error **err) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "bench report");
  header(r, f);
  int rc = 0;
  /* One block per block size, in the order the workloads first use them. */
  for (size_t w = 0; w < r->n_workloads; w++) {
    bool seen = false;
    for (size_t k = 0; k < w && !seen; k++)
      seen = same_table(&r->workloads[k], &r->workloads[w]);
    if (!seen)
      rc |= block_table(r, w, f);
  }
  rc |= report_metadata_table(r, f);
  rc |= interference_table(r, f);
  rc |= report_sweep_table(r, f);
  rc |= report_split_table(r, f);
  rc |= report_curves_section(r, f);
  rc |= report_efficiency_lines(r, f);
  rc |= report_verdict_lines(r, f);
  rc |= report_share_lines(r, f);
  placer_bench_recovery_report(r->recovery, r->variants, f);
  rc |= report_cost_table(r, f);
  rc |= report_role_tables(r, f);
  rc |= report_threads_table(r, f);
  rc |= report_where_tables(r, f);
  if (hardware_baseline)
    report_baseline_lines(r, hardware_baseline, f);
  if (fclose(f) != 0 || rc != 0) {
    free(text);
    return placer_error_oom(err, "bench report");
  }
  *out = text;
  return 0;
}

int placer_bench_report(const struct placer_bench_results *r, char **out, struct placer_error **err) {
  return placer_bench_report_text(r, NULL, out, err);
}

int placer_bench_report_dir(const char *dir, char **out, struct placer_error **err) {
  struct placer_bench_results *r = NULL;
  json_t *hardware_baseline = NULL;
  if (placer_bench_results_dir_load(dir, &r, &hardware_baseline, err) < 0)
    return -1;
  int rc = placer_bench_report_text(r, hardware_baseline, out, err);
  placer_bench_results_free(r);
  json_decref(hardware_baseline);
  return rc;
}
