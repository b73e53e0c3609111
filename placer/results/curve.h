/* Response curves (issue #39): storage's throughput and latency percentiles
 * as the load rises step by step (iodepth, numjobs or a fio rate), each step
 * measured over repeats; the knee, the SLO point (the most throughput at which
 * the latency targets hold, interpolated between steps, with a bootstrap CI),
 * per-core figures at it, and the balance point of a CPU split read from the
 * variants' curves (curve-balance.c).  Pure; the definitions are in
 * docs/bench.md, "Response curves and SLOs". */
#ifndef PLACER_CURVE_H
#define PLACER_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "results/slo.h"

/* One run at one step.  NAN: not measured. */
struct placer_curve_sample {
  double throughput;                           /* the main metric: IOPS, or bytes/s */
  double latency_ns[PLACER_SLO_N_PERCENTILES]; /* p50, p99, p99.9 */
  double storage_cores;                        /* the storage roles' CPU during the run, in cores */
};

struct placer_curve_step_input {
  double load; /* what the step sets: iodepth 16, numjobs 4, rate_iops 5000 */
  size_t n;    /* repeats */
  const struct placer_curve_sample *samples;
};

/* The median over the repeats that have the figure, and its 95% CI
 * (placer_stats_bootstrap_median_ci); all NAN when none has it. */
struct placer_curve_estimate {
  size_t n;
  double median, ci_low, ci_high;
};

struct placer_curve_step {
  double load;
  size_t n;
  struct placer_curve_sample *samples; /* the repeats, copied */
  struct placer_curve_estimate throughput, latency_ns[PLACER_SLO_N_PERCENTILES], storage_cores;
};

struct placer_curve {
  char load_name[16]; /* "iodepth", "numjobs", "rate_iops": in sentences */
  size_t n;
  struct placer_curve_step *steps;
};

/* The curve of IN[0..N): at least one step, loads finite, > 0 and strictly
 * increasing, each step at least one repeat, figures >= 0 or NAN.  Bad input
 * (PLACER_EXIT_USAGE) otherwise: "load steps must increase: iodepth 16 after 16". */
int placer_curve_build(const char *load_name, const struct placer_curve_step_input *in, size_t n,
                       struct placer_curve *out, struct placer_error **err);
void placer_curve_free(struct placer_curve *c);

/* ---- the knee ------------------------------------------------------------------ */

/* A segment from one step to the next (medians; steps without throughput
 * or the percentile are skipped) is saturated when the percentile grows by
 * more than LATENCY_GROWTH and, in logarithms, more than ELASTICITY times as
 * much as the throughput does (or the throughput falls):
 *   ln(R1/R0) > ln(1 + latency_growth)  and  ln(R1/R0) > elasticity * max(ln(X1/X0), 0).
 * The knee is the last step before the first saturated segment. */
struct placer_curve_knee_rule {
  enum placer_slo_percentile percentile;
  double latency_growth;
  double elasticity;
};
#define PLACER_CURVE_KNEE_RULE_DEFAULT ((struct placer_curve_knee_rule){ PLACER_SLO_P99, 0.10, 2.0 })

struct placer_curve_knee {
  bool judged;       /* at least one segment had both figures at both ends */
  bool found;        /* a saturated segment: false, the curve did not saturate within its steps */
  size_t step;       /* the knee; without one found, the last step judged (a lower bound) */
  double throughput; /* the knee step's medians */
  double latency_ns;
  double throughput_growth, latency_growth; /* of the first saturated segment: 0.05 = +5% */
};
void placer_curve_knee(const struct placer_curve *c, const struct placer_curve_knee_rule *rule,
                       struct placer_curve_knee *out);

/* ---- the SLO point ------------------------------------------------------------------ */

enum placer_curve_slo_status {
  PLACER_CURVE_SLO_MET,        /* met up to a point of the curve, some step beyond it misses */
  PLACER_CURVE_SLO_ALWAYS_MET, /* met at every step: the last throughput is a lower bound */
  PLACER_CURVE_SLO_NEVER_MET,  /* no step meets it: BEST misses it by MISS */
  PLACER_CURVE_SLO_UNKNOWN,    /* no step has the throughput and the percentiles with a target */
};

/* The most throughput at which every latency target (TARGET_NS[p], NAN: none)
 * holds: over the steps that meet all of them and the points between two
 * steps where the medians cross a target, linearly interpolated (throughput,
 * load and storage cores alike, at the same fraction of the segment).  The
 * CI: the same point of 2000 resampled curves (every step's repeats drawn
 * with replacement; placer_stats_bootstrap_groups_ci), a curve that meets
 * no target counting 0. */
struct placer_curve_slo_point {
  enum placer_curve_slo_status status;
  double throughput, ci_low, ci_high;
  double load;
  double storage_cores;              /* the storage's CPU there, in cores; NAN: not measured */
  size_t lower, upper;               /* the steps around it (equal: at a step) */
  double fraction;                   /* where between them: 0 at LOWER, 1 at UPPER */
  bool interpolated;                 /* strictly between two steps */
  size_t best;                       /* NEVER_MET: the step nearest to the targets */
  double miss;                       /* NEVER_MET: by how much it misses (0.35: its latency is 35% above the target) */
  enum placer_slo_percentile missed; /* NEVER_MET: the percentile that misses most */
  double met_share;                  /* the share of the resampled curves that meet the targets somewhere */
};
/* -1 only when out of memory, or (bad input) when no target is set. */
int placer_curve_slo_point(const struct placer_curve *c, const double target_ns[PLACER_SLO_N_PERCENTILES],
                           struct placer_curve_slo_point *out, struct placer_error **err);
/* One sentence of it, UNIT naming the throughput ("IOPS"): "1234 IOPS at p99
 * <= 2 ms (interpolated between iodepth 8 and 16; 95% CI 1100 to 1300)",
 * "at least 1800 IOPS: p99 <= 2 ms at every step up to iodepth 64 (the SLO
 * was never reached)", "none: p99 2.7 ms at its best step (iodepth 1) misses
 * 2 ms by 35%". */
void placer_curve_slo_describe(const struct placer_curve *c, const struct placer_curve_slo_point *s,
                               const double target_ns[PLACER_SLO_N_PERCENTILES], const char *unit, char *buf,
                               size_t len);

/* Throughput per core at the SLO point, the form the OSD CPU-scaling studies
 * publish: per core used (its storage_cores) and per core allocated
 * (ALLOCATED_CORES, the variant's storage CPU; NAN: unconstrained).  NAN
 * where unknown and when the SLO is never met; LOWER_BOUND when it is
 * always met (the SLO point is itself a lower bound). */
struct placer_curve_per_core {
  double used_cores, per_core_used;
  double allocated_cores, per_core_allocated;
  bool lower_bound;
};
void placer_curve_per_core(const struct placer_curve_slo_point *s, double allocated_cores,
                           struct placer_curve_per_core *out);

/* ---- the balance point from curves (curve-balance.c) ---------------------------------- */

/* A variant of a CPU split with its curve next to the neighbours. */
struct placer_curve_variant {
  const char *name;
  const struct placer_curve *curve;
  double storage_cores_allocated; /* NAN: unconstrained (a reference, not a step of the split) */
  double neighbour_kept, neighbour_kept_ci_low, neighbour_kept_ci_high; /* of their solo rate; NAN: unknown */
};

struct placer_curve_verdict {
  struct placer_curve_slo_point slo;
  bool meets_slo;        /* its SLO point reaches the target load */
  bool keeps_neighbours; /* its neighbours keep >= slo->keep (true without a keep) */
  bool conclusive;       /* both hold for the CIs' low ends too */
  char why[224];         /* "" when both hold; else what it misses and by how much */
};

struct placer_curve_balance {
  double target;         /* the load to hold the SLO at, in the main metric's unit */
  bool target_from_knee; /* at: knee (or not given): the unconstrained variant's knee */
  size_t knee_variant;   /* then, that variant */
  struct placer_curve_knee knee;
  bool found;
  size_t variant; /* the least storage CPU whose curve meets the SLO at TARGET, neighbours kept */
  size_t n;
  struct placer_curve_verdict *verdicts; /* one per variant */
  char summary[480];                     /* the answer in one sentence, also when there is none (the nearest miss) */
};
/* Bad input (PLACER_EXIT_USAGE) when SLO has no storage target, when the
 * target is the knee and no variant is unconstrained or its curve has no
 * step with both figures, or when the unit does not fit (at: 5000 iops for
 * a curve in bytes/s: UNIT_IS_BYTES says which the curves hold). */
int placer_curve_balance(const struct placer_curve_variant *v, size_t n, const struct placer_slo *slo,
                         const struct placer_curve_knee_rule *rule, bool unit_is_bytes, const char *unit,
                         struct placer_curve_balance *out, struct placer_error **err);
void placer_curve_balance_free(struct placer_curve_balance *b);
/* Only the load the SLO must hold at (OUT's target, and with the knee its
 * variant and knee), as placer_curve_balance finds it: for what depends on
 * it before the verdicts (the neighbours' share there). */
int placer_curve_balance_target(const struct placer_curve_variant *v, size_t n, const struct placer_slo *slo,
                                const struct placer_curve_knee_rule *rule, bool unit_is_bytes,
                                struct placer_curve_balance *out, struct placer_error **err);

#endif
