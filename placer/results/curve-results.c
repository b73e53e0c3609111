/* The response curves of a study's results, their SLO points and the
 * balance point read off them; see curve-results.h. */
#include "results/curve-results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/stats.h"

size_t placer_bench_curve_names(const struct placer_bench_results *r, const char **names, size_t max) {
  size_t n = 0;
  for (size_t w = 0; w < r->n_workloads; w++) {
    const char *c = r->workloads[w].curve;
    bool seen = c == NULL;
    for (size_t k = 0; k < n && !seen; k++)
      seen = strcmp(names[k], c) == 0;
    if (!seen && n < max)
      names[n++] = c;
  }
  return n;
}

size_t placer_bench_curve_workloads(const struct placer_bench_results *r, const char *name, size_t *workloads,
                                    size_t max) {
  size_t n = 0;
  for (size_t w = 0; w < r->n_workloads && n < max; w++) {
    if (r->workloads[w].curve == NULL || strcmp(r->workloads[w].curve, name) != 0)
      continue;
    size_t j = n++; /* by load, ascending (insertion) */
    for (; j > 0 && r->workloads[workloads[j - 1]].load > r->workloads[w].load; j--)
      workloads[j] = workloads[j - 1];
    workloads[j] = w;
  }
  return n;
}

int placer_bench_curve_last_workload(const struct placer_bench_results *r, const char *name) {
  size_t ws[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_workloads(r, name, ws, PLACER_BENCH_MAX);
  return n ? (int)ws[n - 1] : -1;
}

/* In MB/s for a workload judged in bytes per second, as the reports show it. */
static double unit_scale(const struct placer_bench_workload *w) {
  return placer_bench_workload_uses_bandwidth(w) ? 1e-6 : 1.0;
}

/* One run as a point of a curve. */
static struct placer_curve_sample sample_of(const struct placer_bench_results *r, const struct placer_bench_run *run,
                                            const struct placer_bench_workload *w) {
  const struct placer_bench_op *op = placer_bench_ops_latency_op(w, run->ops, run->n_ops);
  struct placer_curve_sample s = {
    .throughput = placer_bench_run_main_metric(run, w) * unit_scale(w),
    .latency_ns = { op ? op->clat_p50_ns : NAN, op ? op->clat_p99_ns : NAN, op ? op->clat_p999_ns : NAN },
    .storage_cores = placer_bench_run_role_cores(run, r->storage_role),
  };
  return s;
}

/* The SLO in the curves' unit (MB/s where they are). */
static struct placer_slo slo_in_unit(const struct placer_slo *slo, double scale) {
  struct placer_slo s = *slo;
  if (s.at == PLACER_SLO_AT_BYTES || s.at == PLACER_SLO_AT_IOPS)
    s.at_rate *= s.at == PLACER_SLO_AT_BYTES ? scale : 1.0;
  return s;
}

static const char *unit_name(const struct placer_bench_workload *w) {
  return placer_bench_workload_uses_bandwidth(w) ? "MB/s" : "IOPS";
}

void placer_bench_curve_clear(struct placer_bench_curve *c) {
  placer_curve_free(&c->curve);
  c->built = false;
}

int placer_bench_curve_get(const struct placer_bench_results *r, const char *name, size_t variant, size_t condition,
                           struct placer_bench_curve *out, struct placer_error **err) {
  *out = (struct placer_bench_curve){ .name = name, .variant = variant, .condition = condition };
  placer_curve_knee(&out->curve, &PLACER_CURVE_KNEE_RULE_DEFAULT, &out->knee);
  size_t ws[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_workloads(r, name, ws, PLACER_BENCH_MAX);
  if (n == 0)
    return 0;
  struct placer_curve_step_input in[PLACER_BENCH_MAX];
  struct placer_curve_sample *samples = calloc(n * r->repeats, sizeof(*samples));
  if (samples == NULL)
    return placer_error_oom(err, "response curve");
  size_t steps = 0;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_workload *w = &r->workloads[ws[i]];
    struct placer_curve_sample *at = &samples[i * r->repeats];
    size_t m = 0;
    for (size_t k = 0; k < r->repeats; k++) {
      const struct placer_bench_run *run = placer_bench_results_run_const(r, variant, condition, ws[i], k);
      if (run && run->done)
        at[m++] = sample_of(r, run, w);
    }
    if (m == 0)
      continue; /* a step without a run (an interrupted study) is left out of the curve */
    in[steps] = (struct placer_curve_step_input){ .load = w->load, .n = m, .samples = at };
    out->step_workload[steps] = ws[i];
    /* against the first variant's solo rate, each pass's own (placer_bench_kept) */
    rc |= placer_bench_neighbour_share(r, variant, condition, ws[i], 0, &out->kept[steps]);
    steps++;
  }
  const struct placer_bench_workload *w0 = &r->workloads[ws[0]];
  if (rc == 0 && steps > 0) {
    rc = placer_curve_build(w0->load_name, in, steps, &out->curve, err);
    out->built = rc == 0;
  }
  free(samples);
  if (rc < 0 || !out->built)
    return rc < 0 ? -1 : 0;
  placer_curve_knee(&out->curve, &PLACER_CURVE_KNEE_RULE_DEFAULT, &out->knee);
  out->has_slo = placer_slo_storage_set(&r->slo);
  if (!out->has_slo)
    return 0;
  if (placer_curve_slo_point(&out->curve, r->slo.storage_ns, &out->slo, err) < 0) {
    placer_bench_curve_clear(out);
    return -1;
  }
  placer_curve_slo_describe(&out->curve, &out->slo, r->slo.storage_ns, unit_name(w0), out->slo_text,
                            sizeof(out->slo_text));
  placer_curve_per_core(&out->slo, r->storage_cpus[variant], &out->per_core);
  return 0;
}

/* ---- the balance point --------------------------------------------------------------- */

void placer_bench_curve_balance_clear(struct placer_bench_curve_balance *b) {
  placer_curve_balance_free(&b->balance);
}

/* The neighbours' share where curve C reaches TARGET: between the steps
 * around it, linearly in throughput; at the first step below every one,
 * at the last above every one. */
static struct placer_bench_share share_at(const struct placer_bench_curve *c, double target) {
  size_t n = c->curve.n, i = 0;
  while (i < n && !(c->curve.steps[i].throughput.median >= target))
    i++;
  if (i == 0 || i == n)
    return c->kept[i == n ? n - 1 : 0];
  double x0 = c->curve.steps[i - 1].throughput.median, x1 = c->curve.steps[i].throughput.median;
  double f = x1 > x0 ? (target - x0) / (x1 - x0) : 1;
  const struct placer_bench_share *a = &c->kept[i - 1], *b = &c->kept[i];
  return (struct placer_bench_share){ a->median + f * (b->median - a->median), a->ci_low + f * (b->ci_low - a->ci_low),
                                      a->ci_high + f * (b->ci_high - a->ci_high), a->n < b->n ? a->n : b->n,
                                      a->pooled || b->pooled };
}

int placer_bench_curve_balance(const struct placer_bench_results *r, struct placer_bench_curve_balance *out,
                               struct placer_error **err) {
  *out = (struct placer_bench_curve_balance){ 0 };
  if (!placer_slo_storage_set(&r->slo))
    return 0;
  const char *names[PLACER_BENCH_MAX];
  size_t n_names = placer_bench_curve_names(r, names, PLACER_BENCH_MAX);
  const struct placer_bench_workload *judged = &r->workloads[r->sweep_workload];
  out->curve = judged->curve ? judged->curve : n_names ? names[0] : NULL;
  if (out->curve == NULL) {
    snprintf(out->why, sizeof(out->why), "no workload has load steps: no curve to read an SLO point off");
    return 0;
  }
  int nc = placer_bench_neighbour_condition(r), alone = placer_bench_alone_condition(r);
  out->condition = nc >= 0 ? (size_t)nc : alone >= 0 ? (size_t)alone : 0;
  struct placer_bench_curve *curves = calloc(r->n_variants, sizeof(*curves));
  struct placer_curve_variant *v = calloc(r->n_variants, sizeof(*v));
  int rc = curves && v ? 0 : placer_error_oom(err, "balance point");
  size_t n = 0;
  for (size_t i = 0; rc == 0 && i < r->n_variants; i++) {
    rc = placer_bench_curve_get(r, out->curve, i, out->condition, &curves[i], err);
    if (rc == 0 && !curves[i].built) {
      snprintf(out->why, sizeof(out->why), "%s has no run of %s in %s yet", r->variants[i], out->curve,
               r->conditions[out->condition].name);
      goto done;
    }
    v[i] = (struct placer_curve_variant){ .name = r->variants[i],
                                          .curve = &curves[i].curve,
                                          .storage_cores_allocated = r->storage_cpus[i],
                                          .neighbour_kept = NAN,
                                          .neighbour_kept_ci_low = NAN,
                                          .neighbour_kept_ci_high = NAN };
    n = i + 1;
  }
  int w = placer_bench_curve_last_workload(r, out->curve);
  bool bytes = placer_bench_workload_uses_bandwidth(&r->workloads[w]);
  struct placer_slo slo = slo_in_unit(&r->slo, unit_scale(&r->workloads[w]));
  struct placer_curve_balance target = { .target = NAN };
  struct placer_error *e = NULL;
  /* a knee the curves cannot give is a verdict of the study, not an error of the report */
  if (rc == 0 && placer_curve_balance_target(v, n, &slo, &PLACER_CURVE_KNEE_RULE_DEFAULT, bytes, &target, &e) < 0) {
    snprintf(out->why, sizeof(out->why), "%s", e ? e->msg : "no target load");
    placer_error_free(e);
    goto done;
  }
  for (size_t i = 0; rc == 0 && i < n; i++) {
    out->kept_at_target[i] = share_at(&curves[i], target.target);
    v[i].neighbour_kept = out->kept_at_target[i].median;
    v[i].neighbour_kept_ci_low = out->kept_at_target[i].ci_low;
    v[i].neighbour_kept_ci_high = out->kept_at_target[i].ci_high;
  }
  if (rc == 0) {
    rc = placer_curve_balance(v, n, &slo, &PLACER_CURVE_KNEE_RULE_DEFAULT, bytes, unit_name(&r->workloads[w]),
                              &out->balance, err);
    out->computed = rc == 0;
  }
done:
  for (size_t i = 0; curves && i < r->n_variants; i++)
    placer_bench_curve_clear(&curves[i]);
  free(curves);
  free(v);
  return rc;
}

/* ---- summary.json ------------------------------------------------------------------ */

static json_t *num_or_null(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static json_t *estimate_json(const struct placer_curve_estimate *e, double scale) {
  if (e->n == 0)
    return json_null();
  return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)e->n, "median", num_or_null(e->median * scale), "ci95_low",
                   num_or_null(e->ci_low * scale), "ci95_high", num_or_null(e->ci_high * scale));
}

static const char *const slo_status_names[] = { "met", "always_met", "never_met", "unknown" };

static json_t *curve_json(const struct placer_bench_results *r, const struct placer_bench_curve *c) {
  const struct placer_curve *cv = &c->curve;
  /* in the results' own unit: bytes per second where the curve is in MB/s */
  double scale = 1 / unit_scale(&r->workloads[c->step_workload[0]]);
  json_t *steps = json_array();
  for (size_t i = 0; i < cv->n; i++) {
    const struct placer_curve_step *st = &cv->steps[i];
    const struct placer_bench_share *k = &c->kept[i];
    json_array_append_new(
        steps,
        json_pack("{s:s, s:f, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "workload", r->workloads[c->step_workload[i]].name,
                  "load", st->load, "n", (json_int_t)st->n, "throughput", estimate_json(&st->throughput, scale),
                  "p50_ns", estimate_json(&st->latency_ns[0], 1), "p99_ns", estimate_json(&st->latency_ns[1], 1),
                  "p999_ns", estimate_json(&st->latency_ns[2], 1), "storage_cores",
                  estimate_json(&st->storage_cores, 1), "neighbour_kept",
                  isnan(k->median) ? json_null()
                                   : json_pack("{s:o, s:o, s:o}", "median", num_or_null(k->median), "ci95_low",
                                               num_or_null(k->ci_low), "ci95_high", num_or_null(k->ci_high))));
  }
  const struct placer_curve_knee *kn = &c->knee;
  json_t *knee = kn->judged
                     ? json_pack("{s:b, s:f, s:o, s:o, s:o, s:o}", "found", kn->found, "load", cv->steps[kn->step].load,
                                 "throughput", num_or_null(kn->throughput * scale), "p99_ns",
                                 num_or_null(kn->latency_ns), "throughput_growth", num_or_null(kn->throughput_growth),
                                 "latency_growth", num_or_null(kn->latency_growth))
                     : json_null();
  json_t *slo = json_null(), *per_core = json_null();
  if (c->has_slo) {
    const struct placer_curve_slo_point *s = &c->slo;
    bool met = s->status == PLACER_CURVE_SLO_MET || s->status == PLACER_CURVE_SLO_ALWAYS_MET;
    slo = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "status", slo_status_names[s->status],
        "throughput", num_or_null(s->throughput * scale), "ci95_low", num_or_null(s->ci_low * scale), "ci95_high",
        num_or_null(s->ci_high * scale), "load", num_or_null(s->load), "interpolated", s->interpolated, "between",
        met ? json_pack("[f, f]", cv->steps[s->lower].load, cv->steps[s->upper].load) : json_null(), "storage_cores",
        num_or_null(s->storage_cores), "best_load",
        s->status == PLACER_CURVE_SLO_NEVER_MET ? json_real(cv->steps[s->best].load) : json_null(), "miss",
        num_or_null(s->miss), "missed",
        s->status == PLACER_CURVE_SLO_NEVER_MET ? json_string(placer_slo_percentile_names[s->missed]) : json_null(),
        "met_share", num_or_null(s->met_share), "text", c->slo_text);
    const struct placer_curve_per_core *pc = &c->per_core;
    per_core =
        json_pack("{s:o, s:o, s:o, s:o, s:b}", "used_cores", num_or_null(pc->used_cores), "per_core_used",
                  num_or_null(pc->per_core_used * scale), "allocated_cores", num_or_null(pc->allocated_cores),
                  "per_core_allocated", num_or_null(pc->per_core_allocated * scale), "lower_bound", pc->lower_bound);
  }
  return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "curve", c->name, "variant", r->variants[c->variant],
                   "condition", r->conditions[c->condition].name, "load", cv->load_name, "steps", steps, "knee", knee,
                   "slo_point", slo, "per_core", per_core);
}

json_t *placer_bench_curves_json(const struct placer_bench_results *r) {
  const char *names[PLACER_BENCH_MAX];
  size_t n = placer_bench_curve_names(r, names, PLACER_BENCH_MAX);
  json_t *all = json_array();
  for (size_t i = 0; all && i < n; i++)
    for (size_t v = 0; v < r->n_variants; v++)
      for (size_t c = 0; c < r->n_conditions; c++) {
        struct placer_bench_curve cv;
        if (placer_bench_curve_get(r, names[i], v, c, &cv, NULL) < 0) {
          json_decref(all);
          return NULL;
        }
        if (cv.built && json_array_append_new(all, curve_json(r, &cv)) < 0) {
          placer_bench_curve_clear(&cv);
          json_decref(all);
          return NULL;
        }
        placer_bench_curve_clear(&cv);
      }
  return all;
}

json_t *placer_bench_curve_balance_json(const struct placer_bench_results *r) {
  struct placer_bench_curve_balance b;
  if (placer_bench_curve_balance(r, &b, NULL) < 0)
    return NULL;
  if (!b.computed) {
    json_t *j = b.why[0] ? json_pack("{s:b, s:s}", "computed", false, "why", b.why) : json_null();
    placer_bench_curve_balance_clear(&b);
    return j;
  }
  const struct placer_curve_balance *cb = &b.balance;
  double scale = 1 / unit_scale(&r->workloads[placer_bench_curve_last_workload(r, b.curve)]);
  json_t *verdicts = json_array();
  for (size_t i = 0; i < cb->n; i++) {
    const struct placer_curve_verdict *vd = &cb->verdicts[i];
    const struct placer_bench_share *k = &b.kept_at_target[i];
    json_array_append_new(verdicts,
                          json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b, s:s}", "variant", r->variants[i],
                                    "storage_cpus", num_or_null(r->storage_cpus[i]), "slo_throughput",
                                    num_or_null(vd->slo.throughput * scale), "neighbour_kept", num_or_null(k->median),
                                    "neighbour_kept_ci95_low", num_or_null(k->ci_low), "neighbour_kept_ci95_high",
                                    num_or_null(k->ci_high), "meets_slo", vd->meets_slo, "keeps_neighbours",
                                    vd->keeps_neighbours, "conclusive", vd->conclusive, "why", vd->why));
  }
  json_t *j = json_pack("{s:b, s:s, s:s, s:o, s:b, s:o, s:b, s:o, s:s, s:o}", "computed", true, "curve", b.curve,
                        "condition", r->conditions[b.condition].name, "target", num_or_null(cb->target * scale),
                        "target_from_knee", cb->target_from_knee, "knee_variant",
                        cb->target_from_knee ? json_string(r->variants[cb->knee_variant]) : json_null(), "found",
                        cb->found, "variant", cb->found ? json_string(r->variants[cb->variant]) : json_null(),
                        "summary", cb->summary, "verdicts", verdicts);
  placer_bench_curve_balance_clear(&b);
  return j;
}

static const char *const at_names[] = { NULL, "knee", "iops", "bytes_per_s" };

json_t *placer_bench_slo_to_json(const struct placer_slo *slo) {
  if (!placer_slo_storage_set(slo) && isnan(slo->keep))
    return json_null();
  return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "p50_ns", num_or_null(slo->storage_ns[PLACER_SLO_P50]), "p99_ns",
                   num_or_null(slo->storage_ns[PLACER_SLO_P99]), "p999_ns",
                   num_or_null(slo->storage_ns[PLACER_SLO_P999]), "at",
                   at_names[slo->at] ? json_string(at_names[slo->at]) : json_null(), "at_rate",
                   num_or_null(slo->at_rate), "keep", num_or_null(slo->keep));
}

void placer_bench_slo_from_json(const json_t *j, struct placer_slo *out) {
  placer_slo_init(out);
  if (!json_is_object(j))
    return;
  static const char *const keys[] = { "p50_ns", "p99_ns", "p999_ns" };
  for (size_t p = 0; p < PLACER_SLO_N_PERCENTILES; p++) {
    const json_t *v = json_object_get(j, keys[p]);
    out->storage_ns[p] = json_is_number(v) ? json_number_value(v) : NAN;
  }
  const char *at = json_string_value(json_object_get(j, "at"));
  for (int a = PLACER_SLO_AT_KNEE; at && a <= PLACER_SLO_AT_BYTES; a++)
    if (strcmp(at, at_names[a]) == 0)
      out->at = (enum placer_slo_at)a;
  const json_t *rate = json_object_get(j, "at_rate"), *keep = json_object_get(j, "keep");
  out->at_rate = json_is_number(rate) ? json_number_value(rate) : NAN;
  out->keep = json_is_number(keep) ? json_number_value(keep) : NAN;
}
