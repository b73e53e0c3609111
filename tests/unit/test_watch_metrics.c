/* The watcher's metrics in Prometheus's text format (placer/watch/metrics.c):
 * names, label and help escaping (UTF-8 repaired), floats as Go reads them,
 * histogram buckets (cumulative, inclusive bounds, +Inf), and whole
 * families compared byte for byte. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "watch/watch-internal.h"

static void names(void **state) {
  (void)state;
  assert_true(watch_metric_name_is_valid("placer_watch_events_total"));
  assert_true(watch_metric_name_is_valid("a:b_c9"));
  assert_true(watch_metric_name_is_valid("_x"));
  assert_false(watch_metric_name_is_valid(""));
  assert_false(watch_metric_name_is_valid("9lives"));
  assert_false(watch_metric_name_is_valid("a-b"));
  assert_false(watch_metric_name_is_valid("a b"));
  assert_true(watch_label_name_is_valid("instance"));
  assert_true(watch_label_name_is_valid("le"));
  assert_false(watch_label_name_is_valid("__name__")); /* Prometheus's own */
  assert_false(watch_label_name_is_valid("a:b"));      /* a colon is for metric names only */
  assert_false(watch_label_name_is_valid("1a"));
  assert_false(watch_label_name_is_valid(""));
}

static void expect_escape(const char *in, bool label, const char *want) {
  char *got = label ? watch_metrics_escape_label(in) : watch_metrics_escape_help(in);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void escaping(void **state) {
  (void)state;
  expect_escape("osd.0", true, "osd.0");
  expect_escape("a\\b\"c\nd", true, "a\\\\b\\\"c\\nd");
  expect_escape("a\\b\"c\nd", false, "a\\\\b\"c\\nd"); /* HELP keeps its quotes */
  expect_escape("caf\xc3\xa9 \xe2\x82\xac", true, "caf\xc3\xa9 \xe2\x82\xac");
  /* not UTF-8: a stray byte, an overlong '/', a surrogate, a cut sequence */
  expect_escape("x\xffy", true, "x\xef\xbf\xbdy");
  expect_escape("\xc0\xaf", true, "\xef\xbf\xbd\xef\xbf\xbd");
  expect_escape("\xed\xa0\x80", true, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  expect_escape("end\xe2\x82", true, "end\xef\xbf\xbd\xef\xbf\xbd");
  expect_escape("\xf4\x90\x80\x80", true, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* past U+10FFFF */
}

static void expect_double(double v, const char *want) {
  char buf[32];
  watch_metrics_format_double(v, buf);
  assert_string_equal(buf, want);
}

static void floats(void **state) {
  (void)state;
  expect_double(0.0001, "0.0001");
  expect_double(0.00025, "0.00025");
  expect_double(0.1, "0.1");
  expect_double(2.5, "2.5");
  expect_double(10, "10");
  expect_double(0, "0");
  expect_double(1e-05, "1e-05");
  expect_double(123456.5, "123456.5");
  expect_double(1234567.5, "1.2345675e+06");
  expect_double(-0.5, "-0.5");
  expect_double(1e21, "1e+21");
  expect_double(0.1 + 0.2, "0.30000000000000004"); /* the shortest that reads back as the same double */
  expect_double(NAN, "NaN");
  expect_double(INFINITY, "+Inf");
  expect_double(-INFINITY, "-Inf");
}

static void histogram_buckets(void **state) {
  (void)state;
  struct watch_histogram h = { 0 };
  watch_histogram_observe(&h, 50000);        /* 50 us */
  watch_histogram_observe(&h, 100000);       /* exactly 0.0001 s: its own bucket (le is inclusive) */
  watch_histogram_observe(&h, 100001);       /* just above: the next */
  watch_histogram_observe(&h, 7000000);      /* 7 ms: le 0.01 */
  watch_histogram_observe(&h, 20000000000u); /* 20 s: +Inf only */
  assert_int_equal(h.count, 5);
  assert_int_equal(h.buckets[0], 2);
  assert_int_equal(h.buckets[1], 1);
  assert_int_equal(h.buckets[6], 1);
  assert_int_equal(h.buckets[WATCH_HISTOGRAM_N_BOUNDS], 1);

  struct watch_metrics_text t;
  assert_int_equal(watch_metrics_text_open(&t, NULL), 0);
  watch_metrics_family(&t, "x_seconds", "Exec to placed.", WATCH_METRIC_HISTOGRAM);
  struct watch_label labels[] = { { "instance", "osd.0" } };
  watch_metrics_histogram(&t, "x_seconds", labels, 1, &h);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(watch_metrics_text_close(&t, &text, &len, NULL), 0);
  const char *want = "# HELP x_seconds Exec to placed.\n"
                     "# TYPE x_seconds histogram\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.0001\"} 2\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.00025\"} 3\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.0005\"} 3\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.001\"} 3\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.0025\"} 3\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.005\"} 3\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.01\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.025\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.05\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.1\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.25\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"0.5\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"1\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"2.5\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"5\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"10\"} 4\n"
                     "x_seconds_bucket{instance=\"osd.0\",le=\"+Inf\"} 5\n"
                     "x_seconds_sum{instance=\"osd.0\"} 20.007250001\n"
                     "x_seconds_count{instance=\"osd.0\"} 5\n";
  assert_string_equal(text, want);
  assert_int_equal(len, strlen(want));
  free(text);
}

static void families(void **state) {
  (void)state;
  struct watch_metrics_text t;
  assert_int_equal(watch_metrics_text_open(&t, NULL), 0);
  watch_metrics_family(&t, "placer_instance_cpus", "CPUs \\ planned\nper instance.", WATCH_METRIC_GAUGE);
  struct watch_label two[] = { { "instance", "vm \"a\"" }, { "cpus", "0-1,4" } };
  watch_metrics_sample_u64(&t, "placer_instance_cpus", two, 2, 3);
  watch_metrics_family(&t, "process_cpu_seconds_total", "CPU.", WATCH_METRIC_COUNTER);
  watch_metrics_sample(&t, "process_cpu_seconds_total", NULL, 0, 0.25);
  watch_metrics_sample_u64(&t, "big_total", NULL, 0, UINT64_MAX);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(watch_metrics_text_close(&t, &text, &len, NULL), 0);
  assert_string_equal(text, "# HELP placer_instance_cpus CPUs \\\\ planned\\nper instance.\n"
                            "# TYPE placer_instance_cpus gauge\n"
                            "placer_instance_cpus{instance=\"vm \\\"a\\\"\",cpus=\"0-1,4\"} 3\n"
                            "# HELP process_cpu_seconds_total CPU.\n"
                            "# TYPE process_cpu_seconds_total counter\n"
                            "process_cpu_seconds_total 0.25\n"
                            "big_total 18446744073709551615\n");
  free(text);
}

static void bad_names_fail_the_text(void **state) {
  (void)state;
  const char *bad_metric = "a-b";
  struct watch_metrics_text t;
  assert_int_equal(watch_metrics_text_open(&t, NULL), 0);
  watch_metrics_family(&t, bad_metric, "x", WATCH_METRIC_GAUGE);
  char *text = NULL;
  size_t len = 0;
  struct placer_error *err = NULL;
  assert_int_equal(watch_metrics_text_close(&t, &text, &len, &err), -1);
  assert_null(text);
  assert_non_null(err);
  assert_non_null(strstr(err->msg, "not valid"));
  placer_error_free(err);

  /* a bad label name, after good lines: the whole text is refused, not half written */
  assert_int_equal(watch_metrics_text_open(&t, NULL), 0);
  watch_metrics_family(&t, "ok", "x", WATCH_METRIC_GAUGE);
  struct watch_label bad[] = { { "__name__", "x" } };
  watch_metrics_sample_u64(&t, "ok", bad, 1, 1);
  err = NULL;
  assert_int_equal(watch_metrics_text_close(&t, &text, &len, &err), -1);
  placer_error_free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(names),    cmocka_unit_test(escaping),
    cmocka_unit_test(floats),   cmocka_unit_test(histogram_buckets),
    cmocka_unit_test(families), cmocka_unit_test(bad_names_fail_the_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
