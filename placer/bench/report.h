/* The terminal summary of a bench study, shaped like the tables Ceph engineers
 * trade on the mailing lists: one block per block size, one column group per
 * access pattern, one row per variant, then each variant's change against the
 * baseline variant with its 95% CI and Mann-Whitney p; interference ratios; the
 * sweep and its balance point; CPU, memory and write amplification per role;
 * the busiest threads. Works on partial results: what is missing shows "-". */
#ifndef PLACER_BENCH_REPORT_H
#define PLACER_BENCH_REPORT_H

#include "bench/results.h"
#include "lib/error.h"

/* *out: the whole report, NUL-terminated, caller frees. Byte-identical for the
 * same results (the bootstrap is seeded). */
int placer_bench_report(const struct placer_bench_results *r, char **out, struct placer_error **err);
/* The report of a results directory from its summary.json (`placer bench
 * --report DIR`): the same tables, recomputed from the recorded runs. */
int placer_bench_report_dir(const char *dir, char **out, struct placer_error **err);

/* "4K", "128K", "1M"; "512B" for sizes that are not whole KiB. */
void placer_bench_format_block_size(uint64_t bytes, char *buf, size_t len);

#endif
