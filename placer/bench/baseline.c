/* The hardware baseline of a study: the same fio workloads on a local file
 * or block device, no Ceph, not placed; and the report lines that say what
 * share of it each variant delivers. */
#include "bench/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "results/fio-result.h"
#include "lib/substitute.h"

int bench_hardware_baseline(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  if (!s->baseline.enabled)
    return 0;
  /* where, and whether it may be written: checked before the study began (files.c) */
  const char *abs = b->hw.path;
  struct stat st;
  bool existed = stat(abs, &st) == 0;
  b->baseline = json_object();
  json_t *runs = json_array();
  json_object_set_new(b->baseline, "path", json_string(abs));
  json_object_set_new(b->baseline, "size_bytes", json_integer((json_int_t)s->baseline.size_bytes));
  json_object_set_new(b->baseline, "workloads", runs);
  struct placer_study copy = *s; /* the same workloads, on the baseline's file */
  int rc = 0;
  /* A file must hold data before it is read. */
  if (!(existed && S_ISBLK(st.st_mode))) {
    cleanup_free char *out = NULL;
    if (asprintf(&out, "%s/logs/prefill-baseline.json", b->out) < 0)
      return placer_error_oom(err, "hardware baseline");
    struct placer_bench_fio_cell cell = { .kind = PLACER_BENCH_FIO_PREFILL,
                                          .name = "prefill",
                                          .output = out,
                                          .filename = abs,
                                          .direct = true,
                                          .size_bytes = s->baseline.size_bytes };
    char **argv = NULL;
    cleanup_free char *log = NULL;
    if (asprintf(&log, "%s/logs/prefill-baseline.log", b->out) < 0)
      return placer_error_oom(err, "hardware baseline");
    bench_progress(b, "hardware baseline: prefill %s", abs);
    if (bench_file_fresh(out, err) < 0 || placer_bench_fio_argv(&copy, PLACER_STUDY_TARGET_FILE, &cell, &argv, err) < 0)
      return -1;
    rc = placer_bench_run_command(argv, NULL, log, 600, true, err);
    placer_argv_free(argv);
  }
  for (size_t w = 0; rc == 0 && w < b->n_workloads && !placer_bench_stop; w++) {
    cleanup_free char *rel = NULL, *json = NULL, *log = NULL;
    if (asprintf(&rel, "fio/baseline-%s.json", b->wl_names[w]) < 0 || (json = bench_path_join(b->out, rel)) == NULL ||
        asprintf(&log, "%s/logs/fio-baseline-%s.log", b->out, b->wl_names[w]) < 0) {
      rc = placer_error_oom(err, "hardware baseline");
      break;
    }
    struct placer_bench_fio_cell cell = {
      .kind = PLACER_BENCH_FIO_MEASURE,
      .name = b->wl_names[w],
      .pattern = b->wl_patterns[w],
      .block_size = b->wl_bs[w],
      .output = json,
      .filename = abs,
      .direct = true,
      .size_bytes = s->baseline.size_bytes,
    };
    char **argv = NULL;
    if (bench_file_fresh(json, err) < 0 ||
        placer_bench_fio_argv(&copy, PLACER_STUDY_TARGET_FILE, &cell, &argv, err) < 0) {
      rc = -1;
      break;
    }
    b->runs_started++;
    bench_progress(b, "hardware baseline: %s on %s", b->wl_names[w], abs);
    long long start = bench_now_ms();
    rc = placer_bench_run_command(argv, NULL, log, s->workloads.runtime_s + s->workloads.ramp_s + s->workloads.grace_s,
                                  true, err);
    placer_argv_free(argv);
    bench_note_run_wall(b, start);
    if (rc < 0)
      break;
    struct placer_fio_result *fio = NULL;
    if (placer_fio_result_load(json, &fio, err) < 0) {
      bench_explain_unwritten(b, json, err); /* a full disk */
      rc = -1;
      break;
    }
    /* Like a measured run: a job error or no I/O is no baseline to compare with. */
    if (fio->n_failed_jobs > 0 || fio->total.read.total_ios + fio->total.write.total_ios == 0) {
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "hardware baseline: fio %s reported %s; see %s", b->wl_names[w],
                            fio->n_failed_jobs > 0 ? "errors" : "no I/O", json);
      placer_fio_result_free(fio);
      break;
    }
    const struct placer_fio_io *rd = &fio->total.read, *wr = &fio->total.write;
    json_t *o =
        json_pack("{s:s, s:s, s:I, s:s, s:f, s:f, s:I, s:I}", "workload", b->wl_names[w], "pattern", b->wl_patterns[w],
                  "block_size_bytes", (json_int_t)b->wl_bs[w], "fio_json", rel, "read_iops", rd->iops, "write_iops",
                  wr->iops, "read_bw_bytes", (json_int_t)rd->bw_bytes, "write_bw_bytes", (json_int_t)wr->bw_bytes);
    double p99 =
        placer_bench_pattern_direction(b->wl_patterns[w]) == PLACER_BENCH_READ ? rd->clat_p99_ns : wr->clat_p99_ns;
    json_object_set_new(o, "clat_p99_ns", isnan(p99) ? json_null() : json_real(p99));
    json_object_set_new(o, "failed_jobs", json_integer(fio->n_failed_jobs));
    json_array_append_new(runs, o);
    placer_fio_result_free(fio);
  }
  if (b->hw.created)
    unlink(abs);
  return rc;
}

static double baseline_metric(const struct bench *b, size_t w, bool *found) {
  *found = false;
  json_t *runs = b->baseline ? json_object_get(b->baseline, "workloads") : NULL;
  size_t i;
  json_t *o;
  json_array_foreach(runs, i, o) {
    if (strcmp(json_string_value(json_object_get(o, "workload")), b->wl_names[w]) != 0)
      continue;
    struct placer_bench_workload wl = { b->wl_names[w], (char *)b->wl_patterns[w], b->wl_bs[w] };
    double x;
    if (placer_bench_workload_uses_bandwidth(&wl))
      x = (double)(json_integer_value(json_object_get(o, "read_bw_bytes")) +
                   json_integer_value(json_object_get(o, "write_bw_bytes")));
    else
      x = json_real_value(json_object_get(o, "read_iops")) + json_real_value(json_object_get(o, "write_iops"));
    *found = true;
    return x;
  }
  return NAN;
}

/* The baseline's lines of the report, and the shares in summary.json. */
int bench_baseline_report(struct bench *b, FILE *out) {
  if (b->baseline == NULL)
    return 0;
  int alone = placer_bench_alone_condition(b->results);
  json_t *shares = json_array();
  fprintf(out, "\nHardware baseline: fio on %s, no Ceph, not placed; share of it each variant delivers alone\n",
          json_string_value(json_object_get(b->baseline, "path")));
  fprintf(out, "%-22s", "");
  for (size_t w = 0; w < b->n_workloads; w++) {
    char bs[16], head[64];
    placer_bench_format_block_size(b->wl_bs[w], bs, sizeof(bs));
    snprintf(head, sizeof(head), "%s %s", bs, b->wl_patterns[w]);
    fprintf(out, " %16s", head);
  }
  fprintf(out, "\n%-22s", "  hardware");
  for (size_t w = 0; w < b->n_workloads; w++) {
    bool found;
    double x = baseline_metric(b, w, &found);
    struct placer_bench_workload wl = { b->wl_names[w], (char *)b->wl_patterns[w], b->wl_bs[w] };
    char cell[32];
    if (!found)
      snprintf(cell, sizeof(cell), "-");
    else if (placer_bench_workload_uses_bandwidth(&wl))
      snprintf(cell, sizeof(cell), "%.1f MB/s", x / 1e6);
    else
      snprintf(cell, sizeof(cell), "%.0f IOPS", x);
    fprintf(out, " %16s", cell);
  }
  fputc('\n', out);
  for (size_t v = 0; v < b->n_vars && alone >= 0; v++) {
    char label[64];
    snprintf(label, sizeof(label), "  %s", b->vars[v].spec->name);
    fprintf(out, "%-22s", label);
    for (size_t w = 0; w < b->n_workloads; w++) {
      bool found;
      double hw = baseline_metric(b, w, &found);
      struct placer_bench_cell_stats st;
      placer_bench_cell_stats(b->results, v, (size_t)alone, w, &st);
      double share = found && hw > 0 && st.n_done ? st.main.median / hw : NAN;
      char cell[32];
      if (isnan(share))
        snprintf(cell, sizeof(cell), "-");
      else
        snprintf(cell, sizeof(cell), "%.1f%%", share * 100.0);
      fprintf(out, " %16s", cell);
      json_array_append_new(shares, json_pack("{s:s, s:s, s:o}", "variant", b->vars[v].spec->name, "workload",
                                              b->wl_names[w], "share", isnan(share) ? json_null() : json_real(share)));
    }
    fputc('\n', out);
  }
  json_object_set_new(b->baseline, "shares_alone", shares);
  return 0;
}
