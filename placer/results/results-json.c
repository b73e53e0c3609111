/* The summary JSON of a bench study (schema in docs/bench.md): the study's
 * shape, every done run, the solo rates, and a derived "summary" section that
 * is recomputed, never read back. */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/curve-results.h"
#include "results/design.h"
#include "results/results.h"
#include "lib/jsoncost.h"
#include "lib/textfile.h"

static json_t *num_or_null(double x) {
  return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static json_t *io_json(const struct placer_bench_op *io) {
  return json_pack("{s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "iops", num_or_null(io->iops), "bw_bytes",
                   (json_int_t)io->bw_bytes, "io_bytes", (json_int_t)io->io_bytes, "total_ios",
                   (json_int_t)io->total_ios, "runtime_ms", (json_int_t)io->runtime_ms, "clat_mean_ns",
                   num_or_null(io->clat_mean_ns), "clat_p50_ns", num_or_null(io->clat_p50_ns), "clat_p99_ns",
                   num_or_null(io->clat_p99_ns), "clat_p999_ns", num_or_null(io->clat_p999_ns));
}

/* A block workload as before kinds (no "kind": block); another with its kind and its own figures. */
static json_t *workload_json(const struct placer_bench_workload *w) {
  if (w->kind != PLACER_BENCH_WORKLOAD_BLOCK)
    return json_pack("{s:s, s:s, s:I, s:I, s:I}", "name", w->name, "kind", placer_bench_workload_kind_names[w->kind],
                     "files", (json_int_t)w->files, "directories", (json_int_t)w->directories, "jobs",
                     (json_int_t)w->jobs);
  json_t *o = json_pack("{s:s, s:s, s:I}", "name", w->name, "pattern", w->pattern, "block_size_bytes",
                        (json_int_t)w->block_size_bytes);
  if (o && w->curve) { /* a load step of a response curve */
    json_object_set_new(o, "curve", json_string(w->curve));
    json_object_set_new(o, "load", json_pack("{s:s, s:f}", "name", w->load_name, "value", w->load));
  }
  return o;
}

static json_t *run_json(const struct placer_bench_results *r, size_t v, size_t c, size_t w, size_t k) {
  const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
  json_t *roles = json_array(), *threads = json_array(), *busy = json_array();
  for (size_t i = 0; i < run->n_roles; i++)
    json_array_append_new(roles, json_pack("{s:s, s:s, s:I, s:I, s:o}", "instance", run->roles[i].instance, "role",
                                           run->roles[i].role, "cpu_ns", (json_int_t)run->roles[i].cpu_ns,
                                           "peak_rss_bytes", (json_int_t)run->roles[i].peak_rss_bytes,
                                           "local_mem_share", num_or_null(run->roles[i].local_mem_share)));
  for (size_t i = 0; i < run->n_threads; i++)
    json_array_append_new(threads, json_pack("{s:s, s:s, s:I}", "instance", run->threads[i].instance, "thread",
                                             run->threads[i].thread, "cpu_ns", (json_int_t)run->threads[i].cpu_ns));
  for (size_t i = 0; i < run->n_cpus; i++)
    json_array_append_new(busy, num_or_null(run->cpu_busy[i]));
  json_t *o =
      json_pack("{s:s, s:s, s:s, s:I, s:o, s:o}", "variant", r->variants[v], "condition", r->conditions[c].name,
                "workload", r->workloads[w].name, "repeat", (json_int_t)k, "fio_json",
                run->fio_json ? json_string(run->fio_json) : json_null(), "duration_s", num_or_null(run->duration_s));
  /* each of the workload's operations under its name ("read", "write"), in its order */
  const struct placer_bench_workload *wl = &r->workloads[w];
  for (size_t i = 0; o && i < wl->ops.n; i++) {
    const struct placer_bench_op *op = placer_bench_run_op(run, wl->ops.items[i]);
    struct placer_bench_op none = placer_bench_op_none(wl->ops.items[i]);
    json_object_set_new(o, wl->ops.items[i], io_json(op ? op : &none));
  }
  json_t *rest = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:o}", "fio_failed_jobs", (int)run->fio_failed_jobs, "device_bytes_written",
      run->has_device_bytes ? json_integer((json_int_t)run->device_bytes_written) : json_null(), "neighbour_rate",
      num_or_null(run->neighbour_rate), "roles", roles, "threads", threads, "cpu_busy", busy);
  /* Ceph's counters, where they were read (a study with a cluster of placer's) */
  if (rest && run->ceph &&
      json_object_set_new(rest, "ceph_counters", placer_ceph_run_counters_to_json(run->ceph, run->duration_s)) < 0) {
    json_decref(rest);
    rest = NULL;
  }
  if (o == NULL || rest == NULL || json_object_update(o, rest) < 0) {
    json_decref(o);
    o = NULL;
  }
  json_decref(rest);
  return o;
}

static json_t *summary_stats_json(const struct placer_stats_summary *s) {
  return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)s->n, "median", num_or_null(s->median), "min",
                   num_or_null(s->min), "max", num_or_null(s->max));
}

static json_t *comparison_json(const struct placer_stats_comparison *c) {
  return json_pack("{s:o, s:o, s:o, s:o, s:b}", "change", num_or_null(c->change), "ci95_low", num_or_null(c->ci_low),
                   "ci95_high", num_or_null(c->ci_high), "p_value", num_or_null(c->p_value), "p_exact", c->exact);
}

static json_t *paired_json(const struct placer_stats_paired *p) {
  return json_pack("{s:I, s:o, s:o, s:o, s:o, s:b}", "n_pairs", (json_int_t)p->n_pairs, "change",
                   num_or_null(p->change), "ci95_low", num_or_null(p->ci_low), "ci95_high", num_or_null(p->ci_high),
                   "p_value", num_or_null(p->p_value), "p_exact", p->exact);
}

static json_t *efficiency_json(const struct placer_bench_efficiency *e) {
  json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "storage_kept", num_or_null(e->storage_kept),
                        "neighbour_kept", num_or_null(e->neighbour_kept), "sum", num_or_null(e->sum), "bound",
                        num_or_null(e->bound), "efficiency", num_or_null(e->efficiency), "storage_cores",
                        num_or_null(e->storage_cores), "storage_cores_alone", num_or_null(e->storage_cores_alone),
                        "storage_role_cores", num_or_null(e->storage_role_cores));
  json_object_set_new(o, "neighbour_kept_own", num_or_null(e->neighbour_kept_own));
  json_object_set_new(o, "efficiency_ci95_low", num_or_null(e->efficiency_ci_low));
  json_object_set_new(o, "efficiency_ci95_high", num_or_null(e->efficiency_ci_high));
  json_object_set_new(o, "bound_exceeded", json_boolean(e->bound_exceeded));
  json_object_set_new(o, "storage_cpu_s_per_op", num_or_null(e->storage_cpu_s_per_op));
  json_object_set_new(o, "neighbour_cores", num_or_null(e->neighbour_cores));
  json_object_set_new(o, "neighbour_demand_cores", num_or_null(e->neighbour_demand_cores));
  json_object_set_new(o, "neighbour_max", num_or_null(e->neighbour_max));
  return o;
}

/* Per variant, in the first neighbour condition, on the judged workload. */
static json_t *efficiencies_json(const struct placer_bench_results *r) {
  int cond = placer_bench_neighbour_condition(r);
  if (cond < 0)
    return json_null();
  json_t *arr = json_array();
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_efficiency e;
    placer_bench_efficiency(r, v, (size_t)cond, r->sweep_workload, &e);
    json_t *o = efficiency_json(&e);
    json_object_set_new(o, "variant", json_string(r->variants[v]));
    json_object_set_new(o, "condition", json_string(r->conditions[cond].name));
    json_object_set_new(o, "workload", json_string(r->workloads[r->sweep_workload].name));
    json_array_append_new(arr, o);
  }
  return arr;
}

static json_t *split_summary_json(const struct placer_bench_results *r) {
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  if (n == 0)
    return json_null();
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_split_step *s = &steps[i];
    json_t *o = efficiency_json(&s->eff);
    json_object_set_new(o, "variant", json_string(r->variants[s->variant]));
    json_object_set_new(o, "knob", num_or_null(s->knob));
    json_object_set_new(o, "alone", num_or_null(s->alone));
    json_object_set_new(o, "with_neighbours", num_or_null(s->with_neighbours));
    json_object_set_new(o, "p99_ns", num_or_null(s->p99_ns));
    json_object_set_new(o, "neighbour_rate", num_or_null(s->neighbour_rate));
    json_array_append_new(arr, o);
  }
  struct placer_bench_split_balance b;
  placer_bench_split_balance(r, steps, n, &b);
  json_t *bal = b.found ? json_pack("{s:b, s:s, s:o, s:o, s:o, s:o}", "found", 1, "variant",
                                    r->variants[steps[b.step].variant], "knob", num_or_null(steps[b.step].knob),
                                    "storage_kept", num_or_null(steps[b.step].eff.storage_kept), "neighbour_kept",
                                    num_or_null(steps[b.step].eff.neighbour_kept), "neighbour_kept_own",
                                    num_or_null(steps[b.step].eff.neighbour_kept_own))
                        : json_pack("{s:b}", "found", 0);
  return json_pack("{s:o, s:o}", "steps", arr, "balance", bal);
}

static json_t *cells_json(const struct placer_bench_results *r) {
  json_t *cells = json_array();
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t w = 0; w < r->n_workloads; w++) {
        struct placer_bench_cell_stats s;
        placer_bench_cell_stats(r, v, c, w, &s);
        double storage_ratio, neighbour_ratio, storage_kept, neighbour_kept, neighbour_own;
        placer_bench_interference(r, v, c, w, &storage_ratio, &neighbour_ratio);
        placer_bench_kept(r, v, c, w, &storage_kept, &neighbour_kept, &neighbour_own);
        json_t *cell =
            json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "variant", r->variants[v],
                      "condition", r->conditions[c].name, "workload", r->workloads[w].name, "main_metric",
                      placer_bench_metric_names[r->workloads[w].metric], "repeats_done", (json_int_t)s.n_done, "main",
                      summary_stats_json(&s.main), "p99_ns", summary_stats_json(&s.p99_ns), "write_amplification",
                      summary_stats_json(&s.write_amplification), "storage_cpu_ms_per_io",
                      summary_stats_json(&s.storage_cpu_ms_per_io), "neighbour_rate",
                      summary_stats_json(&s.neighbour_rate), "storage_with_neighbours_vs_alone",
                      num_or_null(storage_ratio), "neighbours_with_storage_vs_solo", num_or_null(neighbour_ratio));
        json_object_set_new(cell, "storage_kept", num_or_null(storage_kept));
        json_object_set_new(cell, "neighbour_kept", num_or_null(neighbour_kept));
        struct placer_bench_share kept; /* its CI: the passes' shares, each against its own solo run */
        placer_bench_neighbour_share(r, v, c, w, 0, &kept);
        if (!isnan(kept.median)) {
          json_object_set_new(cell, "neighbour_kept_ci95_low", num_or_null(kept.ci_low));
          json_object_set_new(cell, "neighbour_kept_ci95_high", num_or_null(kept.ci_high));
        }
        if (v > 0) {
          struct placer_stats_comparison main_metric, p99;
          struct placer_stats_paired main_paired, p99_paired;
          placer_bench_compare(r, v, c, w, &main_metric, &p99);
          placer_bench_compare_paired(r, v, c, w, &main_paired, &p99_paired);
          json_object_set_new(cell, "vs_baseline",
                              json_pack("{s:s, s:o, s:o, s:o, s:o}", "baseline", r->variants[0], "main",
                                        comparison_json(&main_metric), "p99_ns", comparison_json(&p99), "main_paired",
                                        paired_json(&main_paired), "p99_ns_paired", paired_json(&p99_paired)));
        }
        json_array_append_new(cells, cell);
      }
  return cells;
}

/* Every change's verdict by its decisive test (placer_bench_verdicts):
 * what the report's verdict and report.html's verdict table show. */
static json_t *verdicts_json(const struct placer_bench_results *r) {
  struct placer_bench_verdict *all = NULL;
  size_t n = placer_bench_verdicts(r, &all);
  json_t *arr = json_array();
  for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
    const struct placer_bench_verdict *v = &all[i];
    json_array_append_new(
        arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:b}", "variant", r->variants[v->variant],
                       "condition", r->conditions[v->condition].name, "workload", r->workloads[v->workload].name,
                       "metric", v->neighbours ? "neighbour_rate" : "main", "test", v->paired ? "paired" : "unpaired",
                       "change", num_or_null(v->change), "ci95_low", num_or_null(v->ci_low), "ci95_high",
                       num_or_null(v->ci_high), "p_value", num_or_null(v->p_value), "significant", v->significant));
  }
  free(all);
  return arr;
}

/* The smallest p the repeats allow (design.h), against alpha. */
static json_t *design_json(const struct placer_bench_results *r) {
  struct placer_bench_design d;
  placer_bench_design_of((unsigned)placer_bench_planned_repeats(r), r->n_variants, r->alpha, &d);
  return json_pack("{s:I, s:f, s:o, s:o, s:b}", "repeats", (json_int_t)d.repeats, "alpha", d.alpha, "min_p_paired",
                   num_or_null(d.min_p_paired), "min_p_unpaired", num_or_null(d.min_p_unpaired), "can_conclude",
                   d.can_conclude);
}

static json_t *balance_json(const struct placer_bench_results *r) {
  if (!r->sweep)
    return json_null();
  json_t *arr = json_array();
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_bench_balance b;
    placer_bench_sweep_balance(r, v, &b);
    json_array_append_new(arr, json_pack("{s:s, s:b, s:o, s:o, s:b}", "variant", r->variants[v], "found", b.found,
                                         "level", num_or_null(b.level), "condition",
                                         b.found ? json_string(r->conditions[b.index].name) : json_null(),
                                         "passes_beyond", b.passes_beyond));
  }
  return arr;
}

json_t *placer_bench_results_to_json(const struct placer_bench_results *r) {
  json_t *variants = json_array(), *workloads = json_array(), *conditions = json_array();
  for (size_t v = 0; v < r->n_variants; v++)
    json_array_append_new(variants, json_string(r->variants[v]));
  for (size_t w = 0; w < r->n_workloads; w++)
    json_array_append_new(workloads, workload_json(&r->workloads[w]));
  for (size_t c = 0; c < r->n_conditions; c++)
    json_array_append_new(conditions, json_pack("{s:s, s:o}", "name", r->conditions[c].name, "neighbour_level",
                                                num_or_null(r->conditions[c].neighbour_level)));
  json_t *sweep = r->sweep ? json_pack("{s:s, s:o, s:o}", "workload", r->workloads[r->sweep_workload].name,
                                       "storage_min_fraction", num_or_null(r->storage_min_fraction),
                                       "neighbour_min_fraction", num_or_null(r->neighbour_min_fraction))
                           : json_null();
  json_t *runs = json_array(), *solo = json_array();
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++) {
      for (size_t w = 0; w < r->n_workloads; w++)
        for (size_t k = 0; k < r->repeats; k++)
          if (placer_bench_results_run_const(r, v, c, w, k)->done)
            json_array_append_new(runs, run_json(r, v, c, w, k));
      for (size_t k = 0; k < r->repeats; k++) {
        double rate = placer_bench_results_solo(r, v, c, k);
        if (!isnan(rate))
          json_array_append_new(solo, json_pack("{s:s, s:s, s:I, s:o}", "variant", r->variants[v], "condition",
                                                r->conditions[c].name, "repeat", (json_int_t)k, "neighbour_rate",
                                                num_or_null(rate)));
      }
    }
  json_t *split = json_null();
  if (r->split_parameter[0]) {
    json_t *knobs = json_array();
    for (size_t v = 0; v < r->n_variants; v++)
      json_array_append_new(knobs, num_or_null(r->knobs[v]));
    split = json_pack("{s:s, s:s, s:o, s:o}", "parameter", r->split_parameter, "workload",
                      r->workloads[r->sweep_workload].name, "storage_min_fraction",
                      num_or_null(r->storage_min_fraction), "knobs", knobs);
    if (r->split_from[0])
      json_object_set_new(split, "from", json_string(r->split_from));
  }
  json_t *j = json_pack(
      "{s:s, s:i, s:s, s:b, s:I, s:s, s:{s:s, s:s, s:s, s:s}, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}}",
      "format", PLACER_BENCH_RESULTS_FORMAT, "version", PLACER_BENCH_RESULTS_VERSION, "title", r->title, "interrupted",
      r->interrupted, "repeats", (json_int_t)r->repeats, "storage_role", r->storage_role, "neighbour", "name",
      r->neighbour_name, "unit", r->neighbour_unit, "level_unit", r->level_unit, "role", r->neighbour_role, "variants",
      variants, "workloads", workloads, "conditions", conditions, "sweep", sweep, "runs", runs, "solo", solo, "summary",
      "cells", cells_json(r), "balance", balance_json(r), "efficiency", efficiencies_json(r), "split",
      split_summary_json(r));
  json_object_set_new(j, "repeats_run", r->repeats_run ? json_integer((json_int_t)r->repeats_run) : json_null());
  json_object_set_new(j, "stop_reason", r->stop_reason ? json_string(r->stop_reason) : json_null());
  json_object_set_new(j, "split", split);
  json_object_set_new(j, "node_cpus", num_or_null(r->node_cpus > 0 ? r->node_cpus : NAN));
  json_object_set_new(j, "alpha", json_real(r->alpha));
  /* response curves' keys only where a study has them (docs/bench.md) */
  if (placer_slo_storage_set(&r->slo) || !isnan(r->slo.keep))
    json_object_set_new(j, "slo", placer_bench_slo_to_json(&r->slo));
  bool any_cpus = false;
  for (size_t v = 0; v < r->n_variants; v++)
    any_cpus |= isfinite(r->storage_cpus[v]);
  if (any_cpus) {
    json_t *storage_cpus = json_array();
    for (size_t v = 0; v < r->n_variants; v++)
      json_array_append_new(storage_cpus, num_or_null(r->storage_cpus[v]));
    json_object_set_new(j, "storage_cpus", storage_cpus);
  }
  json_t *summary = json_object_get(j, "summary");
  json_object_set_new(summary, "verdicts", verdicts_json(r));
  json_object_set_new(summary, "design", design_json(r));
  json_t *curves = placer_bench_curves_json(r), *curve_balance = placer_bench_curve_balance_json(r);
  if (curves == NULL || json_array_size(curves) > 0)
    json_object_set_new(summary, "curves", curves);
  else
    json_decref(curves);
  if (curve_balance == NULL || !json_is_null(curve_balance))
    json_object_set_new(summary, "curve_balance", curve_balance);
  json_object_set_new(j, "recovery", placer_bench_recovery_to_json(r->recovery, r->variants));
  return j;
}

/* --- reading it back ---------------------------------------------------------- */

static int want(const json_t *obj, const char *key, json_type type, const char *where, const json_t **out,
                struct placer_error **err) {
  const json_t *v = json_object_get(obj, key);
  bool ok = v && (json_typeof(v) == type || (type == JSON_REAL && json_is_number(v)) ||
                  (type == JSON_TRUE && json_is_boolean(v)));
  if (!ok)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: \"%s\" missing or not %s", where, key,
                            type == JSON_STRING    ? "a string"
                            : type == JSON_ARRAY   ? "an array"
                            : type == JSON_OBJECT  ? "an object"
                            : type == JSON_INTEGER ? "an integer"
                            : type == JSON_TRUE    ? "true/false"
                                                   : "a number");
  *out = v;
  return 0;
}

static const char *str(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static double num_or_nan(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static uint64_t u64(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void io_from_json(const json_t *j, const char *name, struct placer_bench_op *io) {
  *io = placer_bench_op_none(name);
  io->iops = num_or_nan(j, "iops");
  io->bw_bytes = u64(j, "bw_bytes");
  io->io_bytes = u64(j, "io_bytes");
  io->total_ios = u64(j, "total_ios");
  io->runtime_ms = u64(j, "runtime_ms");
  io->clat_mean_ns = num_or_nan(j, "clat_mean_ns");
  io->clat_p50_ns = num_or_nan(j, "clat_p50_ns");
  io->clat_p99_ns = num_or_nan(j, "clat_p99_ns");
  io->clat_p999_ns = num_or_nan(j, "clat_p999_ns");
}

/* A workload's "kind" (checked: one of the names); absent, it is a block workload. */
static int workload_kind(const char *name) {
  for (int k = 0; name && placer_bench_workload_kind_names[k]; k++)
    if (strcmp(name, placer_bench_workload_kind_names[k]) == 0)
      return k;
  return PLACER_BENCH_WORKLOAD_BLOCK;
}

/* Names in an array of objects ("name" key) or of strings. */
static int names_from_json(const json_t *arr, const char *key, const char ***out, size_t *n,
                           struct placer_error **err) {
  const char **names = calloc(json_array_size(arr) + 1, sizeof(*names));
  if (names == NULL)
    return placer_error_oom(err, "bench results JSON");
  for (size_t i = 0; i < json_array_size(arr); i++) {
    const json_t *e = json_array_get(arr, i);
    names[i] = json_is_string(e) ? json_string_value(e) : str(e, "name");
    if (names[i] == NULL) {
      free(names);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s[%zu]: no name", key, i);
    }
  }
  *out = names;
  *n = json_array_size(arr);
  return 0;
}

static int index_of(const struct placer_bench_results *r, const json_t *run, const char *key, size_t i, int *out,
                    struct placer_error **err) {
  const char *name = str(run, key);
  int idx = name == NULL                    ? -1
            : strcmp(key, "variant") == 0   ? placer_bench_results_variant_index(r, name)
            : strcmp(key, "condition") == 0 ? placer_bench_results_condition_index(r, name)
                                            : placer_bench_results_workload_index(r, name);
  if (idx < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "runs[%zu]: unknown %s '%s'", i, key, name ? name : "(none)");
  *out = idx;
  return 0;
}

static int run_from_json(struct placer_bench_results *r, const json_t *j, size_t i, struct placer_error **err) {
  int v, c, w;
  if (index_of(r, j, "variant", i, &v, err) < 0 || index_of(r, j, "condition", i, &c, err) < 0 ||
      index_of(r, j, "workload", i, &w, err) < 0)
    return -1;
  const json_t *rep = json_object_get(j, "repeat");
  struct placer_bench_run *run =
      json_is_integer(rep) ? placer_bench_results_run(r, v, c, w, (size_t)json_integer_value(rep)) : NULL;
  if (run == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "runs[%zu]: bad \"repeat\"", i);
  if (run->done)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "runs[%zu]: the same run twice", i);
  /* the workload's operations, each under its name */
  const struct placer_bench_workload *wl = &r->workloads[w];
  struct placer_bench_op ops[PLACER_BENCH_MAX_OPS];
  struct placer_bench_result result = { .ops = ops, .failed_jobs = (unsigned)u64(j, "fio_failed_jobs") };
  for (size_t k = 0; k < wl->ops.n && k < PLACER_BENCH_MAX_OPS; k++)
    io_from_json(json_object_get(j, wl->ops.items[k]), wl->ops.items[k], &ops[result.n_ops++]);
  if (placer_bench_run_set_result(run, &result, str(j, "fio_json"), err) < 0)
    return -1;
  run->duration_s = num_or_nan(j, "duration_s");
  run->has_device_bytes = json_is_integer(json_object_get(j, "device_bytes_written"));
  run->device_bytes_written = u64(j, "device_bytes_written");
  run->neighbour_rate = num_or_nan(j, "neighbour_rate");
  const json_t *e;
  size_t idx;
  json_array_foreach(json_object_get(j, "roles"), idx, e) {
    if (!str(e, "instance") || !str(e, "role"))
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "runs[%zu].roles[%zu]: no instance/role", i, idx);
    if (placer_bench_run_add_role(run, str(e, "instance"), str(e, "role"), u64(e, "cpu_ns"), u64(e, "peak_rss_bytes"),
                                  err) < 0)
      return -1;
    run->roles[run->n_roles - 1].local_mem_share = num_or_nan(e, "local_mem_share"); /* absent before: NAN */
  }
  json_array_foreach(json_object_get(j, "threads"), idx, e) {
    if (!str(e, "instance") || !str(e, "thread"))
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "runs[%zu].threads[%zu]: no instance/thread", i, idx);
    if (placer_bench_run_add_thread(run, str(e, "instance"), str(e, "thread"), u64(e, "cpu_ns"), err) < 0)
      return -1;
  }
  const json_t *ceph = json_object_get(j, "ceph_counters");
  if (json_is_object(ceph)) {
    char path[64];
    snprintf(path, sizeof(path), "runs[%zu].ceph_counters", i);
    struct placer_ceph_run_counters counters;
    if (placer_ceph_run_counters_from_json(ceph, path, &counters, err) < 0)
      return -1;
    int rc = placer_bench_run_take_ceph(run, &counters, err);
    placer_ceph_run_counters_free(&counters);
    if (rc < 0)
      return -1;
  }
  const json_t *busy = json_object_get(j, "cpu_busy");
  if (json_array_size(busy) > 0) {
    double *values = calloc(json_array_size(busy), sizeof(*values));
    if (values == NULL)
      return placer_error_oom(err, "bench results JSON");
    json_array_foreach(busy, idx, e) values[idx] = json_is_number(e) ? json_number_value(e) : NAN;
    int rc = placer_bench_run_set_cpu_busy(run, values, json_array_size(busy), err);
    free(values);
    if (rc < 0)
      return -1;
  }
  run->done = true;
  return 0;
}

static int shape_from_json(const json_t *j, struct placer_bench_results **out, struct placer_error **err) {
  const json_t *variants = NULL, *workloads = NULL, *conditions = NULL, *repeats = NULL, *neighbour = NULL;
  const json_t *sweep = json_object_get(j, "sweep");
  if (want(j, "variants", JSON_ARRAY, "top level", &variants, err) < 0 ||
      want(j, "workloads", JSON_ARRAY, "top level", &workloads, err) < 0 ||
      want(j, "conditions", JSON_ARRAY, "top level", &conditions, err) < 0 ||
      want(j, "repeats", JSON_INTEGER, "top level", &repeats, err) < 0 ||
      want(j, "neighbour", JSON_OBJECT, "top level", &neighbour, err) < 0)
    return -1;
  size_t nw = json_array_size(workloads), nc = json_array_size(conditions);
  struct placer_bench_workload *ws = calloc(nw + 1, sizeof(*ws));
  struct placer_bench_condition *cs = calloc(nc + 1, sizeof(*cs));
  const char **vnames = NULL, **wnames = NULL, **cnames = NULL;
  size_t nv = 0;
  int rc = -1;
  double *knobs = NULL, *storage_cpus = NULL;
  struct placer_slo slo;
  placer_bench_slo_from_json(json_object_get(j, "slo"), &slo);
  if (ws == NULL || cs == NULL) {
    placer_error_oom(err, "bench results JSON");
    goto out;
  }
  if (names_from_json(variants, "variants", &vnames, &nv, err) < 0 ||
      names_from_json(workloads, "workloads", &wnames, &nw, err) < 0 ||
      names_from_json(conditions, "conditions", &cnames, &nc, err) < 0)
    goto out;
  for (size_t i = 0; i < nw; i++) {
    const json_t *e = json_array_get(workloads, i), *load = json_object_get(e, "load");
    ws[i] = (struct placer_bench_workload){ .name = (char *)wnames[i],
                                            .kind = workload_kind(str(e, "kind")),
                                            .pattern = (char *)str(e, "pattern"),
                                            .block_size_bytes = u64(e, "block_size_bytes"),
                                            .curve = (char *)str(e, "curve"),
                                            .load = num_or_nan(load, "value"),
                                            .files = u64(e, "files"),
                                            .directories = (unsigned)u64(e, "directories"),
                                            .jobs = (unsigned)u64(e, "jobs") };
    snprintf(ws[i].load_name, sizeof(ws[i].load_name), "%s", str(load, "name") ? str(load, "name") : "");
  }
  for (size_t i = 0; i < nc; i++)
    cs[i] = (struct placer_bench_condition){ (char *)cnames[i],
                                             num_or_nan(json_array_get(conditions, i), "neighbour_level") };
  struct placer_bench_spec spec = {
    .title = str(j, "title"),
    .storage_role = str(j, "storage_role"),
    .neighbour_name = str(neighbour, "name"),
    .neighbour_unit = str(neighbour, "unit"),
    .level_unit = str(neighbour, "level_unit"),
    .variants = vnames,
    .n_variants = nv,
    .workloads = ws,
    .n_workloads = nw,
    .conditions = cs,
    .n_conditions = nc,
    .repeats = json_integer_value(repeats) > 0 ? (size_t)json_integer_value(repeats) : 0,
    .sweep = json_is_object(sweep),
    .neighbour_role = str(neighbour, "role"),
    .node_cpus = num_or_nan(j, "node_cpus"),
    .alpha = json_is_number(json_object_get(j, "alpha")) ? num_or_nan(j, "alpha") : 0.05, /* absent before */
    .slo = &slo,
  };
  const json_t *cpus = json_object_get(j, "storage_cpus"); /* absent before response curves: unknown */
  storage_cpus = calloc(nv ? nv : 1, sizeof(*storage_cpus));
  if (storage_cpus == NULL) {
    placer_error_oom(err, "bench results JSON");
    goto out;
  }
  for (size_t i = 0; i < nv; i++) {
    const json_t *x = json_array_get(cpus, i);
    storage_cpus[i] = json_is_number(x) ? json_number_value(x) : NAN;
  }
  spec.storage_cpus = storage_cpus;
  const json_t *split = json_object_get(j, "split");
  if (json_is_object(split)) {
    const json_t *kn = json_object_get(split, "knobs");
    const char *sw = str(split, "workload");
    knobs = calloc(nv ? nv : 1, sizeof(*knobs));
    if (knobs == NULL || !json_is_array(kn) || json_array_size(kn) != nv || sw == NULL) {
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "split: bad knobs or workload");
      goto out;
    }
    for (size_t i = 0; i < nv; i++) {
      const json_t *k = json_array_get(kn, i);
      knobs[i] = json_is_number(k) ? json_number_value(k) : NAN;
    }
    spec.split_parameter = str(split, "parameter");
    spec.split_from = str(split, "from"); /* absent before sweep.from */
    spec.knobs = knobs;
    for (size_t i = 0; i < nw; i++)
      if (strcmp(wnames[i], sw) == 0)
        spec.sweep_workload = i;
    spec.storage_min_fraction = num_or_nan(split, "storage_min_fraction");
  }
  if (spec.sweep) {
    const char *sw = str(sweep, "workload");
    size_t i = 0;
    while (i < nw && !(sw && strcmp(wnames[i], sw) == 0))
      i++;
    if (i == nw) {
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "sweep: unknown workload '%s'", sw ? sw : "(none)");
      goto out;
    }
    spec.sweep_workload = i;
    spec.storage_min_fraction = num_or_nan(sweep, "storage_min_fraction");
    spec.neighbour_min_fraction = num_or_nan(sweep, "neighbour_min_fraction");
  }
  rc = placer_bench_results_new(&spec, out, err);
out:
  free(knobs);
  free(storage_cpus);
  free(ws);
  free(cs);
  free(vnames);
  free(wnames);
  free(cnames);
  return rc;
}

int placer_bench_results_from_json(const json_t *j, struct placer_bench_results **out, struct placer_error **err) {
  if (placer_bench_results_check(j, err) < 0)
    return -1;
  struct placer_bench_results *r = NULL;
  if (shape_from_json(j, &r, err) < 0)
    return -1;
  const json_t *runs = json_object_get(j, "runs"), *solo = json_object_get(j, "solo"), *e;
  size_t i;
  json_array_foreach(runs, i, e) {
    if (run_from_json(r, e, i, err) < 0)
      goto fail;
  }
  json_array_foreach(solo, i, e) {
    int v = str(e, "variant") ? placer_bench_results_variant_index(r, str(e, "variant")) : -1;
    int c = str(e, "condition") ? placer_bench_results_condition_index(r, str(e, "condition")) : -1;
    const json_t *rep = json_object_get(e, "repeat");
    if (v < 0 || c < 0 || !json_is_integer(rep) ||
        placer_bench_results_set_solo(r, v, c, (size_t)json_integer_value(rep), num_or_nan(e, "neighbour_rate")) < 0) {
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "solo[%zu]: unknown variant, condition or repeat", i);
      goto fail;
    }
  }
  struct placer_bench_recovery *rec = NULL;
  if (placer_bench_recovery_from_json(json_object_get(j, "recovery"), r->variants, r->n_variants, r->repeats, &rec,
                                      err) < 0)
    goto fail;
  placer_bench_recovery_free(r->recovery);
  r->recovery = rec;
  const json_t *interrupted = json_object_get(j, "interrupted");
  r->interrupted = json_is_true(interrupted);
  const json_t *rr = json_object_get(j, "repeats_run"), *why = json_object_get(j, "stop_reason");
  if (json_is_integer(rr) && json_integer_value(rr) > 0 && (size_t)json_integer_value(rr) <= r->repeats)
    r->repeats_run = (size_t)json_integer_value(rr);
  if (json_is_string(why) && (r->stop_reason = strdup(json_string_value(why))) == NULL) {
    placer_error_oom(err, "bench results JSON");
    goto fail;
  }
  *out = r;
  return 0;
fail:
  placer_bench_results_free(r);
  return -1;
}

int placer_bench_json_parse(const char *path, const char *text, size_t len, json_t **out, struct placer_error **err) {
  /* jansson spends up to 100 bytes on a value of 2 ("0,"): what a file
   * would cost is known before it is parsed, and refused past the budget */
  uint64_t cost = 0;
  size_t line = 0;
  if (placer_json_cost(text, len, PLACER_BENCH_SUMMARY_MAX_STRING, &cost, &line) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG,
                            "%s:%zu: a string longer than %d KiB, or one that never ends (placer writes none)", path,
                            line, PLACER_BENCH_SUMMARY_MAX_STRING >> 10);
  if (cost > PLACER_BENCH_SUMMARY_MAX_COST)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG,
                            "%s: its %zu bytes would take about %llu MiB of memory to read (at most %llu MiB: more "
                            "than a study of placer bench writes)",
                            path, len, (unsigned long long)(cost >> 20),
                            (unsigned long long)(PLACER_BENCH_SUMMARY_MAX_COST >> 20));
  json_error_t jerr;
  json_t *j = json_loadb(text, len, 0, &jerr);
  if (j == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
  *out = j;
  return 0;
}

int placer_bench_summary_load(const char *dir, json_t **out, char **path_out, struct placer_error **err) {
  cleanup_free char *path = NULL, *text = NULL;
  size_t len = 0;
  if (asprintf(&path, "%s/summary.json", dir) < 0)
    return placer_error_oom(err, "results");
  struct stat st;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOTDIR, "results '%s': %s, not a results directory", dir,
                            placer_file_type_name((unsigned)st.st_mode));
  if (placer_textfile_read_input("results", path, PLACER_BENCH_SUMMARY_MAX_BYTES, &text, &len, err) < 0 ||
      placer_bench_json_parse(path, text, len, out, err) < 0)
    return -1;
  if (path_out)
    *path_out = TAKE_PTR(path);
  return 0;
}

/* DIR/summary.json, as bench writes it (placer compare, report, size). */
int placer_bench_results_dir_load(const char *dir, struct placer_bench_results **out, json_t **hardware_baseline,
                                  struct placer_error **err) {
  cleanup_free char *path = NULL;
  json_t *j = NULL;
  if (placer_bench_summary_load(dir, &j, &path, err) < 0)
    return -1;
  int rc = placer_bench_results_from_json(j, out, err); /* checked first: the baseline too */
  if (rc == 0 && placer_bench_results_check_ceph_csv(dir, j, *out, err) < 0) {
    placer_bench_results_free(*out);
    *out = NULL;
    json_decref(j);
    return -1; /* the error names the counters file */
  }
  json_t *hb = json_object_get(j, "hardware_baseline");
  if (rc == 0 && hardware_baseline)
    *hardware_baseline = json_is_object(hb) ? json_incref(hb) : NULL;
  json_decref(j);
  if (rc < 0)
    return placer_error_prefix(err, "%s", path);
  return 0;
}

int placer_bench_results_load_dir(const char *dir, struct placer_bench_results **out, struct placer_error **err) {
  return placer_bench_results_dir_load(dir, out, NULL, err);
}
