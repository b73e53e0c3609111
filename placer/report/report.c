/* The terminal summary of a bench study; see report.h. */
#include "report/report.h"

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

/* --- number formats ------------------------------------------------------------ */

#define DASH "-"

void placer_bench_format_block_size(uint64_t bytes, char *buf, size_t len) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, len, "%lluK", (unsigned long long)(bytes >> 10));
  else
    snprintf(buf, len, "%lluB", (unsigned long long)bytes);
}

/* IOPS or MB/s: whole numbers from 100 up, then one or two decimals. */
static void fmt_rate(double x, char *buf, size_t len) {
  if (isnan(x))
    snprintf(buf, len, DASH);
  else if (x >= 99.5)
    snprintf(buf, len, "%.0f", x);
  else if (x >= 9.995)
    snprintf(buf, len, "%.1f", x);
  else
    snprintf(buf, len, "%.2f", x);
}

static void fmt_ms(double ns, char *buf, size_t len) {
  double ms = ns / 1e6;
  if (isnan(ms))
    snprintf(buf, len, DASH);
  else if (ms < 0.9995)
    snprintf(buf, len, "%.3f", ms);
  else if (ms < 9.995)
    snprintf(buf, len, "%.2f", ms);
  else if (ms < 99.95)
    snprintf(buf, len, "%.1f", ms);
  else
    snprintf(buf, len, "%.0f", ms);
}

/* +12.3% / -4.0%; never "-0.0%". */
void placer_bench_format_change(double x, char *buf, size_t len) {
  if (isnan(x)) {
    snprintf(buf, len, DASH);
    return;
  }
  double tenths = round(x * 1000.0);
  snprintf(buf, len, "%+.1f%%", tenths == 0 ? 0.0 : tenths / 10.0);
}

void placer_bench_format_p(double p, char *buf, size_t len) {
  if (isnan(p))
    snprintf(buf, len, DASH);
  else if (p < 0.001)
    snprintf(buf, len, "p<0.001");
  else if (p < 0.1)
    snprintf(buf, len, "p=%.3f", p);
  else
    snprintf(buf, len, "p=%.2f", p);
}

static void fmt_fixed(double x, const char *format, char *buf, size_t len) {
  if (isnan(x))
    snprintf(buf, len, DASH);
  else
    snprintf(buf, len, format, x);
}

static void fmt_percent(double fraction, char *buf, size_t len) {
  fmt_fixed(fraction * 100.0, "%.0f%%", buf, len);
}

/* A memory locality share: 100% only when all of it is local. */
static void fmt_local(double share, char *buf, size_t len) {
  if (isnan(share))
    snprintf(buf, len, DASH);
  else if (share >= 1.0)
    snprintf(buf, len, "100%%");
  else
    snprintf(buf, len, "%.0f%%", share > 0.99 ? 99.0 : share * 100.0);
}

static void fmt_bytes(double bytes, char *buf, size_t len) {
  if (isnan(bytes))
    snprintf(buf, len, DASH);
  else
    placer_format_bytes((uint64_t)bytes, buf, len);
}

/* --- labels --------------------------------------------------------------------- */

static const char *metric_name(const struct placer_bench_workload *w) {
  return placer_bench_workload_uses_bandwidth(w) ? "MB/s" : "IOPS";
}

/* Main metric in display units: IOPS, or MB/s (10^6 bytes/s, as fio prints). */
static double display(const struct placer_bench_workload *w, double x) {
  return placer_bench_workload_uses_bandwidth(w) ? x / 1e6 : x;
}

static void workload_label(const struct placer_bench_workload *w, char *buf, size_t len) {
  char bs[32];
  placer_bench_format_block_size(w->block_size_bytes, bs, sizeof(bs));
  snprintf(buf, len, "%s %s", bs, w->pattern);
}

static void condition_label(const struct placer_bench_results *r, size_t c, char *buf, size_t len) {
  const struct placer_bench_condition *cond = &r->conditions[c];
  if (cond->neighbour_level > 0 && r->level_unit[0])
    snprintf(buf, len, "%s (%s: %g)", cond->name, r->level_unit, cond->neighbour_level);
  else
    snprintf(buf, len, "%s", cond->name);
}

static const char *neighbours(const struct placer_bench_results *r) {
  return r->neighbour_name[0] ? r->neighbour_name : "the neighbours";
}

/* Repeats a cell should have: the passes run (dynamic repeats), else the plan. */
static size_t planned_repeats(const struct placer_bench_results *r) {
  return placer_bench_planned_repeats(r);
}

static size_t runs_done(const struct placer_bench_results *r) {
  size_t n = 0, total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  for (size_t i = 0; i < total; i++)
    n += r->runs[i].done;
  return n;
}

/* --- sections ------------------------------------------------------------------- */

static void header(const struct placer_bench_results *r, FILE *out) {
  size_t planned = planned_repeats(r);
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

/* One block: the workloads of one block size, in the order first seen. */
static int block_table(const struct placer_bench_results *r, uint64_t bs, FILE *out) {
  size_t ws[PLACER_BENCH_MAX], n_ws = 0;
  for (size_t w = 0; w < r->n_workloads && n_ws < PLACER_BENCH_MAX; w++)
    if (r->workloads[w].block_size_bytes == bs)
      ws[n_ws++] = w;
  struct placer_table t = { 0 };
  char label[160], a[64], b[64], c[64];
  placer_bench_format_block_size(bs, label, sizeof(label));
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", label);
  for (size_t i = 0; i < n_ws; i++) {
    placer_table_cell_l(&t, "%s", r->workloads[ws[i]].pattern);
    placer_table_cell_r(&t, "%s", "");
    placer_table_cell_r(&t, "%s", "");
  }
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t i = 0; i < n_ws; i++) {
    placer_table_cell_r(&t, "%s", metric_name(&r->workloads[ws[i]]));
    placer_table_cell_r(&t, "min-max");
    placer_table_cell_r(&t, "p99 ms");
  }
  bool partial = false;
  for (size_t cond = 0; cond < r->n_conditions; cond++) {
    condition_label(r, cond, label, sizeof(label));
    placer_table_row(&t, true);
    placer_table_cell_l(&t, "%s", label);
    for (size_t v = 0; v < r->n_variants; v++) {
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "  %s", r->variants[v]);
      for (size_t i = 0; i < n_ws; i++) {
        const struct placer_bench_workload *w = &r->workloads[ws[i]];
        struct placer_bench_cell_stats s;
        placer_bench_cell_stats(r, v, cond, ws[i], &s);
        bool short_cell = s.n_done > 0 && s.n_done < planned_repeats(r);
        partial |= short_cell;
        fmt_rate(display(w, s.main.median), a, sizeof(a));
        placer_table_cell_r(&t, "%s%s", a, short_cell ? "*" : "");
        fmt_rate(display(w, s.main.min), a, sizeof(a));
        fmt_rate(display(w, s.main.max), b, sizeof(b));
        if (s.main.n)
          placer_table_cell_r(&t, "%s-%s", a, b);
        else
          placer_table_cell_r(&t, DASH);
        fmt_ms(s.p99_ns.median, c, sizeof(c));
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
    workload_label(&r->workloads[w], label, sizeof(label));
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
        fmt_fixed(storage, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        fmt_fixed(neighbour, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
    }
  fprintf(out,
          "\nInterference, each variant against itself (the Verdict's, Sweep's and Efficiency's \"kept\" are against "
          "%s):\nstorage with neighbours / the same variant alone; %s with storage / %s solo on the same variant's "
          "CPUs\n",
          r->variants[0], neighbours(r), neighbours(r));
  return placer_table_print(&t, out);
}

static void balance_sentence(const struct placer_bench_results *r, const char *what, FILE *out) {
  size_t order[PLACER_BENCH_MAX], n = 0;
  struct placer_bench_balance bal[PLACER_BENCH_MAX];
  for (size_t v = 0; v < r->n_variants && v < PLACER_BENCH_MAX; v++) {
    placer_bench_sweep_balance(r, v, &bal[v]);
    order[n++] = v;
  }
  /* Best first: found before not found, then the higher level; stable. */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0; j--) {
      const struct placer_bench_balance *x = &bal[order[j]], *y = &bal[order[j - 1]];
      bool better = (x->found && !y->found) || (x->found && y->found && x->level > y->level);
      if (!better)
        break;
      size_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  double s = r->storage_min_fraction * 100, nb = r->neighbour_min_fraction * 100;
  const struct placer_bench_balance *first = &bal[order[0]];
  if (!first->found) {
    fprintf(out,
            "No variant keeps >= %g%% of %s's %s alone at any step while %s keep >= %g%% of their solo rate there.\n",
            s, r->variants[0], what, neighbours(r), nb);
    return;
  }
  fprintf(out, "%s keeps >= %g%% of %s's %s alone up to %g %s while %s keep >= %g%% of their solo rate there",
          r->variants[order[0]], s, r->variants[0], what, first->level, r->level_unit, neighbours(r), nb);
  for (size_t i = 1; i < n; i++) {
    if (bal[order[i]].found)
      fprintf(out, "; %s up to %g", r->variants[order[i]], bal[order[i]].level);
    else
      fprintf(out, "; %s at no step", r->variants[order[i]]);
  }
  fprintf(out, ".\n");
  for (size_t i = 0; i < n; i++)
    if (bal[order[i]].passes_beyond)
      fprintf(out, "Note: %s passes again above its first failing step; more repeats may settle it.\n",
              r->variants[order[i]]);
}

/* "1.85 of 1.61; 95% CI 108%-122%" */
static void fmt_eff_ci(const struct placer_bench_efficiency *e, char *buf, size_t len) {
  char lo[32], hi[32];
  fmt_percent(e->efficiency_ci_low, lo, sizeof(lo));
  fmt_percent(e->efficiency_ci_high, hi, sizeof(hi));
  if (isnan(e->efficiency_ci_low))
    snprintf(buf, len, "%.2f of %.2f", e->sum, e->bound);
  else
    snprintf(buf, len, "%.2f of %.2f; 95%% CI %s-%s", e->sum, e->bound, lo, hi);
}

/* An efficiency for a table cell: never a figure above 100% on its own. */
static void fmt_efficiency_cell(const struct placer_bench_efficiency *e, char *buf, size_t len) {
  if (e->bound_exceeded)
    snprintf(buf, len, "exceeded");
  else if (e->efficiency > 1.0)
    snprintf(buf, len, "at bound");
  else
    fmt_percent(e->efficiency, buf, len);
}

/* The balance point of a placement sweep, in a sentence. */
static void split_balance_line(const struct placer_bench_results *r, const struct placer_bench_split_step *steps,
                               size_t n, FILE *out) {
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  char label[128];
  workload_label(w, label, sizeof(label));
  struct placer_bench_split_balance b;
  placer_bench_split_balance(r, steps, n, &b);
  double pct = r->storage_min_fraction * 100;
  if (b.found) {
    const struct placer_bench_split_step *s = &steps[b.step];
    char kept[32], own[32], cores[32];
    fmt_percent(s->eff.neighbour_kept, kept, sizeof(kept));
    fmt_percent(s->eff.neighbour_kept_own, own, sizeof(own));
    fmt_fixed(s->eff.storage_role_cores, "%.2f", cores, sizeof(cores));
    fprintf(out,
            "Balance point: %s is the least CPU for storage that keeps >= %g%% of its unconstrained %s %s "
            "(%s keeps %.0f%%, %s using %s cores); there %s keep %s of their unconstrained solo rate (%s of their "
            "solo rate on %s's own CPUs).\n",
            r->variants[s->variant], pct, label, metric_name(w), r->variants[s->variant], 100 * s->eff.storage_kept,
            r->storage_role, cores, neighbours(r), kept, own, r->variants[s->variant]);
  } else {
    fprintf(out, "Balance point: no step keeps >= %g%% of the unconstrained %s %s.\n", pct, label, metric_name(w));
  }
}

/* A placement sweep: per step storage, neighbours, both fractions, the
 * efficiency, and the balance point. */
static int split_table(const struct placer_bench_results *r, FILE *out) {
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n == 0)
    return 0;
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  char label[128], a[32];
  workload_label(w, label, sizeof(label));
  const char *unit = strcmp(r->split_parameter, "quota") == 0   ? "cores (quota)"
                     : strcmp(r->split_parameter, "cores") == 0 ? "whole cores"
                                                                : "storage:neighbours weight";
  fprintf(out,
          "\nSplit sweep: storage %s, %s, medians%s%s%s (kept: storage against %s alone, %s against %s's solo "
          "rate; nb own: against the step's own solo rate; bound: see Efficiency)\n",
          unit, label, r->split_from[0] ? ", steps made from " : "", r->split_from, r->split_from[0] ? "" : "",
          r->variants[0], neighbours(r), r->variants[0]);
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  static const char *const heads[] = { "step",      "alone",      "+neighbours",  "p99 ms",  "storage cores",
                                       "osd cores", "neighbours", "storage kept", "nb kept", "nb own",
                                       "sum",       "bound",      "efficiency" };
  for (size_t i = 0; i < N_OF(heads); i++) {
    if (i == 0)
      placer_table_cell_l(&t, "%s", heads[i]);
    else
      placer_table_cell_r(&t, "%s", heads[i]);
  }
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_split_step *s = &steps[i];
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", r->variants[s->variant]);
    fmt_rate(display(w, s->alone), a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_rate(display(w, s->with_neighbours), a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_ms(s->p99_ns, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_fixed(s->eff.storage_cores, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_fixed(s->eff.storage_role_cores, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_rate(s->neighbour_rate, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_percent(s->eff.storage_kept, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_percent(s->eff.neighbour_kept, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_percent(s->eff.neighbour_kept_own, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_fixed(s->eff.sum, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_fixed(s->eff.bound, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    fmt_efficiency_cell(&s->eff, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
  }
  int rc = placer_table_print(&t, out);
  split_balance_line(r, steps, n, out);
  return rc;
}

/* The model, stated, then per variant its efficiency against the bound; a
 * variant above the bound beyond its CI is the model failing, said so with
 * the figures that show where. */
static int efficiency_lines(const struct placer_bench_results *r, FILE *out) {
  int cond = placer_bench_neighbour_condition(r);
  if (cond < 0 || !(r->node_cpus > 0))
    return 0;
  char label[128], per_op[32], c_alone[32];
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  workload_label(w, label, sizeof(label));
  struct placer_bench_efficiency e0;
  placer_bench_efficiency(r, 0, (size_t)cond, r->sweep_workload, &e0);
  fmt_fixed(e0.storage_cpu_s_per_op * 1e3 * (placer_bench_workload_uses_bandwidth(w) ? 1e6 : 1.0), "%.3g", per_op,
            sizeof(per_op));
  fmt_fixed(e0.storage_cores_alone, "%.2f", c_alone, sizeof(c_alone));
  fprintf(out,
          "\nEfficiency against the CPU model's bound (%s, %s). The model, from each side's measured CPU per\n"
          "operation: storage takes %s ms of CPU per %s (%s alone: %s cores, every role but %s's); %s take\n"
          "their cores / their rate in each cell. Storage keeping s of %s's alone rate needs s x %s cores; of the\n"
          "%g CPUs that leaves %s enough to keep at most n_max = (%g - s x %s) / d of their unconstrained solo\n"
          "rate (d: the cores that rate needs; n_max at most 1). Efficiency = (s + n) / (s + n_max), n against\n"
          "%s's solo rate; 95%% CI by bootstrap over the runs:\n",
          label, r->conditions[cond].name, per_op, placer_bench_workload_uses_bandwidth(w) ? "MB" : "I/O",
          r->variants[0], c_alone, neighbours(r), neighbours(r), r->variants[0], c_alone, r->node_cpus, neighbours(r),
          r->node_cpus, c_alone, r->variants[0]);
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_efficiency e;
    placer_bench_efficiency(r, v, (size_t)cond, r->sweep_workload, &e);
    char eff[32], s[32], n[32], ci[96], demand[32];
    fmt_percent(e.efficiency, eff, sizeof(eff));
    fmt_fixed(e.storage_kept, "%.2f", s, sizeof(s));
    fmt_fixed(e.neighbour_kept, "%.2f", n, sizeof(n));
    fmt_fixed(e.neighbour_demand_cores, "%.2f", demand, sizeof(demand));
    fmt_eff_ci(&e, ci, sizeof(ci));
    if (e.bound_exceeded) {
      char used[32], model[32], nb_used[32];
      fmt_fixed(e.storage_cores, "%.2f", used, sizeof(used));
      fmt_fixed(e.storage_kept * e.storage_cores_alone, "%.2f", model, sizeof(model));
      fmt_fixed(e.neighbour_cores, "%.2f", nb_used, sizeof(nb_used));
      fprintf(out,
              "  %s: the CPU model's bound exceeded by %.0f%% (storage %s + %s %s = %s): storage used %s cores (the "
              "model: %s), %s %s (d = %s)\n",
              r->variants[v], 100 * (e.efficiency - 1), s, neighbours(r), n, ci, used, model, neighbours(r), nb_used,
              demand);
    } else if (e.efficiency > 1.0) {
      fprintf(out, "  %s: at the CPU model's bound within noise (%s; storage %s + %s %s = %s)\n", r->variants[v], eff,
              s, neighbours(r), n, ci);
    } else {
      fprintf(out, "  %s: %s of the bound (storage %s + %s %s = %s; d = %s cores)\n", r->variants[v], eff, s,
              neighbours(r), n, ci, demand);
    }
  }
  return 0;
}

/* What the statistics conclude: every change cell, significant or not;
 * then the neighbour-protection effect, with what each side keeps of the
 * unconstrained solo rate (and, named apart, of its own). */
static int verdict_lines(const struct placer_bench_results *r, FILE *out) {
  struct placer_bench_verdict *all = NULL;
  size_t n = placer_bench_verdicts(r, &all);
  if (n == (size_t)-1)
    return -1;
  if (r->n_variants < 2)
    return 0;
  fprintf(out, "\nVerdict (p < %g in the paired or the unpaired test):\n", r->alpha);
  size_t conclusive = 0, total = 0;
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_verdict *v = &all[i];
    if (v->neighbours)
      continue;
    total++;
    conclusive += v->significant;
    char ch[32], pp[32];
    placer_bench_format_change(v->change, ch, sizeof(ch));
    placer_bench_format_p(v->p_value, pp, sizeof(pp));
    fprintf(out, "  %-12s %s vs %s, %s, %s: %s %s (%s)\n", v->significant ? "significant" : "inconclusive",
            r->variants[v->variant], r->variants[0], r->conditions[v->condition].name, r->workloads[v->workload].name,
            ch, pp, v->paired ? "paired" : "unpaired");
  }
  fprintf(out, "  %zu of %zu storage cells conclusive.\n", conclusive, total);
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_verdict *v = &all[i];
    if (!v->neighbours)
      continue;
    double s, kept_a, kept_b, own_a, own_b;
    placer_bench_kept(r, 0, v->condition, v->workload, &s, &kept_a, &own_a);
    placer_bench_kept(r, v->variant, v->condition, v->workload, &s, &kept_b, &own_b);
    char ch[32], pp[32], ka[32], kb[32], ob[32];
    placer_bench_format_change(v->change, ch, sizeof(ch));
    placer_bench_format_p(v->p_value, pp, sizeof(pp));
    fmt_percent(kept_b, kb, sizeof(kb));
    fmt_percent(kept_a, ka, sizeof(ka));
    fmt_percent(own_b, ob, sizeof(ob));
    fprintf(out,
            "  %-12s %s rate, %s vs %s, %s, during %s: %s %s (%s; of %s's solo rate %s keeps %s, %s %s; of its "
            "own on its CPUs %s)\n",
            v->significant ? "significant" : "inconclusive", neighbours(r), r->variants[v->variant], r->variants[0],
            r->conditions[v->condition].name, r->workloads[v->workload].name, ch, pp, v->paired ? "paired" : "unpaired",
            r->variants[0], r->variants[v->variant], kb, r->variants[0], ka, ob);
  }
  free(all);
  return 0;
}

static int sweep_table(const struct placer_bench_results *r, FILE *out) {
  int alone = placer_bench_alone_condition(r);
  if (!r->sweep)
    return 0;
  size_t w = r->sweep_workload;
  const struct placer_bench_workload *wl = &r->workloads[w];
  /* Steps in ascending level (insertion sort of condition indexes). */
  size_t steps[PLACER_BENCH_MAX], n = 0;
  for (size_t c = 0; c < r->n_conditions && n < PLACER_BENCH_MAX; c++) {
    size_t j = n++;
    while (j > 0 && r->conditions[steps[j - 1]].neighbour_level > r->conditions[c].neighbour_level) {
      steps[j] = steps[j - 1];
      j--;
    }
    steps[j] = c;
  }
  struct placer_table t = { 0 };
  char label[128], a[32];
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t v = 0; v < r->n_variants; v++) {
    placer_table_cell_l(&t, "%s", r->variants[v]);
    placer_table_cell_r(&t, "%s", "");
    placer_table_cell_r(&t, "%s", "");
  }
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", r->level_unit[0] ? r->level_unit : "level");
  for (size_t v = 0; v < r->n_variants; v++) {
    placer_table_cell_r(&t, "%s", metric_name(wl));
    placer_table_cell_r(&t, "storage");
    placer_table_cell_r(&t, "neighbours");
  }
  for (size_t i = 0; i < n; i++) {
    size_t c = steps[i];
    placer_table_row(&t, false);
    if ((int)c == alone)
      placer_table_cell_l(&t, "%g (alone)", r->conditions[c].neighbour_level);
    else
      placer_table_cell_l(&t, "%g", r->conditions[c].neighbour_level);
    for (size_t v = 0; v < r->n_variants; v++) {
      struct placer_bench_cell_stats s, base;
      placer_bench_cell_stats(r, v, c, w, &s);
      fmt_rate(display(wl, s.main.median), a, sizeof(a));
      placer_table_cell_r(&t, "%s", a);
      if (alone >= 0) { /* against the unconstrained baseline, variant 0 (placer_bench_kept) */
        placer_bench_cell_stats(r, 0, alone, w, &base);
        fmt_percent(placer_bench_ratio(s.main.median, base.main.median), a, sizeof(a));
      } else {
        snprintf(a, sizeof(a), DASH);
      }
      placer_table_cell_r(&t, "%s", a);
      fmt_percent(placer_bench_ratio(s.neighbour_rate.median, placer_bench_solo_median(r, 0, c)), a, sizeof(a));
      placer_table_cell_r(&t, "%s", (int)c == alone ? DASH : a);
    }
  }
  char bs[32];
  placer_bench_format_block_size(wl->block_size_bytes, bs, sizeof(bs));
  snprintf(label, sizeof(label), "%s %s %s", bs, wl->pattern, metric_name(wl));
  fprintf(out, "\nSweep: %s as %s grow (storage: %% of %s's median alone; %s: %% of their solo rate on %s)\n", label,
          r->level_unit[0] ? r->level_unit : "the neighbours", r->variants[0], neighbours(r), r->variants[0]);
  int rc = placer_table_print(&t, out);
  balance_sentence(r, label, out);
  return rc;
}

/* Roles in order of first appearance over the done runs. */
static size_t collect_roles(const struct placer_bench_results *r, const char **roles, size_t max) {
  size_t n = 0, total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  for (size_t i = 0; i < total; i++)
    for (size_t k = 0; r->runs[i].done && k < r->runs[i].n_roles; k++) {
      const char *role = r->runs[i].roles[k].role;
      size_t j = 0;
      while (j < n && strcmp(roles[j], role) != 0)
        j++;
      if (j == n && n < max)
        roles[n++] = role;
    }
  return n;
}

typedef double (*run_role_fn)(const struct placer_bench_run *, const char *);

static double cell_role_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, run_role_fn fn,
                               const char *role) {
  double values[PLACER_BENCH_MAX];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < PLACER_BENCH_MAX; k++) {
    double x = fn(placer_bench_results_run_const(r, v, c, w, k), role);
    if (!isnan(x))
      values[n++] = x;
  }
  return placer_stats_median(values, n);
}

/* Mean busy fraction over the cores, and the busiest core, averaged over the
 * cell's done runs. */
static void cell_cores(const struct placer_bench_results *r, size_t v, size_t c, size_t w, double *mean, int *busiest,
                       double *busiest_value) {
  *mean = *busiest_value = NAN;
  *busiest = -1;
  size_t n_cpus = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    if (run->done && run->n_cpus > n_cpus)
      n_cpus = run->n_cpus;
  }
  double *sum = calloc(n_cpus + 1, sizeof(*sum));
  size_t *count = calloc(n_cpus + 1, sizeof(*count));
  for (size_t k = 0; sum && count && k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    for (size_t i = 0; run->done && i < run->n_cpus; i++)
      if (!isnan(run->cpu_busy[i])) {
        sum[i] += run->cpu_busy[i];
        count[i]++;
      }
  }
  double total = 0;
  size_t cores = 0;
  for (size_t i = 0; sum && count && i < n_cpus; i++) {
    if (count[i] == 0)
      continue;
    double avg = sum[i] / (double)count[i];
    total += avg;
    cores++;
    if (*busiest < 0 || avg > *busiest_value) {
      *busiest = (int)i;
      *busiest_value = avg;
    }
  }
  if (cores)
    *mean = total / (double)cores;
  free(sum);
  free(count);
}

/* The first three cells of a per-cell row: "4K randwrite", "alone", "pinned". */
static void cell_label_cells(struct placer_table *t, const struct placer_bench_results *r, size_t v, size_t c,
                             size_t w) {
  char label[128];
  workload_label(&r->workloads[w], label, sizeof(label));
  placer_table_row(t, false);
  placer_table_cell_l(t, "%s", label);
  placer_table_cell_l(t, "%s", r->conditions[c].name);
  placer_table_cell_l(t, "%s", r->variants[v]);
}

static void blank_label_cells(struct placer_table *t) {
  placer_table_row(t, false);
  for (int i = 0; i < 3; i++)
    placer_table_cell_l(t, "%s", "");
}

/* The storage daemons' cost per client IO and how busy the machine was. */
static int cost_table(const struct placer_bench_results *r, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  blank_label_cells(&t);
  placer_table_cell_r(&t, "%s ms CPU/IO", r->storage_role[0] ? r->storage_role : "storage");
  placer_table_cell_r(&t, "write amp");
  placer_table_cell_r(&t, "cores busy");
  placer_table_cell_r(&t, "busiest core");
  placer_table_cell_r(&t, "%s local mem", r->storage_role[0] ? r->storage_role : "storage");
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        struct placer_bench_cell_stats s;
        placer_bench_cell_stats(r, v, c, w, &s);
        cell_label_cells(&t, r, v, c, w);
        fmt_fixed(s.storage_cpu_ms_per_io.median, "%.3g", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        fmt_fixed(s.write_amplification.median, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        double mean, busiest_value;
        int busiest;
        cell_cores(r, v, c, w, &mean, &busiest, &busiest_value);
        fmt_percent(mean, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        fmt_percent(busiest_value, a, sizeof(a));
        if (busiest >= 0)
          placer_table_cell_r(&t, "cpu%d %s", busiest, a);
        else
          placer_table_cell_r(&t, DASH);
        fmt_local(cell_role_median(r, v, c, w, placer_bench_run_role_local_mem, r->storage_role), a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
  fprintf(out, "\nCost (medians over repeats; cores busy = mean load of the cores; local mem = share of the "
               "least local instance's resident memory on its group's NUMA nodes)\n");
  return placer_table_print(&t, out);
}

/* CPU per role, one column per role: narrow enough for a terminal. */
static int role_cores_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  blank_label_cells(&t);
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "%s", roles[i]);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        cell_label_cells(&t, r, v, c, w);
        for (size_t i = 0; i < n_roles; i++) {
          fmt_fixed(cell_role_median(r, v, c, w, placer_bench_run_role_cores, roles[i]), "%.2f", a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
  fprintf(out, "\nCores used per role (CPU time / run time, medians over repeats)\n");
  return placer_table_print(&t, out);
}

/* Memory locality per role: the least local instance's share of resident
 * memory on its group's NUMA nodes, sampled at the end of each run. */
static int role_local_mem_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles,
                                FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  blank_label_cells(&t);
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "%s", roles[i]);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        cell_label_cells(&t, r, v, c, w);
        for (size_t i = 0; i < n_roles; i++) {
          fmt_local(cell_role_median(r, v, c, w, placer_bench_run_role_local_mem, roles[i]), a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
  fprintf(out, "\nLocal memory per role (share of the least local instance's resident memory on its group's NUMA "
               "nodes at the end of each run, medians over repeats)\n");
  return placer_table_print(&t, out);
}

/* Peak RSS is a process's high-water mark since it started, so it is given
 * once per variant: the largest seen over all its runs. */
static int role_rss_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "%s", roles[i]);
  for (size_t v = 0; v < r->n_variants; v++) {
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", r->variants[v]);
    for (size_t i = 0; i < n_roles; i++) {
      double peak = NAN;
      for (size_t w = 0; w < r->n_workloads; w++)
        for (size_t c = 0; c < r->n_conditions; c++)
          for (size_t k = 0; k < r->repeats; k++) {
            const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
            double x = run->done ? placer_bench_run_role_peak_rss(run, roles[i]) : NAN;
            if (!isnan(x) && (isnan(peak) || x > peak))
              peak = x;
          }
      fmt_bytes(peak, a, sizeof(a));
      placer_table_cell_r(&t, "%s", a);
    }
  }
  fprintf(out, "\nPeak RSS per role (largest over the variant's runs)\n");
  return placer_table_print(&t, out);
}

static int role_tables(const struct placer_bench_results *r, FILE *out) {
  const char *roles[32];
  size_t n_roles = collect_roles(r, roles, 32);
  if (n_roles == 0)
    return 0;
  return role_cores_table(r, roles, n_roles, out) | role_local_mem_table(r, roles, n_roles, out) |
         role_rss_table(r, roles, n_roles, out);
}

struct thread_share {
  const char *instance, *thread;
  double share;
};

static int cmp_share(const void *pa, const void *pb) {
  const struct thread_share *a = pa, *b = pb;
  if (a->share != b->share)
    return a->share > b->share ? -1 : 1;
  int c = strcmp(a->instance, b->instance);
  return c ? c : strcmp(a->thread, b->thread);
}

#define TOP_THREADS 3

/* The busiest threads of a cell: per (instance, thread), the median over the
 * runs that recorded it of its share of one core. */
static size_t cell_threads(const struct placer_bench_results *r, size_t v, size_t c, size_t w,
                           struct thread_share *top) {
  size_t n = 0, cap = 0;
  struct thread_share *all = NULL;
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    for (size_t i = 0; run->done && i < run->n_threads; i++) {
      size_t j = 0;
      while (j < n && !(strcmp(all[j].instance, run->threads[i].instance) == 0 &&
                        strcmp(all[j].thread, run->threads[i].thread) == 0))
        j++;
      if (j < n)
        continue;
      if (n == cap) {
        struct thread_share *bigger = realloc(all, (cap = cap ? 2 * cap : 16) * sizeof(*bigger));
        if (bigger == NULL)
          break;
        all = bigger;
      }
      all[n++] = (struct thread_share){ run->threads[i].instance, run->threads[i].thread, NAN };
    }
  }
  for (size_t j = 0; j < n; j++) {
    double values[PLACER_BENCH_MAX];
    size_t m = 0;
    for (size_t k = 0; k < r->repeats && m < PLACER_BENCH_MAX; k++) {
      const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
      for (size_t i = 0; run->done && run->duration_s > 0 && i < run->n_threads; i++)
        if (strcmp(all[j].instance, run->threads[i].instance) == 0 &&
            strcmp(all[j].thread, run->threads[i].thread) == 0)
          values[m++] = (double)run->threads[i].cpu_ns / 1e9 / run->duration_s;
    }
    all[j].share = m ? placer_stats_median(values, m) : -1;
  }
  if (n)
    qsort(all, n, sizeof(*all), cmp_share);
  size_t kept = 0;
  for (size_t j = 0; j < n && kept < TOP_THREADS; j++)
    if (all[j].share >= 0)
      top[kept++] = all[j];
  free(all);
  return kept;
}

static int threads_table(const struct placer_bench_results *r, FILE *out) {
  size_t total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  bool any = false;
  for (size_t i = 0; i < total && !any; i++)
    any = r->runs[i].done && r->runs[i].n_threads > 0;
  if (!any)
    return 0;
  struct placer_table t = { 0 };
  char label[128], a[32];
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        struct thread_share top[TOP_THREADS];
        size_t n = cell_threads(r, v, c, w, top);
        placer_table_row(&t, false);
        workload_label(&r->workloads[w], label, sizeof(label));
        placer_table_cell_l(&t, "%s", label);
        placer_table_cell_l(&t, "%s", r->conditions[c].name);
        placer_table_cell_l(&t, "%s", r->variants[v]);
        for (size_t i = 0; i < n; i++) {
          fmt_percent(top[i].share, a, sizeof(a));
          cleanup_free char *thread = placer_text_escape(top[i].thread); /* a comm is any 15 bytes */
          placer_table_cell_l(&t, "%s %s %s", top[i].instance, thread ? thread : "?", a);
        }
        if (n == 0)
          placer_table_cell_l(&t, DASH);
      }
  fprintf(out, "\nBusiest threads (share of one core, median over repeats)\n");
  return placer_table_print(&t, out);
}

void placer_bench_report_balance(const struct placer_bench_results *r, FILE *out) {
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n > 0) {
    split_balance_line(r, steps, n, out);
  } else if (r->sweep) {
    const struct placer_bench_workload *wl = &r->workloads[r->sweep_workload];
    char bs[32], label[128];
    placer_bench_format_block_size(wl->block_size_bytes, bs, sizeof(bs));
    snprintf(label, sizeof(label), "%s %s %s", bs, wl->pattern, metric_name(wl));
    balance_sentence(r, label, out);
  }
}

int placer_bench_report(const struct placer_bench_results *r, char **out, struct placer_error **err) {
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
      seen = r->workloads[k].block_size_bytes == r->workloads[w].block_size_bytes;
    if (!seen)
      rc |= block_table(r, r->workloads[w].block_size_bytes, f);
  }
  rc |= interference_table(r, f);
  rc |= sweep_table(r, f);
  rc |= split_table(r, f);
  rc |= efficiency_lines(r, f);
  rc |= verdict_lines(r, f);
  placer_bench_recovery_report(r->recovery, r->variants, f);
  rc |= cost_table(r, f);
  rc |= role_tables(r, f);
  rc |= threads_table(r, f);
  if (fclose(f) != 0 || rc != 0) {
    free(text);
    return placer_error_oom(err, "bench report");
  }
  *out = text;
  return 0;
}

int placer_bench_report_dir(const char *dir, char **out, struct placer_error **err) {
  struct placer_bench_results *r = NULL;
  if (placer_bench_results_load_dir(dir, &r, err) < 0)
    return -1;
  int rc = placer_bench_report(r, out, err);
  placer_bench_results_free(r);
  return rc;
}
