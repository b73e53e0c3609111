/* A workload's result, whatever the workload (workload-result.h): its
 * operations, its main metric, and the block workload's rule for them. */
#include "results/workload-result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const placer_bench_metric_names[] = { "iops", "bw_bytes", "ops_per_s", NULL };
const char *const placer_bench_block_ops[] = { "read", "write", NULL };
const char *const placer_bench_metadata_ops[] = { "create", "stat", "delete", NULL };
const char *const placer_bench_workload_kind_names[] = { "block", "metadata", NULL };

int placer_bench_result_add_op(struct placer_bench_result *r, const struct placer_bench_op *op,
                               struct placer_error **err) {
  struct placer_bench_op *grown = realloc(r->ops, (r->n_ops + 1) * sizeof(*grown));
  if (grown == NULL)
    return placer_error_oom(err, "run result");
  r->ops = grown;
  r->ops[r->n_ops++] = *op;
  return 0;
}

struct placer_bench_op placer_bench_op_none(const char *name) {
  struct placer_bench_op op = {
    .iops = NAN, .clat_mean_ns = NAN, .clat_p50_ns = NAN, .clat_p99_ns = NAN, .clat_p999_ns = NAN
  };
  snprintf(op.name, sizeof(op.name), "%s", name);
  return op;
}

uint64_t placer_bench_result_total_ios(const struct placer_bench_op *ops, size_t n) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += ops[i].total_ios;
  return total;
}

const struct placer_bench_op *placer_bench_op_find(const struct placer_bench_op *ops, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(ops[i].name, name) == 0)
      return &ops[i];
  return NULL;
}

void placer_bench_result_free(struct placer_bench_result *r) {
  free(r->ops);
  free(r->timeline);
  *r = (struct placer_bench_result){ 0 };
}

enum placer_bench_direction placer_bench_pattern_direction(const char *pattern) {
  if (strcmp(pattern, "read") == 0 || strcmp(pattern, "randread") == 0)
    return PLACER_BENCH_READ;
  if (strcmp(pattern, "write") == 0 || strcmp(pattern, "randwrite") == 0 || strcmp(pattern, "trimwrite") == 0)
    return PLACER_BENCH_WRITE;
  return PLACER_BENCH_MIXED;
}

int placer_bench_workload_block(struct placer_bench_workload *w, struct placer_error **err) {
  placer_string_list_free(&w->ops);
  for (size_t i = 0; placer_bench_block_ops[i]; i++)
    if (placer_string_list_add(&w->ops, placer_bench_block_ops[i]) < 0)
      return placer_error_oom(err, "block workload");
  switch (placer_bench_pattern_direction(w->pattern ? w->pattern : "")) {
  case PLACER_BENCH_READ: w->main_ops = 1u << 0; break;
  case PLACER_BENCH_WRITE: w->main_ops = 1u << 1; break;
  default: w->main_ops = (1u << 0) | (1u << 1); break;
  }
  w->metric = w->block_size_bytes >= 64 * 1024 ? PLACER_BENCH_METRIC_BW_BYTES : PLACER_BENCH_METRIC_IOPS;
  w->lower_is_better = false;
  return 0;
}

int placer_bench_workload_metadata(struct placer_bench_workload *w, struct placer_error **err) {
  placer_string_list_free(&w->ops);
  w->main_ops = 0;
  for (size_t i = 0; placer_bench_metadata_ops[i]; i++) {
    if (placer_string_list_add(&w->ops, placer_bench_metadata_ops[i]) < 0)
      return placer_error_oom(err, "metadata workload");
    w->main_ops |= 1u << i;
  }
  w->metric = PLACER_BENCH_METRIC_OPS_PER_S;
  w->lower_is_better = false;
  return 0;
}

int placer_bench_workload_rule(struct placer_bench_workload *w, struct placer_error **err) {
  return w->kind == PLACER_BENCH_WORKLOAD_METADATA ? placer_bench_workload_metadata(w, err)
                                                   : placer_bench_workload_block(w, err);
}

int placer_bench_workload_copy(struct placer_bench_workload *out, const struct placer_bench_workload *w,
                               struct placer_error **err) {
  *out = (struct placer_bench_workload){ .kind = w->kind,
                                         .block_size_bytes = w->block_size_bytes,
                                         .files = w->files,
                                         .directories = w->directories,
                                         .jobs = w->jobs,
                                         .main_ops = w->main_ops,
                                         .metric = w->metric,
                                         .lower_is_better = w->lower_is_better,
                                         .load = w->load };
  snprintf(out->load_name, sizeof(out->load_name), "%s", w->load_name);
  out->name = strdup(w->name ? w->name : "");
  out->pattern = strdup(w->pattern ? w->pattern : "");
  out->curve = w->curve ? strdup(w->curve) : NULL;
  int rc = out->name && out->pattern && (out->curve || !w->curve) ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < w->ops.n; i++)
    rc = placer_string_list_add(&out->ops, w->ops.items[i]);
  if (rc < 0) {
    placer_bench_workload_clear(out);
    return placer_error_oom(err, "workload");
  }
  return 0;
}

void placer_bench_workload_clear(struct placer_bench_workload *w) {
  free(w->name);
  free(w->pattern);
  free(w->curve);
  placer_string_list_free(&w->ops);
  *w = (struct placer_bench_workload){ 0 };
}

bool placer_bench_workload_uses_bandwidth(const struct placer_bench_workload *w) {
  return w->metric == PLACER_BENCH_METRIC_BW_BYTES;
}

const char *placer_bench_metric_unit(const struct placer_bench_workload *w) {
  return w->metric == PLACER_BENCH_METRIC_BW_BYTES    ? "MB/s"
         : w->metric == PLACER_BENCH_METRIC_OPS_PER_S ? "ops/s"
                                                      : "IOPS";
}

static double nan_max(double a, double b) {
  if (isnan(a))
    return b;
  return isnan(b) || a >= b ? a : b;
}

double placer_bench_ops_main_metric(const struct placer_bench_workload *w, const struct placer_bench_op *ops,
                                    size_t n) {
  double sum = 0, ios = 0, seconds = 0;
  bool any = false;
  for (size_t i = 0; i < w->ops.n && i < PLACER_BENCH_MAX_OPS; i++) {
    if (!(w->main_ops & (1u << i)))
      continue;
    const struct placer_bench_op *op = placer_bench_op_find(ops, n, w->ops.items[i]);
    if (op == NULL)
      return NAN;
    sum += w->metric == PLACER_BENCH_METRIC_BW_BYTES ? (double)op->bw_bytes : op->iops;
    if (w->metric == PLACER_BENCH_METRIC_OPS_PER_S && op->total_ios > 0) {
      if (!(op->iops > 0))
        return NAN; /* operations without a rate: their time is unknown */
      ios += (double)op->total_ios;
      seconds += (double)op->total_ios / op->iops;
    }
    any = true;
  }
  if (w->metric == PLACER_BENCH_METRIC_OPS_PER_S)
    return seconds > 0 ? ios / seconds : NAN;
  return any ? sum : NAN;
}

double placer_bench_ops_p99_ns(const struct placer_bench_workload *w, const struct placer_bench_op *ops, size_t n) {
  double worst = NAN;
  for (size_t i = 0; i < w->ops.n && i < PLACER_BENCH_MAX_OPS; i++) {
    const struct placer_bench_op *op = (w->main_ops & (1u << i)) ? placer_bench_op_find(ops, n, w->ops.items[i]) : NULL;
    if (op)
      worst = nan_max(worst, op->clat_p99_ns);
  }
  return worst;
}

const struct placer_bench_op *placer_bench_ops_latency_op(const struct placer_bench_workload *w,
                                                          const struct placer_bench_op *ops, size_t n) {
  const struct placer_bench_op *last = NULL;
  for (size_t i = 0; i < w->ops.n && i < PLACER_BENCH_MAX_OPS; i++)
    if (w->main_ops & (1u << i)) {
      const struct placer_bench_op *op = placer_bench_op_find(ops, n, w->ops.items[i]);
      if (op)
        last = op;
    }
  return last;
}
