/* The arithmetic of placer bench; see metrics.h. */
#include "results/metrics.h"

#include <math.h>
#include <stdlib.h>

double placer_bench_write_amplification(uint64_t device_bytes_written, uint64_t client_bytes_written) {
  if (client_bytes_written == 0)
    return NAN;
  return (double)device_bytes_written / (double)client_bytes_written;
}

double placer_bench_cpu_ms_per_io(uint64_t cpu_ns, uint64_t client_ios) {
  if (client_ios == 0)
    return NAN;
  return (double)cpu_ns / 1e6 / (double)client_ios;
}

double placer_bench_ratio(double with, double alone) {
  if (isnan(with) || !(alone > 0))
    return NAN;
  return with / alone;
}

bool placer_bench_step_passes(const struct placer_bench_sweep_step *step,
                              const struct placer_bench_balance_criteria *c) {
  double storage = c->storage_lower_is_better ? placer_bench_ratio(c->storage_baseline, step->storage)
                                              : placer_bench_ratio(step->storage, c->storage_baseline);
  return storage >= c->storage_min_fraction && step->neighbour_kept >= c->neighbour_min_fraction;
}

void placer_bench_balance_point(const struct placer_bench_sweep_step *steps, size_t n,
                                const struct placer_bench_balance_criteria *c, struct placer_bench_balance *out) {
  *out = (struct placer_bench_balance){ .level = NAN };
  /* Visit in ascending level without reordering the caller's array: repeatedly
   * take the smallest level above the previous one (n is a handful). */
  bool failed = false;
  double prev = -INFINITY;
  for (size_t visited = 0; visited < n; visited++) {
    size_t best = n;
    for (size_t i = 0; i < n; i++)
      if (steps[i].level > prev && (best == n || steps[i].level < steps[best].level))
        best = i;
    if (best == n)
      break; /* the rest are duplicates or NAN levels */
    prev = steps[best].level;
    bool pass = placer_bench_step_passes(&steps[best], c);
    out->n_passing += pass;
    if (pass && !failed) {
      out->found = true;
      out->index = best;
      out->level = steps[best].level;
    } else if (pass) {
      out->passes_beyond = true;
    } else {
      failed = true;
    }
  }
}
