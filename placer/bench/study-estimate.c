/* How many runs a study makes and how long it should take, from the study
 * alone (its variants, workloads with their load steps, conditions and
 * repeats): what --dry-run prints, what the progress line starts from, and
 * what the design check holds against max_time. */
#include <stdio.h>

#include "bench/study.h"
#include "lib/units.h"

/* A fio run: its ramp and window, and about a second to start and read it. */
double placer_study_nominal_run_s(const struct placer_study *s) {
  return s->workloads.runtime_s + s->workloads.ramp_s + 1.0;
}

/* Between two variants' passes: a placement switched (live), a cluster built (per-variant). */
double placer_study_pass_overhead_s(const struct placer_study *s) {
  switch (s->cluster.type) {
  case PLACER_STUDY_CLUSTER_LOCAL: return s->cluster.rebuild == PLACER_STUDY_REBUILD_NEVER ? 1.0 : 12.0;
  case PLACER_STUDY_CLUSTER_EXISTING: return 3.0;
  default: return 1.0;
  }
}

void placer_study_estimate(const struct placer_study *s, unsigned repeats, size_t solo_shared,
                           struct placer_study_estimate *out) {
  *out = (struct placer_study_estimate){ .repeats = repeats, .warmup = s->warmup };
  out->variants = s->n_variants;
  out->workloads = placer_study_n_workloads(s);
  out->steps = s->workloads.n_load_steps ? s->workloads.n_load_steps : 1;
  bool by_intensity = s->sweep.enabled && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY;
  out->conditions = 1 + (s->n_neighbours == 0 ? 0 : by_intensity ? s->sweep.n_values : 1);
  /* warm-up passes run each workload alone; every measured pass takes the neighbours' solo rates,
   * but those of a variant that places them as the first one does (run.c) */
  out->cell_runs = out->variants * out->workloads * out->conditions * repeats;
  size_t solo_variants = out->variants > solo_shared ? out->variants - solo_shared : 1;
  out->other_runs = out->variants * out->workloads * s->warmup + solo_variants * repeats * (out->conditions - 1);
  if (s->baseline.enabled)
    out->other_runs += out->workloads;
  out->passes = out->variants * (repeats + s->warmup);
  out->live = s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && s->cluster.rebuild == PLACER_STUDY_REBUILD_NEVER;
  out->seconds = (double)(out->cell_runs + out->other_runs) * placer_study_nominal_run_s(s) +
                 (double)out->passes * placer_study_pass_overhead_s(s) + (out->live ? 30.0 : 0.0);
}

void placer_study_estimate_describe(const struct placer_study *s, const struct placer_study_estimate *e, char *buf,
                                    size_t len) {
  char steps[48] = "", took[32];
  if (s->workloads.n_load_steps)
    snprintf(steps, sizeof(steps), " x %zu load steps", e->steps);
  placer_format_seconds(e->seconds, took, sizeof(took));
  snprintf(buf, len,
           "%zu runs of %u+%u s: %zu cells (%zu variant%s x %zu workload%s%s x %zu condition%s) x %u repeat%s, and "
           "%zu more (warm-up, the neighbours' solo rates, the hardware baseline): about %s",
           e->cell_runs + e->other_runs, s->workloads.ramp_s, s->workloads.runtime_s,
           e->variants * e->workloads * e->conditions, e->variants, e->variants == 1 ? "" : "s",
           e->workloads / e->steps, e->workloads / e->steps == 1 ? "" : "s", steps, e->conditions,
           e->conditions == 1 ? "" : "s", e->repeats, e->repeats == 1 ? "" : "s", e->other_runs, took);
}
