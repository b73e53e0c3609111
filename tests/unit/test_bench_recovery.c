/* Recovery as a workload (results/recovery.c): fio's status stream and the PG
 * watcher's lines as captured from real runs, the IOPS over an interval, the
 * JSON of the results there and back, and the report's section. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/recovery.h"
#include "lib/textfile.h"
#include "test_support.h"

static char *fixture(const char *name, size_t *len) {
  char *text = NULL;
  size_t n = 0;
  assert_int_equal(placer_textfile_read_path(test_data_path(name), PLACER_TEXTFILE_MAX_BYTES, &text, &n), 0);
  if (len)
    *len = n;
  return text;
}

static void test_status_stream(void **state) {
  (void)state;
  size_t len;
  char *text = fixture("fixtures/fio/rbd-status-stream.json", &len);
  struct placer_bench_io_point *p = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_fio_status_points(text, len, &p, &n, &err), 0);
  /* four whole documents; the noise line and the cut fifth are skipped */
  assert_int_equal(n, 4);
  double t0 = 1796319856697.0;
  assert_true(p[0].t_ms == t0 && p[0].ios == 173);
  assert_true(p[1].t_ms == t0 + 1000 && p[1].ios == 1458);
  assert_true(p[2].t_ms == t0 + 2001 && p[2].ios == 2852);
  assert_true(p[3].t_ms == t0 + 3003 && p[3].ios == 4197);
  /* over the whole stream: (4197 - 173) / 3.003 s */
  double lowest;
  double rate = placer_bench_io_rate(p, n, t0, t0 + 5000, &lowest);
  assert_true(fabs(rate - (4197.0 - 173.0) / 3.003) < 1e-6);
  /* the slowest second: 1285 I/Os in 1.000 s (173 -> 1458; then 1394 in 1.001 s, 1345 in 1.002 s) */
  assert_true(fabs(lowest - 1285.0) < 1e-6);
  /* an interval with one point, or none: no rate */
  assert_true(isnan(placer_bench_io_rate(p, n, t0 + 500, t0 + 1500, NULL)));
  assert_true(isnan(placer_bench_io_rate(p, n, t0 + 5000, t0 + 6000, &lowest)) && isnan(lowest));
  free(p);
  free(text);
  /* nothing but noise: no point, no error */
  assert_int_equal(placer_bench_fio_status_points("fio: terminating on signal 2\n{ broken", 38, &p, &n, &err), 0);
  assert_int_equal(n, 0);
  free(p);
}

static void test_watch(void **state) {
  (void)state;
  char *text = fixture("fixtures/fio/recovery-watch.log", NULL);
  double unclean, clean, degraded;
  placer_bench_parse_watch(text, &unclean, &clean, &degraded);
  assert_true(fabs(unclean - 1796319861.437) < 1e-6);
  assert_true(fabs(clean - 1796319900.218) < 1e-6);
  assert_true(degraded == 69);
  free(text);
  placer_bench_parse_watch("t=1 clean=16 pgs=16 degraded=0 misplaced=0 up=2\nTIMEOUT x\n", &unclean, &clean, &degraded);
  assert_true(isnan(unclean) && isnan(clean) && degraded == 0);
}

static struct placer_bench_recovery *sample(void) {
  struct placer_bench_recovery *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_recovery_new("kill", "osd.1", "4k-randwrite", 3, 4, 2, 2, &r, &err), 0);
  struct placer_bench_recovery_run *run = placer_bench_recovery_run(r, 1, 1);
  assert_non_null(run);
  assert_null(placer_bench_recovery_run(r, 2, 0));
  assert_null(placer_bench_recovery_run(r, 0, 2));
  run->detect_s = 1.5;
  run->down_s = 3.9;
  run->recovery_s = 36.5;
  run->total_s = 40.4;
  run->iops_before = 1339;
  run->iops_during = 774;
  run->iops_min = 56;
  run->degraded_peak = 69;
  run->fio_json = strdup("fio/pinned-r1-recovery-4k-randwrite.json");
  assert_int_equal(placer_bench_recovery_run_add_role(run, "osd.0", "osd", 245 << 20, 474 << 20, &err), 0);
  assert_int_equal(placer_bench_recovery_run_add_role(run, "osd.1", "osd", 156 << 20, 230 << 20, &err), 0);
  assert_int_equal(placer_bench_recovery_run_add_role(run, "mon.0", "mon", 44 << 20, 50 << 20, &err), 0);
  run->done = true;
  return r;
}

static void test_json_round_trip(void **state) {
  (void)state;
  char *variants[] = { "unpinned", "pinned", NULL };
  struct placer_bench_recovery *r = sample();
  json_t *j = placer_bench_recovery_to_json(r, variants);
  assert_non_null(j);
  assert_int_equal(json_array_size(json_object_get(j, "runs")), 1); /* only the done run */
  struct placer_bench_recovery *back = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_recovery_from_json(j, variants, 2, 2, &back, &err), 0);
  const struct placer_bench_recovery_run *a = placer_bench_recovery_run_const(r, 1, 1),
                                         *b = placer_bench_recovery_run_const(back, 1, 1);
  assert_true(b->done && !placer_bench_recovery_run_const(back, 0, 0)->done);
  assert_string_equal(back->action, "kill");
  assert_string_equal(back->daemon, "osd.1");
  assert_true(back->at_s == 3 && back->down_s == 4);
  assert_true(b->detect_s == a->detect_s && b->recovery_s == a->recovery_s && b->total_s == a->total_s &&
              b->iops_before == a->iops_before && b->iops_during == a->iops_during && b->iops_min == a->iops_min &&
              b->degraded_peak == a->degraded_peak && b->down_s == a->down_s);
  assert_string_equal(b->fio_json, a->fio_json);
  assert_null(b->watch_log);
  assert_int_equal(b->n_roles, 3);
  assert_string_equal(b->roles[1].instance, "osd.1");
  assert_true(b->roles[0].rss_peak_bytes == (uint64_t)474 << 20 && b->roles[2].rss_before_bytes == (uint64_t)44 << 20);
  /* none: null; a run of an unknown variant or twice: refused */
  struct placer_bench_recovery *none = (struct placer_bench_recovery *)1;
  assert_int_equal(placer_bench_recovery_from_json(json_null(), variants, 2, 2, &none, &err), 0);
  assert_null(none);
  json_t *runs = json_object_get(j, "runs");
  json_array_append(runs, json_array_get(runs, 0));
  assert_int_equal(placer_bench_recovery_from_json(j, variants, 2, 2, &none, &err), -1);
  assert_non_null(strstr(err->msg, "recovery.runs[1]"));
  placer_error_free(err);
  json_decref(j);
  placer_bench_recovery_free(r);
  placer_bench_recovery_free(back);
}

static void test_report(void **state) {
  (void)state;
  char *variants[] = { "unpinned", "pinned", NULL };
  struct placer_bench_recovery *r = sample();
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  placer_bench_recovery_report(r, variants, f);
  fclose(f);
  assert_non_null(strstr(text, "Recovery: osd.1 killed after 3 s of 4k-randwrite, started again 4 s later"));
  assert_non_null(strstr(text, "1 run\n"));
  /* pinned: its one run; unpinned: dashes.  osd's peak is the larger OSD's (474 MiB, +93% over 245) */
  char *row = strstr(text, "\npinned ");
  assert_non_null(row);
  assert_non_null(strstr(row, "36.5"));
  assert_non_null(strstr(row, "1339"));
  assert_non_null(strstr(row, "58%"));
  assert_non_null(strstr(row, "474 MiB (+93%)"));
  row = strstr(text, "\nunpinned ");
  assert_non_null(row);
  char *line = strndup(row, strcspn(row + 1, "\n"));
  assert_null(strstr(line, "1339"));
  free(line);
  free(text);
  placer_bench_recovery_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_status_stream),
    cmocka_unit_test(test_watch),
    cmocka_unit_test(test_json_round_trip),
    cmocka_unit_test(test_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
