/* fio's JSON output, captured from real fio 3.33 runs on this project's machines
 * (tests/fixtures/fio/README.md has the command lines). Every expected number
 * below was read from the fixture with python3's json module. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/fio-result.h"
#include "test_support.h"

static struct placer_fio_result *load(const char *name) {
  char rel[256];
  snprintf(rel, sizeof(rel), "fixtures/fio/%s", name);
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  if (placer_fio_result_load(test_data_path(rel), &r, &err) < 0)
    fail_msg("load %s: %s", name, err->msg);
  return r;
}

static void assert_idle(const struct placer_fio_io *io) {
  assert_true(io->iops == 0);
  assert_int_equal(io->bw_bytes, 0);
  assert_int_equal(io->io_bytes, 0);
  assert_int_equal(io->total_ios, 0);
  assert_true(isnan(io->clat_mean_ns) && isnan(io->clat_p50_ns) && isnan(io->clat_p99_ns) && isnan(io->clat_p999_ns));
}

static void test_randwrite_4k(void **state) {
  struct placer_fio_result *r = load("randwrite-4k.json");
  assert_string_equal(r->fio_version, "fio-3.33");
  assert_int_equal(r->timestamp, 1796226603);
  assert_int_equal(r->n_jobs, 1);
  const struct placer_fio_job *j = &r->jobs[0];
  assert_string_equal(j->name, "randwrite-4k");
  assert_string_equal(j->rw, "randwrite");
  assert_string_equal(j->bs, "4k");
  assert_int_equal(j->error, 0);
  assert_int_equal(j->job_runtime_ms, 3001);
  assert_true(j->usr_cpu == 4.831723 && j->sys_cpu == 29.323559);
  assert_true(j->write.iops == 99745.169887);
  assert_int_equal(j->write.bw_bytes, 408556215);
  assert_int_equal(j->write.io_bytes, 1226485760);
  assert_int_equal(j->write.total_ios, 299435);
  assert_int_equal(j->write.runtime_ms, 3002);
  assert_true(j->write.clat_mean_ns == 157466.828901);
  assert_true(j->write.clat_p50_ns == 105984);
  assert_true(j->write.clat_p99_ns == 1810432);
  assert_true(j->write.clat_p999_ns == 3817472);
  assert_idle(&j->read);
  /* One job: the total is the job. */
  assert_string_equal(r->total.name, "total");
  assert_true(r->total.write.iops == j->write.iops);
  assert_int_equal(r->total.write.io_bytes, j->write.io_bytes);
  assert_true(r->total.write.clat_p99_ns == j->write.clat_p99_ns);
  assert_true(fabs(r->total.write.clat_mean_ns - 157466.828901) < 1e-6);
  assert_idle(&r->total.read);
  assert_int_equal(r->n_failed_jobs, 0);
  placer_fio_result_free(r);
}

static void test_randread_4k_and_write_128k(void **state) {
  struct placer_fio_result *r = load("randread-4k.json");
  const struct placer_fio_io *rd = &r->total.read;
  assert_true(rd->iops == 72759.57376);
  assert_int_equal(rd->bw_bytes, 298023214);
  assert_int_equal(rd->io_bytes, 894963712);
  assert_int_equal(rd->total_ios, 218497);
  assert_true(rd->clat_p50_ns == 173056 && rd->clat_p99_ns == 1122304 && rd->clat_p999_ns == 4145152);
  assert_idle(&r->total.write);
  placer_fio_result_free(r);

  r = load("write-128k.json");
  assert_string_equal(r->jobs[0].bs, "128k");
  const struct placer_fio_io *wr = &r->total.write;
  assert_true(wr->iops == 16506.831056);
  assert_int_equal(wr->bw_bytes, 2163583360);
  assert_int_equal(wr->io_bytes, 6492913664ull);
  assert_int_equal(wr->total_ios, 49537);
  assert_true(wr->clat_p50_ns == 921600 && wr->clat_p99_ns == 2211840 && wr->clat_p999_ns == 4816896);
  placer_fio_result_free(r);
}

static void test_two_jobs_summed(void **state) {
  struct placer_fio_result *r = load("randrw-4k-2jobs.json");
  assert_int_equal(r->n_jobs, 2);
  assert_true(r->jobs[0].read.iops == 40454.848384 && r->jobs[1].read.iops == 40927.024325);
  assert_true(r->jobs[0].write.clat_p99_ns == 2179072 && r->jobs[1].write.clat_p99_ns == 2072576);
  const struct placer_fio_job *t = &r->total;
  assert_true(fabs(t->read.iops - (40454.848384 + 40927.024325)) < 1e-6);
  assert_true(fabs(t->write.iops - (17297.234255 + 17600.799733)) < 1e-6);
  assert_int_equal(t->read.bw_bytes, 165703058 + 167637091);
  assert_int_equal(t->write.bw_bytes, 70849471 + 72092875);
  assert_int_equal(t->read.io_bytes, 497274880ull + 503078912ull);
  assert_int_equal(t->write.io_bytes, 212619264ull + 216350720ull);
  assert_int_equal(t->read.total_ios, 121405 + 122822);
  assert_int_equal(t->write.total_ios, 51909 + 52820);
  /* Percentiles cannot be merged: the worst job's, an upper bound. */
  assert_true(t->read.clat_p99_ns == 1171456);
  assert_true(t->write.clat_p99_ns == 2179072);
  assert_true(t->read.clat_p999_ns == 3686400 && t->write.clat_p999_ns == 4227072);
  assert_true(t->read.clat_p50_ns == 209920);
  /* The mean latency is weighted by I/Os. */
  double mean = (253242.14735 * 121405 + 253004.535018 * 122822) / (121405 + 122822);
  assert_true(fabs(t->read.clat_mean_ns - mean) < 1e-6);
  assert_true(fabs(t->usr_cpu - (3.266667 + 2.266667)) < 1e-9);
  assert_int_equal(t->read.runtime_ms, 3001);
  placer_fio_result_free(r);
}

static void test_rbd_engine(void **state) {
  /* fio --ioengine=rbd against the throwaway cluster of libexec/ceph-cluster.sh. */
  struct placer_fio_result *r = load("rbd-randwrite-4k.json");
  assert_string_equal(r->jobs[0].name, "rbd-randwrite-4k");
  const struct placer_fio_io *wr = &r->total.write;
  assert_true(wr->iops == 4264.608234);
  assert_int_equal(wr->bw_bytes, 17467835);
  assert_int_equal(wr->io_bytes, 52613120);
  assert_int_equal(wr->total_ios, 12845);
  assert_int_equal(wr->runtime_ms, 3012);
  assert_true(wr->clat_p50_ns == 152576 && wr->clat_p99_ns == 33816576 && wr->clat_p999_ns == 1115684864);
  placer_fio_result_free(r);
}

static void test_failed_job(void **state) {
  /* fio writing to /proc/version: the job fails with EPERM (error 1) and fio still
   * writes its JSON. */
  struct placer_fio_result *r = load("error-eperm.json");
  assert_int_equal(r->jobs[0].error, 1);
  assert_int_equal(r->n_failed_jobs, 1);
  assert_int_equal(r->total.error, 1);
  assert_idle(&r->total.write);
  placer_fio_result_free(r);
}

static void test_notes_before_json(void **state) {
  /* fio may print notes on stdout before the JSON. */
  const char *text = "note: both iodepth >= 1 and synchronous I/O engine are selected\n"
                     "{ \"fio version\": \"fio-3.33\", \"jobs\": [ { \"jobname\": \"j\", \"error\": 0,"
                     " \"read\": { \"iops\": 10.5, \"io_bytes\": 4096, \"clat_ns\": { \"N\": 1, \"mean\": 7,"
                     " \"percentile\": { \"99.000000\": 9 } } }, \"write\": {} } ] }\n";
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_fio_result_parse(text, &r, &err), 0);
  assert_true(r->total.read.iops == 10.5 && r->total.read.clat_p99_ns == 9);
  assert_true(isnan(r->total.read.clat_p999_ns)); /* not in this percentile list */
  assert_null(r->jobs[0].rw);
  placer_fio_result_free(r);
}

static void expect_error(const char *text, const char *needle) {
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_fio_result_parse(text, &r, &err), -1);
  assert_null(r);
  assert_non_null(err);
  if (strstr(err->msg, needle) == NULL)
    fail_msg("error '%s' does not mention '%s'", err->msg, needle);
  assert_int_equal(err->exit_code, 2);
  placer_error_free(err);
}

static void test_bad_input(void **state) {
  expect_error("", "not fio JSON output");
  expect_error("fio: pid=0, err=2/file:filesetup.c:150\n", "not fio JSON output");
  expect_error("{ \"fio version\": \"fio-3.33\" }", "no \"jobs\" array");
  expect_error("{ \"jobs\": [ { \"read\": {}, \"write\": {} } ] }", "jobs[0]: no \"jobname\"");
  expect_error("{ \"jobs\": [ { \"jobname\": \"x\", \"read\": {} } ] }", "jobs[0]: job 'x': no \"write\" object");
  expect_error("line one\n{ \"jobs\": [ }", "line 2");
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_fio_result_load("/nonexistent/fio.json", &r, &err), -1);
  assert_non_null(strstr(err->msg, "'/nonexistent/fio.json'"));
  placer_error_free(err);
}

/* Found by fuzz_fio_json: numbers no fio writes, past what the fields hold (converting them was
 * undefined): the job still counts as failed, counts saturate instead of wrapping. */
static void test_numbers_out_of_range(void **state) {
  (void)state;
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_fio_result_parse("{\"jobs\":[{\"jobname\":\"a\",\"error\":7.7e115,"
                                           "\"job_runtime\":1e300,\"read\":{\"total_ios\":1e40,\"io_bytes\":1e30,"
                                           "\"runtime\":-5},\"write\":{}},"
                                           "{\"jobname\":\"b\",\"error\":-3.5,\"read\":{},\"write\":{}}]}",
                                           &r, &err),
                   0);
  assert_int_equal(r->n_jobs, 2);
  assert_int_equal(r->jobs[0].error, INT_MAX);
  assert_true(r->jobs[0].job_runtime_ms == UINT64_MAX);
  assert_true(r->jobs[0].read.total_ios == UINT64_MAX);
  assert_true(r->jobs[0].read.io_bytes == UINT64_MAX);
  assert_true(r->jobs[0].read.runtime_ms == 0);
  assert_int_equal(r->jobs[1].error, INT_MAX);
  placer_fio_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_randwrite_4k),    cmocka_unit_test(test_randread_4k_and_write_128k),
    cmocka_unit_test(test_two_jobs_summed), cmocka_unit_test(test_rbd_engine),
    cmocka_unit_test(test_failed_job),      cmocka_unit_test(test_notes_before_json),
    cmocka_unit_test(test_bad_input),       cmocka_unit_test(test_numbers_out_of_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
