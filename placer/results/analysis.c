/* Figures derived from bench results: per-run metrics, per-cell statistics,
 * A/B comparisons, interference ratios and the sweep's balance point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "results/results.h"

static double nan_max(double a, double b) {
  if (isnan(a))
    return b;
  return isnan(b) || a >= b ? a : b;
}

double placer_bench_run_main_metric(const struct placer_bench_run *run, const struct placer_bench_workload *w) {
  return run->done ? placer_bench_ops_main_metric(w, run->ops, run->n_ops) : NAN;
}

double placer_bench_run_p99_ns(const struct placer_bench_run *run, const struct placer_bench_workload *w) {
  return run->done ? placer_bench_ops_p99_ns(w, run->ops, run->n_ops) : NAN;
}

/* Device bytes over the client's written bytes (its "write" operation's). */
double placer_bench_run_write_amplification(const struct placer_bench_run *run) {
  if (!run->done || !run->has_device_bytes)
    return NAN;
  const struct placer_bench_op *wr = placer_bench_run_op(run, "write");
  return placer_bench_write_amplification(run->device_bytes_written, wr ? wr->io_bytes : 0);
}

/* Sum of the CPU of a role's instances; false when the run has none. */
static bool role_cpu_ns(const struct placer_bench_run *run, const char *role, uint64_t *cpu_ns) {
  bool found = false;
  *cpu_ns = 0;
  for (size_t i = 0; i < run->n_roles; i++)
    if (strcmp(run->roles[i].role, role) == 0) {
      *cpu_ns += run->roles[i].cpu_ns;
      found = true;
    }
  return found;
}

double placer_bench_run_role_cpu_ms_per_io(const struct placer_bench_run *run, const char *role) {
  uint64_t cpu_ns;
  if (!run->done || !role_cpu_ns(run, role, &cpu_ns))
    return NAN;
  return placer_bench_cpu_ms_per_io(cpu_ns, placer_bench_result_total_ios(run->ops, run->n_ops));
}

double placer_bench_run_role_cores(const struct placer_bench_run *run, const char *role) {
  uint64_t cpu_ns;
  if (!run->done || !role_cpu_ns(run, role, &cpu_ns) || !(run->duration_s > 0))
    return NAN;
  return (double)cpu_ns / 1e9 / run->duration_s;
}

double placer_bench_run_role_peak_rss(const struct placer_bench_run *run, const char *role) {
  double peak = NAN;
  for (size_t i = 0; run->done && i < run->n_roles; i++)
    if (strcmp(run->roles[i].role, role) == 0)
      peak = nan_max(peak, (double)run->roles[i].peak_rss_bytes);
  return peak;
}

double placer_bench_run_role_local_mem(const struct placer_bench_run *run, const char *role) {
  double low = NAN;
  for (size_t i = 0; run->done && i < run->n_roles; i++)
    if (strcmp(run->roles[i].role, role) == 0 && !isnan(run->roles[i].local_mem_share) &&
        (isnan(low) || run->roles[i].local_mem_share < low))
      low = run->roles[i].local_mem_share;
  return low;
}

enum cell_metric { MAIN, P99, WA, CPU_PER_IO, NEIGHBOUR };

static double run_metric(const struct placer_bench_results *r, const struct placer_bench_run *run,
                         const struct placer_bench_workload *w, enum cell_metric m) {
  switch (m) {
  case MAIN: return placer_bench_run_main_metric(run, w);
  case P99: return placer_bench_run_p99_ns(run, w);
  case WA: return placer_bench_run_write_amplification(run);
  case CPU_PER_IO: return placer_bench_run_role_cpu_ms_per_io(run, r->storage_role);
  case NEIGHBOUR: return run->done ? run->neighbour_rate : NAN;
  }
  return NAN;
}

/* The defined values of a metric over a cell's done repeats; values has room
 * for r->repeats. */
static size_t cell_values(const struct placer_bench_results *r, size_t v, size_t c, size_t w, enum cell_metric m,
                          double *values) {
  size_t n = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    double x = run_metric(r, placer_bench_results_run_const(r, v, c, w, k), &r->workloads[w], m);
    if (!isnan(x))
      values[n++] = x;
  }
  return n;
}

static double cell_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, enum cell_metric m) {
  double *values = malloc(r->repeats * sizeof(*values));
  if (values == NULL)
    return NAN;
  double med = placer_stats_median(values, cell_values(r, v, c, w, m, values));
  free(values);
  return med;
}

void placer_bench_cell_stats(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                             struct placer_bench_cell_stats *out) {
  memset(out, 0, sizeof(*out));
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, variant, condition, workload, k);
    out->n_done += run && run->done;
  }
  double *values = malloc((r->repeats ? r->repeats : 1) * sizeof(*values));
  struct {
    enum cell_metric m;
    struct placer_stats_summary *s;
  } wanted[] = {
    { MAIN, &out->main },
    { P99, &out->p99_ns },
    { WA, &out->write_amplification },
    { CPU_PER_IO, &out->storage_cpu_ms_per_io },
    { NEIGHBOUR, &out->neighbour_rate },
  };
  for (size_t i = 0; i < N_OF(wanted); i++) {
    size_t n = values && variant < r->n_variants && condition < r->n_conditions && workload < r->n_workloads
                   ? cell_values(r, variant, condition, workload, wanted[i].m, values)
                   : 0;
    placer_stats_summarize(values, n, wanted[i].s);
  }
  free(values);
}

void placer_bench_compare(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                          struct placer_stats_comparison *main_metric, struct placer_stats_comparison *p99) {
  double *a = malloc(r->repeats * sizeof(*a)), *b = malloc(r->repeats * sizeof(*b));
  enum cell_metric metrics[2] = { MAIN, P99 };
  struct placer_stats_comparison *outs[2] = { main_metric, p99 };
  for (int i = 0; i < 2; i++) {
    if (outs[i] == NULL)
      continue;
    size_t na = a ? cell_values(r, 0, condition, workload, metrics[i], a) : 0;
    size_t nb = b ? cell_values(r, variant, condition, workload, metrics[i], b) : 0;
    placer_stats_compare(a, na, b, nb, outs[i]);
  }
  free(a);
  free(b);
}

void placer_bench_compare_paired(const struct placer_bench_results *r, size_t variant, size_t condition,
                                 size_t workload, struct placer_stats_paired *main_metric,
                                 struct placer_stats_paired *p99) {
  size_t n = r->repeats ? r->repeats : 1;
  double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
  enum cell_metric metrics[2] = { MAIN, P99 };
  struct placer_stats_paired *outs[2] = { main_metric, p99 };
  for (int i = 0; i < 2; i++) {
    if (outs[i] == NULL)
      continue;
    size_t m = 0;
    for (size_t k = 0; a && b && k < r->repeats; k++) {
      const struct placer_bench_run *ra = placer_bench_results_run_const(r, 0, condition, workload, k);
      const struct placer_bench_run *rb = placer_bench_results_run_const(r, variant, condition, workload, k);
      if (ra == NULL || rb == NULL || !ra->done || !rb->done)
        continue;
      const struct placer_bench_workload *w = &r->workloads[workload];
      a[m] = metrics[i] == MAIN ? placer_bench_run_main_metric(ra, w) : placer_bench_run_p99_ns(ra, w);
      b[m] = metrics[i] == MAIN ? placer_bench_run_main_metric(rb, w) : placer_bench_run_p99_ns(rb, w);
      m++;
    }
    placer_stats_paired_compare(a, b, m, outs[i]);
  }
  free(a);
  free(b);
}

static double run_storage_side_cores(const struct placer_bench_results *r, const struct placer_bench_run *run) {
  if (!run->done || !(run->duration_s > 0) || run->n_roles == 0)
    return NAN;
  uint64_t ns = 0;
  for (size_t i = 0; i < run->n_roles; i++)
    if (strcmp(run->roles[i].role, r->neighbour_role) != 0)
      ns += run->roles[i].cpu_ns;
  return (double)ns / 1e9 / run->duration_s;
}

double placer_bench_cell_cores(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                               const char *role) {
  double *values = malloc((r->repeats ? r->repeats : 1) * sizeof(*values));
  size_t n = 0;
  for (size_t k = 0; values && k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, variant, condition, workload, k);
    double x = run == NULL ? NAN : role ? placer_bench_run_role_cores(run, role) : run_storage_side_cores(r, run);
    if (!isnan(x))
      values[n++] = x;
  }
  double med = values ? placer_stats_median(values, n) : NAN;
  free(values);
  return med;
}

int placer_bench_neighbour_condition(const struct placer_bench_results *r) {
  for (size_t c = 0; c < r->n_conditions; c++)
    if (r->conditions[c].neighbour_level > 0)
      return (int)c;
  return -1;
}

void placer_bench_kept(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                       double *storage, double *neighbour, double *neighbour_own) {
  *storage = *neighbour = *neighbour_own = NAN;
  int alone = placer_bench_alone_condition(r);
  if (alone < 0 || variant >= r->n_variants || condition >= r->n_conditions || workload >= r->n_workloads)
    return;
  *storage = placer_bench_ratio(cell_median(r, variant, condition, workload, MAIN),
                                cell_median(r, 0, (size_t)alone, workload, MAIN));
  if (!(r->conditions[condition].neighbour_level > 0))
    return;
  /* each run against the solo rate of its own pass (neighbour-share.c) */
  struct placer_bench_share kept, own;
  placer_bench_neighbour_share(r, variant, condition, workload, 0, &kept);
  placer_bench_neighbour_share(r, variant, condition, workload, variant, &own);
  *neighbour = kept.median;
  *neighbour_own = own.median;
}

/* ---- the CPU model's bound ---- */

/* What the efficiency is computed from, per run: variant 0 alone (its main
 * metric and the CPU of every role but the neighbours'), the cell (storage's
 * main metric, the neighbours' rate and cores, variant 0's solo rate of the
 * run's pass and the share of it the run kept).  NAN where a run lacks a
 * figure. */
struct eff_sample {
  double *alone_main, *alone_cores;
  size_t n_alone;
  double *main, *nb_rate, *nb_cores, *nb_solo, *nb_share;
  size_t n_cell;
};

static double median_defined(const double *x, size_t n, double *buf) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(x[i]))
      buf[m++] = x[i];
  return placer_stats_median(buf, m);
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

struct eff_figures {
  double s, n, c_alone, cpu_per_op, demand, n_max, bound, efficiency;
};

static void eff_compute(const struct eff_sample *e, double cpus, double *buf, struct eff_figures *f) {
  double alone = median_defined(e->alone_main, e->n_alone, buf);
  f->c_alone = median_defined(e->alone_cores, e->n_alone, buf);
  f->cpu_per_op = placer_bench_ratio(f->c_alone, alone);
  f->s = placer_bench_ratio(median_defined(e->main, e->n_cell, buf), alone);
  double rate = median_defined(e->nb_rate, e->n_cell, buf), solo = median_defined(e->nb_solo, e->n_cell, buf);
  f->n = median_defined(e->nb_share, e->n_cell, buf);
  /* the neighbours' CPU per op in the cell, times their unconstrained solo rate */
  f->demand = placer_bench_ratio(median_defined(e->nb_cores, e->n_cell, buf), rate) * solo;
  f->n_max = (cpus - f->s * f->c_alone) / f->demand;
  if (!isnan(f->n_max))
    f->n_max = fmax(0.0, fmin(1.0, f->n_max));
  f->bound = f->s + f->n_max;
  f->efficiency = f->bound > 0 ? (f->s + f->n) / f->bound : NAN;
}

static void eff_sample_free(struct eff_sample *e) {
  free(e->alone_main);
  free(e->alone_cores);
  free(e->main);
  free(e->nb_rate);
  free(e->nb_cores);
  free(e->nb_solo);
  free(e->nb_share);
}

static int eff_sample_fill(const struct placer_bench_results *r, size_t v, size_t c, size_t w, size_t alone,
                           struct eff_sample *e) {
  size_t n = r->repeats ? r->repeats : 1;
  *e = (struct eff_sample){
    .alone_main = malloc(n * sizeof(double)),
    .alone_cores = malloc(n * sizeof(double)),
    .main = malloc(n * sizeof(double)),
    .nb_rate = malloc(n * sizeof(double)),
    .nb_cores = malloc(n * sizeof(double)),
    .nb_solo = malloc(n * sizeof(double)),
    .nb_share = malloc(n * sizeof(double)),
  };
  if (!e->alone_main || !e->alone_cores || !e->main || !e->nb_rate || !e->nb_cores || !e->nb_solo || !e->nb_share)
    return -1;
  const struct placer_bench_workload *wl = &r->workloads[w];
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *a = placer_bench_results_run_const(r, 0, alone, w, k);
    if (a->done) {
      e->alone_main[e->n_alone] = placer_bench_run_main_metric(a, wl);
      e->alone_cores[e->n_alone++] = run_storage_side_cores(r, a);
    }
    const struct placer_bench_run *x = placer_bench_results_run_const(r, v, c, w, k);
    if (x->done) {
      e->main[e->n_cell] = placer_bench_run_main_metric(x, wl);
      e->nb_rate[e->n_cell] = x->neighbour_rate;
      e->nb_cores[e->n_cell] = r->neighbour_role[0] ? placer_bench_run_role_cores(x, r->neighbour_role) : NAN;
      e->nb_solo[e->n_cell] = placer_bench_pass_solo(r, 0, c, k);
      e->nb_share[e->n_cell++] = placer_bench_run_neighbour_share(r, v, c, w, k, 0);
    }
  }
  return 0;
}

/* Percentile bootstrap of the efficiency: the runs of A alone (as pairs of
 * rate and CPU) and of the cell (rate, neighbour rate and cores, and the
 * solo rate of the run's pass, together), each resampled with replacement. */
static void eff_ci(const struct eff_sample *e, double cpus, double *buf, double *low, double *high) {
  *low = *high = NAN;
  if (e->n_alone == 0 || e->n_cell == 0)
    return;
  size_t n = e->n_alone + e->n_cell;
  double *store = malloc(7 * n * sizeof(double)), *effs = malloc(PLACER_STATS_BOOTSTRAP_RESAMPLES * sizeof(double));
  if (store == NULL || effs == NULL) {
    free(store);
    free(effs);
    return;
  }
  struct eff_sample b = {
    .alone_main = store,
    .alone_cores = store + n,
    .main = store + 2 * n,
    .nb_rate = store + 3 * n,
    .nb_cores = store + 4 * n,
    .nb_solo = store + 5 * n,
    .nb_share = store + 6 * n,
    .n_alone = e->n_alone,
    .n_cell = e->n_cell,
  };
  uint64_t state = PLACER_STATS_BOOTSTRAP_SEED;
  size_t m = 0;
  for (unsigned i = 0; i < PLACER_STATS_BOOTSTRAP_RESAMPLES; i++) {
    for (size_t k = 0; k < e->n_alone; k++) {
      size_t j = (size_t)(((unsigned __int128)placer_stats_splitmix64(&state) * e->n_alone) >> 64);
      b.alone_main[k] = e->alone_main[j];
      b.alone_cores[k] = e->alone_cores[j];
    }
    for (size_t k = 0; k < e->n_cell; k++) {
      size_t j = (size_t)(((unsigned __int128)placer_stats_splitmix64(&state) * e->n_cell) >> 64);
      b.main[k] = e->main[j];
      b.nb_rate[k] = e->nb_rate[j];
      b.nb_cores[k] = e->nb_cores[j];
      b.nb_solo[k] = e->nb_solo[j];
      b.nb_share[k] = e->nb_share[j];
    }
    struct eff_figures f;
    eff_compute(&b, cpus, buf, &f);
    if (isnan(f.efficiency)) { /* a resample without a figure: no CI */
      m = 0;
      break;
    }
    effs[m++] = f.efficiency;
  }
  if (m) {
    qsort(effs, m, sizeof(*effs), cmp_double);
    *low = placer_stats_percentile_sorted(effs, m, 2.5);
    *high = placer_stats_percentile_sorted(effs, m, 97.5);
  }
  free(store);
  free(effs);
}

void placer_bench_efficiency(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                             struct placer_bench_efficiency *out) {
  *out = (struct placer_bench_efficiency){ NAN,   NAN, NAN, NAN, NAN, NAN, NAN, NAN,
                                           false, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
  int alone = placer_bench_alone_condition(r);
  if (alone < 0 || variant >= r->n_variants || condition >= r->n_conditions || workload >= r->n_workloads)
    return;
  double storage, neighbour, own;
  placer_bench_kept(r, variant, condition, workload, &storage, &neighbour, &own);
  out->storage_kept = storage;
  out->storage_cores_alone = placer_bench_cell_cores(r, 0, (size_t)alone, workload, NULL);
  out->storage_cores = placer_bench_cell_cores(r, variant, condition, workload, NULL);
  out->storage_role_cores = placer_bench_cell_cores(r, variant, condition, workload, r->storage_role);
  out->storage_cpu_s_per_op =
      placer_bench_ratio(out->storage_cores_alone, cell_median(r, 0, (size_t)alone, workload, MAIN));
  if (!(r->conditions[condition].neighbour_level > 0))
    return;
  out->neighbour_kept = neighbour;
  out->neighbour_kept_own = own;
  out->neighbour_cores =
      r->neighbour_role[0] ? placer_bench_cell_cores(r, variant, condition, workload, r->neighbour_role) : NAN;
  struct eff_sample e = { 0 };
  double cpus = r->node_cpus > 0 ? r->node_cpus : NAN;
  double *buf = malloc((r->repeats ? r->repeats : 1) * sizeof(*buf));
  if (buf && eff_sample_fill(r, variant, condition, workload, (size_t)alone, &e) == 0) {
    struct eff_figures f;
    eff_compute(&e, cpus, buf, &f);
    out->neighbour_demand_cores = f.demand;
    out->neighbour_max = f.n_max;
    out->sum = out->storage_kept + out->neighbour_kept;
    out->bound = f.bound;
    out->efficiency = f.efficiency;
    eff_ci(&e, cpus, buf, &out->efficiency_ci_low, &out->efficiency_ci_high);
    out->bound_exceeded = out->efficiency_ci_low > 1;
  }
  eff_sample_free(&e);
  free(buf);
}

size_t placer_bench_split_steps(const struct placer_bench_results *r, struct placer_bench_split_step *steps) {
  int alone = placer_bench_alone_condition(r), cond = placer_bench_neighbour_condition(r);
  if (!r->split_parameter[0] || alone < 0)
    return 0;
  size_t w = r->sweep_workload, n = 0;
  for (size_t v = 0; v < r->n_variants && n < PLACER_BENCH_MAX; v++) {
    struct placer_bench_split_step *s = &steps[n++];
    s->variant = v;
    s->knob = r->knobs[v];
    s->alone = cell_median(r, v, (size_t)alone, w, MAIN);
    s->with_neighbours = cond >= 0 ? cell_median(r, v, (size_t)cond, w, MAIN) : NAN;
    s->p99_ns = cond >= 0 ? cell_median(r, v, (size_t)cond, w, P99) : NAN;
    s->neighbour_rate = cond >= 0 ? cell_median(r, v, (size_t)cond, w, NEIGHBOUR) : NAN;
    placer_bench_efficiency(r, v, cond >= 0 ? (size_t)cond : (size_t)alone, w, &s->eff);
  }
  /* knob order, the base (NAN) first; insertion sort, stable */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0; j--) {
      double x = steps[j].knob, y = steps[j - 1].knob;
      bool before = !isnan(y) && (isnan(x) || x < y);
      if (!before)
        break;
      struct placer_bench_split_step t = steps[j];
      steps[j] = steps[j - 1];
      steps[j - 1] = t;
    }
  return n;
}

void placer_bench_split_balance(const struct placer_bench_results *r, const struct placer_bench_split_step *steps,
                                size_t n, struct placer_bench_split_balance *out) {
  *out = (struct placer_bench_split_balance){ 0 };
  for (size_t i = 0; i < n; i++)
    if (!isnan(steps[i].knob) && steps[i].eff.storage_kept >= r->storage_min_fraction) {
      out->found = true;
      out->step = i;
      return;
    }
}

void placer_bench_compare_neighbours(const struct placer_bench_results *r, size_t variant, size_t condition,
                                     size_t workload, struct placer_stats_comparison *cmp,
                                     struct placer_stats_paired *paired) {
  size_t n = r->repeats ? r->repeats : 1;
  double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b)), *pa = malloc(n * sizeof(*pa)),
         *pb = malloc(n * sizeof(*pb));
  size_t na = 0, nb = 0, np = 0;
  for (size_t k = 0; a && b && pa && pb && k < r->repeats; k++) {
    double x =
        run_metric(r, placer_bench_results_run_const(r, 0, condition, workload, k), &r->workloads[workload], NEIGHBOUR);
    double y = run_metric(r, placer_bench_results_run_const(r, variant, condition, workload, k),
                          &r->workloads[workload], NEIGHBOUR);
    if (!isnan(x))
      a[na++] = x;
    if (!isnan(y))
      b[nb++] = y;
    if (!isnan(x) && !isnan(y)) {
      pa[np] = x;
      pb[np++] = y;
    }
  }
  placer_stats_compare(a, na, b, nb, cmp);
  placer_stats_paired_compare(pa, pb, np, paired);
  free(a);
  free(b);
  free(pa);
  free(pb);
}

int placer_bench_alone_condition(const struct placer_bench_results *r) {
  for (size_t c = 0; c < r->n_conditions; c++)
    if (r->conditions[c].neighbour_level == 0)
      return (int)c;
  return -1;
}

void placer_bench_interference(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                               double *storage_ratio, double *neighbour_ratio) {
  int alone = placer_bench_alone_condition(r);
  *storage_ratio = *neighbour_ratio = NAN;
  if (alone < 0 || (size_t)alone == condition)
    return;
  *storage_ratio = placer_bench_ratio(cell_median(r, variant, condition, workload, MAIN),
                                      cell_median(r, variant, alone, workload, MAIN));
  struct placer_bench_share own; /* against its own solo rate, each pass's (neighbour-share.c) */
  placer_bench_neighbour_share(r, variant, condition, workload, variant, &own);
  *neighbour_ratio = own.median;
}

void placer_bench_sweep_balance(const struct placer_bench_results *r, size_t variant,
                                struct placer_bench_balance *out) {
  *out = (struct placer_bench_balance){ .level = NAN };
  int alone = placer_bench_alone_condition(r);
  if (!r->sweep || alone < 0)
    return;
  size_t w = r->sweep_workload;
  struct placer_bench_balance_criteria crit = {
    .storage_baseline = cell_median(r, 0, alone, w, MAIN), /* the unconstrained baseline (placer_bench_kept) */
    .storage_min_fraction = r->storage_min_fraction,
    .neighbour_min_fraction = r->neighbour_min_fraction,
  };
  if (isnan(crit.storage_baseline))
    return;
  struct placer_bench_sweep_step *steps = calloc(r->n_conditions, sizeof(*steps));
  size_t *cond_of = calloc(r->n_conditions, sizeof(*cond_of));
  size_t n = 0;
  for (size_t c = 0; steps && cond_of && c < r->n_conditions; c++) {
    if (!(r->conditions[c].neighbour_level > 0))
      continue;
    steps[n] = (struct placer_bench_sweep_step){
      .level = r->conditions[c].neighbour_level,
      .storage = cell_median(r, variant, c, w, MAIN),
    };
    struct placer_bench_share kept; /* against variant 0's solo rate of each pass (placer_bench_kept) */
    placer_bench_neighbour_share(r, variant, c, w, 0, &kept);
    steps[n].neighbour_kept = kept.median;
    cond_of[n++] = c;
  }
  placer_bench_balance_point(steps, n, &crit, out);
  if (out->found)
    out->index = cond_of[out->index];
  free(steps);
  free(cond_of);
}

size_t placer_bench_planned_repeats(const struct placer_bench_results *r) {
  return r->repeats_run ? r->repeats_run : r->repeats;
}

/* The decisive test: the smaller p of the paired and the unpaired test (a
 * missing p counts as 1), with that test's change and CI. */
static void decide(const struct placer_bench_results *r, const struct placer_stats_comparison *cmp,
                   const struct placer_stats_paired *pair, struct placer_bench_verdict *v) {
  double pu = isnan(cmp->p_value) ? 1 : cmp->p_value, pp = isnan(pair->p_value) ? 1 : pair->p_value;
  v->paired = !isnan(pair->change) && pp < pu;
  v->change = v->paired ? pair->change : cmp->change;
  v->ci_low = v->paired ? pair->ci_low : cmp->ci_low;
  v->ci_high = v->paired ? pair->ci_high : cmp->ci_high;
  v->p_value = v->paired ? pp : pu;
  v->significant = v->p_value < r->alpha;
}

size_t placer_bench_verdicts(const struct placer_bench_results *r, struct placer_bench_verdict **out) {
  *out = NULL;
  if (r->n_variants < 2)
    return 0;
  size_t cap = 2 * r->n_variants * r->n_conditions * r->n_workloads, n = 0;
  struct placer_bench_verdict *all = malloc(cap * sizeof(*all));
  if (all == NULL)
    return (size_t)-1;
  for (int neighbours = 0; neighbours < 2; neighbours++)
    for (size_t v = 1; v < r->n_variants; v++)
      for (size_t c = 0; c < r->n_conditions; c++) {
        if (neighbours && !(r->conditions[c].neighbour_level > 0))
          continue;
        for (size_t w = 0; w < r->n_workloads; w++) {
          struct placer_stats_comparison cmp;
          struct placer_stats_paired pair;
          if (neighbours) {
            placer_bench_compare_neighbours(r, v, c, w, &cmp, &pair);
          } else {
            placer_bench_compare(r, v, c, w, &cmp, NULL);
            placer_bench_compare_paired(r, v, c, w, &pair, NULL);
          }
          if (isnan(cmp.change))
            continue;
          struct placer_bench_verdict *x = &all[n++];
          *x = (struct placer_bench_verdict){ .neighbours = neighbours, .variant = v, .condition = c, .workload = w };
          decide(r, &cmp, &pair, x);
        }
      }
  if (n == 0) {
    free(all);
    return 0;
  }
  *out = all;
  return n;
}
