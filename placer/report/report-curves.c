/* The text report's response curves (report-curves.h): per curve and
 * condition a table of every variant's steps with their CIs, each
 * variant's knee, SLO point and figures per core, then the balance point
 * read off the curves.  The cells and sentences are report.html's too. */
#include "report/report-curves.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/text-table.h"
#include "report/report-internal.h"

const char *const report_curve_heads[REPORT_CURVE_COLUMNS] = {
  "variant", "load", "", "95% CI", "p50 ms", "p99 ms", "95% CI", "p99.9 ms", "storage cores", "nb kept",
};

const char report_curve_definitions[] =
    "Medians over the repeats at each load step, with the bootstrap 95% CI of the median. The knee: the last step "
    "before the first segment where p99 grows by more than 10% and, in logarithms, more than twice as much as the "
    "throughput (or the throughput falls): past it, added load turns into latency. The SLO point: the most "
    "throughput at which every latency target holds, linearly interpolated between the two steps where the medians "
    "cross a target (said so), its CI the same point of 2000 resampled curves. Per core: that throughput over the "
    "storage CPU used there and over the CPU the variant gives storage.";

/* The curve's unit: the results' main metric (IOPS, or MB/s). */
static const char *unit_of(const struct placer_bench_results *r, const struct placer_bench_curve *c) {
  return report_metric_name(&r->workloads[c->step_workload[0]]);
}

static void fmt_ci(double lo, double hi, void (*fmt)(double, char *, size_t), char *buf, size_t len) {
  char a[32], b[32];
  if (isnan(lo) || isnan(hi)) {
    snprintf(buf, len, DASH);
    return;
  }
  fmt(lo, a, sizeof(a));
  fmt(hi, b, sizeof(b));
  snprintf(buf, len, "%s-%s", a, b);
}

void report_curve_step_cells(const struct placer_bench_results *r, const struct placer_bench_curve *c, size_t step,
                             char cells[REPORT_CURVE_COLUMNS][80]) {
  const struct placer_curve_step *st = &c->curve.steps[step];
  snprintf(cells[0], 80, "%s", step == 0 ? r->variants[c->variant] : "");
  snprintf(cells[1], 80, "%g", st->load);
  report_fmt_rate(st->throughput.median, cells[2], 80);
  fmt_ci(st->throughput.ci_low, st->throughput.ci_high, report_fmt_rate, cells[3], 80);
  report_fmt_ms(st->latency_ns[PLACER_SLO_P50].median, cells[4], 80);
  report_fmt_ms(st->latency_ns[PLACER_SLO_P99].median, cells[5], 80);
  fmt_ci(st->latency_ns[PLACER_SLO_P99].ci_low, st->latency_ns[PLACER_SLO_P99].ci_high, report_fmt_ms, cells[6], 80);
  report_fmt_ms(st->latency_ns[PLACER_SLO_P999].median, cells[7], 80);
  report_fmt_fixed(st->storage_cores.median, "%.2f", cells[8], 80);
  const struct placer_bench_share *k = &c->kept[step];
  if (isnan(k->median)) {
    snprintf(cells[9], 80, DASH);
  } else {
    char m[16], lo[16], hi[16];
    report_fmt_percent(k->median, m, sizeof(m));
    report_fmt_percent(k->ci_low, lo, sizeof(lo));
    report_fmt_percent(k->ci_high, hi, sizeof(hi));
    snprintf(cells[9], 80, "%s (%s-%s)", m, lo, hi);
  }
}

void report_curve_title(const struct placer_bench_results *r, const char *curve, size_t condition, char *buf,
                        size_t len) {
  size_t ws[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_workloads(r, curve, ws, PLACER_BENCH_MAX);
  const struct placer_bench_workload *w = n ? &r->workloads[ws[0]] : NULL;
  bool with = r->conditions[condition].neighbour_level > 0;
  snprintf(buf, len, "%s %s%s (%s against completion latency as %s rises)", curve, with ? "next to " : "",
           with ? r->conditions[condition].name : "alone", w ? report_metric_name(w) : "throughput",
           w ? w->load_name : "the load");
}

void report_curve_knee_text(const struct placer_bench_results *r, const struct placer_bench_curve *c, char *buf,
                            size_t len) {
  const struct placer_curve_knee *k = &c->knee;
  char x[32], p99[32];
  report_fmt_rate(k->throughput, x, sizeof(x));
  report_fmt_ms(k->latency_ns, p99, sizeof(p99));
  if (!k->judged)
    snprintf(buf, len, "knee: - (fewer than two steps with IOPS and p99)");
  else if (k->found)
    snprintf(buf, len, "knee at %s %g: %s %s, p99 %s ms (the next step: %s %+.0f%%, p99 %+.0f%%)", c->curve.load_name,
             c->curve.steps[k->step].load, x, unit_of(r, c), p99, unit_of(r, c), 100 * k->throughput_growth,
             100 * k->latency_growth);
  else
    snprintf(buf, len, "no knee within its steps: at %s %g, %s %s, p99 %s ms, latency had not yet outgrown %s",
             c->curve.load_name, c->curve.steps[k->step].load, x, unit_of(r, c), p99, unit_of(r, c));
}

void report_curve_slo_text(const struct placer_bench_curve *c, char *buf, size_t len) {
  if (!c->has_slo)
    buf[0] = '\0';
  else
    snprintf(buf, len, "SLO point: %s", c->slo_text);
}

void report_curve_per_core_text(const struct placer_bench_results *r, const struct placer_bench_curve *c, char *buf,
                                size_t len) {
  const struct placer_curve_per_core *p = &c->per_core;
  if (!c->has_slo) {
    buf[0] = '\0';
    return;
  }
  if (isnan(p->per_core_used) && isnan(p->per_core_allocated)) {
    snprintf(buf, len, "per core at the SLO point: - (%s)",
             c->slo.status == PLACER_CURVE_SLO_NEVER_MET ? "no step meets the SLO" : "no storage CPU measured");
    return;
  }
  char used[32], per_used[32], per_alloc[32];
  report_fmt_fixed(p->used_cores, "%.2f", used, sizeof(used));
  report_fmt_rate(p->per_core_used, per_used, sizeof(per_used));
  report_fmt_rate(p->per_core_allocated, per_alloc, sizeof(per_alloc));
  const char *unit = unit_of(r, c), *bound = p->lower_bound ? "at least " : "";
  if (isnan(p->allocated_cores))
    snprintf(buf, len,
             "per core at the SLO point: %s%s %s per core used (%s cores); per core allocated: - (unconstrained)",
             bound, per_used, unit, used);
  else
    snprintf(buf, len, "per core at the SLO point: %s%s %s per core used (%s cores), %s%s per core allocated (%g)",
             bound, per_used, unit, used, bound, per_alloc, p->allocated_cores);
}

void report_curve_balance_text(const struct placer_bench_results *r, const struct placer_bench_curve_balance *b,
                               char *buf, size_t len) {
  if (!b->computed) {
    snprintf(buf, len, "Balance point from the curves: none computed: %s", b->why[0] ? b->why : "no SLO");
    return;
  }
  snprintf(buf, len, "Balance point from the curves (%s, %s): %s.", b->curve, r->conditions[b->condition].name,
           b->balance.summary);
}

void report_curve_verdict_text(const struct placer_bench_results *r, const struct placer_bench_curve_balance *b,
                               size_t variant, char *buf, size_t len) {
  const struct placer_curve_verdict *vd = &b->balance.verdicts[variant];
  const struct placer_bench_share *k = &b->kept_at_target[variant];
  char cpus[32], kept[112] = "";
  double given = r->storage_cpus[variant];
  if (isnan(given))
    snprintf(cpus, sizeof(cpus), "unconstrained");
  else
    snprintf(cpus, sizeof(cpus), "%g core%s", given, given == 1 ? "" : "s");
  if (!isnan(k->median) && vd->keeps_neighbours) { /* else WHY says it */
    char m[16], lo[16], hi[16];
    report_fmt_percent(k->median, m, sizeof(m));
    report_fmt_percent(k->ci_low, lo, sizeof(lo));
    report_fmt_percent(k->ci_high, hi, sizeof(hi));
    snprintf(kept, sizeof(kept), "; the neighbours keep %s (%s-%s) there", m, lo, hi);
  }
  if (vd->meets_slo && vd->keeps_neighbours)
    snprintf(buf, len, "%s (%s): meets it (%s)%s; %s", r->variants[variant], cpus,
             vd->slo.interpolated ? "interpolated" : "at a step", kept,
             vd->conclusive ? "conclusive: the CIs' low ends hold too" : "not conclusive: a CI reaches below");
  else
    snprintf(buf, len, "%s (%s): %s%s", r->variants[variant], cpus, vd->why, kept);
}

/* One curve in one condition: its table and each variant's sentences. */
static int curve_block(const struct placer_bench_results *r, const char *name, size_t cond, FILE *out) {
  struct placer_bench_curve cs[PLACER_BENCH_MAX];
  size_t nv = r->n_variants < PLACER_BENCH_MAX ? r->n_variants : PLACER_BENCH_MAX, built = 0;
  int rc = 0;
  for (size_t v = 0; v < nv; v++) {
    if (rc == 0)
      rc = placer_bench_curve_get(r, name, v, cond, &cs[v], NULL);
    else
      cs[v] = (struct placer_bench_curve){ 0 };
    built += rc == 0 && cs[v].built;
  }
  char title[256], cells[REPORT_CURVE_COLUMNS][80], line[400];
  if (rc == 0 && built > 0) {
    report_curve_title(r, name, cond, title, sizeof(title));
    fprintf(out, "\n%s\n", title);
    struct placer_table t = { 0 };
    placer_table_row(&t, false);
    for (size_t i = 0; i < REPORT_CURVE_COLUMNS; i++) {
      const char *head = i == 1 ? cs[0].curve.load_name : i == 2 ? unit_of(r, &cs[0]) : report_curve_heads[i];
      if (i == 0)
        placer_table_cell_l(&t, "%s", head);
      else
        placer_table_cell_r(&t, "%s", head);
    }
    for (size_t v = 0; v < nv; v++)
      for (size_t s = 0; cs[v].built && s < cs[v].curve.n; s++) {
        report_curve_step_cells(r, &cs[v], s, cells);
        placer_table_row(&t, false);
        for (size_t i = 0; i < REPORT_CURVE_COLUMNS; i++) {
          if (i == 0)
            placer_table_cell_l(&t, "%s", cells[i]);
          else
            placer_table_cell_r(&t, "%s", cells[i]);
        }
      }
    rc = placer_table_print(&t, out);
    for (size_t v = 0; v < nv; v++) {
      if (!cs[v].built)
        continue;
      fprintf(out, "  %s:\n", r->variants[v]);
      report_curve_knee_text(r, &cs[v], line, sizeof(line));
      fprintf(out, "    %s\n", line);
      report_curve_slo_text(&cs[v], line, sizeof(line));
      if (line[0])
        fprintf(out, "    %s\n", line);
      report_curve_per_core_text(r, &cs[v], line, sizeof(line));
      if (line[0])
        fprintf(out, "    %s\n", line);
    }
  }
  for (size_t v = 0; v < nv; v++)
    placer_bench_curve_clear(&cs[v]);
  return rc;
}

int report_curves_section(const struct placer_bench_results *r, FILE *out) {
  const char *names[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_names(r, names, PLACER_BENCH_MAX);
  if (n == 0)
    return 0;
  fprintf(out, "\nResponse curves. %s\n", report_curve_definitions);
  if (placer_slo_storage_set(&r->slo)) {
    char targets[128];
    placer_slo_targets_text(r->slo.storage_ns, targets, sizeof(targets));
    fprintf(out, "SLO: %s", targets);
    if (!isnan(r->slo.keep))
      fprintf(out, ", the neighbours keeping %.0f%% of their solo rate", 100 * r->slo.keep);
    fputs(".\n", out);
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n; i++)
    for (size_t c = 0; rc == 0 && c < r->n_conditions; c++)
      rc = curve_block(r, names[i], c, out);
  if (rc < 0)
    return -1;
  struct placer_bench_curve_balance b;
  if (placer_bench_curve_balance(r, &b, NULL) < 0)
    return -1;
  if (b.computed || b.why[0]) {
    char line[512];
    report_curve_balance_text(r, &b, line, sizeof(line));
    fprintf(out, "\n%s\n", line);
    for (size_t v = 0; b.computed && v < b.balance.n; v++) {
      report_curve_verdict_text(r, &b, v, line, sizeof(line));
      fprintf(out, "  %s\n", line);
    }
  }
  placer_bench_curve_balance_clear(&b);
  return 0;
}
