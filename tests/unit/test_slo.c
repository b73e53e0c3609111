/* The SLO grammar (results/slo.h) and the units it reads (lib/units.h):
 * latencies and rates need their unit, nothing negative, shares in (0, 1];
 * the refusals are the one line the YAML layer prefixes with FILE:LINE:COL. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "bench/study.h"
#include "results/slo.h"
#include "test_support.h"

static struct placer_slo set_ok(const char *side, const char *key, const char *value) {
  struct placer_slo s;
  placer_slo_init(&s);
  char why[160];
  if (placer_slo_set(&s, side, key, value, why, sizeof(why)) < 0)
    fail_msg("%s.%s: %s: %s", side, key, value, why);
  return s;
}

static void refused(const char *side, const char *key, const char *value, const char *want) {
  struct placer_slo s;
  placer_slo_init(&s);
  char why[160];
  assert_int_equal(placer_slo_set(&s, side, key, value, why, sizeof(why)), -1);
  if (strcmp(why, want) != 0)
    fail_msg("%s.%s: '%s': '%s', expected '%s'", side, key, value, why, want);
  /* nothing was set */
  assert_true(isnan(s.storage_ns[PLACER_SLO_P99]) && isnan(s.keep) && s.at == PLACER_SLO_AT_NONE);
}

static void test_latencies(void **state) {
  assert_true(set_ok("storage", "p99", "2ms").storage_ns[PLACER_SLO_P99] == 2e6);
  assert_true(set_ok("storage", "p99.9", "500us").storage_ns[PLACER_SLO_P999] == 5e5);
  assert_true(set_ok("storage", "p50", "1.5 ms").storage_ns[PLACER_SLO_P50] == 1.5e6);
  assert_true(set_ok("storage", "p99", "250\u00b5s").storage_ns[PLACER_SLO_P99] == 2.5e5);
  assert_true(set_ok("storage", "p99", "800ns").storage_ns[PLACER_SLO_P99] == 800);
  assert_true(set_ok("storage", "p99", "0.2s").storage_ns[PLACER_SLO_P99] == 2e8);
  struct placer_slo s = set_ok("storage", "p99", "2ms");
  assert_true(placer_slo_storage_set(&s));
  placer_slo_init(&s);
  assert_false(placer_slo_storage_set(&s));
  refused("storage", "p99", "2", "a latency needs its unit: ns, us, ms or s (2ms, 500us), got '2'");
  refused("storage", "p99", "-2ms", "must not be negative, got '-2ms'");
  refused("storage", "p99", "0ms", "a latency target must be more than 0, got '0ms'");
  refused("storage", "p99", "2 parsecs", "unknown unit (use ns, us, ms or s), got '2 parsecs'");
  refused("storage", "p99", "fast", "expected a latency with its unit, such as 2ms or 500us, got 'fast'");
  refused("storage", "p99", "1e3ms", "unknown unit (use ns, us, ms or s), got '1e3ms'");
  refused("storage", "p99", "0x10ms", "unknown unit (use ns, us, ms or s), got '0x10ms'");
  refused("storage", "p95", "2ms", "unknown key 'p95' (slo.storage takes p50, p99, p99.9 and at)");
}

static void test_at_and_keep(void **state) {
  struct placer_slo s = set_ok("storage", "at", "5000 iops");
  assert_int_equal(s.at, PLACER_SLO_AT_IOPS);
  assert_true(s.at_rate == 5000);
  s = set_ok("storage", "at", "200MiB/s");
  assert_int_equal(s.at, PLACER_SLO_AT_BYTES);
  assert_true(s.at_rate == 200.0 * 1024 * 1024);
  s = set_ok("storage", "at", "1.5 GB/s");
  assert_true(s.at_rate == 1.5e9);
  assert_int_equal(set_ok("storage", "at", "knee").at, PLACER_SLO_AT_KNEE);
  assert_int_equal(set_ok("storage", "at", "5000IOPS").at, PLACER_SLO_AT_IOPS);
  refused("storage", "at", "5000", "expected a rate with its unit, such as 5000 iops or 200MiB/s, got '5000'");
  refused("storage", "at", "-5 iops", "must not be negative, got '-5 iops'");
  refused("storage", "at", "0 iops", "the load to hold the SLO at must be more than 0, got '0 iops'");
  refused("storage", "at", "5000 ops", "unknown unit (use iops, or a size per second such as MiB/s), got '5000 ops'");
  refused("storage", "at", "5000/s", "unknown unit (use iops, or a size per second such as MiB/s), got '5000/s'");
  refused("storage", "at", "5 parsecs/s",
          "unknown unit (use iops, or a size per second such as MiB/s), got '5 "
          "parsecs/s'");
  assert_true(set_ok("neighbours", "keep", "90%").keep == 0.9);
  assert_true(set_ok("neighbours", "keep", "0.85").keep == 0.85);
  assert_true(set_ok("neighbours", "keep", "100%").keep == 1.0);
  refused("neighbours", "keep", "150%", "a share must be more than 0 and at most 100%, got '150%'");
  refused("neighbours", "keep", "0%", "a share must be more than 0 and at most 100%, got '0%'");
  refused("neighbours", "keep", "-90%", "must not be negative, got '-90%'");
  refused("neighbours", "keep", "90 %%", "expected a share such as 90% or 0.9, got '90 %%'");
  refused("neighbours", "keep", "most", "expected a share such as 90% or 0.9, got 'most'");
  refused("neighbours", "p99", "2ms", "unknown key 'p99' (slo.neighbours takes keep)");
  refused("storgae", "p99", "2ms", "unknown key 'storgae' (slo takes storage and neighbours)");
}

static void test_steps(void **state) {
  struct placer_slo s;
  placer_slo_init(&s);
  char why[160];
  size_t bad = 99;
  const double ok[] = { 1, 4, 16, 64 }, flat[] = { 1, 4, 4 }, down[] = { 8, 4 }, zero[] = { 0, 4 };
  assert_int_equal(placer_slo_check_steps(&s, "iodepth", ok, 4, &bad, why, sizeof(why)), 0);
  assert_int_equal(placer_slo_check_steps(&s, "iodepth", flat, 3, &bad, why, sizeof(why)), -1);
  assert_string_equal(why, "load steps must increase: iodepth 4 after 4");
  assert_int_equal(bad, 2);
  assert_int_equal(placer_slo_check_steps(&s, "numjobs", down, 2, &bad, why, sizeof(why)), -1);
  assert_string_equal(why, "load steps must increase: numjobs 4 after 8");
  assert_int_equal(bad, 1);
  assert_int_equal(placer_slo_check_steps(&s, "iodepth", zero, 2, &bad, why, sizeof(why)), -1);
  assert_string_equal(why, "iodepth steps must be more than 0, got 0");
  assert_int_equal(bad, 0);
  /* at: above every rate step, refused before anything runs; with iodepth steps it cannot be known yet */
  s = set_ok("storage", "at", "5000 iops");
  const double rates[] = { 1000, 2000, 4000 };
  assert_int_equal(placer_slo_check_steps(&s, "rate_iops", rates, 3, &bad, why, sizeof(why)), -1);
  assert_string_equal(why, "at 5000 iops is above every load step (the last, rate_iops 4000): no step reaches it");
  assert_int_equal(bad, 3);
  assert_int_equal(placer_slo_check_steps(&s, "iodepth", rates, 3, &bad, why, sizeof(why)), 0);
  s.at_rate = 4000;
  assert_int_equal(placer_slo_check_steps(&s, "rate_iops", rates, 3, &bad, why, sizeof(why)), 0);
}

static void test_format_duration(void **state) {
  static const struct {
    double ns;
    const char *text;
  } cases[] = { { 2e6, "2 ms" },   { 5e5, "500 us" },  { 1.5e6, "1.5 ms" },   { 1234567, "1.23 ms" },
                { 800, "800 ns" }, { 2.5e9, "2.5 s" }, { 12.5e6, "12.5 ms" }, { 123456789, "123 ms" },
                { 1e3, "1 us" },   { 0, "0 ns" },      { 1.999e6, "2 ms" } };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char buf[32];
    placer_format_duration_ns(cases[i].ns, buf, sizeof(buf));
    if (strcmp(buf, cases[i].text) != 0)
      fail_msg("%g ns: '%s', expected '%s'", cases[i].ns, buf, cases[i].text);
    /* what it prints reads back within its 3 digits */
    double back;
    const char *why;
    assert_int_equal(placer_parse_duration_ns(buf, &back, &why), 0);
    assert_true(fabs(back - cases[i].ns) <= 0.005 * cases[i].ns);
  }
}

/* As a study reads it (bench/study-curves.c, through the YAML walker): the
 * refusal gets FILE:LINE:COL and the key's path. */
static int walk(const char *slo, struct placer_slo *s, struct placer_error **err) {
  char text[512];
  snprintf(
      text, sizeof(text),
      "variants: [ { name: a, profile: unpinned } ]\nneighbours: [ {} ]\nworkloads: { load: { iodepth: [1] } }\n%s",
      slo);
  struct placer_study *study = NULL;
  placer_slo_init(s);
  if (placer_study_parse("study.yaml", text, strlen(text), &study, err) < 0)
    return -1;
  *s = study->slo;
  placer_study_free(study);
  return 0;
}

static void test_in_yaml(void **state) {
  struct placer_slo s;
  struct placer_error *err = NULL;
  assert_int_equal(
      walk("slo:\n  storage: { p99: 2ms, p99.9: 5ms, at: 5000 iops }\n  neighbours:\n    keep: 90%\n", &s, &err), 0);
  assert_true(s.storage_ns[PLACER_SLO_P99] == 2e6 && s.storage_ns[PLACER_SLO_P999] == 5e6);
  assert_true(s.at == PLACER_SLO_AT_IOPS && s.at_rate == 5000 && s.keep == 0.9);
  assert_int_equal(walk("slo:\n  storage:\n    p99: 2\n", &s, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "study.yaml:6:10: slo.storage.p99: a latency needs its unit: ns, us, ms or s (2ms, "
                                "500us), got '2'");
  placer_error_clear(&err);
  assert_int_equal(walk("slo:\n  neighbours: { keep: -10% }\n", &s, &err), -1);
  assert_string_equal(err->msg, "study.yaml:5:23: slo.neighbours.keep: must not be negative, got '-10%'");
  placer_error_clear(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_latencies),       cmocka_unit_test(test_at_and_keep), cmocka_unit_test(test_steps),
    cmocka_unit_test(test_format_duration), cmocka_unit_test(test_in_yaml),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
