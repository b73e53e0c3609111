/* The CI gate: two results directories of the same study shape (a baseline,
 * a candidate), compared cell by cell (`placer compare A B`, `placer bench
 * --compare A`).  Per cell present in both: the change of the candidate's
 * median against the baseline's, its bootstrap 95% CI and the Mann-Whitney p
 * (the runs of two studies are not paired).  A cell regresses when its main
 * metric (IOPS, MB/s) drops by more than the threshold with p < alpha. */
#ifndef PLACER_BENCH_COMPARE_H
#define PLACER_BENCH_COMPARE_H

#include <stdbool.h>

#include "results/results.h"
#include "lib/error.h"

/* The exit status of a gate that found a regression (CBT's is-regression). */
#define PLACER_BENCH_EXIT_REGRESSION 5

struct placer_bench_gate {
  double threshold; /* 0.05: a drop of more than 5% */
  double alpha;     /* 0.05 */
};

/* Cells are matched by name; a workload of one name that is another in
 * the other results (its pattern or block size, so its metric: IOPS
 * against MB/s) is no cell of both: -1 (PLACER_EXIT_USAGE) naming it. */
int placer_bench_compare_same_cells(const struct placer_bench_results *base, const struct placer_bench_results *cand,
                                    struct placer_error **err);
/* *report: the table and a last line saying which cells regressed; *n_regressed
 * counts them, *n_cells the cells compared.  Fails (PLACER_EXIT_USAGE) when no
 * cell is in both, or when a name stands for another workload in each
 * (placer_bench_compare_same_cells). */
int placer_bench_compare_results(const struct placer_bench_results *base, const struct placer_bench_results *cand,
                                 const struct placer_bench_gate *gate, char **report, size_t *n_regressed,
                                 size_t *n_cells, struct placer_error **err);
/* How two results' studies differ, for a warning: "the titles ('a' and
 * 'b'); variants only in the baseline: pinned; workloads only in the
 * candidate: 4k-randread" (control bytes escaped); NULL when they have the
 * same title, variants and workloads (or out of memory). */
char *placer_bench_compare_differences(const struct placer_bench_results *a, const struct placer_bench_results *b);
/* The same from two results directories (their summary.json); *differences
 * (may be NULL) gets placer_bench_compare_differences(), for the caller to
 * warn with; when no cell is in both, the error says how they differ. */
int placer_bench_compare_dirs(const char *base_dir, const char *cand_dir, const struct placer_bench_gate *gate,
                              char **report, size_t *n_regressed, size_t *n_cells, char **differences,
                              struct placer_error **err);

#endif
