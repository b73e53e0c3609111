/* The hardware baseline of a study: the same fio workloads on a local file
 * or block device, no Ceph, not placed (the share of it each variant
 * delivers: results/hardware-baseline.c). */
#include "bench/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/target.h"
#include "bench/workload.h"

/* RUN on the baseline's file ABS: target file, O_DIRECT, its size. */
static void on_baseline_file(const struct bench *b, const char *abs, struct bench_fio_run *run) {
  run->target = &bench_target_file;
  run->filename = strdup(abs);
  run->direct = true;
  run->size_bytes = b->study->baseline.size_bytes;
}

/* One fio run of the baseline, not placed, within LIMIT_S, read back. */
static int baseline_run(struct bench *b, struct bench_fio_run *run, unsigned limit_s, struct placer_bench_result *out,
                        struct placer_error **err) {
  const struct bench_workload_ops *kind = b->study->workloads.kind;
  if (run->filename == NULL)
    return placer_error_oom(err, "hardware baseline");
  if (bench_fio_run_start(b, NULL, run, err) < 0 ||
      bench_fio_run_wait(b, run, "hardware baseline", limit_s, NULL, 0, err) < 0)
    return -1;
  return out ? bench_fio_run_result(b, run, "hardware baseline", kind, out, err) : 0;
}

int bench_hardware_baseline(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct bench_workload_ops *kind = s->workloads.kind;
  if (!s->baseline.enabled)
    return 0;
  /* where, and whether it may be written: checked before the study began (files.c) */
  const char *abs = b->hw.path;
  struct stat st;
  bool existed = stat(abs, &st) == 0;
  b->baseline =
      json_pack("{s:s, s:I, s:[]}", "path", abs, "size_bytes", (json_int_t)s->baseline.size_bytes, "workloads");
  json_t *runs = json_object_get(b->baseline, "workloads");
  if (runs == NULL)
    return placer_error_oom(err, "hardware baseline");
  int rc = 0;
  /* A file must hold data before it is read. */
  if (!(existed && S_ISBLK(st.st_mode)) && kind->prepare) {
    struct bench_fio_run run = { 0 };
    kind->prepare(s, &run);
    on_baseline_file(b, abs, &run);
    snprintf(run.what, sizeof(run.what), "prefill");
    bench_progress(b, "hardware baseline: prefill %s", abs);
    rc = bench_fio_run_files(&run, b->out, "logs", "prefill-baseline", err);
    if (rc == 0)
      rc = baseline_run(b, &run, 600, NULL, err);
    bench_fio_run_clear(&run);
  }
  for (size_t w = 0; rc == 0 && w < b->n_workloads && !placer_bench_stop; w++) {
    const struct placer_bench_workload *wl = &b->wls[w];
    struct bench_fio_run run = { 0 };
    char stem[128];
    snprintf(stem, sizeof(stem), "baseline-%s", wl->name);
    kind->job(s, wl, &run);
    on_baseline_file(b, abs, &run);
    snprintf(run.what, sizeof(run.what), "fio %s", wl->name);
    if (bench_fio_run_files(&run, b->out, "fio", stem, err) < 0) {
      bench_fio_run_clear(&run);
      rc = -1;
      break;
    }
    b->runs_started++;
    bench_progress(b, "hardware baseline: %s on %s", wl->name, abs);
    long long start = bench_now_ms();
    struct placer_bench_result result = { 0 };
    rc = baseline_run(b, &run, s->workloads.runtime_s + s->workloads.ramp_s + s->workloads.grace_s, &result, err);
    bench_note_run_wall(b, start);
    if (rc == 0) {
      const struct placer_bench_op *rd = placer_bench_op_find(result.ops, result.n_ops, "read"),
                                   *wr = placer_bench_op_find(result.ops, result.n_ops, "write"),
                                   *lat = placer_bench_ops_latency_op(wl, result.ops, result.n_ops);
      struct placer_bench_op none = { .iops = 0 }; /* a kind without reads or writes */
      rd = rd ? rd : &none;
      wr = wr ? wr : &none;
      double p99 = lat ? lat->clat_p99_ns : NAN;
      json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:f, s:f, s:I, s:I}", "workload", wl->name, "pattern", wl->pattern,
                            "block_size_bytes", (json_int_t)wl->block_size_bytes, "fio_json", run.rel, "read_iops",
                            rd->iops, "write_iops", wr->iops, "read_bw_bytes", (json_int_t)rd->bw_bytes,
                            "write_bw_bytes", (json_int_t)wr->bw_bytes);
      if (o == NULL || json_object_set_new(o, "clat_p99_ns", isnan(p99) ? json_null() : json_real(p99)) < 0 ||
          json_object_set_new(o, "failed_jobs", json_integer(result.failed_jobs)) < 0 || json_array_append(runs, o) < 0)
        rc = placer_error_oom(err, "hardware baseline");
      json_decref(o);
    }
    placer_bench_result_free(&result);
    bench_fio_run_clear(&run);
  }
  if (b->hw.created)
    unlink(abs);
  return rc;
}
