/* A study's response-curve keys (issue #39): workloads.load makes a cell of
 * every load step, with fio told the step (iodepth, numjobs, a rate per job);
 * slo and max_time read as docs/bench.md says; bad input (steps that do not
 * increase, an SLO with no unit or a negative one, an `at` above every rate
 * step, keys that fight the steps) is one FILE:LINE:COL line, exit 2; the
 * estimate the design check holds against max_time counts every step; the
 * shipped studies/curves.yaml reads as documented and fits its max_time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fio-run.h"
#include "bench/study.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/substitute.h"
#include "test_support.h"

static struct placer_study *parse_ok(const char *text) {
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_parse("curves.yaml", text, strlen(text), &s, &err) < 0)
    fail_msg("curves.yaml: %s", err ? err->msg : "?");
  return s;
}

/* TEXT is refused with exactly WANT (the whole line: FILE:LINE:COL, the key's path, why). */
static void refused(const char *text, const char *want) {
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_study_parse("curves.yaml", text, strlen(text), &s, &err), -1);
  assert_null(s);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, want) != 0)
    fail_msg("refused with\n  '%s'\nexpected\n  '%s'", err->msg, want);
  placer_error_free(err);
}

#define HEAD "variants: [ { name: a, profile: unpinned } ]\n"
#define NEIGHBOUR "neighbours: [ { name: nb } ]\n"

/* Every step is a workload of its own, named after its curve and step, in
 * block size, pattern, step order; fio is told the step. */
static void test_load_steps(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(HEAD "workloads:\n  block_sizes: [4K, 64K]\n  patterns: [randwrite, randread]\n"
                                         "  load: { iodepth: [1, 4, 16] }\n");
  assert_int_equal(s->workloads.load, PLACER_STUDY_LOAD_IODEPTH);
  assert_int_equal(s->workloads.n_load_steps, 3);
  assert_int_equal(placer_study_n_workloads(s), 12);
  static const char *const names[] = { "4k-randwrite@iodepth1",  "4k-randwrite@iodepth4",  "4k-randwrite@iodepth16",
                                       "4k-randread@iodepth1",   "4k-randread@iodepth4",   "4k-randread@iodepth16",
                                       "64k-randwrite@iodepth1", "64k-randwrite@iodepth4", "64k-randwrite@iodepth16",
                                       "64k-randread@iodepth1",  "64k-randread@iodepth4",  "64k-randread@iodepth16" };
  for (size_t i = 0; i < 12; i++) {
    struct placer_bench_workload w = { 0 };
    assert_int_equal(placer_study_workload(s, i, &w, NULL), 0);
    assert_string_equal(w.name, names[i]);
    assert_string_equal(w.curve, i < 3   ? "4k-randwrite"
                                 : i < 6 ? "4k-randread"
                                 : i < 9 ? "64k-randwrite"
                                         : "64k-randread");
    assert_string_equal(w.load_name, "iodepth");
    static const double loads[] = { 1, 4, 16 };
    assert_true(w.load == loads[i % 3]);
    struct bench_fio_run run = { 0 };
    s->workloads.kind->job(s, &w, &run);
    assert_int_equal(run.iodepth, (unsigned)w.load);
    assert_int_equal(run.numjobs, 1);
    assert_int_equal(run.rate_iops, 0);
    placer_bench_workload_clear(&w);
  }
  placer_study_free(s);

  /* numjobs steps set the jobs; iodepth stays the study's */
  s = parse_ok(HEAD "workloads:\n  patterns: [randwrite]\n  iodepth: 8\n  load: { numjobs: [1, 2] }\n");
  struct placer_bench_workload w = { 0 };
  assert_int_equal(placer_study_workload(s, 1, &w, NULL), 0);
  assert_string_equal(w.name, "4k-randwrite@numjobs2");
  struct bench_fio_run run = { 0 };
  s->workloads.kind->job(s, &w, &run);
  assert_int_equal(run.iodepth, 8);
  assert_int_equal(run.numjobs, 2);
  placer_bench_workload_clear(&w);
  placer_study_free(s);

  /* a rate step is the total: fio's --rate_iops is per job */
  s = parse_ok("variants: [ { name: a, profile: unpinned } ]\ncluster: { type: none }\nworkloads:\n  path: t.img\n"
               "  patterns: [randwrite]\n  numjobs: 4\n  load: { rate_iops: [1000, 2002] }\n");
  assert_int_equal(placer_study_workload(s, 1, &w, NULL), 0);
  assert_string_equal(w.name, "4k-randwrite@rate_iops2002");
  s->workloads.kind->job(s, &w, &run);
  assert_int_equal(run.numjobs, 4);
  assert_int_equal(run.rate_iops, 501); /* 2002 / 4, rounded up */
  run.name = w.name;
  run.target = s->workloads.target;
  run.filename = strdup("/tmp/t.img");
  run.output = strdup("/tmp/out.json");
  char **argv = NULL;
  assert_int_equal(bench_fio_run_argv(s, &run, &argv, NULL), 0);
  bool rate = false;
  for (size_t i = 0; argv[i]; i++)
    rate |= strcmp(argv[i], "--rate_iops=501") == 0;
  assert_true(rate);
  placer_argv_free(argv);
  free(run.filename);
  free(run.output);
  placer_bench_workload_clear(&w);
  placer_study_free(s);

  /* without steps, a workload is no curve and keeps its name */
  s = parse_ok(HEAD "workloads: { patterns: [randwrite] }\n");
  assert_int_equal(placer_study_workload(s, 0, &w, NULL), 0);
  assert_string_equal(w.name, "4k-randwrite");
  assert_null(w.curve);
  placer_bench_workload_clear(&w);
  placer_study_free(s);
}

static void test_load_refused(void **state) {
  (void)state;
  refused(HEAD "workloads:\n  load: { iodepth: [1, 4, 4, 16] }\n",
          "curves.yaml:3:27: workloads.load.iodepth: [2]: load steps must increase: iodepth 4 after 4");
  refused(HEAD "workloads:\n  load:\n    iodepth:\n      - 16\n      - 4\n",
          "curves.yaml:6:9: workloads.load.iodepth: [1]: load steps must increase: iodepth 4 after 16");
  refused(HEAD "workloads:\n  load: { iodepth: [0, 4] }\n",
          "curves.yaml:3:21: workloads.load.iodepth: [0]: expected a whole number 1..4096, got '0'");
  refused(HEAD "workloads:\n  load: { iodepth: [1, 2.5] }\n",
          "curves.yaml:3:24: workloads.load.iodepth: [1]: expected a whole number 1..4096, got '2.5'");
  refused(HEAD "workloads:\n  load: { iodepth: [1, -4] }\n",
          "curves.yaml:3:24: workloads.load.iodepth: [1]: expected a whole number 1..4096, got '-4'");
  refused(HEAD "workloads:\n  load: { iodepth: [1, '4'] }\n",
          "curves.yaml:3:24: workloads.load.iodepth: [1]: expected a whole number 1..4096, got '4'");
  refused(HEAD "workloads:\n  load: { numjobs: [1, 512] }\n",
          "curves.yaml:3:24: workloads.load.numjobs: [1]: expected a whole number 1..256, got '512'");
  refused(HEAD "workloads:\n  load: { queue: [1, 2] }\n",
          "curves.yaml:3:11: workloads.load.queue: unknown key 'queue' (a load step sets iodepth, numjobs or "
          "rate_iops)");
  refused(HEAD "workloads:\n  load: { iodepth: [1], numjobs: [1, 2] }\n",
          "curves.yaml:3:9: workloads.load: expected one of iodepth, numjobs or rate_iops with its steps, such as { "
          "iodepth: [1, 4, 16, 64] }");
  refused(HEAD "workloads:\n  load: { iodepth: [] }\n",
          "curves.yaml:3:20: workloads.load.iodepth: expected a list of 1 to 16 steps, such as [1, 4, 16, 64]");
  refused(HEAD "workloads:\n  load: { iodepth: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17] }\n",
          "curves.yaml:3:20: workloads.load.iodepth: expected a list of 1 to 16 steps, such as [1, 4, 16, 64]");
  refused(HEAD "workloads:\n  iodepth: 8\n  load: { iodepth: [1, 4] }\n",
          "curves.yaml:3:3: workloads.iodepth: the load steps set it (workloads.load.iodepth): give one or the other");
  refused(HEAD "cluster: { type: none }\nworkloads:\n  path: t.img\n  load: { rate_iops: [100, 200] }\n"
               "  fio_options: [--rate_iops=50]\n",
          "curves.yaml:6:17: workloads.fio_options: [0]: '--rate_iops=50': the load steps set the rate "
          "(workloads.load.rate_iops)");
  refused(HEAD "workloads:\n  block_sizes: [4K, 8K, 16K, 32K, 64K]\n  patterns: [randwrite, randread]\n"
               "  load: { iodepth: [1, 2, 4, 8, 16, 32, 64] }\n",
          "curves.yaml:5:3: workloads.load: at most 64 workloads (block sizes x patterns x load steps)");
}

static void test_slo(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(HEAD NEIGHBOUR "workloads: { load: { iodepth: [1, 4] } }\n"
                                                   "slo:\n  storage: { p99: 20ms, p99.9: 50ms, at: 500 iops }\n"
                                                   "  neighbours: { keep: 80% }\n");
  assert_true(s->slo.storage_ns[PLACER_SLO_P99] == 20e6 && s->slo.storage_ns[PLACER_SLO_P999] == 50e6);
  assert_true(isnan(s->slo.storage_ns[PLACER_SLO_P50]));
  assert_true(s->slo.at == PLACER_SLO_AT_IOPS && s->slo.at_rate == 500 && s->slo.keep == 0.8);
  placer_study_free(s);
  /* either side optional; without at: the unconstrained variant's knee */
  s = parse_ok(HEAD "workloads: { load: { iodepth: [16] } }\nslo: { storage: { p99: 2ms } }\n");
  assert_int_equal(s->slo.at, PLACER_SLO_AT_NONE);
  assert_true(isnan(s->slo.keep));
  placer_study_free(s);
  s = parse_ok(HEAD NEIGHBOUR "workloads: { load: { iodepth: [16] } }\nslo: { neighbours: { keep: 0.9 } }\n");
  assert_false(placer_slo_storage_set(&s->slo));
  placer_study_free(s);
  /* no SLO: none */
  s = parse_ok(HEAD "workloads: { load: { iodepth: [16] } }\n");
  assert_false(placer_slo_storage_set(&s->slo));
  placer_study_free(s);

  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: 20 }\n",
          "curves.yaml:4:19: slo.storage.p99: a latency needs its unit: ns, us, ms or s (2ms, 500us), got '20'");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: -20ms }\n",
          "curves.yaml:4:19: slo.storage.p99: must not be negative, got '-20ms'");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: 0ms }\n",
          "curves.yaml:4:19: slo.storage.p99: a latency target must be more than 0, got '0ms'");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p95: 2ms }\n",
          "curves.yaml:4:14: slo.storage.p95: unknown key 'p95' in slo.storage (expected one of: p50, p99, p99.9, at)");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: [2ms] }\n",
          "curves.yaml:4:19: slo.storage.p99: expected a value such as 2ms, 5000 iops or 90%");
  refused(HEAD NEIGHBOUR "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  neighbours: { keep: -10% }\n",
          "curves.yaml:5:23: slo.neighbours.keep: must not be negative, got '-10%'");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: 2ms, at: 5000 }\n",
          "curves.yaml:4:28: slo.storage.at: expected a rate with its unit, such as 5000 iops or 200MiB/s, got "
          "'5000'");
  /* at above every rate step: no step reaches it */
  refused(HEAD "cluster: { type: none }\nworkloads:\n  path: t.img\n  load: { rate_iops: [100, 200] }\n"
               "slo:\n  storage: { p99: 2ms, at: 500 iops }\n",
          "curves.yaml:7:28: slo.storage.at: at 500 iops is above every load step (the last, rate_iops 200): no step "
          "reaches it");
  /* the unit of the workload it judges */
  refused(HEAD
          "workloads: { block_sizes: [1M], load: { iodepth: [1, 4] } }\nslo:\n  storage: { p99: 20ms, at: 500 iops "
          "}\n",
          "curves.yaml:4:29: slo.storage.at: the workload it judges is measured in MB/s (blocks of 64 KiB and more): "
          "give a rate of bytes such as 200MiB/s");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  storage: { at: 500 iops }\n",
          "curves.yaml:4:18: slo.storage.at: slo.storage needs a latency target to hold (p50, p99 or p99.9), such as "
          "p99: 2ms");
  refused(HEAD "workloads: { load: { iodepth: [1, 4] } }\nslo:\n  neighbours: { keep: 90% }\n",
          "curves.yaml:4:23: slo.neighbours.keep: the study has no neighbours to keep a share of their rate");
  refused(HEAD "slo:\n  storage: { p99: 2ms }\n",
          "curves.yaml:2:1: slo: an SLO is read off response curves: give workloads.load steps (one step, such as { "
          "iodepth: [16] }, is a curve of one point)");
  /* a sweep may judge a curve by its name */
  s = parse_ok(HEAD NEIGHBOUR "workloads: { load: { iodepth: [1, 4] } }\nsweep: { parameter: quota, values: [0.5], "
                              "workload: 4k-randwrite }\n");
  placer_study_free(s);
  refused(HEAD NEIGHBOUR "workloads: { patterns: [randwrite], load: { iodepth: [1, 4] } }\nsweep: { parameter: quota, "
                         "values: [0.5], workload: 4k-randread }\n",
          "curves.yaml:4:43: sweep.workload: '4k-randread' is not one of the workloads (e.g. \"4k-randwrite\")");
}

static void test_max_time(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(HEAD "max_time: 12min\n");
  assert_true(s->max_time_s == 720);
  assert_int_equal(s->max_time_line, 2);
  assert_int_equal(s->max_time_column, 11);
  placer_study_free(s);
  s = parse_ok(HEAD "max_time: 1.5h\n");
  assert_true(s->max_time_s == 5400);
  placer_study_free(s);
  refused(HEAD "max_time: 12\n", "curves.yaml:2:11: max_time: a time needs its unit: s, min or h (720s, 12min), got "
                                 "'12'");
  refused(HEAD "max_time: 12m\n", "curves.yaml:2:11: max_time: unknown unit (use s, min or h), got '12m'");
  refused(HEAD "max_time: -5min\n", "curves.yaml:2:11: max_time: must not be negative, got '-5min'");
  refused(HEAD "max_time: 0s\n", "curves.yaml:2:11: max_time: at least 1s, got '0s'");
}

/* The runs the design check counts: every load step is a cell of every
 * variant and condition, in every repeat. */
static void test_estimate(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(
      HEAD NEIGHBOUR "workloads: { patterns: [randwrite], runtime: 2, ramp: 1, load: { iodepth: [1, 4, 16, 64] } }\n"
                     "sweep: { parameter: quota, values: [0.5, 1] }\nrepeats: 4\nwarmup: 1\n");
  struct placer_study_estimate e;
  placer_study_estimate(s, 4, 0, &e);
  assert_int_equal(e.variants, 3);
  assert_int_equal(e.workloads, 4);
  assert_int_equal(e.steps, 4);
  assert_int_equal(e.conditions, 2);
  assert_int_equal(e.cell_runs, 3 * 4 * 2 * 4);
  /* one warm-up pass of each workload alone; a solo rate in each variant's measured pass */
  assert_int_equal(e.other_runs, 3 * 4 + 3 * 4);
  assert_int_equal(e.passes, 3 * 5);
  assert_true(e.live);
  /* (96 + 24) runs x (2 + 1 + 1) s + 15 passes x 1 s + the cluster, 30 s */
  assert_true(fabs(e.seconds - (120 * 4.0 + 15 + 30)) < 1e-9);
  char line[512];
  placer_study_estimate_describe(s, &e, line, sizeof(line));
  assert_string_equal(line, "120 runs of 1+2 s: 24 cells (3 variants x 1 workload x 4 load steps x 2 conditions) x 4 "
                            "repeats, and 24 more (warm-up, the neighbours' solo rates, the hardware baseline): about "
                            "8m45s");
  /* two variants that place the neighbours as the first does take its solo rates: 8 runs fewer */
  placer_study_estimate(s, 4, 2, &e);
  assert_int_equal(e.other_runs, 3 * 4 + 1 * 4);
  assert_true(fabs(e.seconds - (112 * 4.0 + 15 + 30)) < 1e-9);
  placer_study_free(s);
}

/* The shipped curve study: unpinned, pinned, two quota steps; 4K random
 * writes at 4 load steps, alone and next to a neighbour; p99 <= 50 ms at 400 IOPS; its
 * estimate within its max_time of 12 minutes. */
static void test_shipped(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof(path), "%s/../studies/curves.yaml", getenv("PLACER_TEST_DATA"));
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_load(path, &s, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(s->n_variants, 4);
  static const char *const names[] = { "unpinned", "pinned", "quota-0.5", "quota-1" };
  for (size_t i = 0; i < 4; i++)
    assert_string_equal(s->variants[i].name, names[i]);
  assert_int_equal(placer_study_n_workloads(s), 4);
  assert_int_equal(s->workloads.load, PLACER_STUDY_LOAD_IODEPTH);
  assert_int_equal(s->n_neighbours, 1);
  assert_true(s->slo.storage_ns[PLACER_SLO_P99] == 50e6);
  assert_true(s->slo.at == PLACER_SLO_AT_IOPS && s->slo.at_rate == 400 && s->slo.keep == 0.8);
  assert_true(s->max_time_s == 720);
  struct placer_study_estimate e;
  placer_study_estimate(s, s->repeats_max, 0, &e);
  assert_int_equal(e.cell_runs, 4 * 4 * 2 * 4);
  assert_true(e.seconds <= s->max_time_s);
  placer_study_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_steps), cmocka_unit_test(test_load_refused), cmocka_unit_test(test_slo),
    cmocka_unit_test(test_max_time),   cmocka_unit_test(test_estimate),     cmocka_unit_test(test_shipped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
