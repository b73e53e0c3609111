/* Response curves: each step's medians with their CIs, the knee, the SLO
 * point with its bootstrap CI, per-core figures; see curve.h and docs/bench.md,
 * "Response curves and SLOs". */
#include "results/curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "results/stats.h"

#define N_PCT PLACER_SLO_N_PERCENTILES

void placer_curve_free(struct placer_curve *c) {
  if (c == NULL)
    return;
  for (size_t i = 0; c->steps && i < c->n; i++)
    free(c->steps[i].samples);
  free(c->steps);
  c->steps = NULL;
  c->n = 0;
}

/* The median of the figures of SAMPLES[0..N) (only those picked, PICKS
 * non-NULL) that are not NAN, at OFFSET in the sample; BUF has room for N. */
static double sample_median(const struct placer_curve_sample *samples, const size_t *picks, size_t n, size_t offset,
                            double *buf, size_t *m) {
  *m = 0;
  for (size_t i = 0; i < n; i++) {
    const struct placer_curve_sample *s = &samples[picks ? picks[i] : i];
    double v = *(const double *)((const char *)s + offset);
    if (!isnan(v))
      buf[(*m)++] = v;
  }
  return placer_stats_median(buf, *m);
}

static int estimate(const struct placer_curve_step *step, size_t offset, double *buf, struct placer_curve_estimate *e) {
  e->median = sample_median(step->samples, NULL, step->n, offset, buf, &e->n);
  return placer_stats_bootstrap_median_ci(buf, e->n, PLACER_STATS_BOOTSTRAP_RESAMPLES, PLACER_STATS_BOOTSTRAP_SEED,
                                          0.95, &e->ci_low, &e->ci_high);
}

static bool figure_ok(double x) {
  return isnan(x) || (x >= 0 && !isinf(x));
}

int placer_curve_build(const char *load_name, const struct placer_curve_step_input *in, size_t n,
                       struct placer_curve *out, struct placer_error **err) {
  *out = (struct placer_curve){ 0 };
  snprintf(out->load_name, sizeof(out->load_name), "%s", load_name);
  if (n == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "a response curve needs at least one load step");
  double *loads = malloc(n * sizeof(*loads));
  if (loads == NULL)
    return placer_error_oom(err, "response curve");
  for (size_t i = 0; i < n; i++)
    loads[i] = in[i].load;
  struct placer_slo none;
  placer_slo_init(&none);
  char why[160];
  size_t bad;
  int rc = placer_slo_check_steps(&none, load_name, loads, n, &bad, why, sizeof(why));
  free(loads);
  if (rc < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s", why);
  for (size_t i = 0; i < n; i++) {
    if (in[i].n == 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s %g: a step without a repeat", load_name, in[i].load);
    for (size_t k = 0; k < in[i].n; k++) {
      const struct placer_curve_sample *s = &in[i].samples[k];
      bool ok = figure_ok(s->throughput) && figure_ok(s->storage_cores);
      for (size_t p = 0; p < N_PCT; p++)
        ok = ok && figure_ok(s->latency_ns[p]);
      if (!ok)
        return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s %g, repeat %zu: a figure that is negative or infinite",
                                load_name, in[i].load, k);
    }
  }
  out->steps = calloc(n, sizeof(*out->steps));
  if (out->steps == NULL)
    return placer_error_oom(err, "response curve");
  out->n = n;
  for (size_t i = 0; i < n; i++) {
    struct placer_curve_step *st = &out->steps[i];
    st->load = in[i].load;
    st->n = in[i].n;
    st->samples = malloc(st->n * sizeof(*st->samples));
    double *buf = malloc(st->n * sizeof(*buf));
    rc = st->samples && buf ? 0 : -1;
    if (rc == 0) {
      memcpy(st->samples, in[i].samples, st->n * sizeof(*st->samples));
      rc |= estimate(st, offsetof(struct placer_curve_sample, throughput), buf, &st->throughput);
      rc |= estimate(st, offsetof(struct placer_curve_sample, storage_cores), buf, &st->storage_cores);
      for (size_t p = 0; p < N_PCT; p++)
        rc |= estimate(st, offsetof(struct placer_curve_sample, latency_ns) + p * sizeof(double), buf,
                       &st->latency_ns[p]);
    }
    free(buf);
    if (rc < 0) {
      placer_curve_free(out);
      return placer_error_oom(err, "response curve");
    }
  }
  return 0;
}

/* ---- the knee --------------------------------------------------------------------- */

void placer_curve_knee(const struct placer_curve *c, const struct placer_curve_knee_rule *rule,
                       struct placer_curve_knee *out) {
  *out = (struct placer_curve_knee){
    .throughput = NAN, .latency_ns = NAN, .throughput_growth = NAN, .latency_growth = NAN
  };
  size_t prev = c->n; /* the last step with both figures */
  for (size_t i = 0; i < c->n; i++) {
    double x = c->steps[i].throughput.median, r = c->steps[i].latency_ns[rule->percentile].median;
    if (!(x > 0 && r > 0))
      continue;
    if (prev < c->n) {
      double x0 = c->steps[prev].throughput.median, r0 = c->steps[prev].latency_ns[rule->percentile].median;
      double gx = log(x / x0), gr = log(r / r0);
      out->judged = true;
      if (gr > log1p(rule->latency_growth) && gr > rule->elasticity * fmax(gx, 0)) {
        out->found = true;
        out->throughput_growth = x / x0 - 1;
        out->latency_growth = r / r0 - 1;
        break;
      }
    }
    prev = i;
  }
  if (prev < c->n) {
    out->step = prev;
    out->throughput = c->steps[prev].throughput.median;
    out->latency_ns = c->steps[prev].latency_ns[rule->percentile].median;
  }
}

/* ---- the SLO point ------------------------------------------------------------------- */

/* The SLO point of one curve given as each step's throughput X and
 * percentiles R (medians, or a resample's). */
struct scan {
  bool any_valid, any_met, all_met;
  double x;
  size_t lower, upper;
  double fraction;
  size_t best; /* the step nearest to the targets */
  double best_ratio;
  enum placer_slo_percentile missed;
};

/* The worst latency / target of a step over the percentiles with a target; NAN when one is unknown. */
static double worst_ratio(const double *r, const double *target, enum placer_slo_percentile *which) {
  double worst = -INFINITY;
  for (size_t p = 0; p < N_PCT; p++) {
    if (isnan(target[p]))
      continue;
    if (isnan(r[p]))
      return NAN;
    if (r[p] / target[p] > worst) {
      worst = r[p] / target[p];
      *which = (enum placer_slo_percentile)p;
    }
  }
  return worst;
}

/* Where along the segment A -> B (one meets the targets, the other not) the
 * medians cross: the first target to fail going up, the last to be met going down. */
static double crossing(const double *ra, const double *rb, const double *target, bool a_meets) {
  double f = a_meets ? INFINITY : -INFINITY;
  for (size_t p = 0; p < N_PCT; p++) {
    if (isnan(target[p]) || (a_meets ? rb[p] <= target[p] : ra[p] <= target[p]))
      continue;
    double fp = (target[p] - ra[p]) / (rb[p] - ra[p]);
    f = a_meets ? fmin(f, fp) : fmax(f, fp);
  }
  return fmin(fmax(f, 0), 1);
}

/* The most throughput so far; on a tie the later point (a higher load at the same throughput). */
static void candidate(struct scan *s, double x, size_t lower, size_t upper, double fraction) {
  if (s->any_met && !(x >= s->x))
    return;
  s->any_met = true;
  s->x = x;
  s->lower = lower;
  s->upper = upper;
  s->fraction = fraction;
}

static void slo_scan(size_t n, const double *x, const double (*r)[N_PCT], const double *target, struct scan *s) {
  *s = (struct scan){ .all_met = true, .best_ratio = INFINITY };
  size_t prev = n;
  bool prev_meets = false;
  for (size_t i = 0; i < n; i++) {
    enum placer_slo_percentile which = PLACER_SLO_P99;
    double w = worst_ratio(r[i], target, &which);
    if (isnan(x[i]) || isnan(w))
      continue;
    s->any_valid = true;
    bool meets = w <= 1;
    s->all_met = s->all_met && meets;
    if (w < s->best_ratio) {
      s->best_ratio = w;
      s->best = i;
      s->missed = which;
    }
    if (meets)
      candidate(s, x[i], i, i, 0);
    if (prev < n && meets != prev_meets) {
      double f = crossing(r[prev], r[i], target, prev_meets);
      candidate(s, x[prev] + f * (x[i] - x[prev]), prev, i, f);
    }
    prev = i;
    prev_meets = meets;
  }
  s->all_met = s->all_met && s->any_valid;
}

/* A resampled curve's SLO throughput (0: it meets the targets nowhere), for the bootstrap. */
struct resample_arg {
  const struct placer_curve *c;
  const double *target;
  double *x, (*r)[N_PCT], *buf;
  size_t met;
};

static double resampled_slo(const size_t *const *picks, const size_t *n, size_t groups, void *arg) {
  struct resample_arg *a = arg;
  size_t m;
  for (size_t g = 0; g < groups; g++) {
    const struct placer_curve_step *st = &a->c->steps[g];
    a->x[g] = sample_median(st->samples, picks[g], n[g], offsetof(struct placer_curve_sample, throughput), a->buf, &m);
    for (size_t p = 0; p < N_PCT; p++)
      a->r[g][p] = sample_median(st->samples, picks[g], n[g],
                                 offsetof(struct placer_curve_sample, latency_ns) + p * sizeof(double), a->buf, &m);
  }
  struct scan s;
  slo_scan(groups, a->x, (const double(*)[N_PCT])a->r, a->target, &s);
  if (!s.any_valid)
    return NAN;
  a->met += s.any_met;
  return s.any_met ? s.x : 0;
}

static double lerp(double a, double b, double f) {
  return f == 0 ? a : a + f * (b - a);
}

int placer_curve_slo_point(const struct placer_curve *c, const double target_ns[N_PCT],
                           struct placer_curve_slo_point *out, struct placer_error **err) {
  *out = (struct placer_curve_slo_point){ .status = PLACER_CURVE_SLO_UNKNOWN,
                                          .throughput = NAN,
                                          .ci_low = NAN,
                                          .ci_high = NAN,
                                          .load = NAN,
                                          .storage_cores = NAN,
                                          .miss = NAN,
                                          .met_share = NAN };
  bool any_target = false;
  for (size_t p = 0; p < N_PCT; p++)
    any_target = any_target || !isnan(target_ns[p]);
  if (!any_target)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "an SLO point needs a latency target (p50, p99 or p99.9)");
  size_t n = c->n, most = 1;
  for (size_t i = 0; i < n; i++)
    most = c->steps[i].n > most ? c->steps[i].n : most;
  struct resample_arg a = { .c = c, .target = target_ns };
  a.x = malloc(n * sizeof(*a.x));
  a.r = malloc(n * sizeof(*a.r));
  a.buf = malloc(most * sizeof(*a.buf));
  size_t *counts = malloc(n * sizeof(*counts));
  int rc = a.x && a.r && a.buf && counts ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    a.x[i] = c->steps[i].throughput.median;
    for (size_t p = 0; p < N_PCT; p++)
      a.r[i][p] = c->steps[i].latency_ns[p].median;
    counts[i] = c->steps[i].n;
  }
  struct scan s = { 0 };
  if (rc == 0)
    slo_scan(n, a.x, (const double(*)[N_PCT])a.r, target_ns, &s);
  if (rc == 0 && s.any_valid) {
    out->status = !s.any_met  ? PLACER_CURVE_SLO_NEVER_MET
                  : s.all_met ? PLACER_CURVE_SLO_ALWAYS_MET
                              : PLACER_CURVE_SLO_MET;
    if (s.any_met) {
      const struct placer_curve_step *lo = &c->steps[s.lower], *hi = &c->steps[s.upper];
      out->throughput = s.x;
      out->lower = s.lower;
      out->upper = s.upper;
      out->fraction = s.fraction;
      out->interpolated = s.lower != s.upper && s.fraction > 0 && s.fraction < 1;
      out->load = lerp(lo->load, hi->load, s.fraction);
      out->storage_cores = lerp(lo->storage_cores.median, hi->storage_cores.median, s.fraction);
    } else {
      out->best = s.best;
      out->miss = s.best_ratio - 1;
      out->missed = s.missed;
    }
    rc = placer_stats_bootstrap_groups_ci(counts, n, PLACER_STATS_BOOTSTRAP_RESAMPLES, PLACER_STATS_BOOTSTRAP_SEED,
                                          0.95, resampled_slo, &a, &out->ci_low, &out->ci_high);
    if (!isnan(out->ci_low))
      out->met_share = (double)a.met / PLACER_STATS_BOOTSTRAP_RESAMPLES;
  }
  free(a.x);
  free(a.r);
  free(a.buf);
  free(counts);
  return rc < 0 ? placer_error_oom(err, "SLO point") : 0;
}

void placer_curve_slo_describe(const struct placer_curve *c, const struct placer_curve_slo_point *s,
                               const double target_ns[N_PCT], const char *unit, char *buf, size_t len) {
  char targets[96], ci[80] = "";
  placer_slo_targets_text(target_ns, targets, sizeof(targets));
  if (!isnan(s->ci_low))
    snprintf(ci, sizeof(ci), "; 95%% CI %.0f to %.0f", s->ci_low, s->ci_high);
  const char *name = c->load_name;
  switch (s->status) {
  case PLACER_CURVE_SLO_MET:
    if (s->interpolated)
      snprintf(buf, len, "%.0f %s at %s (interpolated between %s %g and %g%s)", s->throughput, unit, targets, name,
               c->steps[s->lower].load, c->steps[s->upper].load, ci);
    else
      snprintf(buf, len, "%.0f %s at %s (at %s %g%s)", s->throughput, unit, targets, name, s->load, ci);
    break;
  case PLACER_CURVE_SLO_ALWAYS_MET:
    snprintf(buf, len, "at least %.0f %s: %s at every step up to %s %g (the SLO was never reached%s)", s->throughput,
             unit, targets, name, c->steps[c->n - 1].load, ci);
    break;
  case PLACER_CURVE_SLO_NEVER_MET: {
    char got[32], want[32];
    const struct placer_curve_step *b = &c->steps[s->best];
    placer_format_duration_ns(b->latency_ns[s->missed].median, got, sizeof(got));
    placer_format_duration_ns(target_ns[s->missed], want, sizeof(want));
    snprintf(buf, len, "none: %s %s at its best step (%s %g) misses %s by %.0f%%",
             placer_slo_percentile_names[s->missed], got, name, b->load, want, 100 * s->miss);
    break;
  }
  default: snprintf(buf, len, "unknown: no step has the throughput and the latencies of %s", targets);
  }
}

void placer_curve_per_core(const struct placer_curve_slo_point *s, double allocated_cores,
                           struct placer_curve_per_core *out) {
  bool met = s->status == PLACER_CURVE_SLO_MET || s->status == PLACER_CURVE_SLO_ALWAYS_MET;
  out->used_cores = met ? s->storage_cores : NAN;
  out->allocated_cores = allocated_cores;
  out->per_core_used = met && out->used_cores > 0 ? s->throughput / out->used_cores : NAN;
  out->per_core_allocated = met && allocated_cores > 0 ? s->throughput / allocated_cores : NAN;
  out->lower_bound = s->status == PLACER_CURVE_SLO_ALWAYS_MET;
}
