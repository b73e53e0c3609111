/* The text report's sweeps (an intensity sweep's table and balance point,
 * a placement sweep's split table), the efficiency against the CPU model's
 * bound and the verdicts (docs/bench.md). */
#include "report/report-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/error.h"
#include "lib/text-table.h"

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
            s, r->variants[0], what, report_neighbours(r), nb);
    return;
  }
  fprintf(out, "%s keeps >= %g%% of %s's %s alone up to %g %s while %s keep >= %g%% of their solo rate there",
          r->variants[order[0]], s, r->variants[0], what, first->level, r->level_unit, report_neighbours(r), nb);
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
  report_fmt_percent(e->efficiency_ci_low, lo, sizeof(lo));
  report_fmt_percent(e->efficiency_ci_high, hi, sizeof(hi));
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
    report_fmt_percent(e->efficiency, buf, len);
}

/* The balance point of a placement sweep, in a sentence. */
static void split_balance_line(const struct placer_bench_results *r, const struct placer_bench_split_step *steps,
                               size_t n, FILE *out) {
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  char label[128];
  report_workload_label(w, label, sizeof(label));
  struct placer_bench_split_balance b;
  placer_bench_split_balance(r, steps, n, &b);
  double pct = r->storage_min_fraction * 100;
  if (b.found) {
    const struct placer_bench_split_step *s = &steps[b.step];
    char kept[32], own[32], cores[32];
    report_fmt_percent(s->eff.neighbour_kept, kept, sizeof(kept));
    report_fmt_percent(s->eff.neighbour_kept_own, own, sizeof(own));
    report_fmt_fixed(s->eff.storage_role_cores, "%.2f", cores, sizeof(cores));
    fprintf(out,
            "Balance point: %s is the least CPU for storage that keeps >= %g%% of its unconstrained %s %s "
            "(%s keeps %.0f%%, %s using %s cores); there %s keep %s of their unconstrained solo rate (%s of their "
            "solo rate on %s's own CPUs).\n",
            r->variants[s->variant], pct, label, report_metric_name(w), r->variants[s->variant],
            100 * s->eff.storage_kept, r->storage_role, cores, report_neighbours(r), kept, own,
            r->variants[s->variant]);
  } else {
    fprintf(out, "Balance point: no step keeps >= %g%% of the unconstrained %s %s.\n", pct, label,
            report_metric_name(w));
  }
}

/* A placement sweep: per step storage, neighbours, both fractions, the
 * efficiency, and the balance point. */
int report_split_table(const struct placer_bench_results *r, FILE *out) {
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n == 0)
    return 0;
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  char label[128], a[32];
  report_workload_label(w, label, sizeof(label));
  const char *unit = strcmp(r->split_parameter, "quota") == 0   ? "cores (quota)"
                     : strcmp(r->split_parameter, "cores") == 0 ? "whole cores"
                                                                : "storage:neighbours weight";
  fprintf(out,
          "\nSplit sweep: storage %s, %s, medians%s%s%s (kept: storage against %s alone, %s against %s's solo "
          "rate; nb own: against the step's own solo rate; bound: see Efficiency)\n",
          unit, label, r->split_from[0] ? ", steps made from " : "", r->split_from, r->split_from[0] ? "" : "",
          r->variants[0], report_neighbours(r), r->variants[0]);
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  static const char *const heads[] = { "step",      "alone",      "+neighbours",  "p99 ms",  "storage cores",
                                       "osd cores", "neighbours", "storage kept", "nb kept", "nb own",
                                       "sum",       "bound",      "efficiency" };
  for (size_t i = 0; i < N_OF(heads); i++) {
    if (i == 0)
      placer_table_cell_l(&t, "%s", heads[i]);
    else if (i == 5) /* the storage role's own: osd, mds */
      placer_table_cell_r(&t, "%s cores", r->storage_role[0] ? r->storage_role : "storage");
    else
      placer_table_cell_r(&t, "%s", heads[i]);
  }
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_split_step *s = &steps[i];
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", r->variants[s->variant]);
    report_fmt_rate(report_display(w, s->alone), a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_rate(report_display(w, s->with_neighbours), a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_ms(s->p99_ns, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_fixed(s->eff.storage_cores, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_fixed(s->eff.storage_role_cores, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_rate(s->neighbour_rate, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_percent(s->eff.storage_kept, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_percent(s->eff.neighbour_kept, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_percent(s->eff.neighbour_kept_own, a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_fixed(s->eff.sum, "%.2f", a, sizeof(a));
    placer_table_cell_r(&t, "%s", a);
    report_fmt_fixed(s->eff.bound, "%.2f", a, sizeof(a));
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
int report_efficiency_lines(const struct placer_bench_results *r, FILE *out) {
  int cond = placer_bench_neighbour_condition(r);
  if (cond < 0 || !(r->node_cpus > 0))
    return 0;
  char label[128], per_op[32], c_alone[32];
  const struct placer_bench_workload *w = &r->workloads[r->sweep_workload];
  report_workload_label(w, label, sizeof(label));
  struct placer_bench_efficiency e0;
  placer_bench_efficiency(r, 0, (size_t)cond, r->sweep_workload, &e0);
  report_fmt_fixed(e0.storage_cpu_s_per_op * 1e3 * (placer_bench_workload_uses_bandwidth(w) ? 1e6 : 1.0), "%.3g",
                   per_op, sizeof(per_op));
  report_fmt_fixed(e0.storage_cores_alone, "%.2f", c_alone, sizeof(c_alone));
  fprintf(out,
          "\nEfficiency against the CPU model's bound (%s, %s). The model, from each side's measured CPU per\n"
          "operation: storage takes %s ms of CPU per %s (%s alone: %s cores, every role but %s's); %s take\n"
          "their cores / their rate in each cell. Storage keeping s of %s's alone rate needs s x %s cores; of the\n"
          "%g CPUs that leaves %s enough to keep at most n_max = (%g - s x %s) / d of their unconstrained solo\n"
          "rate (d: the cores that rate needs; n_max at most 1). Efficiency = (s + n) / (s + n_max), n against\n"
          "%s's solo rate; 95%% CI by bootstrap over the runs:\n",
          label, r->conditions[cond].name, per_op, placer_bench_workload_uses_bandwidth(w) ? "MB" : "I/O",
          r->variants[0], c_alone, report_neighbours(r), report_neighbours(r), r->variants[0], c_alone, r->node_cpus,
          report_neighbours(r), r->node_cpus, c_alone, r->variants[0]);
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_efficiency e;
    placer_bench_efficiency(r, v, (size_t)cond, r->sweep_workload, &e);
    char eff[32], s[32], n[32], ci[96], demand[32];
    report_fmt_percent(e.efficiency, eff, sizeof(eff));
    report_fmt_fixed(e.storage_kept, "%.2f", s, sizeof(s));
    report_fmt_fixed(e.neighbour_kept, "%.2f", n, sizeof(n));
    report_fmt_fixed(e.neighbour_demand_cores, "%.2f", demand, sizeof(demand));
    fmt_eff_ci(&e, ci, sizeof(ci));
    if (e.bound_exceeded) {
      char used[32], model[32], nb_used[32];
      report_fmt_fixed(e.storage_cores, "%.2f", used, sizeof(used));
      report_fmt_fixed(e.storage_kept * e.storage_cores_alone, "%.2f", model, sizeof(model));
      report_fmt_fixed(e.neighbour_cores, "%.2f", nb_used, sizeof(nb_used));
      fprintf(out,
              "  %s: the CPU model's bound exceeded by %.0f%% (storage %s + %s %s = %s): storage used %s cores (the "
              "model: %s), %s %s (d = %s)\n",
              r->variants[v], 100 * (e.efficiency - 1), s, report_neighbours(r), n, ci, used, model,
              report_neighbours(r), nb_used, demand);
    } else if (e.efficiency > 1.0) {
      fprintf(out, "  %s: at the CPU model's bound within noise (%s; storage %s + %s %s = %s)\n", r->variants[v], eff,
              s, report_neighbours(r), n, ci);
    } else {
      fprintf(out, "  %s: %s of the bound (storage %s + %s %s = %s; d = %s cores)\n", r->variants[v], eff, s,
              report_neighbours(r), n, ci, demand);
    }
  }
  return 0;
}

/* What the statistics conclude: every change cell, significant or not;
 * then the neighbour-protection effect, with what each side keeps of the
 * unconstrained solo rate (and, named apart, of its own). */
int report_verdict_lines(const struct placer_bench_results *r, FILE *out) {
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
    report_fmt_percent(kept_b, kb, sizeof(kb));
    report_fmt_percent(kept_a, ka, sizeof(ka));
    report_fmt_percent(own_b, ob, sizeof(ob));
    fprintf(out,
            "  %-12s %s rate, %s vs %s, %s, during %s: %s %s (%s; of %s's solo rate %s keeps %s, %s %s; of its "
            "own on its CPUs %s)\n",
            v->significant ? "significant" : "inconclusive", report_neighbours(r), r->variants[v->variant],
            r->variants[0], r->conditions[v->condition].name, r->workloads[v->workload].name, ch, pp,
            v->paired ? "paired" : "unpaired", r->variants[0], r->variants[v->variant], kb, r->variants[0], ka, ob);
  }
  free(all);
  return 0;
}

int report_sweep_table(const struct placer_bench_results *r, FILE *out) {
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
    placer_table_cell_r(&t, "%s", report_metric_name(wl));
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
      report_fmt_rate(report_display(wl, s.main.median), a, sizeof(a));
      placer_table_cell_r(&t, "%s", a);
      if (alone >= 0) { /* against the unconstrained baseline, variant 0 (placer_bench_kept) */
        placer_bench_cell_stats(r, 0, alone, w, &base);
        report_fmt_percent(placer_bench_ratio(s.main.median, base.main.median), a, sizeof(a));
      } else {
        snprintf(a, sizeof(a), DASH);
      }
      placer_table_cell_r(&t, "%s", a);
      struct placer_bench_share kept; /* each pass against its own solo rate (placer_bench_kept) */
      placer_bench_neighbour_share(r, v, c, w, 0, &kept);
      report_fmt_percent(kept.median, a, sizeof(a));
      placer_table_cell_r(&t, "%s", (int)c == alone ? DASH : a);
    }
  }
  report_workload_metric_label(wl, label, sizeof(label));
  fprintf(out, "\nSweep: %s as %s grow (storage: %% of %s's median alone; %s: %% of their solo rate on %s)\n", label,
          r->level_unit[0] ? r->level_unit : "the neighbours", r->variants[0], report_neighbours(r), r->variants[0]);
  int rc = placer_table_print(&t, out);
  balance_sentence(r, label, out);
  return rc;
}

void placer_bench_report_balance(const struct placer_bench_results *r, FILE *out) {
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n > 0) {
    split_balance_line(r, steps, n, out);
  } else if (r->sweep) {
    const struct placer_bench_workload *wl = &r->workloads[r->sweep_workload];
    char label[128];
    report_workload_metric_label(wl, label, sizeof(label));
    balance_sentence(r, label, out);
  }
}
