/* The balance point of a CPU split read from the variants' response curves:
 * the least CPU for storage whose curve meets the storage SLO at the target
 * load while the neighbours keep their share; see curve.h and docs/bench.md,
 * "Response curves and SLOs". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "results/curve.h"

void placer_curve_balance_free(struct placer_curve_balance *b) {
  if (b == NULL)
    return;
  free(b->verdicts);
  b->verdicts = NULL;
  b->n = 0;
}

int placer_curve_balance_target(const struct placer_curve_variant *v, size_t n, const struct placer_slo *slo,
                                const struct placer_curve_knee_rule *rule, bool unit_is_bytes,
                                struct placer_curve_balance *out, struct placer_error **err) {
  if (slo->at == PLACER_SLO_AT_IOPS || slo->at == PLACER_SLO_AT_BYTES) {
    if ((slo->at == PLACER_SLO_AT_BYTES) != unit_is_bytes)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "slo.storage.at is in %s, the curves' throughput in %s",
                              slo->at == PLACER_SLO_AT_BYTES ? "bytes/s" : "IOPS", unit_is_bytes ? "bytes/s" : "IOPS");
    out->target = slo->at_rate;
    return 0;
  }
  size_t u = 0;
  while (u < n && !isnan(v[u].storage_cores_allocated))
    u++;
  if (u == n)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "the SLO holds at the unconstrained variant's knee, and no variant is unconstrained: give "
                            "slo.storage.at");
  placer_curve_knee(v[u].curve, rule, &out->knee);
  if (isnan(out->knee.throughput))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: its curve has no step with the throughput and %s: no knee",
                            v[u].name, placer_slo_percentile_names[rule->percentile]);
  out->target_from_knee = true;
  out->knee_variant = u;
  out->target = out->knee.throughput;
  return 0;
}

/* Does V meet the SLO at TARGET, and keep its neighbours?  Into VD, with why not. */
static int judge(const struct placer_curve_variant *v, const struct placer_slo *slo, double target, const char *unit,
                 struct placer_curve_verdict *vd, struct placer_error **err) {
  if (placer_curve_slo_point(v->curve, slo->storage_ns, &vd->slo, err) < 0)
    return -1;
  const struct placer_curve_slo_point *s = &vd->slo;
  char slo_text[160];
  placer_curve_slo_describe(v->curve, s, slo->storage_ns, unit, slo_text, sizeof(slo_text));
  /* ALWAYS_MET reaching the target: measured that far with the SLO held */
  vd->meets_slo =
      (s->status == PLACER_CURVE_SLO_MET || s->status == PLACER_CURVE_SLO_ALWAYS_MET) && s->throughput >= target;
  vd->keeps_neighbours = isnan(slo->keep) || v->neighbour_kept >= slo->keep;
  vd->conclusive = vd->meets_slo && vd->keeps_neighbours && s->ci_low >= target &&
                   (isnan(slo->keep) || v->neighbour_kept_ci_low >= slo->keep);
  size_t at = 0;
  vd->why[0] = '\0';
  if (!vd->meets_slo) {
    if (s->status == PLACER_CURVE_SLO_ALWAYS_MET)
      at += (size_t)snprintf(vd->why, sizeof(vd->why), "not measured up to %.0f %s (%s)", target, unit, slo_text);
    else if (s->status == PLACER_CURVE_SLO_MET)
      at += (size_t)snprintf(vd->why, sizeof(vd->why), "%.0f%% short of %.0f %s: %s",
                             100 * (1 - s->throughput / target), target, unit, slo_text);
    else
      at += (size_t)snprintf(vd->why, sizeof(vd->why), "%s", slo_text);
  }
  if (!vd->keeps_neighbours && at < sizeof(vd->why)) {
    if (isnan(v->neighbour_kept))
      snprintf(vd->why + at, sizeof(vd->why) - at, "%sthe neighbours' share was not measured", at ? "; " : "");
    else
      snprintf(vd->why + at, sizeof(vd->why) - at, "%sthe neighbours keep %.0f%%, below %.0f%%", at ? "; " : "",
               100 * v->neighbour_kept, 100 * slo->keep);
  }
  return 0;
}

int placer_curve_balance(const struct placer_curve_variant *v, size_t n, const struct placer_slo *slo,
                         const struct placer_curve_knee_rule *rule, bool unit_is_bytes, const char *unit,
                         struct placer_curve_balance *out, struct placer_error **err) {
  *out = (struct placer_curve_balance){ .target = NAN };
  if (!placer_slo_storage_set(slo))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "a balance point from curves needs a storage latency target "
                            "(slo.storage.p99, p50 or p99.9)");
  if (placer_curve_balance_target(v, n, slo, rule, unit_is_bytes, out, err) < 0)
    return -1;
  out->verdicts = calloc(n ? n : 1, sizeof(*out->verdicts));
  if (out->verdicts == NULL)
    return placer_error_oom(err, "balance point");
  out->n = n;
  for (size_t i = 0; i < n; i++)
    if (judge(&v[i], slo, out->target, unit, &out->verdicts[i], err) < 0) {
      placer_curve_balance_free(out);
      return -1;
    }
  /* the least CPU among the steps of the split (allocated), the first listed on a tie */
  for (size_t i = 0; i < n; i++) {
    const struct placer_curve_verdict *vd = &out->verdicts[i];
    if (isnan(v[i].storage_cores_allocated) || !vd->meets_slo || !vd->keeps_neighbours)
      continue;
    if (!out->found || v[i].storage_cores_allocated < v[out->variant].storage_cores_allocated) {
      out->found = true;
      out->variant = i;
    }
  }
  char targets[96] = "", keep[48] = "", rate[64];
  placer_slo_targets_text(slo->storage_ns, targets, sizeof(targets));
  if (!isnan(slo->keep))
    snprintf(keep, sizeof(keep), ", the neighbours keeping %.0f%%", 100 * slo->keep);
  /* a knee not found within the steps: the last step is its lower bound, and said so */
  snprintf(rate, sizeof(rate), "%.0f %s%s%s%s", out->target, unit,
           !out->target_from_knee ? ""
           : out->knee.found      ? ", the knee of "
                                  : ", the last step of ",
           out->target_from_knee ? v[out->knee_variant].name : "",
           out->target_from_knee && !out->knee.found ? " (no knee within its steps)" : "");
  if (out->found) {
    const struct placer_curve_verdict *vd = &out->verdicts[out->variant];
    snprintf(out->summary, sizeof(out->summary), "%s: the least storage CPU (%g core%s) with %s at %s%s (%s)",
             v[out->variant].name, v[out->variant].storage_cores_allocated,
             v[out->variant].storage_cores_allocated == 1 ? "" : "s", targets, rate, keep,
             vd->conclusive ? "conclusive: the CIs hold too" : "not conclusive: a CI reaches below the target");
    return 0;
  }
  /* none: the nearest step of the split: one that meets the SLO at the
   * target and misses only the neighbours' share (the most kept), else one
   * whose SLO point comes closest to the target (the most throughput), else
   * one that meets the latency target nowhere by the least miss */
  size_t near = n;
  int best_class = 3;
  double best = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const struct placer_curve_verdict *vd = &out->verdicts[i];
    const struct placer_curve_slo_point *s = &vd->slo;
    bool met = s->status == PLACER_CURVE_SLO_MET || s->status == PLACER_CURVE_SLO_ALWAYS_MET;
    int cls = vd->meets_slo ? 0 : met ? 1 : s->status == PLACER_CURVE_SLO_NEVER_MET ? 2 : 3;
    double score = cls == 0 ? v[i].neighbour_kept : cls == 1 ? s->throughput : cls == 2 ? -s->miss : -INFINITY;
    if (isnan(v[i].storage_cores_allocated) || cls == 3)
      continue;
    if (cls < best_class || (cls == best_class && score > best)) {
      best_class = cls;
      best = isnan(score) ? -INFINITY : score;
      near = i;
    }
  }
  bool any_step = false;
  for (size_t i = 0; i < n; i++)
    any_step |= !isnan(v[i].storage_cores_allocated);
  if (!any_step)
    snprintf(out->summary, sizeof(out->summary), "none: no variant is a step of the split (every one unconstrained)");
  else if (near == n)
    snprintf(out->summary, sizeof(out->summary), "none meets %s at %s%s: no step of the split has the figures to judge",
             targets, rate, keep);
  else
    snprintf(out->summary, sizeof(out->summary), "none meets %s at %s%s; the nearest, %s: %s", targets, rate, keep,
             v[near].name, out->verdicts[near].why);
  return 0;
}
