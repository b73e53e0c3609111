/* The response curves' part of the reports (issue #39), shared by the text
 * report (report-curves.c's section) and report.html (report-html-curves.c):
 * the cells of a step's row and the sentences of a curve and of the balance
 * point, formatted once, so that the two say the same figures.  Definitions:
 * docs/bench.md, "Response curves and SLOs". */
#ifndef PLACER_REPORT_CURVES_H
#define PLACER_REPORT_CURVES_H

#include <stdio.h>

#include "results/curve-results.h"

/* A step's row: variant (on its first step only), load, the main metric
 * and its CI, p50, p99 and its CI, p99.9, storage cores, the neighbours'
 * share and its CI (alone: "-"). */
#define REPORT_CURVE_COLUMNS 10
extern const char *const report_curve_heads[REPORT_CURVE_COLUMNS];
void report_curve_step_cells(const struct placer_bench_results *r, const struct placer_bench_curve *c, size_t step,
                             char cells[REPORT_CURVE_COLUMNS][80]);
/* "4k-randwrite next to neighbour (IOPS against completion latency as
 * iodepth rises)" */
void report_curve_title(const struct placer_bench_results *r, const char *curve, size_t condition, char *buf,
                        size_t len);
/* A variant's curve in words: its knee, its SLO point, its figures per core
 * there (empty without an SLO). */
void report_curve_knee_text(const struct placer_bench_results *r, const struct placer_bench_curve *c, char *buf,
                            size_t len);
void report_curve_slo_text(const struct placer_bench_curve *c, char *buf, size_t len);
void report_curve_per_core_text(const struct placer_bench_results *r, const struct placer_bench_curve *c, char *buf,
                                size_t len);
/* The balance point from the curves: its sentence, and each variant's
 * verdict ("quota-1 (1 core): meets p99 <= 20 ms at 800 IOPS, the
 * neighbours keep 92% there; conclusive"). */
void report_curve_balance_text(const struct placer_bench_results *r, const struct placer_bench_curve_balance *b,
                               char *buf, size_t len);
void report_curve_verdict_text(const struct placer_bench_results *r, const struct placer_bench_curve_balance *b,
                               size_t variant, char *buf, size_t len);
/* The knee's definition and the SLO's interpolation, as both reports state them. */
extern const char report_curve_definitions[];

#endif
