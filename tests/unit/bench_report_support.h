/* What the bench report tests share (bench_report_support.c). */
#ifndef PLACER_TEST_BENCH_REPORT_SUPPORT_H
#define PLACER_TEST_BENCH_REPORT_SUPPORT_H

#include <stdbool.h>

#include "results/results.h"

/* RUN's reads and writes as fio gives them: IO in the workload's direction
 * (READS), the other idle; PATH its fio JSON (may be NULL). */
void set_ops(struct placer_bench_run *run, bool reads, const struct placer_bench_op *io, const char *path);
/* TEXT against tests/golden/bench/NAME. */
void check_golden(const char *name, const char *text);
/* R's text report and summary.json (indented, with a final newline); caller frees. */
char *report_of(const struct placer_bench_results *r);
char *json_of(const struct placer_bench_results *r);
/* R's report against golden/bench/NAME.txt (and its summary.json against
 * NAME.json with JSON_GOLDEN), rendered twice the same; R is freed. */
void golden_case(const char *name, struct placer_bench_results *r, bool json_golden);
/* R as a recorded results directory, tests/fixtures/results/NAME/: its
 * summary.json, and with Ceph's counters its ceph-counters.csv. */
void check_fixture(const char *name, const struct placer_bench_results *r);

#endif
