/* The text report's number formats and labels (report-internal.h), and the
 * public ones of report.h. */
#include "report/report-internal.h"

#include <math.h>
#include <stdio.h>

#include "lib/units.h"

/* --- number formats ------------------------------------------------------------ */

void placer_bench_format_block_size(uint64_t bytes, char *buf, size_t len) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, len, "%lluK", (unsigned long long)(bytes >> 10));
  else
    snprintf(buf, len, "%lluB", (unsigned long long)bytes);
}

/* IOPS or MB/s: whole numbers from 100 up, then one or two decimals. */
void report_fmt_rate(double x, char *buf, size_t len) {
  if (isnan(x))
    snprintf(buf, len, DASH);
  else if (x >= 99.5)
    snprintf(buf, len, "%.0f", x);
  else if (x >= 9.995)
    snprintf(buf, len, "%.1f", x);
  else
    snprintf(buf, len, "%.2f", x);
}

void report_fmt_ms(double ns, char *buf, size_t len) {
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

void report_fmt_fixed(double x, const char *format, char *buf, size_t len) {
  if (isnan(x))
    snprintf(buf, len, DASH);
  else
    snprintf(buf, len, format, x);
}

void report_fmt_percent(double fraction, char *buf, size_t len) {
  report_fmt_fixed(fraction * 100.0, "%.0f%%", buf, len);
}

/* A memory locality share: 100% only when all of it is local. */
void report_fmt_local(double share, char *buf, size_t len) {
  if (isnan(share))
    snprintf(buf, len, DASH);
  else if (share >= 1.0)
    snprintf(buf, len, "100%%");
  else
    snprintf(buf, len, "%.0f%%", share > 0.99 ? 99.0 : share * 100.0);
}

void report_fmt_bytes(double bytes, char *buf, size_t len) {
  if (isnan(bytes))
    snprintf(buf, len, DASH);
  else
    placer_format_bytes((uint64_t)bytes, buf, len);
}

/* --- labels --------------------------------------------------------------------- */

const char *report_metric_name(const struct placer_bench_workload *w) {
  return placer_bench_metric_unit(w);
}

/* Main metric in display units: IOPS, or MB/s (10^6 bytes/s, as fio prints). */
double report_display(const struct placer_bench_workload *w, double x) {
  return placer_bench_workload_uses_bandwidth(w) ? x / 1e6 : x;
}

void report_workload_label(const struct placer_bench_workload *w, char *buf, size_t len) {
  if (w->kind == PLACER_BENCH_WORKLOAD_METADATA) {
    snprintf(buf, len, "%s", w->name);
    return;
  }
  char bs[32];
  placer_bench_format_block_size(w->block_size_bytes, bs, sizeof(bs));
  if (w->curve)
    snprintf(buf, len, "%s %s %s %g", bs, w->pattern, w->load_name, w->load);
  else
    snprintf(buf, len, "%s %s", bs, w->pattern);
}

void report_workload_metric_label(const struct placer_bench_workload *w, char *buf, size_t len) {
  char label[96];
  report_workload_label(w, label, sizeof(label));
  snprintf(buf, len, "%s %s", label, report_metric_name(w));
}

void report_condition_label(const struct placer_bench_results *r, size_t c, char *buf, size_t len) {
  const struct placer_bench_condition *cond = &r->conditions[c];
  if (cond->neighbour_level > 0 && r->level_unit[0])
    snprintf(buf, len, "%s (%s: %g)", cond->name, r->level_unit, cond->neighbour_level);
  else
    snprintf(buf, len, "%s", cond->name);
}

const char *report_neighbours(const struct placer_bench_results *r) {
  return r->neighbour_name[0] ? r->neighbour_name : "the neighbours";
}

/* Repeats a cell should have: the passes run (dynamic repeats), else the plan. */
size_t report_planned_repeats(const struct placer_bench_results *r) {
  return placer_bench_planned_repeats(r);
}
