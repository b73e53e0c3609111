/* Ceph's counters and the metadata workload in the report, from a real
 * results directory (tests/fixtures/results/cephfs-metadata: a metadata
 * study with every run's counters): its report (golden
 * tests/golden/bench/cephfs-metadata.txt: the metadata tables and "where the
 * time went"), the same after a JSON round trip, and a copy whose
 * ceph-counters.csv is damaged -- edited, cut, gone, another run's -- refused
 * by the report and by compare with one line naming the file, exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "results/compare.h"
#include "results/results.h"
#include "bench_report_support.h"
#include "test_support.h"

#define FIXTURE "fixtures/results/cephfs-metadata"

/* A copy of the fixture in a new directory, its counters file's text
 * replaced by CSV (NULL: as it is; "": removed). */
static char *copy_fixture(const char *csv) {
  char *dir = strdup("/tmp/placer-counters-XXXXXX");
  assert_non_null(mkdtemp(dir));
  const char *files[] = { "summary.json", "ceph-counters.csv" };
  for (size_t i = 0; i < 2; i++) {
    char rel[128], path[256];
    snprintf(rel, sizeof(rel), FIXTURE "/%s", files[i]);
    char *text = test_read_file(test_data_path(rel));
    assert_non_null(text);
    if (i == 1 && csv) {
      free(text);
      if (!*csv)
        continue;
      text = strdup(csv);
    }
    snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(text);
  }
  return dir;
}

static void remove_copy(char *dir) {
  char path[256];
  snprintf(path, sizeof(path), "%s/summary.json", dir);
  unlink(path);
  snprintf(path, sizeof(path), "%s/ceph-counters.csv", dir);
  unlink(path);
  rmdir(dir);
  free(dir);
}

/* The report of the directory, and the same from its results after a round
 * trip through summary.json. */
static void test_metadata_report(void **state) {
  (void)state;
  char *text = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report_dir(test_data_path(FIXTURE), &text, &err) < 0)
    fail_msg("%s", err->msg);
  check_golden("cephfs-metadata.txt", text);
  assert_non_null(strstr(text, "\nmetadata: 1000 files, 2 directories, 2 jobs  create, stat, delete\n"));
  assert_non_null(strstr(text, "\nWhere the time went: "));
  assert_non_null(strstr(text, "\nMDS  "));
  struct placer_bench_results *r = NULL;
  assert_int_equal(placer_bench_results_load_dir(test_data_path(FIXTURE), &r, &err), 0);
  char *again = report_of(r);
  assert_string_equal(again, text);
  json_t *j = placer_bench_results_to_json(r);
  struct placer_bench_results *back = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &back, &err), 0);
  json_t *j2 = placer_bench_results_to_json(back);
  assert_true(json_equal(j, j2));
  json_decref(j);
  json_decref(j2);
  placer_bench_results_free(back);
  placer_bench_results_free(r);
  free(again);
  free(text);
}

/* DIR's report refused, bad input, one line naming the counters file and
 * holding NEEDLE; compare refuses it too, as candidate and as baseline. */
static void expect_dir_refused(const char *dir, const char *needle) {
  char *text = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_report_dir(dir, &text, &err), -1);
  assert_null(text);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "ceph-counters.csv"));
  assert_null(strchr(err->msg, '\n'));
  if (strstr(err->msg, needle) == NULL)
    fail_msg("got '%s', expected '%s' in it", err->msg, needle);
  placer_error_free(err);
  err = NULL;
  struct placer_bench_results *r = NULL;
  assert_int_equal(placer_bench_results_load_dir(dir, &r, &err), -1);
  assert_null(r);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static char *fixture_csv(void) {
  char *csv = test_read_file(test_data_path(FIXTURE "/ceph-counters.csv"));
  assert_non_null(csv);
  return csv;
}

static void test_damaged_counters_refused(void **state) {
  (void)state;
  /* a count edited: not what summary.json holds */
  char *csv = fixture_csv();
  char *row = strstr(csv, ",mds.a,ok,mds.request,");
  assert_non_null(row);
  row += strlen(",mds.a,ok,mds.request,");
  *row = *row == '9' ? '8' : '9';
  char *dir = copy_fixture(csv);
  expect_dir_refused(dir, "run unpinned-r0 alone metadata: mds.a's mds.request is ");
  remove_copy(dir);
  free(csv);
  /* cut in the middle of a row */
  csv = fixture_csv();
  csv[strlen(csv) / 2] = '\0';
  dir = copy_fixture(csv);
  expect_dir_refused(dir, "but summary.json recorded");
  remove_copy(dir);
  free(csv);
  /* gone */
  dir = copy_fixture("");
  expect_dir_refused(dir, "missing, but summary.json holds Ceph's counters of its runs");
  remove_copy(dir);
  /* a header of another file, as long: the reader's own refusal, with the line */
  csv = fixture_csv();
  memcpy(csv, "VARIANT", 7);
  dir = copy_fixture(csv);
  expect_dir_refused(dir, "ceph-counters.csv:1: expected the header variant,repeat,");
  remove_copy(dir);
  free(csv);
  /* rows after what summary.json recorded (a study stopped between a run's
   * rows and its summary.json) are not read: the report is the fixture's */
  csv = fixture_csv();
  char *longer = NULL;
  assert_true(asprintf(&longer, "%sunpinned,1,alone,metadata,osd.0,ok,,,,,\n", csv) > 0);
  dir = copy_fixture(longer);
  char *text = NULL, *want = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report_dir(dir, &text, &err) < 0 ||
      placer_bench_report_dir(test_data_path(FIXTURE), &want, &err) < 0)
    fail_msg("%s", err->msg);
  assert_string_equal(text, want);
  free(text);
  free(want);
  remove_copy(dir);
  free(longer);
  free(csv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_metadata_report),
    cmocka_unit_test(test_damaged_counters_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
