/* The study parser: the shipped default study (studies/default.yaml) reads as documented (and the
 * shipped example), defaults are what docs/bench.md says, workloads form the
 * block size x pattern matrix, profile references resolve, and bad input is
 * refused with FILE:LINE:COL, the key's path and what is wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fio-options.h"
#include "bench/study.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "test_support.h"

static struct placer_study *parse_ok(const char *text) {
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_parse("inline.yaml", text, strlen(text), &s, &err) < 0)
    fail_msg("inline: %s", err ? err->msg : "?");
  return s;
}

static char *parse_error(const char *text) {
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  int rc = placer_study_parse("inline.yaml", text, strlen(text), &s, &err);
  assert_int_equal(rc, -1);
  assert_null(s);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  char *msg = strdup(err->msg);
  placer_error_free(err);
  return msg;
}

static void expect_error(const char *text, const char *needle) {
  char *msg = parse_error(text);
  if (strstr(msg, needle) == NULL)
    fail_msg("error '%s' does not contain '%s'", msg, needle);
  free(msg);
}

static const char minimal[] = "variants:\n  - name: a\n    profile: unpinned\n";

static void test_default_study(void **state) {
  (void)state;
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_study_load_default(&s, &err), 0);
  assert_int_equal(s->cluster.type, PLACER_STUDY_CLUSTER_LOCAL);
  assert_int_equal(s->cluster.osds, 2);
  assert_int_equal(s->cluster.rebuild, PLACER_STUDY_REBUILD_NEVER); /* one cluster, placement switched */
  assert_int_equal(s->n_variants, 4);
  assert_string_equal(s->variants[0].name, "unpinned");
  assert_string_equal(s->variants[1].profile, "demo-local");
  assert_string_equal(s->variants[2].name, "quota-0.5");
  assert_string_equal(s->variants[3].name, "quota-1");
  assert_int_equal(s->sweep.parameter, PLACER_STUDY_SWEEP_QUOTA);
  assert_ptr_equal(s->workloads.target, &bench_target_rbd);
  assert_int_equal(placer_study_n_workloads(s), 1);
  struct placer_bench_workload w = { 0 };
  assert_int_equal(placer_study_workload(s, 0, &w, NULL), 0);
  assert_string_equal(w.name, "4k-randwrite");
  assert_int_equal(w.block_size_bytes, 4096);
  assert_string_equal(w.pattern, "randwrite");
  assert_int_equal(w.metric, PLACER_BENCH_METRIC_IOPS); /* judged as the block kind says */
  assert_int_equal(w.main_ops, 1u << 1);                /* its writes */
  placer_bench_workload_clear(&w);
  assert_int_equal(s->n_neighbours, 1);
  assert_string_equal(s->neighbours[0].kind, "stress-ng");
  assert_string_equal(s->neighbours[0].method, "matrixprod");
  assert_int_equal(s->neighbours[0].load_percent, 50);
  assert_string_equal(s->neighbours[0].role, "neighbour");
  assert_false(s->baseline.enabled);
  assert_true(s->repeats >= 6); /* 6 pairs: the least that can reach p < 0.05 (Wilcoxon signed-rank) */
  assert_true(s->repeats_max >= s->repeats);
  assert_int_equal(s->warmup, 0);
  assert_true(s->sweep.enabled);
  /* Small enough for a 2-core machine in about six minutes: runs of the
   * longest study (repeats_max) with ~1.3 s of overhead each (measured:
   * 48 runs in 5 min 4 s with librbd's cache off). */
  unsigned runs = s->n_variants * s->repeats_max * 2;
  assert_true(runs * (s->workloads.runtime_s + s->workloads.ramp_s + 1.3) <= 6 * 60);
  placer_study_free(s);
}

static void test_defaults(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(minimal);
  assert_int_equal(s->cluster.type, PLACER_STUDY_CLUSTER_LOCAL);
  assert_int_equal(s->cluster.osds, 0); /* from the profiles */
  assert_int_equal(s->cluster.osd_size_bytes, 16ull << 30);
  assert_string_equal(s->cluster.client, "admin");
  assert_string_equal(s->cluster.pool, "rbd");
  assert_string_equal(s->cluster.image, "placer-bench");
  assert_ptr_equal(s->workloads.target, &bench_target_rbd);
  assert_int_equal(s->workloads.iodepth, 16);
  assert_int_equal(s->workloads.numjobs, 1);
  assert_int_equal(s->workloads.runtime_s, 10);
  assert_int_equal(s->workloads.ramp_s, 2);
  assert_true(s->workloads.prefill);
  assert_int_equal(s->workloads.grace_s, 120);
  assert_int_equal(s->workloads.size_bytes, 256ull << 20);
  assert_int_equal(s->workloads.n_block_sizes, 1);
  assert_int_equal(s->workloads.patterns.n, 2);
  assert_int_equal(s->repeats, 6); /* the least with which both tests can reach p < 0.05 */
  assert_true(s->alpha == 0.05);
  assert_int_equal(s->repeats_line, 0); /* not given */
  assert_int_equal(s->warmup, 1);
  assert_int_equal(s->n_neighbours, 0);
  assert_false(s->baseline.enabled);
  placer_study_free(s);
}

static void test_matrix_and_sweep(void **state) {
  (void)state;
  struct placer_study *s = parse_ok("version: 1\n"
                                    "cluster: { type: none }\n"
                                    "variants: [ { name: a, profile: ./a.yaml }, { name: b, profile: b } ]\n"
                                    "workloads:\n"
                                    "  path: /tmp/x\n"
                                    "  size: 1GiB\n"
                                    "  block_sizes: [4M, 128K, 4K]\n"
                                    "  patterns: [write, randread]\n"
                                    "  grace: 30\n"
                                    "neighbours:\n"
                                    "  - { kind: vm, intensity: 2, memory: 512MiB }\n"
                                    "sweep:\n"
                                    "  parameter: intensity\n"
                                    "  values: [1, 2, 4]\n"
                                    "  workload: 128k-write\n"
                                    "  storage_min_fraction: 80%\n"
                                    "  neighbour_min_fraction: 0.5\n");
  assert_ptr_equal(s->workloads.target, &bench_target_file); /* cluster none */
  assert_int_equal(s->workloads.grace_s, 30);
  assert_int_equal(s->workloads.runtime_s, 10); /* the grace is past the runtime, not instead of it */
  assert_int_equal(placer_study_n_workloads(s), 6);
  const char *expect[] = { "4m-write", "4m-randread", "128k-write", "128k-randread", "4k-write", "4k-randread" };
  for (size_t i = 0; i < 6; i++) {
    struct placer_bench_workload w = { 0 };
    assert_int_equal(placer_study_workload(s, i, &w, NULL), 0);
    assert_string_equal(w.name, expect[i]);
    assert_int_equal(w.metric, i < 4 ? PLACER_BENCH_METRIC_BW_BYTES : PLACER_BENCH_METRIC_IOPS); /* MB/s from 64K */
    placer_bench_workload_clear(&w);
  }
  assert_true(s->sweep.enabled);
  assert_int_equal(s->sweep.n_values, 3);
  assert_int_equal(s->sweep.values[2], 4);
  assert_true(fabs(s->sweep.storage_min_fraction - 0.8) < 1e-9);
  assert_true(fabs(s->sweep.neighbour_min_fraction - 0.5) < 1e-9);
  assert_string_equal(s->neighbours[0].name, "neighbour");
  assert_int_equal(s->neighbours[0].memory_bytes, 512ull << 20);
  placer_study_free(s);
}

/* workloads.fio_options by allowlist: the eight ways round the old
 * denylist (#35) and everything else not on the list refused, with the
 * item's FILE:LINE:COL; fio's own spelling only (its getopt would take an
 * abbreviation or nothing for another case). */
static void test_fio_options(void **state) {
  (void)state;
  static const struct {
    const char *option, *expected;
  } refused[] = {
    /* the eight of #35: deleting, laying out again, overwriting, running a program, the runtime */
    { "--unlink=1", "not one of the fio options a study may pass" },
    { "--ioengine=filedelete", "not an engine a study may use" },
    { "--offset=1g", "not one of the fio options a study may pass" },
    { "--filesize=2g", "not one of the fio options a study may pass" },
    { "--mem=mmap:/tmp/decoy", "not one of the fio options a study may pass" },
    { "--iomem=mmapshared:/tmp/decoy", "not one of the fio options a study may pass" },
    { "--ioengine=exec", "not an engine a study may use" },
    { "--program=/bin/sh", "not one of the fio options a study may pass" },
    { "--timeout=99999999", "placer sets it (fio's alias of runtime: workloads.runtime)" },
    /* what placer sets, by the study key that sets it */
    { "--filename=/tmp/decoy", "[1]: '--filename=/tmp/decoy': placer sets it" },
    { "--output=/tmp/decoy", "placer sets it (fio's JSON goes into the results directory)" },
    { "--output-format=normal", "placer sets it (json, which it reads)" },
    { "--rw=write", "placer sets it (workloads.patterns)" },
    { "--bs=1M", "placer sets it (workloads.block_sizes)" },
    { "--buffered=1", "placer sets it (direct" },
    /* not listed, in any spelling */
    { "--OUTPUT_FORMAT=terse", "not one of the fio options a study may pass" },
    { "--directory=/tmp", "not one of the fio options" },
    { "--directo=/tmp", "not one of the fio options" },
    { "--randrep=0", "no abbreviation" },
    { "--rand-repeat=0", "not one of the fio options" },
    { "--write_lat_log=/tmp/x", "not one of the fio options" },
    { "--exec_postrun=rm -rf /", "not one of the fio options" },
    { "--cpus_allowed=0", "not one of the fio options" },
    { "--fill_device=1", "not one of the fio options" },
    { "--allow_mounted_write=1", "not one of the fio options" },
    { "--fallocate=truncate", "not one of the fio options" },
    { "--buffer_pattern=/etc/shadow", "not one of the fio options" },
    { "--zoneskip=1g", "not one of the fio options" },
    /* listed, with a value it does not allow */
    { "--ioengine=external:/tmp/evil.so", "not an engine a study may use" },
    { "--ioengine=falloc", "not an engine a study may use" },
    { "--rate=1m/2m", "expected a number" },
    { "--rate=$mb_memory", "expected a number" },
    { "--randrepeat=yes", "expected 0 or 1" },
    { "--random_distribution=zoned_abs:60/20g", "not one of the values" },
    { "--randrepeat=0\\n--filename=/tmp/decoy", "no option may hold a newline" },
    { "-filename=/x", "expected --key=value" },
    { "--=x", "expected --key=value" },
    { "--randrepeat", "expected --key=value" },
  };
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    char text[512];
    snprintf(text, sizeof(text),
             "cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads:\n  path: t.img\n"
             "  fio_options:\n    - --randrepeat=0\n    - \"%s\"\n",
             refused[i].option);
    /* "\\n" in the table is YAML's escape: a real newline in the option */
    char *msg = parse_error(text);
    if (strstr(msg, refused[i].expected) == NULL || strncmp(msg, "inline.yaml:7:7: workloads.fio_options: [1]: ", 45))
      fail_msg("%s: got '%s', expected 'inline.yaml:7:7: workloads.fio_options: [1]: ...%s...'", refused[i].option, msg,
               refused[i].expected);
    free(msg);
  }
  /* a Ceph target's engine is placer's; a file's may be another built-in one */
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { fio_options: [--ioengine=libaio] }\n",
               "placer sets it for a Ceph target");
  struct placer_study *s = parse_ok(
      "cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: t.img, "
      "fio_options: [--ioengine=io_uring, --randrepeat=0, --rw_sequencer=sequential, '--rate=1m,2m', --thinktime=10us, "
      "--random_distribution=zipf:1.2, --iodepth_batch_submit=4, --blockalign=4k, --sync=dsync, --ioengine=null] }\n");
  assert_int_equal(s->workloads.fio_options.n, 10);
  placer_study_free(s);
}

/* docs/bench.md lists exactly the options bench_fio_option_refused lets
 * through, each with its alias: the table is the documentation of the list. */
static void test_fio_options_documented(void **state) {
  (void)state;
  char *doc = test_read_file(test_data_path("../docs/bench.md"));
  char *start = strstr(doc, "### The fio options a study may pass");
  assert_non_null(start);
  char *end = strstr(start + 4, "\n##");
  if (end)
    *end = '\0';
  size_t documented = 0;
  for (char *line = strstr(start, "\n| `"); line; line = strstr(line + 1, "\n| `")) {
    char name[64] = "", alias[64] = "";
    if (sscanf(line, "\n| `%63[^`]` (`%63[^`]`)", name, alias) < 1)
      continue;
    documented++;
    char opt[160];
    snprintf(opt, sizeof(opt), "--%s=1", name);
    const char *why = bench_fio_option_refused(opt, &bench_target_file);
    if (why && strstr(why, "not one of the fio options"))
      fail_msg("docs/bench.md lists '%s', which the list does not hold", name);
    const char *code_alias = NULL;
    size_t k = 0;
    const char *n;
    while ((n = bench_fio_option_allowed(k, &code_alias)) != NULL && strcmp(n, name) != 0)
      k++;
    if (strcmp(alias, code_alias ? code_alias : "") != 0)
      fail_msg("docs/bench.md gives '%s' the alias '%s', the list '%s'", name, alias, code_alias ? code_alias : "");
  }
  size_t listed = 0;
  const char *alias;
  for (const char *n; (n = bench_fio_option_allowed(listed, &alias)) != NULL; listed++) {
    char needle[80];
    snprintf(needle, sizeof(needle), "\n| `%s`", n);
    if (strstr(start, needle) == NULL)
      fail_msg("'%s' is on the list but not in docs/bench.md's table", n);
  }
  assert_int_equal(documented, listed);
  free(doc);
}

static void test_local_paths(void **state) {
  (void)state;
  struct placer_study *s = parse_ok("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\n"
                                    "workloads: { path: ./data//t.img, write: true }\n"
                                    "hardware_baseline: { path: hw/./b.img }\n");
  assert_string_equal(s->workloads.path, "data/t.img");
  assert_true(s->workloads.write);
  assert_int_equal(s->workloads.path_line, 3);
  assert_int_equal(s->workloads.path_column, 20);
  assert_string_equal(s->baseline.path, "hw/b.img");
  placer_study_free(s);
  s = parse_ok("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: /dev/nvme0n1 }\n");
  assert_string_equal(s->workloads.path, "/dev/nvme0n1");
  assert_false(s->workloads.write);
  placer_study_free(s);
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: t.img }\n"
               "hardware_baseline: { path: ../../../../etc/x }\n",
               "inline.yaml:4:22: hardware_baseline.path: '../../../../etc/x': expected a path inside the results "
               "directory ('..' is not allowed");
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: a/../../x }\n",
               "workloads.path: 'a/../../x': expected a path inside the results directory");
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: ./ }\n",
               "workloads.path: './': expected a file's path, not the results directory itself");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { write: true }\n",
               "workloads.write: only goes with target file");
  /* a study is called a study */
  expect_error("", "inline.yaml:1:1: empty study (expected a mapping with 'variants')");
  expect_error("# nothing\n", "empty study");
}

static void test_errors(void **state) {
  (void)state;
  expect_error("variants: []\n", "inline.yaml:1:11: variants: must list at least one variant");
  expect_error("cluster: { type: local }\n", "missing key 'variants'");
  expect_error("version: 2\nvariants: [ { name: a, profile: x } ]\n", "unsupported study version 2");
  expect_error("variants: [ { name: a, profile: x }, { name: a, profile: y } ]\n", "duplicate variant name 'a'");
  expect_error("variants: [ { name: a } ]\n", "missing key 'profile'");
  expect_error("variants: [ { name: a, profile: x, env: [\"LD_PRELOAD=/a b\"] } ]\n",
               "variants[0].env: [0]: expected KEY=VALUE without blanks");
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\n",
               "workloads: target file needs 'path'");
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { target: rbd }\n",
               "target rbd needs Ceph");
  expect_error("cluster: { type: existing }\nvariants: [ { name: a, profile: x } ]\n", "needs 'conf'");
  expect_error("cluster: { type: none, osds: 3 }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: /x }\n",
               "cluster.osds: only goes with type local");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { patterns: [randwrte] }\n",
               "workloads.patterns: [0]: unknown pattern 'randwrte'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { block_sizes: [4K, 4096] }\n",
               "block size '4096' is listed twice");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { block_sizes: [1000] }\n", "multiple of 512");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { target: cephfs }\n", "target cephfs needs an MDS");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { size: 2GiB }\n", "larger than the rbd image");
  expect_error("variants: [ { name: a, profile: x } ]\nsweep: { values: [1, 2] }\n", "list 'neighbours' too");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { values: [2, 1] }\n",
               "distinct and ascending");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { values: [1], workload: 4k-read }\n",
               "'4k-read' is not one of the workloads");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { values: [1], "
               "storage_min_fraction: 1.5 }\n",
               "expected a fraction in (0, 1]");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: vm, method: x } ]\n",
               "neighbours[0].method: only goes with kind stress-ng");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: vm }, { kind: stress-ng, name: b } ]\n",
               "all neighbours must be of one kind");
  /* a kind of the table by its name (each kind once), and another kind's keys refused */
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: qemu } ]\n",
               "inline.yaml:2:23: neighbours[0].kind: expected one of stress-ng, vm, got 'qemu'");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: stress-ng, work_memory: 1GiB } ]\n",
               "inline.yaml:2:34: neighbours[0].work_memory: only goes with kind vm");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: vm, backend: podman } ]\n",
               "neighbours[0].backend: only goes with kind stress-ng");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { target: nbd }\n",
               "inline.yaml:2:22: workloads.target: expected one of rbd, rados, cephfs, file, got 'nbd'");
  /* workloads.grace: whole seconds, 1..86400 (a day) */
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { grace: 0 }\n",
               "inline.yaml:2:21: workloads.grace: must be at least 1, got 0");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { grace: 86401 }\n",
               "inline.yaml:2:21: workloads.grace: '86401' is too large (at most 86400)");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { grace: 2m }\n",
               "inline.yaml:2:21: workloads.grace: expected an integer, got '2m'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { grace: -5 }\n",
               "workloads.grace: must not be negative, got '-5'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { grace: 5, grace: 6 }\n", "grace");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { kind: vm, load: 50% } ]\n",
               "neighbours[0].load: only goes with kind stress-ng");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { stressor: io, load: 50% } ]\n",
               "neighbours[0].load: only goes with stressor cpu");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { load: 0.333 } ]\n",
               "neighbours[0].load: expected a whole percent");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { load: 150% } ]\n",
               "neighbours[0].load: expected a fraction in (0, 1]");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ { image: foo } ]\n",
               "only goes with backend podman");
  expect_error("variants: [ { name: a, profile: x } ]\nrepeats: 0\n", "repeats: expected 1..100 or {min: N");
  expect_error("variants: [ { name: a, profile: x } ]\nrepeats: { min: 5, max: 3 }\n",
               "repeats.max: expected min..100");
  expect_error("variants: [ { name: a, profile: x } ]\nrepeats: { mni: 5 }\n", "unknown key 'mni'");
  expect_error(
      "variants: [ { name: a, profile: demo-local }, { name: cores-1, profile: demo-local } ]\nneighbours: [ {} ]\n"
      "sweep: { parameter: cores, values: [1] }\n",
      "variant 'cores-1' has the name of a sweep step");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { parameter: quota, values: "
               "[0.0001] }\n",
               "quota 0.0001: expected cores");
  expect_error("variants: [ { name: a, profile: demo-local } ]\nneighbours: [ {} ]\nsweep: { parameter: cores, values: "
               "[1.5] }\n",
               "cores 1.5: expected whole cores");
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { values: [1.5] }\n",
               "sweep.values: [0]: 1.5: expected an intensity, a whole number 1..1024");
  /* the range is the parameter's, whatever the value (1e8 was "expected a positive number") */
  expect_error("variants: [ { name: a, profile: x } ]\nneighbours: [ {} ]\nsweep: { values: [1e8] }\n",
               "inline.yaml:3:10: sweep.values: [0]: 1e+08: expected an intensity, a whole number 1..1024");
  expect_error("variants: [ { name: a, profile: demo-local } ]\nneighbours: [ {} ]\nsweep: { parameter: cores, values: "
               "[1e8] }\n",
               "cores 1e+08: expected whole cores 1..65536");
  expect_error(
      "cluster: { rebuild: never }\nvariants: [ { name: a, profile: x }, { name: b, profile: x, env: [A=1] } ]\n",
      "cluster.rebuild: 'never' keeps one cluster for every variant, but variants differ in 'env'");
  expect_error(
      "cluster: { type: none, rebuild: never }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: /x }\n",
      "'never' is for cluster type local");
  expect_error("variants: [ { name: a, profile: x } ]\nbogus: 1\n", "bogus");
  expect_error("variants: [ { name: a, profile: x } ]\nhardware_baseline: { size: 1GiB }\n", "needs 'path'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { fio_options: [direct=1] }\n",
               "expected --key=value");
}

/* A placement sweep makes its variants from the one given; rebuild: auto
 * becomes never when the variants differ only in placement; dynamic repeats. */
static void test_placement_sweep(void **state) {
  (void)state;
  struct placer_study *s = parse_ok("variants: [ { name: free, profile: unpinned, set: [fio.cpu.weight=200] } ]\n"
                                    "neighbours: [ { intensity: 2 } ]\n"
                                    "repeats: { min: 4, max: 12, ci_width: 4% }\n"
                                    "sweep: { parameter: quota, values: [0.5, 0.75, 1.5] }\n");
  assert_int_equal(s->n_variants, 4);
  assert_string_equal(s->variants[0].name, "free");
  assert_true(isnan(s->variants[0].knob));
  assert_string_equal(s->variants[1].name, "quota-0.5");
  assert_string_equal(s->variants[2].name, "quota-0.75");
  assert_true(fabs(s->variants[3].knob - 1.5) < 1e-12);
  assert_string_equal(s->variants[3].profile, "unpinned");
  assert_int_equal(s->variants[2].sets.n, 2);
  /* the variant's changes first, the step's after (the last of a key wins) */
  assert_string_equal(s->variants[2].sets.items[0], "fio.cpu.weight=200");
  assert_string_equal(s->variants[2].sets.items[1], "@storage.cpu.quota=0.75");
  assert_int_equal(s->cluster.rebuild, PLACER_STUDY_REBUILD_NEVER);
  assert_int_equal(s->repeats, 4);
  assert_int_equal(s->repeats_max, 12);
  assert_true(fabs(s->ci_width - 0.04) < 1e-12);
  assert_true(placer_study_sweeps_placement(s));
  placer_study_free(s);

  s = parse_ok("variants: [ { name: base, profile: unpinned } ]\nneighbours: [ {} ]\n"
               "sweep: { parameter: weight, values: [0.25, 4] }\n");
  assert_int_equal(s->n_variants, 3);
  assert_string_equal(s->variants[1].sets.items[0], "@storage.cpu.weight=100");
  assert_string_equal(s->variants[1].sets.items[1], "@neighbours.cpu.weight=400");
  assert_string_equal(s->variants[2].sets.items[0], "@storage.cpu.weight=400");
  assert_string_equal(s->variants[2].sets.items[1], "@neighbours.cpu.weight=100");
  assert_int_equal(s->repeats, 6);
  assert_int_equal(s->repeats_max, 6);
  placer_study_free(s);

  s = parse_ok("variants: [ { name: base, profile: unpinned }, { name: pinned, profile: demo-local } ]\n"
               "neighbours: [ {} ]\nsweep: { parameter: quota, values: [1] }\n");
  assert_int_equal(s->n_variants, 3);
  assert_string_equal(s->variants[1].name, "pinned");
  assert_string_equal(s->variants[2].name, "quota-1");
  assert_string_equal(s->variants[2].profile, "unpinned");
  placer_study_free(s);

  s = parse_ok("variants: [ { name: a, profile: x }, { name: b, profile: y, env: [A=1] } ]\n");
  assert_int_equal(s->cluster.rebuild, PLACER_STUDY_REBUILD_PER_VARIANT);
  placer_study_free(s);

  /* #35: the step's value wins over its variant's set of the same key
   * (quota-1 ran at the variant's 0.5 cores) */
  s = parse_ok("variants: [ { name: base, profile: unpinned, set: [osd.cpu.quota=0.5, '@storage.cpu.quota=0.5'] } ]\n"
               "neighbours: [ {} ]\nsweep: { parameter: quota, values: [1] }\n");
  assert_int_equal(s->variants[1].sets.n, 3);
  assert_string_equal(s->variants[1].sets.items[2], "@storage.cpu.quota=1");
  placer_study_free(s);
  /* ... and the neighbours are never the storage a split sweep measures against them */
  expect_error("variants: [ { name: a, profile: unpinned } ]\nneighbours: [ { role: vms } ]\n"
               "sweep: { parameter: quota, values: [1], roles: [osd, vms] }\n",
               "inline.yaml:3:54: sweep.roles: [1]: 'vms' is the neighbours' role (neighbours[0]): a split sweep "
               "measures storage against the neighbours, so they cannot be the storage");
}

static void test_profile_paths(void **state) {
  (void)state;
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  const char *text = "variants:\n  - { name: a, profile: demo-local }\n  - { name: b, profile: p/x.yaml }\n"
                     "  - { name: c, profile: /abs/y.yaml }\n  - { name: d, profile: nope }\n";
  assert_int_equal(placer_study_parse("/some/dir/study.yaml", text, strlen(text), &s, &err), 0);
  assert_string_equal(s->dir, "/some/dir"); /* relative profiles start there */
  setenv("PLACER_PROFILES_DIR", test_data_path("../profiles"), 1);
  char *path = NULL;
  assert_int_equal(placer_study_profile_path(s, &s->variants[0], &path, &err), 0);
  assert_non_null(strstr(path, "profiles/demo-local.yaml"));
  free(path);
  assert_int_equal(placer_study_profile_path(s, &s->variants[1], &path, &err), 0);
  assert_string_equal(path, "/some/dir/p/x.yaml");
  free(path);
  assert_int_equal(placer_study_profile_path(s, &s->variants[2], &path, &err), 0);
  assert_string_equal(path, "/abs/y.yaml");
  free(path);
  assert_int_equal(placer_study_profile_path(s, &s->variants[3], &path, &err), -1);
  assert_non_null(strstr(err->msg, "no shipped profile 'nope'"));
  placer_error_free(err);
  unsetenv("PLACER_PROFILES_DIR");
  placer_study_free(s);
}

/* The annotated example of docs/bench.md is a valid study. */
static void test_recovery(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(minimal);
  assert_false(s->recovery.enabled);
  placer_study_free(s);
  s = parse_ok("variants: [ { name: a, profile: x } ]\nrecovery: {}\n");
  assert_true(s->recovery.enabled);
  assert_int_equal(s->recovery.action, PLACER_STUDY_RECOVERY_KILL);
  assert_int_equal(s->recovery.osd, 0);
  assert_int_equal(s->recovery.at_s, 3);
  assert_int_equal(s->recovery.down_s, 5);
  assert_int_equal(s->recovery.timeout_s, 300);
  assert_null(s->recovery.workload);
  placer_study_free(s);
  s = parse_ok("cluster: { osds: 3 }\nvariants: [ { name: a, profile: x } ]\nworkloads: { patterns: [randwrite, "
               "randread] }\nrecovery: { action: out, osd: 2, at: 4, down: 10, timeout: 60, workload: 4k-randread }\n");
  assert_int_equal(s->recovery.action, PLACER_STUDY_RECOVERY_OUT);
  assert_string_equal(placer_study_recovery_action_name(s->recovery.action), "out");
  assert_int_equal(s->recovery.osd, 2);
  assert_int_equal(s->recovery.down_s, 10);
  assert_string_equal(s->recovery.workload, "4k-randread");
  placer_study_free(s);
  expect_error(
      "cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\nworkloads: { path: /x }\nrecovery: {}\n",
      "inline.yaml:4:1: recovery: recovery fails and restarts an OSD: only with cluster type local");
  expect_error("cluster: { osds: 2 }\nvariants: [ { name: a, profile: x } ]\nrecovery: { osd: 2 }\n",
               "recovery.osd: osd.2: the cluster has osd.0 to osd.1");
  expect_error("cluster: { osds: 1 }\nvariants: [ { name: a, profile: x } ]\nrecovery: {}\n",
               "a second OSD to keep the data");
  expect_error("variants: [ { name: a, profile: x } ]\nrecovery: { workload: 4k-read }\n",
               "recovery.workload: '4k-read' is not one of the workloads");
  expect_error("variants: [ { name: a, profile: x } ]\nrecovery: { action: crash }\n", "recovery.action");
  expect_error("variants: [ { name: a, profile: x } ]\nrecovery: { timeout: 5 }\n", "recovery.timeout");
  expect_error("variants: [ { name: a, profile: x } ]\nrecovery: { at: 0 }\n", "recovery.at");
  /* what the recovery kind needs of the target (a local cluster may run fio on a file) */
  expect_error("cluster: { osds: 2 }\nvariants: [ { name: a, profile: x } ]\n"
               "workloads: { target: file, path: /var/tmp/x }\nrecovery: {}\n",
               "inline.yaml:4:1: recovery: recovery needs a target in Ceph (rbd, rados, cephfs): target file does "
               "not serve it");
}

/* workloads.kind names a kind of the table whose runs are the cells (block,
 * the default); its keys are the workloads mapping's, each kind's own beside
 * those every kind takes. */
static void test_workload_kind(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(minimal);
  assert_ptr_equal(s->workloads.kind, &bench_workload_block);
  placer_study_free(s);
  s = parse_ok("variants: [ { name: a, profile: x } ]\nworkloads: { kind: block, iodepth: 4, patterns: [read] }\n");
  assert_ptr_equal(s->workloads.kind, &bench_workload_block);
  assert_int_equal(s->workloads.iodepth, 4);
  assert_int_equal(s->workloads.numjobs, 1); /* the block kind's default */
  assert_int_equal(placer_study_n_workloads(s), 1);
  placer_study_free(s);
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { kind: recovery }\n",
               "inline.yaml:2:20: workloads.kind: expected one of block, metadata, got 'recovery'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { kind: [block] }\n",
               "workloads.kind: expected one of block, metadata, got 'a list'");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { blocks: [4K] }\n",
               "workloads.blocks: unknown key 'blocks' in workloads (expected one of: kind, target, path, size, "
               "runtime, ramp, prefill, grace, fio_options, write, block_sizes, patterns, iodepth, numjobs, load)");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: 4K\n",
               "inline.yaml:2:12: workloads: expected a mapping (workloads), got a scalar");
}

/* Kind metadata: files, directories (default: one a job) and jobs, its
 * tree's name in the mount; where CephFS is (target cephfs, a local
 * cluster with an MDS); every refusal FILE:LINE:COL at the key at fault. */
#define MD_HEAD "cluster: { mds: true }\nvariants: [ { name: a, profile: x } ]\n"
static void test_metadata_kind(void **state) {
  (void)state;
  struct placer_study *s = parse_ok(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 1000, numjobs: 2 }\n");
  assert_ptr_equal(s->workloads.kind, &bench_workload_metadata);
  assert_int_equal(s->workloads.files, 1000);
  assert_int_equal(s->workloads.directories, 2); /* one a job */
  assert_int_equal(s->workloads.numjobs, 2);
  assert_string_equal(s->workloads.path, "placer-metadata");
  assert_int_equal(s->workloads.ramp_s, 0); /* each operation counted once */
  assert_false(s->workloads.prefill);
  assert_int_equal(placer_study_n_workloads(s), 1);
  struct placer_bench_workload w = { 0 };
  assert_int_equal(placer_study_workload(s, 0, &w, NULL), 0);
  assert_string_equal(w.name, "metadata");
  assert_int_equal(w.kind, PLACER_BENCH_WORKLOAD_METADATA);
  assert_true(w.files == 1000 && w.directories == 2 && w.jobs == 2);
  assert_int_equal(w.ops.n, 3);
  placer_bench_workload_clear(&w);
  placer_study_free(s);
  s = parse_ok(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, numjobs: 4, directories: 1, "
                       "path: tree.1 }\nneighbours: [ {} ]\nsweep: { parameter: quota, roles: [mds], values: [0.5], "
                       "workload: metadata }\n");
  assert_int_equal(s->workloads.directories, 1);
  assert_string_equal(s->workloads.path, "tree.1");
  placer_study_free(s);
  /* not where CephFS is: another target, no MDS, a cluster placer did not build */
  expect_error(MD_HEAD "workloads: { kind: metadata, files: 10 }\n",
               "inline.yaml:3:14: workloads.kind: workloads of kind metadata needs a target with a file system "
               "mounted (cephfs): target rbd does not serve them");
  expect_error("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\n"
               "workloads: { kind: metadata, target: file, path: x, files: 10 }\n",
               "inline.yaml:3:30: workloads.target: workloads of kind metadata needs a target with a file system "
               "mounted (cephfs): target file does not serve them");
  expect_error("variants: [ { name: a, profile: x } ]\nworkloads: { kind: metadata, target: cephfs, files: 10 }\n",
               "inline.yaml:2:30: workloads.target: target cephfs needs an MDS: set cluster.mds: true");
  /* zero files, more jobs than files, files that the jobs do not share evenly */
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 0 }\n",
               "inline.yaml:3:46: workloads.files: 0 files: a run creates at least one file per job");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 3, numjobs: 4 }\n",
               "inline.yaml:3:56: workloads.numjobs: 4 jobs for 3 files: every job creates at least one file (at "
               "most 3 jobs)");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 7, numjobs: 2 }\n",
               "inline.yaml:3:46: workloads.files: 7 files over 2 jobs: give a multiple of numjobs");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, numjobs: 2, directories: 3 }\n",
               "workloads.directories: 3 directories for 2 jobs: each job works in one directory, so at most numjobs");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs }\n",
               "inline.yaml:3:14: workloads.kind: kind metadata needs 'files' (how many a run creates)");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, ramp: 2 }\n",
               "inline.yaml:3:56: workloads.ramp: does not go with kind metadata");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, patterns: [read] }\n",
               "workloads.patterns: unknown key 'patterns' in workloads (expected one of: kind, target, path, size, "
               "runtime, ramp, prefill, grace, fio_options, write, files, directories, numjobs)");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, path: 'a$jobnum' }\n",
               "workloads.path: 'a$jobnum': for kind metadata, the tree's directory in the mount");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8, numjobs: 65 }\n", "workloads.numjobs: ");
  expect_error(MD_HEAD "workloads: { kind: metadata, target: cephfs, files: 8 }\nrecovery: { at: 2 }\n",
               "inline.yaml:4:1: recovery: does not go with workloads of kind metadata");
}

/* The shipped metadata study: its variants (a quota sweep of the MDS made
 * from the unpinned baseline), its workload. */
static void test_cephfs_metadata_study(void **state) {
  (void)state;
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_load(test_data_path("../studies/cephfs-metadata.yaml"), &s, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(s->n_variants, 5);
  static const char *const names[] = { "unpinned", "mds-own", "mds-osd", "quota-0.1", "quota-0.25" };
  for (size_t i = 0; i < 5; i++)
    assert_string_equal(s->variants[i].name, names[i]);
  assert_ptr_equal(s->workloads.kind, &bench_workload_metadata);
  assert_ptr_equal(s->workloads.target, &bench_target_cephfs);
  assert_true(s->cluster.mds);
  assert_int_equal(s->cluster.rebuild, PLACER_STUDY_REBUILD_NEVER);
  assert_int_equal(s->sweep.parameter, PLACER_STUDY_SWEEP_QUOTA);
  assert_string_equal(s->sweep.roles.items[0], "mds");
  placer_study_free(s);
}

static void test_docs_example(void **state) {
  (void)state;
  char *doc = test_read_file(test_data_path("../docs/bench.md"));
  assert_non_null(doc);
  char *section = strstr(doc, "## The study file");
  assert_non_null(section);
  char *start = strstr(section, "```yaml\n");
  assert_non_null(start);
  start += strlen("```yaml\n");
  char *end = strstr(start, "```");
  assert_non_null(end);
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_parse("docs/bench.md", start, (size_t)(end - start), &s, &err) < 0)
    fail_msg("the example in docs/bench.md: %s", err->msg);
  assert_int_equal(s->n_variants, 2);
  assert_int_equal(placer_study_n_workloads(s), 12);
  assert_true(s->sweep.enabled);
  assert_string_equal(s->neighbours[0].kind, "vm");
  assert_true(s->recovery.enabled);
  assert_int_equal(s->recovery.osd, 1);
  assert_int_equal(s->workloads.grace_s, 60);
  placer_study_free(s);
  free(doc);
}

/* sweep.from: a placement sweep's steps are made from any variant, so an
 * unpinned A keeps its place while the split is swept on a pinned one (a
 * cores sweep pins: it defaults to the first variant whose profile does);
 * alpha; where repeats is in the file (the design check's errors). */
static void test_sweep_from_and_alpha(void **state) {
  (void)state;
  setenv("PLACER_PROFILES_DIR", test_data_path("../profiles"), 1);
  static const char two[] =
      "variants:\n  - { name: dev-unpinned, profile: unpinned }\n"
      "  - { name: pinned, profile: demo-local, set: [fio.cpu.weight=200] }\nneighbours: [ {} ]\n";
  char text[1024];
  snprintf(text, sizeof(text), "%ssweep: { parameter: cores, values: [1] }\nrepeats: 6\nalpha: 1%%\n", two);
  struct placer_study *s = parse_ok(text);
  assert_int_equal(s->n_variants, 3);
  assert_string_equal(s->variants[0].name, "dev-unpinned"); /* still A */
  assert_int_equal(s->sweep.from_index, 1);
  assert_string_equal(s->variants[2].name, "cores-1");
  assert_string_equal(s->variants[2].profile, "demo-local");
  assert_int_equal(s->variants[2].from, 1);
  assert_string_equal(s->variants[2].sets.items[0], "fio.cpu.weight=200");
  assert_string_equal(s->variants[2].sets.items[1], "@storage.cpu.cores=1");
  assert_int_equal(s->variants[2].knob_line, 5);
  assert_int_equal(s->variants[2].knob_column, 37);
  assert_true(fabs(s->alpha - 0.01) < 1e-12);
  assert_int_equal(s->repeats_line, 6);
  assert_int_equal(s->repeats_column, 10);
  placer_study_free(s);
  /* quota and weight default to the first variant; from names another */
  snprintf(text, sizeof(text), "%ssweep: { parameter: quota, values: [0.5] }\n", two);
  s = parse_ok(text);
  assert_string_equal(s->variants[2].profile, "unpinned");
  placer_study_free(s);
  snprintf(text, sizeof(text), "%ssweep: { parameter: weight, values: [4], from: pinned }\n", two);
  s = parse_ok(text);
  assert_string_equal(s->variants[2].profile, "demo-local");
  assert_int_equal(s->variants[2].from, 1);
  placer_study_free(s);
  s = parse_ok("variants: [ { name: a, profile: x } ]\nrepeats: { min: 7, max: 9 }\n");
  assert_int_equal(s->repeats_line, 2);
  assert_int_equal(s->repeats_column, 17); /* the dynamic minimum */
  placer_study_free(s);
  /* bad input: FILE:LINE:COL */
  snprintf(text, sizeof(text), "%ssweep: { parameter: cores, values: [1], from: nope }\n", two);
  expect_error(text, "inline.yaml:5:41: sweep.from: 'nope' is not one of the variants (dev-unpinned, pinned)");
  snprintf(text, sizeof(text), "%ssweep: { parameter: cores, values: [1], from: dev-unpinned }\n", two);
  expect_error(text, "inline.yaml:5:41: sweep.from: a cores sweep pins, and variant 'dev-unpinned' has a profile "
                     "with pin: false ('unpinned')");
  expect_error("variants: [ { name: a, profile: unpinned } ]\nneighbours: [ {} ]\n"
               "sweep: { parameter: cores, values: [1] }\n",
               "inline.yaml:3:10: sweep.parameter: a cores sweep pins, and no variant's profile does");
  snprintf(text, sizeof(text), "%ssweep: { values: [1], from: pinned }\n", two);
  expect_error(text, "sweep.from: only goes with a placement sweep");
  expect_error("variants: [ { name: a, profile: x } ]\nalpha: 0.6\n",
               "inline.yaml:2:8: alpha: expected a significance level in (0, 0.5]");
  expect_error("variants: [ { name: a, profile: x } ]\nalpha: 0\n", "alpha: expected a fraction in (0, 1]");
  unsetenv("PLACER_PROFILES_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sweep_from_and_alpha),
    cmocka_unit_test(test_placement_sweep),
    cmocka_unit_test(test_default_study),
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_matrix_and_sweep),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_profile_paths),
    cmocka_unit_test(test_docs_example),
    cmocka_unit_test(test_recovery),
    cmocka_unit_test(test_workload_kind),
    cmocka_unit_test(test_metadata_kind),
    cmocka_unit_test(test_cephfs_metadata_study),
    cmocka_unit_test(test_fio_options),
    cmocka_unit_test(test_fio_options_documented),
    cmocka_unit_test(test_local_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
