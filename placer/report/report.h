/* The terminal summary of a bench study, shaped like the tables Ceph engineers
 * trade on the mailing lists: one block per block size, one column group per
 * access pattern, one row per variant, then each variant's change against the
 * baseline variant with its 95% CI and Mann-Whitney p; interference ratios; the
 * sweep and its balance point; CPU, memory and write amplification per role;
 * the busiest threads. Works on partial results: what is missing shows "-". */
#ifndef PLACER_BENCH_REPORT_H
#define PLACER_BENCH_REPORT_H

#include <stdio.h>

#include "results/results.h"
#include "lib/error.h"

/* The report of a results directory from its summary.json: what `placer
 * bench` prints and writes as report.txt at its end, `placer bench --report
 * DIR` prints and `placer report DIR` writes as report/report.txt: the one
 * way the text is made (the CSV files hold the same runs).  *out: the whole
 * report, NUL-terminated, caller frees; byte-identical for the same results
 * (the bootstrap is seeded). */
int placer_bench_report_dir(const char *dir, char **out, struct placer_error **err);
/* The same of results R, with the hardware baseline's lines when
 * HARDWARE_BASELINE (summary.json's, checked; may be NULL); without. */
int placer_bench_report_text(const struct placer_bench_results *r, const json_t *hardware_baseline, char **out,
                             struct placer_error **err);
int placer_bench_report(const struct placer_bench_results *r, char **out, struct placer_error **err);

/* The balance point in words, as the report gives it: a placement sweep's
 * (the least CPU for storage that keeps its minimum fraction), else an
 * intensity sweep's; nothing without a sweep. */
void placer_bench_report_balance(const struct placer_bench_results *r, FILE *out);

/* Where the time went, as the report gives it (report-counters.c): Ceph's
 * counters per cell, medians over the repeats, and the daemons whose
 * counters are missing; nothing when no run has counters. */
void placer_bench_report_where(const struct placer_bench_results *r, FILE *out);

/* A change as the report prints it, "+12.3%" (never "-0.0%"), and a p,
 * "p=0.33", "p=0.083", "p<0.001"; "-" when undefined. */
void placer_bench_format_change(double x, char *buf, size_t len);
void placer_bench_format_p(double p, char *buf, size_t len);

/* "4K", "128K", "1M"; "512B" for sizes that are not whole KiB. */
void placer_bench_format_block_size(uint64_t bytes, char *buf, size_t len);

#endif
