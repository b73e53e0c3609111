/* The default study sized to the node (bench/default-study.c) on fixture
 * topologies: on this project's 2-core KVM guest it is studies/default.yaml
 * byte for byte; on 16 and 96 PUs it is the golden files
 * tests/golden/bench/default-16pu.yaml and default-96pu.yaml
 * (PLACER_UPDATE_GOLDEN=1 rewrites them; review the diff), whose figures are
 * checked against the formula of docs/bench.md by hand; every variant of
 * each plans on its node (placer bench --dry-run's checks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/default-study.h"
#include "bench/run.h"
#include "test_support.h"

static struct placer_topology *fixture(const char *name) {
  char rel[128];
  snprintf(rel, sizeof(rel), "fixtures/%s", name);
  struct placer_topology *t = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path(rel), &t, &err) < 0)
    fail_msg("%s: %s", name, err->msg);
  return t;
}

static void check_golden(const char *name, const char *text) {
  char rel[128];
  snprintf(rel, sizeof(rel), "golden/bench/%s", name);
  test_compare_golden(rel, text);
}

/* The study for a fixture: parsed, and every variant planned on the
 * fixture's node (what --dry-run checks before anything runs). */
static struct placer_study *study_for(const char *name, char **text) {
  char rel[128];
  snprintf(rel, sizeof(rel), "fixtures/%s", name);
  struct placer_study *s = NULL;
  struct placer_error *err = NULL;
  if (placer_default_study_for(test_data_path(rel), text, &s, &err) < 0)
    fail_msg("%s: %s", name, err->msg);
  struct placer_bench_options opt = { .topology_xml = test_data_path(rel) };
  char *described = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&described, &len);
  if (placer_bench_describe(s, &opt, f, &err) < 0)
    fail_msg("%s: --dry-run: %s", name, err->msg);
  fclose(f);
  free(described);
  return s;
}

static void expect(const struct placer_default_study *d, unsigned osds, unsigned iodepth, unsigned workers,
                   unsigned ceph, unsigned clients, const double *quota, size_t n_quota, unsigned percent) {
  assert_int_equal(d->osds, osds);
  assert_int_equal(d->iodepth, iodepth);
  assert_int_equal(d->workers, workers);
  assert_int_equal(d->ceph_threads, ceph);
  assert_int_equal(d->client_threads, clients);
  assert_int_equal(d->n_quota, n_quota);
  for (size_t i = 0; i < n_quota; i++)
    assert_true(fabs(d->quota[i] - quota[i]) < 1e-12);
  assert_int_equal(d->storage_min_percent, percent);
}

/* 2 PUs, 1 node, no NVMe: 2 OSDs (no node has 4 cores: the floor), iodepth
 * 16, 1 worker, Ceph on 1 PU and the clients on the other, steps 0.5 and 1
 * (2 x 2 PUs / 2 OSDs = 2 steps), 50%: the shipped study, as it is. */
static void test_two_cores_is_the_shipped_study(void **state) {
  (void)state;
  unsetenv("PLACER_DEFAULT_STUDY");
  struct placer_topology *t = fixture("default-study/kvm-2c-guest.xml");
  struct placer_default_study d;
  placer_default_study_size(t, &d);
  placer_topology_free(t);
  const double quota[] = { 0.5, 1 };
  expect(&d, 2, 16, 1, 1, 1, quota, 2, 50);
  assert_true(placer_default_study_is_shipped(&d));
  char *text = NULL;
  struct placer_study *s = study_for("default-study/kvm-2c-guest.xml", &text);
  char *shipped = test_read_file(test_data_path("../studies/default.yaml"));
  assert_non_null(shipped);
  assert_string_equal(text, shipped); /* byte for byte */
  assert_null(s->generated);          /* run from the file itself */
  assert_int_equal(s->n_variants, 4);
  free(shipped);
  free(text);
  placer_study_free(s);
}

/* 16 PUs, 2 nodes of 8 cores, no NVMe: 2 OSDs a node (8 / 4), iodepth 32, 8
 * workers, Ceph on 2 PUs and the clients on 14, steps of 1 core (4 / 4) up
 * to 4 (2 x 16 / 4 = 8, at most 4), 90%. */
static void test_sixteen_pus(void **state) {
  (void)state;
  unsetenv("PLACER_DEFAULT_STUDY");
  struct placer_topology *t = fixture("16intel64-manyVFs.xml");
  struct placer_default_study d;
  placer_default_study_size(t, &d);
  placer_topology_free(t);
  const double quota[] = { 1, 2, 3, 4 };
  expect(&d, 4, 32, 8, 2, 14, quota, 4, 90);
  char *yaml = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_default_study_yaml(&d, "16intel64-manyVFs.xml", &yaml, &err), 0);
  check_golden("default-16pu.yaml", yaml);
  free(yaml);
  char *text = NULL;
  struct placer_study *s = study_for("16intel64-manyVFs.xml", &text);
  assert_non_null(s->generated);
  assert_int_equal(s->cluster.osds, 4);
  assert_int_equal(s->workloads.iodepth, 32);
  assert_int_equal(s->neighbours[0].intensity, 8);
  assert_int_equal(s->n_variants, 6); /* unpinned, pinned, quota-1..4 */
  assert_string_equal(s->variants[5].name, "quota-4");
  assert_string_equal(s->variants[5].sets.items[0], "osd.count=4"); /* the steps are unpinned's, resized */
  assert_true(fabs(s->sweep.storage_min_fraction - 0.9) < 1e-12);
  free(text);
  placer_study_free(s);
}

/* 96 PUs, 8 nodes of 6 cores x 2 threads, nvme0n1 on node 0: one OSD per
 * node (node 0 by its NVMe, the others 6 / 4), iodepth 64, 48 workers, Ceph
 * on 4 PUs and the clients on 92, steps of 2 cores up to 8, 90%. */
static void test_ninety_six_pus(void **state) {
  (void)state;
  unsetenv("PLACER_DEFAULT_STUDY");
  struct placer_topology *t = fixture("mpibind-epyc-corona.xml");
  struct placer_default_study d;
  placer_default_study_size(t, &d);
  placer_topology_free(t);
  assert_int_equal(d.nvme, 1);
  const double quota[] = { 2, 4, 6, 8 };
  expect(&d, 8, 64, 48, 4, 92, quota, 4, 90);
  char *yaml = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_default_study_yaml(&d, "mpibind-epyc-corona.xml", &yaml, &err), 0);
  check_golden("default-96pu.yaml", yaml);
  free(yaml);
  struct placer_study *s = study_for("mpibind-epyc-corona.xml", NULL);
  assert_int_equal(s->cluster.osds, 8);
  placer_study_free(s);
}

/* One OSD per NVMe (4 a node, 16 cores: 8 allowed), and the cap of 16 on
 * 384 PUs (24 nodes x 2); both plan. */
static void test_nvme_and_the_cap(void **state) {
  (void)state;
  unsetenv("PLACER_DEFAULT_STUDY");
  struct placer_topology *t = fixture("crafted-hci-2s16c-8nvme.xml");
  struct placer_default_study d;
  placer_default_study_size(t, &d);
  placer_topology_free(t);
  assert_int_equal(d.nvme, 8);
  assert_int_equal(d.osds, 8);
  t = fixture("192em64t-24n8c2t.xml");
  placer_default_study_size(t, &d);
  placer_topology_free(t);
  assert_int_equal(d.osds, PLACER_DEFAULT_STUDY_MAX_OSDS);
  placer_study_free(study_for("crafted-hci-2s16c-8nvme.xml", NULL));
  placer_study_free(study_for("192em64t-24n8c2t.xml", NULL));
}

/* $PLACER_DEFAULT_STUDY is the user's own default: taken as it is. */
static void test_own_default(void **state) {
  (void)state;
  setenv("PLACER_DEFAULT_STUDY", test_data_path("fixtures/results/quota-study.yaml"), 1);
  char *text = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_default_study_for(test_data_path("fixtures/16intel64-manyVFs.xml"), &text, NULL, &err), 0);
  assert_non_null(strstr(text, "title: OSD CPU quota sweep, 2 OSDs"));
  free(text);
  unsetenv("PLACER_DEFAULT_STUDY");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_two_cores_is_the_shipped_study),
    cmocka_unit_test(test_sixteen_pus),
    cmocka_unit_test(test_ninety_six_pus),
    cmocka_unit_test(test_nvme_and_the_cap),
    cmocka_unit_test(test_own_default),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
