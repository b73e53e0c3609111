/* placer size at the SLO (issue #39): from a results directory with
 * response curves and a storage latency target, the CPU one client I/O
 * costs where the curve still meets the target -- the storage CPU a variant
 * is given, over the throughput of its SLO point -- instead of the CPU it
 * uses flat out.  The variant is the balance point's from the curves, else
 * the one with the most throughput per core allocated at its SLO point
 * (docs/size.md, "At the SLO"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/curve-results.h"
#include "size/size.h"

/* The variant of R whose SLO point sizes: the balance point's, else the most
 * per core allocated; -1 when none has both an allocation and an SLO point. */
static int slo_variant(const struct placer_bench_results *r, const struct placer_bench_curve_balance *b,
                       struct placer_bench_curve *out, struct placer_error **err) {
  int best = -1;
  double most = 0;
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_curve c;
    if (placer_bench_curve_get(r, b->curve, v, b->condition, &c, err) < 0)
      return -2;
    double x = c.built && c.has_slo ? c.per_core.per_core_allocated : NAN;
    bool pick = b->balance.found ? v == b->balance.variant && isfinite(x) : isfinite(x) && x > most;
    if (pick) {
      if (best >= 0)
        placer_bench_curve_clear(out);
      *out = c;
      best = (int)v;
      most = x;
    } else {
      placer_bench_curve_clear(&c);
    }
  }
  return best;
}

int placer_size_slo_rows(struct placer_bench_results *const *results, size_t n_results,
                         const struct placer_size_options *opt, struct placer_size_result *res,
                         struct placer_error **err) {
  for (size_t k = 0; k < n_results; k++) {
    const struct placer_bench_results *r = results[k];
    struct placer_bench_curve_balance b;
    if (placer_bench_curve_balance(r, &b, err) < 0)
      return -1;
    if (!b.computed) {
      placer_bench_curve_balance_clear(&b);
      continue;
    }
    struct placer_bench_curve c;
    int v = slo_variant(r, &b, &c, err);
    if (v == -2) {
      placer_bench_curve_balance_clear(&b);
      return -1;
    }
    char name[320], targets[96];
    placer_slo_targets_text(r->slo.storage_ns, targets, sizeof(targets));
    snprintf(name, sizeof(name), "%s at %s", b.curve, targets);
    bool seen = false; /* the first results directory's, as for the other workloads */
    for (size_t j = 0; j < res->n_workloads && !seen; j++)
      seen = strcmp(res->workloads[j].name, name) == 0;
    if (v < 0 || seen) {
      if (v >= 0)
        placer_bench_curve_clear(&c);
      placer_bench_curve_balance_clear(&b);
      continue;
    }
    struct placer_size_workload *bigger = realloc(res->workloads, (res->n_workloads + 1) * sizeof(*bigger));
    if (bigger == NULL) {
      placer_bench_curve_clear(&c);
      placer_bench_curve_balance_clear(&b);
      return placer_error_oom(err, "size");
    }
    res->workloads = bigger;
    struct placer_size_workload *sw = &res->workloads[res->n_workloads++];
    const struct placer_bench_workload *w = &r->workloads[c.step_workload[0]];
    bool bytes = placer_bench_workload_uses_bandwidth(w);
    *sw = (struct placer_size_workload){
      .name = strdup(name),
      .pattern = strdup(w->pattern),
      .block_size_bytes = w->block_size_bytes,
      .at_slo = true,
      .slo_variant = strdup(r->variants[v]),
      .slo_condition = strdup(r->conditions[b.condition].name),
      .slo_iops = c.slo.throughput * (bytes ? 1e6 / (double)w->block_size_bytes : 1),
      .allocated_cores = c.per_core.allocated_cores,
      .per_core_allocated = c.per_core.per_core_allocated,
      .per_core_used = c.per_core.per_core_used,
      .measured_cores = c.per_core.used_cores,
    };
    for (size_t s = 0; s < c.curve.n; s++)
      sw->n_runs += c.curve.steps[s].n;
    snprintf(sw->slo_text, sizeof(sw->slo_text), "%s", c.slo_text);
    sw->measured_iops = sw->slo_iops;
    /* the storage CPU given per client I/O where the latency target still holds */
    sw->cpu_ms_per_io = 1000.0 * sw->allocated_cores / sw->slo_iops;
    /* writes cost every replica, as the measured cost does (size.c) */
    double f = placer_bench_pattern_direction(w->pattern) == PLACER_BENCH_WRITE  ? 1
               : placer_bench_pattern_direction(w->pattern) == PLACER_BENCH_READ ? 0
                                                                                 : 0.5;
    sw->cpu_ms_per_io_target =
        sw->cpu_ms_per_io * ((1 - f) + f * (double)opt->replicas / (double)opt->measured_replicas);
    placer_bench_curve_clear(&c);
    placer_bench_curve_balance_clear(&b);
    if (sw->name == NULL || sw->pattern == NULL || sw->slo_variant == NULL || sw->slo_condition == NULL)
      return placer_error_oom(err, "size");
  }
  return 0;
}
