/* Building and filling the results of a bench study; see results.h. */
#include "results/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const placer_bench_sweep_parameter_names[] = { "intensity", "quota", "cores", "weight", NULL };

static char *dup_or_empty(const char *s) {
  return strdup(s ? s : "");
}

static int oom(struct placer_error **err, const char *what) {
  return placer_error_oom(err, what);
}

/* An empty name, or one already used at an earlier index. */
static int check_name(const char *kind, size_t i, const char *name, bool duplicate, struct placer_error **err) {
  if (name == NULL || name[0] == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench results: %s %zu has no name", kind, i);
  if (duplicate)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench results: %s '%s' appears twice", kind, name);
  return 0;
}

#define SAME(a, b) ((a) && (b) && strcmp((a), (b)) == 0)

static int check_spec(const struct placer_bench_spec *spec, struct placer_error **err) {
  if (spec->n_variants == 0 || spec->n_workloads == 0 || spec->n_conditions == 0 || spec->repeats == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "bench results: need at least one variant, workload, condition and repeat");
  for (size_t i = 0; i < spec->n_variants; i++) {
    bool dup = false;
    for (size_t k = 0; k < i; k++)
      dup |= SAME(spec->variants[k], spec->variants[i]);
    if (check_name("variant", i, spec->variants[i], dup, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < spec->n_workloads; i++) {
    bool dup = false;
    for (size_t k = 0; k < i; k++)
      dup |= SAME(spec->workloads[k].name, spec->workloads[i].name);
    if (check_name("workload", i, spec->workloads[i].name, dup, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < spec->n_conditions; i++) {
    bool dup = false;
    for (size_t k = 0; k < i; k++)
      dup |= SAME(spec->conditions[k].name, spec->conditions[i].name);
    if (check_name("condition", i, spec->conditions[i].name, dup, err) < 0)
      return -1;
  }
  if (spec->n_variants > PLACER_BENCH_MAX || spec->n_workloads > PLACER_BENCH_MAX ||
      spec->n_conditions > PLACER_BENCH_MAX || spec->repeats > PLACER_BENCH_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "bench results: at most %d variants, workloads, conditions and repeats", PLACER_BENCH_MAX);
  /* every run has its slot: 64 of each would be 16 million (4 GB) */
  if (spec->n_variants * spec->n_conditions * spec->n_workloads * spec->repeats > PLACER_BENCH_MAX_RUNS)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "bench results: %zu variants x %zu conditions x %zu workloads x %zu repeats: more than "
                            "%d runs",
                            spec->n_variants, spec->n_conditions, spec->n_workloads, spec->repeats,
                            PLACER_BENCH_MAX_RUNS);
  if (spec->sweep && spec->sweep_workload >= spec->n_workloads)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench results: sweep workload %zu of %zu", spec->sweep_workload,
                            spec->n_workloads);
  return 0;
}

static size_t n_runs(const struct placer_bench_results *r) {
  return r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
}

int placer_bench_results_new(const struct placer_bench_spec *spec, struct placer_bench_results **out,
                             struct placer_error **err) {
  if (check_spec(spec, err) < 0)
    return -1;
  struct placer_bench_results *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return oom(err, "bench results");
  r->title = dup_or_empty(spec->title);
  r->storage_role = dup_or_empty(spec->storage_role);
  r->neighbour_name = dup_or_empty(spec->neighbour_name);
  r->neighbour_unit = dup_or_empty(spec->neighbour_unit);
  r->level_unit = dup_or_empty(spec->level_unit);
  r->neighbour_role = dup_or_empty(spec->neighbour_role);
  r->repeats = spec->repeats;
  r->sweep = spec->sweep;
  r->sweep_workload = spec->sweep_workload;
  r->storage_min_fraction = spec->storage_min_fraction;
  r->neighbour_min_fraction = spec->neighbour_min_fraction;
  r->split_parameter = dup_or_empty(spec->split_parameter);
  r->split_from = dup_or_empty(spec->split_from);
  r->node_cpus = spec->node_cpus;
  r->alpha = spec->alpha > 0 ? spec->alpha : 0.05;
  r->knobs = malloc((spec->n_variants ? spec->n_variants : 1) * sizeof(*r->knobs));
  for (size_t i = 0; r->knobs && i < spec->n_variants; i++)
    r->knobs[i] = spec->knobs ? spec->knobs[i] : NAN;
  placer_slo_init(&r->slo);
  if (spec->slo)
    r->slo = *spec->slo;
  r->storage_cpus = malloc((spec->n_variants ? spec->n_variants : 1) * sizeof(*r->storage_cpus));
  for (size_t i = 0; r->storage_cpus && i < spec->n_variants; i++)
    r->storage_cpus[i] = spec->storage_cpus ? spec->storage_cpus[i] : NAN;
  r->variants = calloc(spec->n_variants, sizeof(*r->variants));
  r->workloads = calloc(spec->n_workloads, sizeof(*r->workloads));
  r->conditions = calloc(spec->n_conditions, sizeof(*r->conditions));
  bool ok = r->title && r->storage_role && r->neighbour_name && r->neighbour_unit && r->level_unit &&
            r->neighbour_role && r->variants && r->workloads && r->conditions && r->split_parameter && r->split_from &&
            r->knobs && r->storage_cpus;
  for (size_t i = 0; ok && i < spec->n_variants; i++, r->n_variants++)
    ok = (r->variants[i] = strdup(spec->variants[i])) != NULL;
  /* a workload given with no operations gets its kind's (summary.json's have none) */
  for (size_t i = 0; ok && i < spec->n_workloads; i++) {
    struct placer_bench_workload *w = &r->workloads[i];
    ok = placer_bench_workload_copy(w, &spec->workloads[i], err) == 0 &&
         (w->ops.n > 0 || placer_bench_workload_rule(w, err) == 0);
    if (ok)
      r->n_workloads++;
    else
      placer_bench_workload_clear(w);
  }
  for (size_t i = 0; ok && i < spec->n_conditions; i++, r->n_conditions++) {
    r->conditions[i].name = strdup(spec->conditions[i].name);
    r->conditions[i].neighbour_level = spec->conditions[i].neighbour_level;
    ok = r->conditions[i].name != NULL;
  }
  if (ok) {
    r->runs = calloc(n_runs(r), sizeof(*r->runs));
    r->solo_rates = malloc(r->n_variants * r->n_conditions * r->repeats * sizeof(*r->solo_rates));
    ok = r->runs && r->solo_rates;
  }
  if (!ok) {
    placer_bench_results_free(r);
    return oom(err, "bench results");
  }
  for (size_t i = 0; i < n_runs(r); i++) {
    r->runs[i].duration_s = NAN;
    r->runs[i].neighbour_rate = NAN;
  }
  for (size_t i = 0; i < r->n_variants * r->n_conditions * r->repeats; i++)
    r->solo_rates[i] = NAN;
  if (spec->recovery_action &&
      placer_bench_recovery_new(spec->recovery_action, spec->recovery_daemon, spec->recovery_workload,
                                spec->recovery_at_s, spec->recovery_down_s, r->n_variants, r->repeats, &r->recovery,
                                err) < 0) {
    placer_bench_results_free(r);
    return -1;
  }
  *out = r;
  return 0;
}

static void run_clear(struct placer_bench_run *run) {
  free(run->fio_json);
  free(run->ops);
  for (size_t i = 0; i < run->n_roles; i++) {
    free(run->roles[i].instance);
    free(run->roles[i].role);
  }
  free(run->roles);
  for (size_t i = 0; i < run->n_threads; i++) {
    free(run->threads[i].instance);
    free(run->threads[i].thread);
  }
  free(run->threads);
  free(run->cpu_busy);
  if (run->ceph)
    placer_ceph_run_counters_free(run->ceph);
  free(run->ceph);
}

void placer_bench_results_free(struct placer_bench_results *r) {
  if (r == NULL)
    return;
  if (r->runs)
    for (size_t i = 0; i < n_runs(r); i++)
      run_clear(&r->runs[i]);
  free(r->runs);
  free(r->solo_rates);
  placer_bench_recovery_free(r->recovery);
  for (size_t i = 0; i < r->n_variants; i++)
    free(r->variants[i]);
  free(r->variants);
  for (size_t i = 0; i < r->n_workloads; i++)
    placer_bench_workload_clear(&r->workloads[i]);
  free(r->workloads);
  for (size_t i = 0; i < r->n_conditions; i++)
    free(r->conditions[i].name);
  free(r->conditions);
  free(r->title);
  free(r->storage_role);
  free(r->neighbour_name);
  free(r->neighbour_unit);
  free(r->level_unit);
  free(r->neighbour_role);
  free(r->split_parameter);
  free(r->split_from);
  free(r->knobs);
  free(r->storage_cpus);
  free(r->stop_reason);
  free(r);
}

const struct placer_bench_run *placer_bench_results_run_const(const struct placer_bench_results *r, size_t variant,
                                                              size_t condition, size_t workload, size_t repeat) {
  if (variant >= r->n_variants || condition >= r->n_conditions || workload >= r->n_workloads || repeat >= r->repeats)
    return NULL;
  return &r->runs[((variant * r->n_conditions + condition) * r->n_workloads + workload) * r->repeats + repeat];
}

struct placer_bench_run *placer_bench_results_run(struct placer_bench_results *r, size_t variant, size_t condition,
                                                  size_t workload, size_t repeat) {
  return (struct placer_bench_run *)placer_bench_results_run_const(r, variant, condition, workload, repeat);
}

int placer_bench_results_variant_index(const struct placer_bench_results *r, const char *name) {
  for (size_t i = 0; i < r->n_variants; i++)
    if (strcmp(r->variants[i], name) == 0)
      return (int)i;
  return -1;
}

int placer_bench_results_condition_index(const struct placer_bench_results *r, const char *name) {
  for (size_t i = 0; i < r->n_conditions; i++)
    if (strcmp(r->conditions[i].name, name) == 0)
      return (int)i;
  return -1;
}

int placer_bench_results_workload_index(const struct placer_bench_results *r, const char *name) {
  for (size_t i = 0; i < r->n_workloads; i++)
    if (strcmp(r->workloads[i].name, name) == 0)
      return (int)i;
  return -1;
}

int placer_bench_run_set_result(struct placer_bench_run *run, const struct placer_bench_result *result,
                                const char *fio_json_path, struct placer_error **err) {
  char *path = NULL;
  struct placer_bench_op *ops = result->n_ops ? malloc(result->n_ops * sizeof(*ops)) : NULL;
  if ((fio_json_path && (path = strdup(fio_json_path)) == NULL) || (result->n_ops && ops == NULL)) {
    free(path);
    free(ops);
    return oom(err, "bench run");
  }
  if (result->n_ops)
    memcpy(ops, result->ops, result->n_ops * sizeof(*ops));
  free(run->fio_json);
  run->fio_json = path;
  free(run->ops);
  run->ops = ops;
  run->n_ops = result->n_ops;
  run->fio_failed_jobs = result->failed_jobs;
  return 0;
}

int placer_bench_run_take_ceph(struct placer_bench_run *run, struct placer_ceph_run_counters *counters,
                               struct placer_error **err) {
  struct placer_ceph_run_counters *kept = calloc(1, sizeof(*kept));
  if (kept == NULL)
    return oom(err, "bench run");
  *kept = *counters;
  *counters = (struct placer_ceph_run_counters){ 0 };
  if (run->ceph)
    placer_ceph_run_counters_free(run->ceph);
  free(run->ceph);
  run->ceph = kept;
  return 0;
}

const struct placer_bench_op *placer_bench_run_op(const struct placer_bench_run *run, const char *name) {
  return placer_bench_op_find(run->ops, run->n_ops, name);
}

int placer_bench_run_add_role(struct placer_bench_run *run, const char *instance, const char *role, uint64_t cpu_ns,
                              uint64_t peak_rss_bytes, struct placer_error **err) {
  struct placer_bench_role_usage *bigger = realloc(run->roles, (run->n_roles + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return oom(err, "bench run");
  run->roles = bigger;
  struct placer_bench_role_usage *u = &run->roles[run->n_roles];
  u->instance = strdup(instance);
  u->role = strdup(role);
  if (u->instance == NULL || u->role == NULL) {
    free(u->instance);
    free(u->role);
    return oom(err, "bench run");
  }
  u->cpu_ns = cpu_ns;
  u->peak_rss_bytes = peak_rss_bytes;
  u->local_mem_share = NAN;
  run->n_roles++;
  return 0;
}

int placer_bench_run_add_thread(struct placer_bench_run *run, const char *instance, const char *thread, uint64_t cpu_ns,
                                struct placer_error **err) {
  struct placer_bench_thread_usage *bigger = realloc(run->threads, (run->n_threads + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return oom(err, "bench run");
  run->threads = bigger;
  struct placer_bench_thread_usage *t = &run->threads[run->n_threads];
  t->instance = strdup(instance);
  t->thread = strdup(thread);
  if (t->instance == NULL || t->thread == NULL) {
    free(t->instance);
    free(t->thread);
    return oom(err, "bench run");
  }
  t->cpu_ns = cpu_ns;
  run->n_threads++;
  return 0;
}

int placer_bench_run_set_cpu_busy(struct placer_bench_run *run, const double *busy, size_t n_cpus,
                                  struct placer_error **err) {
  double *copy = malloc((n_cpus ? n_cpus : 1) * sizeof(*copy));
  if (copy == NULL)
    return oom(err, "bench run");
  if (n_cpus)
    memcpy(copy, busy, n_cpus * sizeof(*copy));
  free(run->cpu_busy);
  run->cpu_busy = copy;
  run->n_cpus = n_cpus;
  return 0;
}

static double *solo_slot(const struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat) {
  if (variant >= r->n_variants || condition >= r->n_conditions || repeat >= r->repeats)
    return NULL;
  return &r->solo_rates[(variant * r->n_conditions + condition) * r->repeats + repeat];
}

int placer_bench_results_set_solo(struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat,
                                  double rate) {
  double *slot = solo_slot(r, variant, condition, repeat);
  if (slot == NULL)
    return -1;
  *slot = rate;
  return 0;
}

double placer_bench_results_solo(const struct placer_bench_results *r, size_t variant, size_t condition,
                                 size_t repeat) {
  double *slot = solo_slot(r, variant, condition, repeat);
  return slot ? *slot : NAN;
}
