/* Response curves (results/curve.h) on synthetic curves whose answers are
 * worked out by hand below: the knee, the SLO point (interpolated and said
 * so, with a CI from the repeats), per-core figures, and the balance point
 * of a CPU split read from the variants' curves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/curve.h"
#include "results/stats.h"
#include "test_support.h"

#define MS 1e6
#define MAX_STEPS 8
#define MAX_REPEATS 5

/* A curve of N steps: LOADS, each step's REPEATS throughputs and p99s
 * (p50 = p99 / 4, p99.9 = 2 x p99, storage cores as given or NAN). */
struct spec {
  size_t n, repeats;
  double load[MAX_STEPS];
  double x[MAX_STEPS][MAX_REPEATS];
  double p99_ms[MAX_STEPS][MAX_REPEATS];
  double cores[MAX_STEPS];
};

static struct placer_curve_sample samples[MAX_STEPS][MAX_REPEATS];

static void build(const struct spec *sp, struct placer_curve *c) {
  struct placer_curve_step_input in[MAX_STEPS];
  for (size_t i = 0; i < sp->n; i++) {
    for (size_t k = 0; k < sp->repeats; k++) {
      double p99 = sp->p99_ms[i][k] * MS;
      samples[i][k] = (struct placer_curve_sample){ .throughput = sp->x[i][k],
                                                    .latency_ns = { p99 / 4, p99, 2 * p99 },
                                                    .storage_cores = sp->cores[i] ? sp->cores[i] : NAN };
    }
    in[i] = (struct placer_curve_step_input){ .load = sp->load[i], .n = sp->repeats, .samples = samples[i] };
  }
  struct placer_error *err = NULL;
  if (placer_curve_build("iodepth", in, sp->n, c, &err) < 0)
    fail_msg("%s", err->msg);
}

/* Every repeat of a step the same: medians exact, CIs of zero width. */
static struct spec exact(size_t n, const double *load, const double *x, const double *p99_ms) {
  struct spec sp = { .n = n, .repeats = 3 };
  for (size_t i = 0; i < n; i++) {
    sp.load[i] = load[i];
    for (size_t k = 0; k < 3; k++) {
      sp.x[i][k] = x[i];
      sp.p99_ms[i][k] = p99_ms[i];
    }
  }
  return sp;
}

static const double p99_2ms[PLACER_SLO_N_PERCENTILES] = { NAN, 2 * MS, NAN };

static void slo(const struct placer_curve *c, const double *target, struct placer_curve_slo_point *s) {
  struct placer_error *err = NULL;
  if (placer_curve_slo_point(c, target, s, &err) < 0)
    fail_msg("%s", err->msg);
}

static void describe_is(const struct placer_curve *c, const struct placer_curve_slo_point *s, const double *target,
                        const char *want) {
  char buf[256];
  placer_curve_slo_describe(c, s, target, "IOPS", buf, sizeof(buf));
  if (strcmp(buf, want) != 0)
    fail_msg("'%s', expected '%s'", buf, want);
}

static bool near(double x, double want) {
  return fabs(x - want) <= 1e-9 * fabs(want) + 1e-9;
}

/* The usual hockey stick: throughput doubles while p99 stays, then stops
 * growing while p99 climbs.  Segment 8 -> 16: throughput +10% (ln 0.095),
 * p99 +86% (ln 0.619 > 2 x 0.095): saturated, so the knee is iodepth 8.
 * p99 <= 2 ms: met at 8 (1.4 ms), missed at 16 (2.6 ms): crossed half way,
 * 6000 + 0.5 x 600 = 6300 IOPS at iodepth 12. */
static const double mono_load[] = { 1, 2, 4, 8, 16, 32 };
static const double mono_x[] = { 1000, 2000, 3800, 6000, 6600, 6700 };
static const double mono_p99[] = { 1.0, 1.05, 1.1, 1.4, 2.6, 5.0 };

static void test_monotone(void **state) {
  struct spec sp = exact(6, mono_load, mono_x, mono_p99);
  for (size_t i = 0; i < 6; i++)
    sp.cores[i] = 0.5 + 0.2 * (double)i; /* 1.1 at iodepth 8, 1.3 at 16 */
  struct placer_curve c;
  build(&sp, &c);
  assert_int_equal(c.n, 6);
  assert_true(c.steps[3].throughput.median == 6000);
  assert_true(c.steps[3].throughput.ci_low == 6000 && c.steps[3].throughput.ci_high == 6000);
  assert_true(c.steps[3].latency_ns[PLACER_SLO_P99].median == 1.4 * MS);
  assert_true(c.steps[3].latency_ns[PLACER_SLO_P50].median == 0.35 * MS);

  struct placer_curve_knee k;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  placer_curve_knee(&c, &rule, &k);
  assert_true(k.judged && k.found);
  assert_int_equal(k.step, 3);
  assert_true(k.throughput == 6000 && k.latency_ns == 1.4 * MS);
  assert_true(near(k.throughput_growth, 0.1) && near(k.latency_growth, 2.6 / 1.4 - 1));
  /* a stricter rule (latency 3x as fast) puts it one step later: 16 -> 32 is +1.5% vs +92% */
  rule.elasticity = 7;
  placer_curve_knee(&c, &rule, &k);
  assert_int_equal(k.step, 4);

  struct placer_curve_slo_point s;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_MET);
  assert_true(s.interpolated);
  assert_int_equal(s.lower, 3);
  assert_int_equal(s.upper, 4);
  assert_true(near(s.fraction, 0.5));
  assert_true(near(s.throughput, 6300));
  assert_true(near(s.load, 12));
  assert_true(near(s.storage_cores, 1.2));
  /* every repeat alike: every resampled curve is this one */
  assert_true(near(s.ci_low, 6300) && near(s.ci_high, 6300));
  assert_true(s.met_share == 1);
  describe_is(&c, &s, p99_2ms, "6300 IOPS at p99 <= 2 ms (interpolated between iodepth 8 and 16; 95% CI 6300 to 6300)");

  struct placer_curve_per_core pc;
  placer_curve_per_core(&s, 2.0, &pc);
  assert_true(near(pc.used_cores, 1.2) && near(pc.per_core_used, 6300 / 1.2));
  assert_true(near(pc.per_core_allocated, 3150));
  assert_false(pc.lower_bound);
  placer_curve_per_core(&s, NAN, &pc); /* unconstrained: nothing allocated to divide by */
  assert_true(isnan(pc.per_core_allocated) && !isnan(pc.per_core_used));

  /* the target exactly at a step: met there, not interpolated */
  const double at_step[PLACER_SLO_N_PERCENTILES] = { NAN, 1.4 * MS, NAN };
  slo(&c, at_step, &s);
  assert_false(s.interpolated);
  assert_true(s.throughput == 6000 && s.load == 8);
  describe_is(&c, &s, at_step, "6000 IOPS at p99 <= 1.4 ms (at iodepth 8; 95% CI 6000 to 6000)");
  placer_curve_free(&c);
}

/* Throughput flat from the first step, p99 doubling each step: the first
 * segment is saturated (the knee is the first step); p99 <= 3 ms crosses
 * half way between 2 ms and 4 ms, at the same throughput. */
static void test_flat(void **state) {
  const double load[] = { 4, 8, 16, 32 }, x[] = { 5000, 5000, 5000, 5000 }, p99[] = { 1, 2, 4, 8 };
  struct spec sp = exact(4, load, x, p99);
  struct placer_curve c;
  build(&sp, &c);
  struct placer_curve_knee k;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  placer_curve_knee(&c, &rule, &k);
  assert_true(k.found);
  assert_int_equal(k.step, 0);
  assert_true(near(k.throughput_growth, 0) && near(k.latency_growth, 1));
  const double t3[PLACER_SLO_N_PERCENTILES] = { NAN, 3 * MS, NAN };
  struct placer_curve_slo_point s;
  slo(&c, t3, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_MET);
  assert_true(s.interpolated && near(s.load, 12) && s.throughput == 5000);
  placer_curve_free(&c);
}

/* Real-looking noise over 5 repeats: the medians carry the point, the CI
 * comes from resampling the repeats, holds the point, and is the same every
 * time (fixed seed). */
static void test_noisy(void **state) {
  struct spec sp = { .n = 4, .repeats = 5, .load = { 4, 8, 16, 32 } };
  static const double x[4][5] = { { 3900, 4100, 4000, 3700, 4250 },
                                  { 6100, 5800, 6000, 6300, 5600 },
                                  { 6500, 6900, 6600, 6200, 6700 },
                                  { 6800, 6650, 6700, 6900, 6400 } };
  static const double p99[4][5] = {
    { 1.1, 1.3, 1.2, 1.0, 1.6 }, { 1.5, 1.9, 1.6, 1.4, 2.3 }, { 2.4, 3.1, 2.6, 2.2, 2.9 }, { 4.8, 5.5, 5.0, 4.4, 6.1 }
  };
  memcpy(sp.x, x, sizeof(x));
  memcpy(sp.p99_ms, p99, sizeof(p99));
  struct placer_curve c;
  build(&sp, &c);
  /* each step's median and its CI: stats.c's bootstrap of the median, called as is */
  assert_true(c.steps[1].throughput.median == 6000 && c.steps[1].throughput.n == 5);
  double lo, hi;
  assert_int_equal(placer_stats_bootstrap_median_ci(x[1], 5, PLACER_STATS_BOOTSTRAP_RESAMPLES,
                                                    PLACER_STATS_BOOTSTRAP_SEED, 0.95, &lo, &hi),
                   0);
  assert_true(c.steps[1].throughput.ci_low == lo && c.steps[1].throughput.ci_high == hi);
  assert_true(lo < 6000 && hi > 6000);
  /* p99 medians 1.6 ms at 8, 2.6 ms at 16: 2 ms crossed at 0.4 of the way: 6000 + 0.4 x 600 */
  struct placer_curve_slo_point s, again;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_MET);
  assert_true(near(s.fraction, 0.4) && near(s.throughput, 6240) && near(s.load, 11.2));
  assert_true(s.ci_low <= s.throughput && s.throughput <= s.ci_high);
  assert_true(s.ci_low < s.ci_high);
  assert_true(s.ci_low >= 4000 && s.ci_high <= 6900); /* within what any resample can reach */
  assert_true(s.met_share == 1);                      /* every resample meets 2 ms at iodepth 4 at least */
  slo(&c, p99_2ms, &again);
  assert_true(again.ci_low == s.ci_low && again.ci_high == s.ci_high);
  char buf[256];
  placer_curve_slo_describe(&c, &s, p99_2ms, "IOPS", buf, sizeof(buf));
  char want[256];
  snprintf(want, sizeof(want), "6240 IOPS at p99 <= 2 ms (interpolated between iodepth 8 and 16; 95%% CI %.0f to %.0f)",
           s.ci_low, s.ci_high);
  assert_string_equal(buf, want);
  /* the knee on noisy medians: 8 -> 16 is +10% throughput, +62% p99 */
  struct placer_curve_knee k;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  placer_curve_knee(&c, &rule, &k);
  assert_true(k.found);
  assert_int_equal(k.step, 1);
  placer_curve_free(&c);
}

/* No step meets 2 ms: the best step (the lowest p99) and by how much it misses. */
static void test_never_meets(void **state) {
  const double load[] = { 1, 4, 16 }, x[] = { 900, 3000, 3500 }, p99[] = { 2.7, 3.5, 9.0 };
  struct spec sp = exact(3, load, x, p99);
  struct placer_curve c;
  build(&sp, &c);
  struct placer_curve_slo_point s;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_NEVER_MET);
  assert_int_equal(s.best, 0);
  assert_true(near(s.miss, 0.35));
  assert_int_equal(s.missed, PLACER_SLO_P99);
  assert_true(isnan(s.throughput));
  assert_true(s.ci_low == 0 && s.ci_high == 0 && s.met_share == 0);
  describe_is(&c, &s, p99_2ms, "none: p99 2.7 ms at its best step (iodepth 1) misses 2 ms by 35%");
  struct placer_curve_per_core pc;
  placer_curve_per_core(&s, 1.0, &pc);
  assert_true(isnan(pc.per_core_used) && isnan(pc.per_core_allocated));
  /* p99.9 (2 x p99 here: 5.4 ms against 3.6 ms) misses more than p99: it is the one named */
  const double both[PLACER_SLO_N_PERCENTILES] = { NAN, 2 * MS, 3.6 * MS };
  slo(&c, both, &s);
  assert_int_equal(s.best, 0);
  assert_int_equal(s.missed, PLACER_SLO_P999);
  assert_true(near(s.miss, 0.5));
  describe_is(&c, &s, both, "none: p99.9 5.4 ms at its best step (iodepth 1) misses 3.6 ms by 50%");
  placer_curve_free(&c);
}

/* Met at every step: the last step's throughput, a lower bound, and said so. */
static void test_meets_everywhere(void **state) {
  const double load[] = { 1, 4, 16 }, x[] = { 900, 3000, 3500 }, p99[] = { 0.5, 0.8, 1.9 };
  struct spec sp = exact(3, load, x, p99);
  sp.cores[2] = 1.75;
  struct placer_curve c;
  build(&sp, &c);
  struct placer_curve_slo_point s;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_ALWAYS_MET);
  assert_true(s.throughput == 3500 && s.load == 16 && !s.interpolated);
  describe_is(&c, &s, p99_2ms,
              "at least 3500 IOPS: p99 <= 2 ms at every step up to iodepth 16 (the SLO was never reached; 95% CI "
              "3500 to 3500)");
  struct placer_curve_per_core pc;
  placer_curve_per_core(&s, 2.0, &pc);
  assert_true(pc.lower_bound && near(pc.per_core_used, 2000) && near(pc.per_core_allocated, 1750));
  struct placer_curve_knee k;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  placer_curve_knee(&c, &rule, &k); /* 4 -> 16: +17% throughput, +138% p99: saturated */
  assert_true(k.found && k.step == 1);
  placer_curve_free(&c);
}

/* One step: no segment to judge, the SLO point at the step or a miss. */
static void test_single_step(void **state) {
  const double load[] = { 16 }, x[] = { 4000 }, ok[] = { 1.5 }, bad[] = { 3 };
  struct spec sp = exact(1, load, x, ok);
  struct placer_curve c;
  build(&sp, &c);
  struct placer_curve_knee k;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  placer_curve_knee(&c, &rule, &k);
  assert_false(k.judged);
  assert_false(k.found);
  assert_int_equal(k.step, 0);
  assert_true(k.throughput == 4000);
  struct placer_curve_slo_point s;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_ALWAYS_MET);
  assert_true(s.throughput == 4000);
  placer_curve_free(&c);
  sp = exact(1, load, x, bad);
  build(&sp, &c);
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_NEVER_MET);
  assert_true(near(s.miss, 0.5));
  placer_curve_free(&c);
}

/* A curve whose p99 dips back under the target (noise): the most
 * throughput that meets it counts, here the last step. */
static void test_dips_back(void **state) {
  const double load[] = { 1, 2, 4 }, x[] = { 100, 200, 250 }, p99[] = { 1, 3, 1.5 };
  struct spec sp = exact(3, load, x, p99);
  struct placer_curve c;
  build(&sp, &c);
  struct placer_curve_slo_point s;
  slo(&c, p99_2ms, &s);
  assert_int_equal(s.status, PLACER_CURVE_SLO_MET);
  assert_true(s.throughput == 250 && !s.interpolated);
  /* and when the last step is faster but still out: the crossing on the way down */
  const double x2[] = { 100, 200, 150 }, p2[] = { 1, 3, 1.5 };
  placer_curve_free(&c);
  sp = exact(3, load, x2, p2);
  build(&sp, &c);
  slo(&c, p99_2ms, &s); /* 2->4: 3 ms -> 1.5 ms meets from 2/3 of the way: 200 - 2/3 x 50 */
  assert_true(near(s.throughput, 200 - 50.0 * 2 / 3) && s.interpolated && s.lower == 1 && s.upper == 2);
  placer_curve_free(&c);
}

/* p99 and p99.9 targets together: the first to fail ends it. */
static void test_two_targets(void **state) {
  struct spec sp = exact(6, mono_load, mono_x, mono_p99); /* p99.9 = 2 x p99 */
  struct placer_curve c;
  build(&sp, &c);
  /* p99.9 <= 2.4 ms: 2.2 at iodepth 4, 2.8 at 8: crossed at 1/3: 3800 + 2200/3 */
  const double both[PLACER_SLO_N_PERCENTILES] = { NAN, 2 * MS, 2.4 * MS };
  struct placer_curve_slo_point s;
  slo(&c, both, &s);
  assert_true(s.lower == 2 && s.upper == 3 && near(s.fraction, 1.0 / 3));
  assert_true(near(s.throughput, 3800 + 2200.0 / 3));
  describe_is(&c, &s, both,
              "4533 IOPS at p99 <= 2 ms and p99.9 <= 2.4 ms (interpolated between iodepth 4 and 8; 95% CI 4533 to "
              "4533)");
  placer_curve_free(&c);
}

static void expect_refused(const struct placer_curve_step_input *in, size_t n, const char *want) {
  struct placer_curve c;
  struct placer_error *err = NULL;
  assert_int_equal(placer_curve_build("iodepth", in, n, &c, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, want) != 0)
    fail_msg("'%s', expected '%s'", err->msg, want);
  assert_null(c.steps);
  placer_error_free(err);
}

static void test_refused(void **state) {
  struct placer_curve_sample one = { .throughput = 1000, .latency_ns = { 1, 2, 3 }, .storage_cores = NAN };
  struct placer_curve_step_input in[3] = { { 8, 1, &one }, { 8, 1, &one }, { 4, 1, &one } };
  expect_refused(in, 2, "load steps must increase: iodepth 8 after 8");
  in[1].load = 16;
  expect_refused(in, 3, "load steps must increase: iodepth 4 after 16");
  expect_refused(in, 0, "a response curve needs at least one load step");
  in[1].n = 0;
  expect_refused(in, 2, "iodepth 16: a step without a repeat");
  in[1].n = 1;
  struct placer_curve_sample neg = one;
  neg.latency_ns[1] = -5;
  in[1].samples = &neg;
  expect_refused(in, 2, "iodepth 16, repeat 0: a figure that is negative or infinite");
  /* an SLO point without a target */
  in[1].samples = &one;
  struct placer_curve c;
  struct placer_error *err = NULL;
  assert_int_equal(placer_curve_build("iodepth", in, 2, &c, &err), 0);
  const double none[PLACER_SLO_N_PERCENTILES] = { NAN, NAN, NAN };
  struct placer_curve_slo_point s;
  assert_int_equal(placer_curve_slo_point(&c, none, &s, &err), -1);
  assert_string_equal(err->msg, "an SLO point needs a latency target (p50, p99 or p99.9)");
  placer_error_free(err);
  placer_curve_free(&c);
}

/* A quota sweep: unpinned (the reference, unconstrained) and three quotas,
 * with the neighbours' share of each.  Targets worked out by hand. */
static void test_balance(void **state) {
  const double load[] = { 1, 4, 16 };
  const double xs[4][3] = { { 1500, 5000, 5600 }, { 400, 900, 950 }, { 900, 2600, 2900 }, { 1400, 4600, 5100 } };
  const double ps[4][3] = { { 0.8, 1.2, 4.0 }, { 2.5, 9.0, 30.0 }, { 1.0, 1.8, 6.0 }, { 0.9, 1.3, 4.5 } };
  struct placer_curve c[4];
  static struct placer_curve_sample keep_alive[4][MAX_STEPS][MAX_REPEATS];
  for (size_t v = 0; v < 4; v++) {
    struct spec sp = exact(3, load, xs[v], ps[v]);
    build(&sp, &c[v]);
    memcpy(keep_alive[v], samples, sizeof(samples));
  }
  struct placer_curve_variant vars[4] = {
    { "unpinned", &c[0], NAN, 0.55, 0.50, 0.60 },
    { "quota-0.5", &c[1], 0.5, 0.95, 0.93, 0.97 },
    { "quota-1", &c[2], 1.0, 0.92, 0.88, 0.95 },
    { "quota-1.5", &c[3], 1.5, 0.80, 0.75, 0.85 },
  };
  struct placer_slo slo;
  placer_slo_init(&slo);
  slo.storage_ns[PLACER_SLO_P99] = 2 * MS;
  slo.at = PLACER_SLO_AT_IOPS;
  slo.at_rate = 2000;
  slo.keep = 0.9;
  struct placer_curve_knee_rule rule = PLACER_CURVE_KNEE_RULE_DEFAULT;
  struct placer_curve_balance b;
  struct placer_error *err = NULL;
  /* quota-0.5 never meets 2 ms; quota-1 reaches 2600 + ... >= 2000 with 92% kept: the answer */
  assert_int_equal(placer_curve_balance(vars, 4, &slo, &rule, false, "IOPS", &b, &err), 0);
  assert_true(b.found);
  assert_int_equal(b.variant, 2);
  assert_true(b.target == 2000 && !b.target_from_knee);
  assert_false(b.verdicts[1].meets_slo);
  assert_string_equal(b.verdicts[1].why, "none: p99 2.5 ms at its best step (iodepth 1) misses 2 ms by 25%");
  /* quota-1's p99 1.8 ms at 4, 6 ms at 16: crossed at 0.2 / 4.2 of the way */
  assert_true(near(b.verdicts[2].slo.throughput, 2600 + 300 * 0.2 / 4.2));
  assert_true(b.verdicts[2].meets_slo && b.verdicts[2].keeps_neighbours);
  assert_false(b.verdicts[2].conclusive); /* its neighbours' CI reaches down to 88% */
  assert_string_equal(b.summary, "quota-1: the least storage CPU (1 core) with p99 <= 2 ms at 2000 IOPS, the "
                                 "neighbours keeping 90% (not conclusive: a CI reaches below the target)");
  assert_true(b.verdicts[3].meets_slo && !b.verdicts[3].keeps_neighbours);
  assert_string_equal(b.verdicts[3].why, "the neighbours keep 80%, below 90%");
  placer_curve_balance_free(&b);

  /* at the unconstrained variant's knee (iodepth 4, 5000 IOPS): quota-1.5 reaches 4600 + ..., not 5000 */
  slo.at = PLACER_SLO_AT_KNEE;
  slo.keep = NAN;
  assert_int_equal(placer_curve_balance(vars, 4, &slo, &rule, false, "IOPS", &b, &err), 0);
  assert_true(b.target_from_knee && b.knee_variant == 0 && b.target == 5000);
  assert_false(b.found);
  /* quota-1.5: 1.3 ms at 4, 4.5 ms at 16: 2 ms at 0.21875, 4600 + 0.21875 x 500 = 4709 */
  assert_true(near(b.verdicts[3].slo.throughput, 4709.375));
  assert_string_equal(b.summary, "none meets p99 <= 2 ms at 5000 IOPS, the knee of unpinned; the nearest, "
                                 "quota-1.5: 6% short of 5000 IOPS: 4709 IOPS at p99 <= 2 ms (interpolated between "
                                 "iodepth 4 and 16; 95% CI 4709 to 4709)");
  placer_curve_balance_free(&b);

  /* no step of the split meets 2 ms anywhere: the nearest is the one that misses it by the least (not the
   * first listed), and a knee not found within the steps is said to be the last step */
  {
    const double ys[3][3] = { { 0.8, 1.0, 1.05 }, { 3.3, 9.0, 30.0 }, { 2.12, 9.0, 30.0 } };
    const double xu[3] = { 1500, 3000, 3100 };
    struct placer_curve d[3];
    static struct placer_curve_sample keep[3][MAX_STEPS][MAX_REPEATS];
    for (size_t v = 0; v < 3; v++) {
      struct spec sp = exact(3, load, v ? xs[1] : xu, ys[v]);
      build(&sp, &d[v]);
      memcpy(keep[v], samples, sizeof(samples));
    }
    struct placer_curve_variant miss[3] = {
      { "unpinned", &d[0], NAN, NAN, NAN, NAN },
      { "pinned", &d[1], 1, NAN, NAN, NAN },
      { "quota-1", &d[2], 1, NAN, NAN, NAN },
    };
    slo.at = PLACER_SLO_AT_KNEE;
    assert_int_equal(placer_curve_balance(miss, 3, &slo, &rule, false, "IOPS", &b, &err), 0);
    assert_false(b.found);
    assert_false(b.knee.found);
    assert_string_equal(b.summary,
                        "none meets p99 <= 2 ms at 3100 IOPS, the last step of unpinned (no knee within its "
                        "steps); the nearest, quota-1: none: p99 2.12 ms at its best step (iodepth 1) misses "
                        "2 ms by 6%");
    placer_curve_balance_free(&b);
    for (size_t v = 0; v < 3; v++)
      placer_curve_free(&d[v]);
    slo.at = PLACER_SLO_AT_KNEE;
  }

  /* a target beyond every measured step of a variant that always meets it */
  slo.at = PLACER_SLO_AT_IOPS;
  slo.at_rate = 1000;
  slo.storage_ns[PLACER_SLO_P99] = 40 * MS;
  assert_int_equal(placer_curve_balance(vars + 1, 1, &slo, &rule, false, "IOPS", &b, &err), 0);
  assert_false(b.found);
  assert_string_equal(b.verdicts[0].why, "not measured up to 1000 IOPS (at least 950 IOPS: p99 <= 40 ms at every "
                                         "step up to iodepth 16 (the SLO was never reached; 95% CI 950 to 950))");
  placer_curve_balance_free(&b);

  /* refusals: no target; the knee and no unconstrained variant; a rate in the wrong unit */
  struct placer_slo none;
  placer_slo_init(&none);
  assert_int_equal(placer_curve_balance(vars, 4, &none, &rule, false, "IOPS", &b, &err), -1);
  assert_string_equal(err->msg, "a balance point from curves needs a storage latency target (slo.storage.p99, p50 or "
                                "p99.9)");
  placer_error_clear(&err);
  slo.at = PLACER_SLO_AT_NONE;
  assert_int_equal(placer_curve_balance(vars + 1, 3, &slo, &rule, false, "IOPS", &b, &err), -1);
  assert_string_equal(err->msg, "the SLO holds at the unconstrained variant's knee, and no variant is unconstrained: "
                                "give slo.storage.at");
  placer_error_clear(&err);
  slo.at = PLACER_SLO_AT_IOPS;
  assert_int_equal(placer_curve_balance(vars, 4, &slo, &rule, true, "B/s", &b, &err), -1);
  assert_string_equal(err->msg, "slo.storage.at is in IOPS, the curves' throughput in bytes/s");
  placer_error_clear(&err);
  for (size_t v = 0; v < 4; v++)
    placer_curve_free(&c[v]);
}

/* The bootstrap of resampled groups draws as the bootstrap of one median
 * does: with one group and the median as the statistic, the same interval. */
static double median_of_picks(const size_t *const *picks, const size_t *n, size_t groups, void *arg) {
  const double *x = arg;
  double v[16];
  for (size_t i = 0; i < n[0]; i++)
    v[i] = x[picks[0][i]];
  return placer_stats_median(v, n[0]);
}

static void test_groups_bootstrap(void **state) {
  const double x[] = { 3.1, 2.7, 9.4, 4.4, 3.9, 5.0, 2.2 };
  size_t n = 7;
  double lo, hi, glo, ghi;
  assert_int_equal(placer_stats_bootstrap_median_ci(x, n, 2000, PLACER_STATS_BOOTSTRAP_SEED, 0.95, &lo, &hi), 0);
  assert_int_equal(placer_stats_bootstrap_groups_ci(&n, 1, 2000, PLACER_STATS_BOOTSTRAP_SEED, 0.95, median_of_picks,
                                                    (void *)x, &glo, &ghi),
                   0);
  assert_true(lo == glo && hi == ghi);
  assert_true(lo < 3.9 && hi > 3.9);
  size_t empty[2] = { 3, 0 };
  assert_int_equal(placer_stats_bootstrap_groups_ci(empty, 2, 2000, 1, 0.95, median_of_picks, (void *)x, &glo, &ghi),
                   0);
  assert_true(isnan(glo) && isnan(ghi));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_monotone),
    cmocka_unit_test(test_flat),
    cmocka_unit_test(test_noisy),
    cmocka_unit_test(test_never_meets),
    cmocka_unit_test(test_meets_everywhere),
    cmocka_unit_test(test_single_step),
    cmocka_unit_test(test_dips_back),
    cmocka_unit_test(test_two_targets),
    cmocka_unit_test(test_refused),
    cmocka_unit_test(test_balance),
    cmocka_unit_test(test_groups_bootstrap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
