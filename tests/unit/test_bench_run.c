/* The pure parts of bench orchestration: fio's command lines for each
 * target, stress-ng's metrics and the guest's progress lines, and which
 * plan instance places a Ceph daemon (what `placer exec` and the local
 * cluster rely on). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/substitute.h"
#include "test_support.h"
#include "topology/topology.h"

static struct placer_study *study_of(const char *text) {
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_study_parse("inline.yaml", text, strlen(text), &s, &err) < 0)
    fail_msg("%s", err ? err->msg : "?");
  return s;
}

static char *joined(const struct placer_study *s, const struct bench_fio_run *run) {
  char **argv = NULL;
  struct placer_error *err = NULL;
  if (bench_fio_run_argv(s, run, &argv, &err) < 0)
    fail_msg("%s", err->msg);
  char *out = placer_argv_quote(argv);
  placer_argv_free(argv);
  return out;
}

/* The study's first workload, for its kind's job. */
static struct placer_bench_workload first_workload(const struct placer_study *s) {
  struct placer_bench_workload w = { 0 };
  struct placer_error *err = NULL;
  if (placer_study_workload(s, 0, &w, &err) < 0)
    fail_msg("%s", err->msg);
  return w;
}

/* Every fio command line comes from one builder: a cell, the prefill and a
 * recovery run, each job from its workload kind. */
static void test_fio_rbd(void **state) {
  (void)state;
  struct placer_study *s = study_of("variants: [ { name: a, profile: x } ]\n"
                                    "workloads: { iodepth: 8, numjobs: 2, runtime: 5, ramp: 1, "
                                    "fio_options: [--randrepeat=0] }\n"
                                    "recovery: { at: 4, down: 6, timeout: 20 }\n");
  struct placer_bench_workload w = first_workload(s);
  struct bench_fio_run run = { .target = &bench_target_rbd, .output = (char *)"/r/x.json" };
  s->workloads.kind->job(s, &w, &run);
  char *cmd = joined(s, &run);
  assert_string_equal(cmd, "fio --name=4k-randwrite --ioengine=rbd --clientname=admin --pool=rbd "
                           "--rbdname=placer-bench --rw=randwrite --bs=4096 --iodepth=8 --numjobs=2 --time_based "
                           "--runtime=5 --ramp_time=1 --size=268435456 --group_reporting --output-format=json "
                           "--output=/r/x.json --randrepeat=0");
  free(cmd);
  run = (struct bench_fio_run){ .target = &bench_target_rbd, .output = (char *)"/r/p.json" };
  s->workloads.kind->prepare(s, &run);
  cmd = joined(s, &run);
  assert_string_equal(cmd, "fio --name=prefill --ioengine=rbd --clientname=admin --pool=rbd --rbdname=placer-bench "
                           "--rw=write --bs=4M --iodepth=4 --numjobs=1 --size=268435456 --group_reporting "
                           "--output-format=json --output=/r/p.json");
  free(cmd);
  /* recovery: the cell's job, its status every second, no ramp, ramp + at + down + timeout + 30 s */
  run = (struct bench_fio_run){ .target = &bench_target_rbd, .output = (char *)"/r/r.json" };
  bench_workload_recovery.job(s, &w, &run);
  cmd = joined(s, &run);
  assert_string_equal(cmd, "fio --name=4k-randwrite --ioengine=rbd --clientname=admin --pool=rbd "
                           "--rbdname=placer-bench --rw=randwrite --bs=4096 --iodepth=8 --numjobs=2 --time_based "
                           "--runtime=61 --status-interval=1 --size=268435456 --group_reporting "
                           "--output-format=json --output=/r/r.json --randrepeat=0");
  free(cmd);
  placer_bench_workload_clear(&w);
  placer_study_free(s);
}

static void test_fio_file_and_rados(void **state) {
  (void)state;
  struct placer_study *s = study_of("cluster: { type: none }\nvariants: [ { name: a, profile: x } ]\n"
                                    "workloads: { path: /var/tmp/t.img, size: 64MiB, ramp: 0, runtime: 2, "
                                    "patterns: [randread] }\n");
  struct placer_bench_workload w = first_workload(s);
  struct bench_fio_run run = {
    .target = &bench_target_file, .output = (char *)"o.json", .filename = (char *)"/var/tmp/t.img", .direct = true
  };
  s->workloads.kind->job(s, &w, &run);
  char *cmd = joined(s, &run);
  assert_string_equal(cmd, "fio --name=4k-randread --ioengine=libaio --direct=1 --filename=/var/tmp/t.img "
                           "--rw=randread --bs=4096 --iodepth=16 --numjobs=1 --time_based --runtime=2 "
                           "--size=67108864 --group_reporting --output-format=json --output=o.json");
  free(cmd);
  /* the kind's own options come before the study's */
  char *args[] = { (char *)"--nrfiles=8", NULL };
  char *opts[] = { (char *)"--randrepeat=0" };
  run.args = args;
  run.study_options = true;
  s->workloads.fio_options.items = opts;
  s->workloads.fio_options.n = 1;
  cmd = joined(s, &run);
  assert_non_null(strstr(cmd, "--output=o.json --nrfiles=8 --randrepeat=0"));
  free(cmd);
  s->workloads.fio_options.items = NULL;
  s->workloads.fio_options.n = 0;
  run.args = NULL;
  run.size_bytes = 1 << 20; /* the hardware baseline's own size */
  cmd = joined(s, &run);
  assert_non_null(strstr(cmd, "--size=1048576 "));
  free(cmd);
  run.ceph_conf = "/c/ceph.conf";
  run.target = &bench_target_rados;
  cmd = joined(s, &run);
  assert_non_null(strstr(cmd, "--ioengine=rados --clientname=admin --pool=rbd --filename=placer-bench "
                              "--conf=/c/ceph.conf --rw=randread"));
  free(cmd);
  /* A file target without a file is refused. */
  run.filename = NULL;
  run.target = &bench_target_file;
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(bench_fio_run_argv(s, &run, &argv, &err), -1);
  assert_string_equal(err->msg, "fio 4k-randread: no file to run on");
  placer_error_free(err);
  placer_bench_workload_clear(&w);
  placer_study_free(s);
}

/* A metadata run: fio's global section first (--name=global: every option
 * before the jobs, the study's fio_options too, is every job's), then per
 * phase one job per client, the first of each later phase stonewalled in a
 * group of its own, each job's files in its directory of the tree below
 * workloads.path in the mount (job J in directory J mod directories). */
static void test_fio_metadata(void **state) {
  (void)state;
  struct placer_study *s = study_of("cluster: { mds: true }\nvariants: [ { name: a, profile: x } ]\n"
                                    "workloads: { kind: metadata, target: cephfs, files: 6, numjobs: 3, directories: "
                                    "2, fio_options: [--randrepeat=0] }\n");
  struct placer_bench_workload w = first_workload(s);
  struct bench_fio_run run = { .target = &bench_target_cephfs, .output = (char *)"o.json", .direct = true };
  s->workloads.kind->job(s, &w, &run);
  run.filename = strdup("/r/cluster/mnt"); /* bench_fio_run_target: the mount, for a kind in a directory */
  assert_true(run.in_directory);
  char *cmd = joined(s, &run);
  const char *job = "--ioengine=%s --rw=%s '--filename_format=placer-metadata/d%u/f%u.$filenum'";
  char want[4096];
  int len = snprintf(want, sizeof(want),
                     "fio --name=global --ioengine=filecreate --direct=1 --directory=/r/cluster/mnt --rw=write "
                     "--bs=4096 --iodepth=1 --numjobs=1 --size=8192 --group_reporting --output-format=json "
                     "--output=o.json --nrfiles=2 --filesize=4096 --openfiles=1 --create_on_open=1 --randrepeat=0");
  static const char *const ops[] = { "create", "stat", "delete" }, *const engines[] = { "filecreate", "filestat",
                                                                                        "filedelete" };
  for (unsigned p = 0; p < 3; p++)
    for (unsigned j = 0; j < 3; j++) {
      len += snprintf(want + len, sizeof(want) - (size_t)len, " --name=%s%s ", ops[p],
                      j == 0 && p > 0 ? " --stonewall --new_group" : "");
      len += snprintf(want + len, sizeof(want) - (size_t)len, job, engines[p], p ? "read" : "write", j % 2, j);
    }
  assert_string_equal(cmd, want);
  free(cmd);
  placer_argv_free(run.args);
  placer_argv_free(run.jobs);
  free(run.filename);
  placer_bench_workload_clear(&w);
  placer_study_free(s);
}

static void test_stress_ng_metrics(void **state) {
  (void)state;
  /* stress-ng 0.15 (Debian 12), after SIGINT. */
  const char *v015 =
      "stress-ng: info:  [23854] setting to a 60 second run per stressor\n"
      "stress-ng: info:  [23854] dispatching hogs: 1 cpu\n"
      "stress-ng: metrc: [23854] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n"
      "stress-ng: metrc: [23854]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n"
      "stress-ng: metrc: [23854] cpu                5362      3.00      2.29      0.03      1788.31        2309.04\n"
      "stress-ng: info:  [23854] successful run completed in 3.00s\n";
  double rate = 0;
  assert_int_equal(placer_bench_parse_stress_ng(v015, &rate), 0);
  assert_true(fabs(rate - 1788.31) < 1e-6);
  /* Older "info:" tags, two stressors, and a podman k8s-file log prefix; newer
   * versions add columns after the two rates. */
  const char *two =
      "2024-01-01T00:00:00.0+00:00 stderr F stress-ng: info:  [1] cpu     100   1.00  1.00  0.00  100.00  100.00\n"
      "2024-01-01T00:00:00.0+00:00 stderr F stress-ng: metrc: [1] vm  50  1.00  1.00  0.00  50.5  50.00  99.0  1024\n";
  assert_int_equal(placer_bench_parse_stress_ng(two, &rate), 0);
  assert_true(fabs(rate - 150.5) < 1e-6);
  assert_int_equal(placer_bench_parse_stress_ng("stress-ng: info: [1] dispatching hogs: 1 cpu\n", &rate), -1);
  assert_int_equal(placer_bench_parse_stress_ng("", &rate), -1);
}

static void test_guest_progress(void **state) {
  (void)state;
  bool started;
  double units = -1, ms = -1;
  assert_int_equal(placer_bench_parse_guest_progress("PLACER-GUEST-BOOTED uptime_s=1.2\n", &started, &units, &ms), -1);
  assert_false(started);
  const char *text = "PLACER-WORK-START workers=2 mem_mb=64 seconds=20\n"
                     "PLACER-WORK units=10 elapsed_ms=1000\n"
                     "PLACER-WORK units=25 elapsed_ms=2010\n"
                     "PLACER-WORK units=3"; /* being written */
  assert_int_equal(placer_bench_parse_guest_progress(text, &started, &units, &ms), 0);
  assert_true(started);
  assert_true(units == 25 && ms == 2010);
  assert_int_equal(placer_bench_parse_guest_progress("PLACER-WORK-START workers=1\n", &started, &units, &ms), -1);
  assert_true(started);
  assert_int_equal(
      placer_bench_parse_guest_progress("x\nPLACER-WORK-TOTAL units=40 elapsed_ms=3000\n", &started, &units, &ms), 0);
  assert_true(units == 40 && ms == 3000);
}

static void test_local_daemons(void **state) {
  (void)state;
  struct placer_topology *topo = NULL;
  struct placer_profile *profile = NULL;
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path("fixtures/24em64t-2n6c2t-pci.xml"), &topo, &err) < 0 ||
      placer_profile_load(test_data_path("../profiles/demo-local.yaml"), &profile, &err) < 0 ||
      placer_plan_compute(topo, profile, &plan, &err) < 0)
    fail_msg("%s", err->msg);
  /* The local cluster's daemons, and a profile that lacks one. */
  struct placer_study *s = study_of("variants: [ { name: a, profile: x } ]\n");
  char **names = NULL;
  assert_int_equal(placer_bench_local_daemons(s, plan, "a", &names, &err), 0);
  assert_int_equal(placer_argv_len(names), 4);
  assert_string_equal(names[3], "osd.1");
  placer_argv_free(names);
  placer_study_free(s);
  s = study_of("variants: [ { name: a, profile: x } ]\ncluster: { mds: true, osds: 3 }\n");
  assert_int_equal(placer_bench_local_daemons(s, plan, "a", &names, &err), -1);
  assert_non_null(strstr(err->msg, "does not place osd.2, mds.a"));
  placer_error_free(err);
  placer_study_free(s);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fio_rbd),           cmocka_unit_test(test_fio_file_and_rados),
    cmocka_unit_test(test_stress_ng_metrics), cmocka_unit_test(test_guest_progress),
    cmocka_unit_test(test_local_daemons),     cmocka_unit_test(test_fio_metadata),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
