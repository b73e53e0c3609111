/* summary.json read defensively (results/results-check.c, lib/jsoncost.c):
 * the golden results (tests/golden/bench/ab.json) pass, and each damage a
 * hostile or broken file can hold is refused with one line naming the key's
 * path, exit 2: negative or wrong-typed figures, lists that are not lists,
 * names with control bytes, paths out of the results directory, more runs
 * than the study's shape, a shape whose run slots would take gigabytes; and
 * a text whose parse would take more memory than a summary's is refused by
 * its cost before jansson builds it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "lib/jsoncost.h"
#include "test_support.h"

static json_t *golden(void) {
  json_error_t jerr;
  json_t *j = json_load_file(test_data_path("golden/bench/ab.json"), 0, &jerr);
  assert_non_null(j);
  return j;
}

static json_t *run(json_t *j, size_t i) {
  return json_array_get(json_object_get(j, "runs"), i);
}

/* J is refused with EXPECTED in the message (and freed). */
static void expect_refused(json_t *j, const char *expected) {
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), -1);
  assert_null(r);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, expected) == NULL)
    fail_msg("got      '%s'\nexpected '%s' in it", err->msg, expected);
  assert_null(strchr(err->msg, '\n'));
  placer_error_free(err);
  json_decref(j);
}

/* A real metadata study's summary.json with Ceph's counters of every run
 * (tests/fixtures/results/cephfs-metadata). */
static json_t *metadata_fixture(void) {
  json_error_t jerr;
  json_t *j = json_load_file(test_data_path("fixtures/results/cephfs-metadata/summary.json"), 0, &jerr);
  assert_non_null(j);
  return j;
}

/* A metadata workload's runs hold its operations (create, stat, delete),
 * its kind is one of the kinds, and every run's counters are read as their
 * reader reads them: damage is refused naming its path. */
static void test_metadata_and_counters(void **state) {
  (void)state;
  json_t *j = metadata_fixture();
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), 0);
  assert_int_equal(r->workloads[0].kind, PLACER_BENCH_WORKLOAD_METADATA);
  assert_true(r->workloads[0].files == 1000 && r->workloads[0].directories == 2 && r->workloads[0].jobs == 2);
  const struct placer_bench_run *first = placer_bench_results_run_const(r, 0, 0, 0, 0);
  assert_non_null(first->ceph);
  assert_int_equal(first->ceph->n, 3);
  assert_string_equal(first->ceph->daemons[2].daemon, "mds.a");
  assert_int_equal(placer_bench_run_op(first, "delete")->total_ios, 1000);
  placer_bench_results_free(r);
  json_decref(j);
  j = metadata_fixture();
  json_object_del(run(j, 2), "stat");
  expect_refused(j, "runs[2].stat: missing (expected an object)");
  j = metadata_fixture();
  json_object_set_new(json_object_get(run(j, 0), "create"), "total_ios", json_integer(-3));
  expect_refused(j, "runs[0].create.total_ios: -3 is negative");
  j = metadata_fixture();
  json_object_set_new(json_array_get(json_object_get(j, "workloads"), 0), "kind", json_string("mdtest"));
  expect_refused(j, "workloads[0].kind: 'mdtest' is not a workload kind (block, metadata)");
  j = metadata_fixture();
  json_object_set_new(json_array_get(json_object_get(j, "workloads"), 0), "jobs", json_integer(100000));
  expect_refused(j, "workloads[0].jobs: 100000 is more than 64");
  j = metadata_fixture();
  json_t *d0 = json_array_get(json_object_get(json_object_get(run(j, 1), "ceph_counters"), "daemons"), 0);
  json_object_set_new(json_object_get(json_object_get(d0, "counters"), "osd.op_w"), "count", json_integer(-1));
  expect_refused(j, "runs[1].ceph_counters.daemons[0].counters[\"osd.op_w\"].count: expected a whole number >= 0");
  j = metadata_fixture();
  d0 = json_array_get(json_object_get(json_object_get(run(j, 1), "ceph_counters"), "daemons"), 0);
  json_object_set_new(d0, "daemon", json_string("rgw.x"));
  expect_refused(j, "runs[1].ceph_counters.daemons[0]");
  j = metadata_fixture();
  json_object_set_new(run(j, 4), "ceph_counters", json_string("all fine"));
  expect_refused(j, "runs[4].ceph_counters: expected an object, got a string");
}

static void test_golden_passes(void **state) {
  json_t *j = golden();
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), 0);
  placer_bench_results_free(r);
  /* results written before local_mem_share, recovery or node_cpus existed */
  json_object_del(json_array_get(json_object_get(run(j, 0), "roles"), 0), "local_mem_share");
  json_object_del(j, "recovery");
  json_object_del(j, "node_cpus");
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), 0);
  placer_bench_results_free(r);
  json_decref(j);
}

static void test_figures(void **state) {
  json_t *j = golden();
  json_object_set_new(json_object_get(run(j, 3), "write"), "iops", json_integer(-1000));
  expect_refused(j, "runs[3].write.iops: -1000 is negative");
  j = golden();
  json_object_set_new(json_object_get(run(j, 0), "read"), "iops", json_string("fast"));
  expect_refused(j, "runs[0].read.iops: expected a number, got a string");
  j = golden();
  json_object_set_new(json_object_get(run(j, 1), "write"), "clat_p99_ns", json_real(-0.5));
  expect_refused(j, "runs[1].write.clat_p99_ns: -0.5 is negative");
  j = golden();
  json_object_set_new(json_object_get(run(j, 2), "read"), "bw_bytes", json_real(1.5));
  expect_refused(j, "runs[2].read.bw_bytes: expected a whole number, got a number");
  j = golden();
  json_object_del(run(j, 4), "read");
  expect_refused(j, "runs[4].read: missing (expected an object)");
  j = golden();
  json_object_set_new(run(j, 0), "duration_s", json_real(-15));
  expect_refused(j, "runs[0].duration_s: -15 is negative");
  j = golden();
  json_object_set_new(json_array_get(json_object_get(run(j, 5), "roles"), 1), "cpu_ns", json_integer(-1));
  expect_refused(j, "runs[5].roles[1].cpu_ns: -1 is negative");
  j = golden();
  json_object_set_new(json_array_get(json_object_get(run(j, 5), "roles"), 0), "local_mem_share", json_real(1.5));
  expect_refused(j, "runs[5].roles[0].local_mem_share: 1.5 is more than 1");
  j = golden();
  json_array_set_new(json_object_get(run(j, 6), "cpu_busy"), 0, json_real(2));
  expect_refused(j, "runs[6].cpu_busy[0]: 2 is more than 1");
  j = golden();
  json_object_set_new(json_array_get(json_object_get(j, "solo"), 0), "neighbour_rate", json_real(-3));
  expect_refused(j, "solo[0].neighbour_rate: -3 is negative");
  j = golden();
  json_object_set_new(j, "repeats", json_integer(0));
  expect_refused(j, "repeats: 0 is less than 1");
  j = golden();
  json_object_set_new(run(j, 0), "repeat", json_integer(7));
  expect_refused(j, "runs[0].repeat: 7 is more than 2");
}

static void test_shapes(void **state) {
  json_t *j = golden();
  json_object_set_new(j, "runs", json_string("many"));
  expect_refused(j, "runs: expected an array, got a string");
  j = golden();
  json_object_set_new(j, "runs", json_object());
  expect_refused(j, "runs: expected an array, got an object");
  j = golden();
  json_array_append_new(json_object_get(j, "runs"), json_deep_copy(run(j, 0)));
  expect_refused(j, "runs: 37 entries, more than the 36 runs of the study (2 variants x 2 conditions x 3 "
                    "workloads x 3 repeats)");
  j = golden();
  json_array_set_new(json_object_get(j, "runs"), 2, json_integer(5));
  expect_refused(j, "runs[2]: expected an object, got an integer");
  j = golden();
  json_object_set_new(j, "variants", json_array());
  expect_refused(j, "variants: empty");
  j = golden();
  json_object_set_new(j, "conditions", json_integer(2));
  expect_refused(j, "conditions: expected an array, got an integer");
  j = golden();
  json_array_set_new(json_object_get(j, "variants"), 1, json_string("pinned\033[2J"));
  expect_refused(j, "variants[1]: the name 'pinned\\x1b[2J' has a control byte");
  j = golden();
  json_object_set_new(run(j, 0), "fio_json", json_string("../../etc/shadow"));
  expect_refused(j, "runs[0].fio_json: '../../etc/shadow' is not a path inside the results directory");
  j = golden();
  json_object_set_new(run(j, 0), "fio_json", json_string("/etc/shadow"));
  expect_refused(j, "is not a path inside the results directory");
  j = golden();
  json_decref(j);
  expect_refused(json_array(), "top level: expected an object, got an array");
}

/* 64 variants, conditions, workloads and repeats: a small file whose run
 * slots would be 16 million (gigabytes); refused before they are made. */
static void test_shape_cap(void **state) {
  json_t *j = golden();
  json_t *vs = json_array(), *ws = json_array(), *cs = json_array();
  for (int i = 0; i < 64; i++) {
    char name[32];
    snprintf(name, sizeof(name), "v%d", i);
    json_array_append_new(vs, json_string(name));
    json_array_append_new(ws,
                          json_pack("{s:s, s:s, s:i}", "name", name, "pattern", "randread", "block_size_bytes", 4096));
    json_array_append_new(cs, json_pack("{s:s, s:i}", "name", name, "neighbour_level", i));
  }
  json_object_set_new(j, "variants", vs);
  json_object_set_new(j, "workloads", ws);
  json_object_set_new(j, "conditions", cs);
  json_object_set_new(j, "repeats", json_integer(64));
  json_object_set_new(j, "runs", json_array());
  json_object_set_new(j, "solo", json_array());
  json_object_set_new(j, "sweep", json_null());
  expect_refused(j, "64 variants x 64 conditions x 64 workloads x 64 repeats: more than 65536 runs");
}

/* What --resume takes over from "study" is in range (#35: runtime_s -1
 * gave fio a 136-year runtime): the same bounds as a study file's. */
static void test_study_counts(void **state) {
  (void)state;
  static const struct {
    const char *key, *json, *expected;
  } bad[] = {
    { "runtime_s", "-1", "study.runtime_s: -1 is less than 1" },
    { "runtime_s", "0", "study.runtime_s: 0 is less than 1" },
    { "runtime_s", "86401", "study.runtime_s: 86401 is more than 86400" },
    { "runtime_s", "\"10\"", "study.runtime_s: expected a whole number, got a string" },
    { "repeats", "0", "study.repeats: 0 is less than 1" },
    { "repeats", "101", "study.repeats: 101 is more than 100" },
    { "repeats_max", "1", "study.repeats_max: 1 is less than repeats (2)" },
    { "warmup", "-3", "study.warmup: -3 is negative" },
    { "warmup", "11", "study.warmup: 11 is more than 10" },
    { "ramp_s", "1e9", "study.ramp_s: expected a whole number, got a number" },
    { "ci_width", "2", "study.ci_width: 2 is more than 1" },
    { "study_file", "\"study.yaml\"", "study.study_file: 'study.yaml' is not a study file's absolute path" },
    { "study_file", "\"/x\\u001b[2J\"", "is not a study file's absolute path" },
    { "study_file", "7", "study.study_file: expected a string, got an integer" },
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    json_t *j = golden();
    json_t *st = json_pack("{s:s, s:i, s:i, s:i, s:i}", "study_file", "/var/tmp/s.yaml", "repeats", 2, "repeats_max", 2,
                           "warmup", 1, "runtime_s", 10);
    json_error_t jerr;
    json_t *v = json_loads(bad[i].json, JSON_DECODE_ANY, &jerr);
    assert_non_null(v);
    json_object_set_new(st, bad[i].key, v);
    json_object_set_new(j, "study", st);
    expect_refused(j, bad[i].expected);
  }
  json_t *j = golden();
  json_object_set_new(j, "study",
                      json_pack("{s:s, s:i, s:i, s:i, s:i, s:f}", "study_file", "/var/tmp/s.yaml", "repeats", 6,
                                "repeats_max", 7, "warmup", 1, "runtime_s", 3, "ci_width", 0.1));
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), 0);
  placer_bench_results_free(r);
  json_decref(j);
}

static void test_json_cost(void **state) {
  uint64_t cost = 0;
  size_t line = 0;
  assert_int_equal(placer_json_cost("[0,0,0]", 7, 100, &cost, &line), 0);
  assert_true(cost >= 3 * 40 && cost < 1000);
  /* a million values of two bytes cost far more than their bytes */
  size_t n = 1000000;
  char *text = malloc(2 * n + 2);
  text[0] = '[';
  for (size_t i = 0; i < n; i++)
    memcpy(text + 1 + 2 * i, i + 1 < n ? "0," : "0]", 2);
  assert_int_equal(placer_json_cost(text, 2 * n + 1, 100, &cost, &line), 0);
  assert_true(cost > 40 * n);
  free(text);
  /* strings: their length counts, escaped quotes do not end them */
  assert_int_equal(placer_json_cost("{\"a\\\"b\": \"x,y]\"}", 17, 100, &cost, &line), 0);
  assert_true(cost < 1000);
  assert_int_equal(placer_json_cost("[\n\n\"abcdef\"]", 12, 5, &cost, &line), -1);
  assert_int_equal(line, 3);
  assert_int_equal(placer_json_cost("[\"never ends", 12, 100, &cost, &line), -1);
  /* the golden file costs what a summary may */
  char *golden_text = test_read_file(test_data_path("golden/bench/ab.json"));
  assert_int_equal(placer_json_cost(golden_text, strlen(golden_text), PLACER_BENCH_SUMMARY_MAX_STRING, &cost, &line),
                   0);
  assert_true(cost < PLACER_BENCH_SUMMARY_MAX_COST / 50);
  free(golden_text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden_passes),         cmocka_unit_test(test_figures),   cmocka_unit_test(test_shapes),
    cmocka_unit_test(test_metadata_and_counters), cmocka_unit_test(test_shape_cap), cmocka_unit_test(test_json_cost),
    cmocka_unit_test(test_study_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
