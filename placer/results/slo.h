/* A study's service-level objectives (issue #39's `slo:`): storage's latency
 * targets (p50, p99, p99.9), the load they must hold at (`at: 5000 iops`,
 * `200MiB/s`, or the unconstrained variant's knee) and the neighbours' share
 * (`keep: 90%`).  Pure: each KEY: VALUE parsed from the YAML's scalars;
 * a refusal is one line that the YAML layer prefixes with FILE:LINE:COL. */
#ifndef PLACER_SLO_H
#define PLACER_SLO_H

#include <stdbool.h>
#include <stddef.h>

enum placer_slo_percentile { PLACER_SLO_P50, PLACER_SLO_P99, PLACER_SLO_P999, PLACER_SLO_N_PERCENTILES };
extern const char *const placer_slo_percentile_names[PLACER_SLO_N_PERCENTILES]; /* "p50", "p99", "p99.9" */

enum placer_slo_at {
  PLACER_SLO_AT_NONE,  /* not given: the unconstrained variant's knee */
  PLACER_SLO_AT_KNEE,  /* at: knee */
  PLACER_SLO_AT_IOPS,  /* at: 5000 iops */
  PLACER_SLO_AT_BYTES, /* at: 200MiB/s (bytes per second) */
};

struct placer_slo {
  double storage_ns[PLACER_SLO_N_PERCENTILES]; /* targets; NAN: none */
  enum placer_slo_at at;
  double at_rate; /* IOPS or bytes/s with AT_IOPS, AT_BYTES */
  double keep;    /* the neighbours' share of their solo rate, in (0, 1]; NAN: none */
};

/* No objective at all. */
void placer_slo_init(struct placer_slo *s);
/* KEY: VALUE of slo.SIDE into S: SIDE "storage" takes p50, p99, p99.9 (a
 * latency with its unit: 2ms, 500us; more than 0) and at (a rate with its
 * unit, or knee); SIDE "neighbours" takes keep (a share: 90% or 0.9).  0,
 * or -1 with WHY (one line: "expected a latency with its unit, such as 2ms
 * or 500us, got '2'"). */
int placer_slo_set(struct placer_slo *s, const char *side, const char *key, const char *value, char *why, size_t len);
/* The targets set in TARGET_NS, in words: "p99 <= 2 ms and p99.9 <= 5 ms". */
void placer_slo_targets_text(const double target_ns[PLACER_SLO_N_PERCENTILES], char *buf, size_t len);
/* Is any storage latency target set?  (The SLO point holds all of them.) */
bool placer_slo_storage_set(const struct placer_slo *s);

/* A study's load steps (LOAD_NAME: "iodepth", "numjobs" or "rate_iops") against
 * S: steps strictly increasing, and with rate_iops steps an `at` in IOPS no
 * higher than the last rate (the load cannot reach it).  0, or -1 with WHY
 * naming the step (index from 0) in *BAD_STEP, or N when `at` is the fault.
 * With iodepth or numjobs steps the throughput is known only once measured:
 * the balance point then says the target was above every measured step. */
int placer_slo_check_steps(const struct placer_slo *s, const char *load_name, const double *loads, size_t n,
                           size_t *bad_step, char *why, size_t len);

#endif
