/* The workload kinds' ops tables (bench/workload*.c): every kind in
 * bench_workloads[] whole and found by its name (the check fio runs on its
 * engines), a broken one caught, what each needs of the target, and each
 * kind's parser turning real fio output (tests/fixtures/fio) into the
 * generic result: the operations with the figures fio printed, the main
 * metric and the latency as the kind's workload is judged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/target.h"
#include "bench/workload.h"
#include "lib/textfile.h"
#include "test_support.h"

static void test_every_table_whole(void **state) {
  (void)state;
  size_t n = 0, cells = 0;
  for (size_t i = 0; bench_workloads[i]; i++, n++) {
    const struct bench_workload_ops *ops = bench_workloads[i];
    const char *wrong = bench_workload_ops_check(ops);
    if (wrong)
      fail_msg("workload kind %s: %s", ops->name, wrong);
    assert_ptr_equal(bench_workload_find(ops->name), ops);
    cells += (ops->flags & BENCH_WORKLOAD_CELLS) != 0;
  }
  assert_true(n >= 3);
  assert_int_equal(cells, 2); /* block and metadata */
  assert_null(bench_workload_find("mdtest"));
  char names[64];
  bench_workload_names(BENCH_WORKLOAD_CELLS, names, sizeof(names));
  assert_string_equal(names, "block, metadata");
  /* whose CPU per operation: the OSDs' for block, the MDS's for metadata */
  assert_int_equal(bench_workload_block.storage, PLACER_KIND_CEPH_OSD);
  assert_int_equal(bench_workload_metadata.storage, PLACER_KIND_CEPH_MDS);
}

static void test_broken_tables_caught(void **state) {
  (void)state;
  struct bench_workload_ops copy = bench_workload_block;
  assert_string_equal(bench_workload_ops_check(&copy), "not in bench_workloads[]");
  copy.parse = NULL;
  assert_string_equal(bench_workload_ops_check(&copy), "no job, parse or settle");
  copy = bench_workload_block;
  copy.flags |= BENCH_WORKLOAD_PASS;
  assert_string_equal(bench_workload_ops_check(&copy), "neither the cells nor a pass kind, or both");
  copy = bench_workload_block;
  copy.count = NULL;
  assert_string_equal(bench_workload_ops_check(&copy), "a cells kind without count or workload");
  copy = bench_workload_block;
  copy.section = "recovery";
  assert_string_equal(bench_workload_ops_check(&copy), "a cells kind's keys go in the workloads mapping");
  copy = bench_workload_recovery;
  copy.study_offset = 0;
  assert_string_equal(bench_workload_ops_check(&copy),
                      "a pass kind has a section of its own and runs on the cells' workloads");
  copy = bench_workload_block;
  copy.name = "";
  assert_string_equal(bench_workload_ops_check(&copy), "no name");
  copy = bench_workload_metadata;
  copy.storage = PLACER_KIND_FIO;
  assert_string_equal(bench_workload_ops_check(&copy), "a cells kind's storage is a kind of Ceph daemon");
}

/* What each kind needs of the target: recovery a target in Ceph, metadata
 * a mounted file system (cephfs). */
static void test_target_needs(void **state) {
  (void)state;
  const struct bench_target_ops *targets[] = { &bench_target_rbd, &bench_target_rados, &bench_target_cephfs,
                                               &bench_target_file };
  for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
    const char *md = bench_workload_target_refusal(&bench_workload_metadata, targets[i]);
    if (targets[i] == &bench_target_cephfs)
      assert_null(md);
    else
      assert_string_equal(md, "needs a target with a file system mounted (cephfs)");
    assert_null(bench_workload_target_refusal(&bench_workload_block, targets[i]));
    const char *why = bench_workload_target_refusal(&bench_workload_recovery, targets[i]);
    if (targets[i]->flags & BENCH_TARGET_CEPH)
      assert_null(why);
    else
      assert_string_equal(why, "needs a target in Ceph (rbd, rados, cephfs)");
  }
}

static char *fixture(const char *name, size_t *len) {
  char rel[256];
  snprintf(rel, sizeof(rel), "fixtures/fio/%s", name);
  char *text = NULL;
  if (placer_textfile_read_path(test_data_path(rel), 1 << 24, &text, len) < 0)
    fail_msg("read %s", rel);
  return text;
}

static struct placer_bench_workload block_workload(const char *pattern, uint64_t bs) {
  struct placer_bench_workload w = { .name = strdup("w"), .pattern = strdup(pattern), .block_size_bytes = bs };
  assert_int_equal(placer_bench_workload_block(&w, NULL), 0);
  return w;
}

/* Block: fio's sums over its jobs as two operations, read and write, with
 * the numbers the fixture holds (test_fio_result.c reads them from it). */
static void test_block_parse(void **state) {
  (void)state;
  size_t len = 0;
  char *text = fixture("randrw-4k-2jobs.json", &len);
  struct placer_bench_result r = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(bench_workload_block.parse(text, len, &r, &err), 0);
  assert_int_equal(r.n_ops, 2);
  assert_string_equal(r.ops[0].name, "read");
  assert_string_equal(r.ops[1].name, "write");
  assert_true(fabs(r.ops[0].iops - (40454.848384 + 40927.024325)) < 1e-6);
  assert_true(fabs(r.ops[1].iops - (17297.234255 + 17600.799733)) < 1e-6);
  assert_int_equal(r.ops[0].total_ios, 121405 + 122822);
  assert_int_equal(r.ops[1].io_bytes, 212619264ull + 216350720ull);
  assert_true(r.ops[0].clat_p99_ns == 1171456 && r.ops[1].clat_p99_ns == 2179072);
  assert_int_equal(r.failed_jobs, 0);
  assert_int_equal(placer_bench_result_total_ios(r.ops, r.n_ops), 121405 + 122822 + 51909 + 52820);
  /* judged as a mix: both operations' IOPS, the worse p99, the writes' percentiles plotted */
  struct placer_bench_workload w = block_workload("randrw", 4096);
  assert_true(fabs(placer_bench_ops_main_metric(&w, r.ops, r.n_ops) - (r.ops[0].iops + r.ops[1].iops)) < 1e-6);
  assert_true(placer_bench_ops_p99_ns(&w, r.ops, r.n_ops) == 2179072);
  assert_ptr_equal(placer_bench_ops_latency_op(&w, r.ops, r.n_ops), &r.ops[1]);
  placer_bench_workload_clear(&w);
  /* as reads only, and in MB/s from 64K blocks */
  w = block_workload("randread", 4096);
  assert_true(placer_bench_ops_main_metric(&w, r.ops, r.n_ops) == r.ops[0].iops);
  assert_true(placer_bench_ops_p99_ns(&w, r.ops, r.n_ops) == 1171456);
  placer_bench_workload_clear(&w);
  w = block_workload("write", 128 * 1024);
  assert_true(placer_bench_workload_uses_bandwidth(&w));
  assert_true(placer_bench_ops_main_metric(&w, r.ops, r.n_ops) == (double)r.ops[1].bw_bytes);
  placer_bench_workload_clear(&w);
  placer_bench_result_free(&r);
  free(text);
  /* a job that failed is counted, for the run to refuse */
  text = fixture("error-eperm.json", &len);
  assert_int_equal(bench_workload_block.parse(text, len, &r, &err), 0);
  assert_int_equal(r.failed_jobs, 1);
  placer_bench_result_free(&r);
  free(text);
  /* not fio's JSON: the error says so */
  assert_int_equal(bench_workload_block.parse("nothing", 7, &r, &err), -1);
  assert_non_null(err);
  placer_error_free(err);
  placer_bench_result_free(&r);
}

/* Recovery: fio's status every second as a timeline (the fixture's
 * cumulative write I/Os, README.md), no operations. */
static void test_recovery_parse(void **state) {
  (void)state;
  size_t len = 0;
  char *text = fixture("rbd-status-stream.json", &len);
  struct placer_bench_result r = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(bench_workload_recovery.parse(text, len, &r, &err), 0);
  assert_int_equal(r.n_ops, 0);
  assert_int_equal(r.n_timeline, 4);
  assert_true(r.timeline[0].ios == 173 && r.timeline[3].ios == 4197);
  assert_true(r.timeline[1].t_ms - r.timeline[0].t_ms == 1000);
  placer_bench_result_free(&r);
  free(text);
}

/* Metadata: one operation a phase, from its job's direction (creates are
 * writes, stats and deletes reads), as the fixture's README gives them; the
 * main metric all of them over their time together, the latency the worst
 * p99; a phase missing from fio's output is an error. */
static void test_metadata_parse(void **state) {
  (void)state;
  size_t len = 0;
  char *text = fixture("cephfs-metadata.json", &len);
  struct placer_bench_result r = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(bench_workload_metadata.parse(text, len, &r, &err), 0);
  assert_int_equal(r.n_ops, 3);
  static const char *const names[] = { "create", "stat", "delete" };
  static const double iops[] = { 1071.811361, 2421.307506, 1055.966209 }, p99[] = { 13828096, 5799936, 10944512 },
                      p50[] = { 1056768, 509952, 1302528 };
  for (size_t i = 0; i < 3; i++) {
    assert_string_equal(r.ops[i].name, names[i]);
    assert_true(fabs(r.ops[i].iops - iops[i]) < 1e-6);
    assert_int_equal(r.ops[i].total_ios, 1000);
    assert_true(r.ops[i].clat_p99_ns == p99[i] && r.ops[i].clat_p50_ns == p50[i]);
    assert_int_equal(r.ops[i].bw_bytes, 0); /* no data moves */
  }
  assert_int_equal(r.failed_jobs, 0);
  struct placer_bench_workload w = { .name = strdup("metadata"),
                                     .pattern = strdup(""),
                                     .kind = PLACER_BENCH_WORKLOAD_METADATA };
  assert_int_equal(placer_bench_workload_rule(&w, &err), 0);
  assert_string_equal(placer_bench_metric_unit(&w), "ops/s");
  double by_hand = 3000.0 / (1000 / iops[0] + 1000 / iops[1] + 1000 / iops[2]);
  assert_true(fabs(placer_bench_ops_main_metric(&w, r.ops, r.n_ops) - by_hand) < 1e-6);
  assert_true(placer_bench_ops_p99_ns(&w, r.ops, r.n_ops) == p99[0]);
  /* an operation without a rate: its time is unknown, and so is the run's rate */
  r.ops[1].iops = NAN;
  assert_true(isnan(placer_bench_ops_main_metric(&w, r.ops, r.n_ops)));
  placer_bench_workload_clear(&w);
  placer_bench_result_free(&r);
  /* the stat phase's job renamed away: an error naming it */
  char *stat = strstr(text, "\"jobname\" : \"stat\"");
  assert_non_null(stat);
  memcpy(stat + strlen("\"jobname\" : \""), "stax", 4);
  assert_int_equal(bench_workload_metadata.parse(text, len, &r, &err), -1);
  assert_string_equal(err->msg, "no job 'stat' in fio's output");
  placer_error_free(err);
  placer_bench_result_free(&r);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_table_whole), cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_target_needs),      cmocka_unit_test(test_block_parse),
    cmocka_unit_test(test_recovery_parse),    cmocka_unit_test(test_metadata_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
