/* The targets' ops tables (bench/target*.c): every table of bench_targets[]
 * whole and found by its own name (the check fio runs on its engines), a
 * broken one caught, and what each gives fio. */
#include <string.h>

#include "bench/target.h"
#include "lib/array.h"
#include "lib/substitute.h"
#include "test_support.h"

static void test_every_table_whole(void **state) {
  (void)state;
  size_t n = 0;
  for (; bench_targets[n]; n++) {
    const struct bench_target_ops *ops = bench_targets[n];
    const char *wrong = bench_target_ops_check(ops);
    if (wrong)
      fail_msg("target %s: %s", ops->name, wrong);
    assert_ptr_equal(bench_target_find(ops->name), ops);
  }
  assert_true(n >= 4);
  assert_null(bench_target_find("nbd"));
  assert_null(bench_target_find(NULL));
}

static int no_args(char ***argv, const struct placer_study *s, const struct bench_fio_run *run, const char **why) {
  (void)argv, (void)s, (void)run;
  *why = "never called";
  return -1;
}

static void test_broken_tables_caught(void **state) {
  (void)state;
  struct bench_target_ops copy = bench_target_file;
  assert_string_equal(bench_target_ops_check(&copy), "not in bench_targets[]");
  copy.fio_args = NULL;
  assert_string_equal(bench_target_ops_check(&copy), "no fio_args");
  copy = bench_target_file;
  copy.name = "";
  assert_string_equal(bench_target_ops_check(&copy), "no name");
  copy = bench_target_cephfs;
  copy.prepare = NULL;
  assert_string_equal(bench_target_ops_check(&copy), "a path in a mount needs prepare to make the mount");
  copy = bench_target_file;
  copy.flags |= BENCH_TARGET_CEPH;
  copy.fio_args = no_args;
  assert_string_equal(bench_target_ops_check(&copy), "a local path is neither in Ceph nor in a mount");
  /* a second table of one name: the study would find the first */
  const struct bench_target_ops *saved = bench_targets[0];
  copy = *bench_targets[1];
  copy.name = saved->name;
  assert_string_equal(bench_target_ops_check(&copy), "not in bench_targets[]");
}

/* What each target puts on fio's command line, and the flags the rest of bench reads. */
static void test_fio_args(void **state) {
  (void)state;
  struct placer_study s = { 0 };
  s.cluster.client = (char *)"admin";
  s.cluster.pool = (char *)"rbd";
  s.cluster.image = (char *)"img";
  struct bench_fio_run cell = {
    .name = "4k-randread", .filename = (char *)"/var/tmp/x", .direct = true, .ceph_conf = "/run/c.conf"
  };
  static const struct {
    const char *name;
    const char *argv;
    unsigned flags;
  } want[] = {
    { "rbd", "--ioengine=rbd --clientname=admin --pool=rbd --rbdname=img", BENCH_TARGET_CEPH | BENCH_TARGET_IMAGE },
    { "rados", "--ioengine=rados --clientname=admin --pool=rbd --filename=placer-bench --conf=/run/c.conf",
      BENCH_TARGET_CEPH },
    { "cephfs", "--ioengine=libaio --direct=1 --filename=/var/tmp/x",
      BENCH_TARGET_CEPH | BENCH_TARGET_MOUNT_PATH | BENCH_TARGET_DIRECT },
    { "file", "--ioengine=libaio --direct=1 --filename=/var/tmp/x", BENCH_TARGET_LOCAL_PATH | BENCH_TARGET_DIRECT },
  };
  /* every target of the table says here what it gives fio */
  for (size_t k = 0; bench_targets[k]; k++) {
    size_t i = 0;
    while (i < N_OF(want) && strcmp(want[i].name, bench_targets[k]->name) != 0)
      i++;
    if (i == N_OF(want))
      fail_msg("target %s: add what it gives fio to want[]", bench_targets[k]->name);
    const struct bench_target_ops *ops = bench_targets[k];
    char **argv = NULL;
    const char *why = "unset";
    assert_int_equal(ops->fio_args(&argv, &s, &cell, &why), 0);
    assert_null(why);
    char *joined = placer_argv_quote(argv);
    if (strcmp(joined, want[i].argv) != 0)
      fail_msg("target %s: fio %s, want %s", ops->name, joined, want[i].argv);
    assert_int_equal(ops->flags, want[i].flags);
    free(joined);
    placer_argv_free(argv);
  }
  /* a kind's own engine, in a directory of the mount (#38's metadata load on cephfs) */
  struct bench_fio_run meta = cell;
  meta.engine = "filecreate";
  meta.in_directory = true;
  meta.filename = (char *)"/c/mnt/placer-meta";
  char **margv = NULL;
  const char *mwhy = "unset";
  assert_int_equal(bench_target_cephfs.fio_args(&margv, &s, &meta, &mwhy), 0);
  char *mjoined = placer_argv_quote(margv);
  assert_string_equal(mjoined, "--ioengine=filecreate --direct=1 --directory=/c/mnt/placer-meta");
  free(mjoined);
  placer_argv_free(margv);
  /* a file target with no file: fio is not started on nothing */
  cell.filename = NULL;
  char **argv = NULL;
  const char *why = NULL;
  assert_int_equal(bench_target_file.fio_args(&argv, &s, &cell, &why), -1);
  assert_string_equal(why, "no file to run on");
  placer_argv_free(argv);
}

/* cephfs's own checks and default, with the key they are about. */
static void test_cephfs_settle(void **state) {
  (void)state;
  struct placer_study s = { 0 };
  const char *key = NULL, *why = NULL;
  s.cluster.type = PLACER_STUDY_CLUSTER_LOCAL;
  assert_int_equal(bench_target_cephfs.settle(&s, &key, &why), -1);
  assert_string_equal(key, "target");
  assert_string_equal(why, "target cephfs needs an MDS: set cluster.mds: true");
  s.cluster.mds = true;
  s.workloads.path = (char *)"a/b";
  assert_int_equal(bench_target_cephfs.settle(&s, &key, &why), -1);
  assert_string_equal(key, "path");
  s.workloads.path = NULL;
  assert_int_equal(bench_target_cephfs.settle(&s, &key, &why), 0);
  assert_string_equal(s.workloads.path, "placer-bench.dat");
  free(s.workloads.path);
  s.workloads.path = NULL;
  s.cluster.type = PLACER_STUDY_CLUSTER_EXISTING;
  assert_int_equal(bench_target_cephfs.settle(&s, &key, &why), -1);
  assert_string_equal(why, "target cephfs is only supported with cluster type local");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_table_whole),
    cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_fio_args),
    cmocka_unit_test(test_cephfs_settle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
