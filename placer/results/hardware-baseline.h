/* The hardware baseline of a study (summary.json's hardware_baseline: the
 * same workloads on a local file or device, no Ceph, not placed) against
 * its results: what the hardware did for a workload, and the share of it
 * each variant delivers alone.  Pure; bench writes the shares into
 * summary.json and the text report prints them, from one computation. */
#ifndef PLACER_BENCH_HARDWARE_BASELINE_H
#define PLACER_BENCH_HARDWARE_BASELINE_H

#include <jansson.h>
#include <stdbool.h>

#include "results/results.h"

/* The hardware's main metric for workload W of R (its reads' and writes'
 * IOPS, or bytes/s where W is judged in MB/s); *FOUND false (NAN) when the
 * baseline HW (checked with summary.json: placer_bench_results_check) did
 * not run it. */
double placer_bench_baseline_metric(const json_t *hw, const struct placer_bench_workload *w, bool *found);
/* Variant V's median alone on workload W over the hardware's; NAN when
 * either is missing. */
double placer_bench_baseline_share(const json_t *hw, const struct placer_bench_results *r, size_t v, size_t w);
/* summary.json's hardware_baseline.shares_alone: every variant x workload,
 * { variant, workload, share (null when unknown) }; NULL out of memory. */
json_t *placer_bench_baseline_shares(const json_t *hw, const struct placer_bench_results *r);

#endif
