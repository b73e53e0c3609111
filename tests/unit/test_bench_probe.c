/* Sampling around a run on the captured snapshots of a ceph-osd under fio rbd
 * 4K randwrite (tests/fixtures/proc/osd-under-load/{before,after}, 3 s apart;
 * expected values read from the files with python3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/probe.h"
#include "cgroup/cgroup-internal.h"
#include "test_support.h"

static const struct placer_bench_workload workload = { .name = "4k-randwrite",
                                                       .pattern = "randwrite",
                                                       .block_size_bytes = 4096 };
static const struct placer_bench_condition condition = { "alone", 0 };
static const char *const variant[] = { "unpinned" };

static struct placer_bench_results *one_run_results(void) {
  struct placer_bench_spec spec = {
    .variants = variant,
    .n_variants = 1,
    .workloads = &workload,
    .n_workloads = 1,
    .conditions = &condition,
    .n_conditions = 1,
    .repeats = 1,
  };
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_new(&spec, &r, &err) < 0)
    fail_msg("%s", err->msg);
  return r;
}

/* A v2 cgroup layer whose hierarchy is the directory DIR (no statfs, no
 * mountinfo): the fixture groups below it read like real ones. */
static struct placer_cgroup *fixture_cgroup_v2(const char *dir) {
  struct placer_cgroup *cg = calloc(1, sizeof(*cg));
  assert_non_null(cg);
  cg->mode = PLACER_CGROUP_V2;
  cg->ops = &placer_cgroup_ops_v2;
  cg->root = strdup(dir);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cg->hier[c].mount_point = strdup(dir);
    cg->hier[c].mount_root = strdup("/");
    cg->hier[c].shared = c > 0;
  }
  return cg;
}

static void test_probe_on_snapshots(void **state) {
  assert_int_equal(sysconf(_SC_CLK_TCK), 100); /* the fixture's ticks are USER_HZ = 100 */
  char before[4096], after[4096], v2[4096];
  snprintf(before, sizeof(before), "%s", test_data_path("fixtures/proc/osd-under-load/before"));
  snprintf(after, sizeof(after), "%s", test_data_path("fixtures/proc/osd-under-load/after"));
  snprintf(v2, sizeof(v2), "%s", test_data_path("fixtures/cgroup-cpu"));
  struct placer_cgroup *cg = fixture_cgroup_v2(v2);
  const struct placer_bench_target targets[] = {
    { "osd.0", "osd", NULL, 29132 }, /* CPU from the process itself */
    { "mon.a", "mon", "v2", 0 },     /* CPU from a cgroup's cpu.stat (unchanged file: 0) */
    { "fio", "fio", "v2-numa", 0 },  /* memory locality: its group's processes on its group's nodes */
  };
  const char *const devices[] = { "vda" };
  struct placer_bench_probe *p = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_probe_start(cg, before, targets, 3, devices, 1, &p, &err) < 0)
    fail_msg("%s", err->msg);
  struct placer_bench_results *r = one_run_results();
  struct placer_bench_run *run = placer_bench_results_run(r, 0, 0, 0, 0);
  if (placer_bench_probe_finish(p, after, 3, run, &err) < 0)
    fail_msg("%s", err->msg);
  placer_bench_probe_free(p);
  placer_cgroup_close(cg);

  assert_true(run->duration_s >= 0 && run->duration_s < 5);
  assert_false(run->done);
  assert_int_equal(run->n_roles, 3);
  /* ceph-osd utime+stime: 36 ticks before, 184 after -> 1.48 s. */
  assert_string_equal(run->roles[0].instance, "osd.0");
  assert_string_equal(run->roles[0].role, "osd");
  assert_int_equal(run->roles[0].cpu_ns, 1480000000ull);
  assert_int_equal(run->roles[0].peak_rss_bytes, 175488ull * 1024);
  assert_string_equal(run->roles[1].instance, "mon.a");
  assert_int_equal(run->roles[1].cpu_ns, 0);
  assert_int_equal(run->roles[1].peak_rss_bytes, 0);
  /* Locality: unknown without a group (osd.0) or without processes in it
   * (mon.a); fio's group holds pid 4243 (numa-maps/two-node) and node 0. */
  assert_true(isnan(run->roles[0].local_mem_share));
  assert_true(isnan(run->roles[1].local_mem_share));
  assert_string_equal(run->roles[2].instance, "fio");
  assert_true(fabs(run->roles[2].local_mem_share - 54140928.0 / 104140800.0) < 1e-12);
  /* The three busiest of 59 threads: 30, 23 and 17 ticks. */
  assert_int_equal(run->n_threads, 3);
  assert_string_equal(run->threads[0].thread, "bstore_kv_sync");
  assert_int_equal(run->threads[0].cpu_ns, 300000000ull);
  assert_string_equal(run->threads[1].thread, "msgr-worker-1");
  assert_int_equal(run->threads[1].cpu_ns, 230000000ull);
  assert_string_equal(run->threads[2].thread, "tp_osd_tp");
  assert_string_equal(run->threads[2].instance, "osd.0");
  /* cpu0 busy 366 of 367 ticks, cpu1 364 of 366. */
  assert_int_equal(run->n_cpus, 2);
  assert_true(fabs(run->cpu_busy[0] - 366.0 / 367.0) < 1e-12);
  assert_true(fabs(run->cpu_busy[1] - 364.0 / 366.0) < 1e-12);
  /* vda: 510840 sectors. */
  assert_true(run->has_device_bytes);
  assert_int_equal(run->device_bytes_written, 510840ull * 512);
  placer_bench_results_free(r);
}

static void expect_start_error(const struct placer_bench_target *targets, size_t n, const char *const *devices,
                               size_t n_devices, const char *needle) {
  struct placer_bench_probe *p = NULL;
  struct placer_error *err = NULL;
  char root[4096];
  snprintf(root, sizeof(root), "%s", test_data_path("fixtures/proc/osd-under-load/before"));
  assert_int_equal(placer_bench_probe_start(NULL, root, targets, n, devices, n_devices, &p, &err), -1);
  assert_null(p);
  if (strstr(err->msg, needle) == NULL)
    fail_msg("'%s' does not mention '%s'", err->msg, needle);
  placer_error_free(err);
}

static void test_probe_errors(void **state) {
  const struct placer_bench_target nothing[] = { { "osd.0", "osd", NULL, 0 } };
  expect_start_error(nothing, 1, NULL, 0, "'osd.0' has neither a cgroup nor a pid");
  const struct placer_bench_target gone[] = { { "osd.1", "osd", NULL, 4242 } };
  expect_start_error(gone, 1, NULL, 0, "bench probe: osd.1: sample process 4242");
  const struct placer_bench_target ok[] = { { "osd.0", "osd", NULL, 29132 } };
  const char *const wrong[] = { "nvme0n1" };
  expect_start_error(ok, 1, wrong, 1, "device 'nvme0n1' is not in /proc/diskstats");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_probe_on_snapshots),
    cmocka_unit_test(test_probe_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
