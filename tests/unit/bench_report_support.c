/* What the bench report tests share (test_bench_report*.c): a run's
 * operations as fio gives them, the report and summary.json of hand-built
 * results, their goldens in tests/golden/bench/ and the recorded results
 * directories in tests/fixtures/results/ (PLACER_UPDATE_GOLDEN=1 rewrites
 * them; review the diff). */
#include "bench_report_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "test_support.h"

/* A run's reads and writes as fio gives them: IO in the workload's
 * direction, the other idle (no I/O, no latency). */
void set_ops(struct placer_bench_run *run, bool reads, const struct placer_bench_op *io, const char *path) {
  struct placer_bench_op ops[2] = {
    { .clat_mean_ns = NAN, .clat_p50_ns = NAN, .clat_p99_ns = NAN, .clat_p999_ns = NAN },
    { .clat_mean_ns = NAN, .clat_p50_ns = NAN, .clat_p99_ns = NAN, .clat_p999_ns = NAN }
  };
  ops[reads ? 0 : 1] = *io;
  snprintf(ops[0].name, sizeof(ops[0].name), "read");
  snprintf(ops[1].name, sizeof(ops[1].name), "write");
  struct placer_bench_result result = { .ops = ops, .n_ops = 2 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_run_set_result(run, &result, path, &err), 0);
}

void check_golden(const char *name, const char *text) {
  char rel[256];
  snprintf(rel, sizeof(rel), "golden/bench/%s", name);
  test_compare_golden(rel, text);
}

char *report_of(const struct placer_bench_results *r) {
  char *text = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report(r, &text, &err) < 0)
    fail_msg("%s", err->msg);
  return text;
}

char *json_of(const struct placer_bench_results *r) {
  json_t *j = placer_bench_results_to_json(r);
  assert_non_null(j);
  char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  json_decref(j);
  char *with_newline = NULL;
  assert_true(asprintf(&with_newline, "%s\n", s) > 0);
  free(s);
  return with_newline;
}

/* The text report always; the JSON only where json_golden (one is enough to pin
 * the schema down; the round trip covers the others). */
void golden_case(const char *name, struct placer_bench_results *r, bool json_golden) {
  char file[128];
  char *text = report_of(r);
  snprintf(file, sizeof(file), "%s.txt", name);
  check_golden(file, text);
  /* Byte-identical on a second rendering (seeded bootstrap). */
  char *again = report_of(r);
  assert_string_equal(text, again);
  free(again);
  free(text);
  if (json_golden) {
    char *json = json_of(r);
    snprintf(file, sizeof(file), "%s.json", name);
    check_golden(file, json);
    free(json);
  }
  placer_bench_results_free(r);
}

/* Writes (or, with PLACER_UPDATE_GOLDEN, checks) a recorded results
 * directory's summary.json of these results, for placer report DIR
 * (report_browser.sh). */
void check_fixture(const char *name, const struct placer_bench_results *r) {
  char rel[160];
  snprintf(rel, sizeof(rel), "fixtures/results/%s/summary.json", name);
  char *json = json_of(r);
  test_compare_golden(rel, json);
  free(json);
  /* with Ceph's counters, its ceph-counters.csv beside it, as bench writes it */
  bool any = false;
  for (size_t i = 0; i < r->n_variants * r->n_conditions * r->n_workloads * r->repeats; i++)
    any |= r->runs[i].done && r->runs[i].ceph;
  if (!any)
    return;
  char *csv = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&csv, &len);
  assert_non_null(f);
  placer_ceph_csv_write_header(f);
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t w = 0; w < r->n_workloads; w++)
        for (size_t k = 0; k < r->repeats; k++) {
          const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
          if (run->done && run->ceph)
            placer_ceph_csv_write_run(f, r->variants[v], (unsigned)k, r->conditions[c].name, r->workloads[w].name,
                                      run->ceph);
        }
  assert_int_equal(fclose(f), 0);
  snprintf(rel, sizeof(rel), "fixtures/results/%s/ceph-counters.csv", name);
  test_compare_golden(rel, csv);
  free(csv);
}
