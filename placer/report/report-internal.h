/* Internal to the text report (report.c, report-format.c, report-sweep.c,
 * report-roles.c): the number formats and labels every section uses, and
 * the sections the driver (report.c) strings together. */
#ifndef PLACER_REPORT_INTERNAL_H
#define PLACER_REPORT_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "report/report.h"

#define DASH "-"

/* report-format.c: IOPS or MB/s; a latency in ms; X by FORMAT; a
 * fraction as a whole percent; a memory locality share; a size; "-" for
 * what is unknown. */
void report_fmt_rate(double x, char *buf, size_t len);
void report_fmt_ms(double ns, char *buf, size_t len);
void report_fmt_fixed(double x, const char *format, char *buf, size_t len);
void report_fmt_percent(double fraction, char *buf, size_t len);
void report_fmt_local(double share, char *buf, size_t len);
void report_fmt_bytes(double bytes, char *buf, size_t len);
/* "IOPS" or "MB/s", and the main metric in those units. */
const char *report_metric_name(const struct placer_bench_workload *w);
double report_display(const struct placer_bench_workload *w, double x);
/* "4K randwrite" (a load step: "4K randwrite iodepth 16"); a condition
 * with its level; who the neighbours are. */
void report_workload_label(const struct placer_bench_workload *w, char *buf, size_t len);
/* The same with its metric's unit: "4K randwrite IOPS", "metadata ops/s". */
void report_workload_metric_label(const struct placer_bench_workload *w, char *buf, size_t len);
void report_condition_label(const struct placer_bench_results *r, size_t c, char *buf, size_t len);
const char *report_neighbours(const struct placer_bench_results *r);
/* Repeats a cell should have: the passes run (dynamic repeats), else the plan. */
size_t report_planned_repeats(const struct placer_bench_results *r);

/* report-sweep.c: the sweeps, the efficiency against the CPU model and
 * the verdicts; report-roles.c: cost, CPU, memory and threads per role,
 * and the hardware baseline's shares.  0, or -1 out of memory. */
int report_sweep_table(const struct placer_bench_results *r, FILE *out);
int report_split_table(const struct placer_bench_results *r, FILE *out);
/* report-curves.c: the response curves, their SLO points and the balance point read off them. */
int report_curves_section(const struct placer_bench_results *r, FILE *out);
int report_efficiency_lines(const struct placer_bench_results *r, FILE *out);
int report_verdict_lines(const struct placer_bench_results *r, FILE *out);
/* report-shares.c: every cell whose neighbours kept more than 100% of the
 * first variant's solo rate, said within noise or not; nothing when none. */
int report_share_lines(const struct placer_bench_results *r, FILE *out);
int report_cost_table(const struct placer_bench_results *r, FILE *out);
int report_role_tables(const struct placer_bench_results *r, FILE *out);
int report_threads_table(const struct placer_bench_results *r, FILE *out);
void report_baseline_lines(const struct placer_bench_results *r, const json_t *hardware_baseline, FILE *out);
/* A new row of a per-cell table and its first three cells: "4K randwrite",
 * "alone", "pinned" (report-roles.c; the where-the-time-went tables too). */
struct placer_table;
void report_cell_label_cells(struct placer_table *t, const struct placer_bench_results *r, size_t v, size_t c,
                             size_t w);
/* report-metadata.c: each operation of a metadata workload per cell;
 * report-counters.c: where the time went (Ceph's counters per cell) and the
 * daemons left out; nothing when no run has them.  0, or -1 out of memory. */
int report_metadata_table(const struct placer_bench_results *r, FILE *out);
int report_where_tables(const struct placer_bench_results *r, FILE *out);

#endif
