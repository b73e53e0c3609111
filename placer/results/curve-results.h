/* The response curves of a study's results (issue #39): a workload's load
 * steps (the workloads of one curve, "4k-randwrite@iodepth1" ...), per
 * variant and condition, made into curves (curve.c) with their knee, SLO
 * point and per-core figures, and the neighbours' share at each step; the
 * balance point read off the judged workload's curves next to the
 * neighbours (curve-balance.c).  Pure, on the results: the text report,
 * report.html, summary.json and `placer size` read them here, so they say
 * the same.  Definitions: docs/bench.md, "Response curves and SLOs". */
#ifndef PLACER_CURVE_RESULTS_H
#define PLACER_CURVE_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "results/curve.h"
#include "results/results.h"

/* The curves of R: the distinct curve names of its workloads (those with
 * load steps), in the order first seen; NAMES[i] point into R. */
size_t placer_bench_curve_names(const struct placer_bench_results *r, const char **names, size_t max);
/* The workloads of curve NAME, in the order of their load (ascending). */
size_t placer_bench_curve_workloads(const struct placer_bench_results *r, const char *name, size_t *workloads,
                                    size_t max);
/* The workload that stands for curve NAME where one load is judged (the
 * split table, the efficiency): its last step, the most load; -1 when NAME
 * is no curve. */
int placer_bench_curve_last_workload(const struct placer_bench_results *r, const char *name);

/* One variant's curve in one condition. */
struct placer_bench_curve {
  const char *name; /* the curve's ("4k-randwrite"), into the results */
  size_t variant, condition;
  bool built;                                       /* at least one step has a done run */
  struct placer_curve curve;                        /* its steps that have runs */
  size_t step_workload[PLACER_BENCH_MAX];           /* each step's workload */
  struct placer_bench_share kept[PLACER_BENCH_MAX]; /* each step's neighbours' share (NAN alone) */
  struct placer_curve_knee knee;
  bool has_slo;                      /* the results hold a storage latency target */
  struct placer_curve_slo_point slo; /* its SLO point */
  char slo_text[256];                /* placer_curve_slo_describe */
  struct placer_curve_per_core per_core;
};
/* Curve NAME of VARIANT in CONDITION (not built when no step has a run).
 * -1 only when out of memory. */
int placer_bench_curve_get(const struct placer_bench_results *r, const char *name, size_t variant, size_t condition,
                           struct placer_bench_curve *out, struct placer_error **err);
void placer_bench_curve_clear(struct placer_bench_curve *c);

/* The balance point from the judged workload's curves: the sweep's (a
 * curve or one of its steps), else the first curve, next to the first
 * neighbour condition (alone without neighbours), every variant with the
 * CPU it gives storage (NAN: unconstrained) and the neighbours' share
 * where its curve reaches the target load (interpolated between the steps
 * around it, as the SLO point is). */
struct placer_bench_curve_balance {
  bool computed; /* an SLO with a storage target, and a curve */
  const char *curve;
  size_t condition;
  struct placer_curve_balance balance; /* one verdict per variant */
  struct placer_bench_share kept_at_target[PLACER_BENCH_MAX];
  char why[200]; /* not computed: why ("" without an SLO) */
};
int placer_bench_curve_balance(const struct placer_bench_results *r, struct placer_bench_curve_balance *out,
                               struct placer_error **err);
void placer_bench_curve_balance_clear(struct placer_bench_curve_balance *b);

/* summary.json's derived "curves" (every curve, variant and condition)
 * and "curve_balance" (null without an SLO); NULL out of memory. */
json_t *placer_bench_curves_json(const struct placer_bench_results *r);
json_t *placer_bench_curve_balance_json(const struct placer_bench_results *r);

/* summary.json's "slo": null without one. */
json_t *placer_bench_slo_to_json(const struct placer_slo *slo);
void placer_bench_slo_from_json(const json_t *j, struct placer_slo *out);

#endif
