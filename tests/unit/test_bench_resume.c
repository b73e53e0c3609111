/* placer bench --resume DIR: the study found from DIR/summary.json, with the
 * counts it ran with; what is not a results directory is refused in one
 * line (bench/resume.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run.h"
#include "bench/study.h"
#include "test_support.h"

static char dir[64];

static int make_dir(void **state) {
  snprintf(dir, sizeof(dir), "/tmp/placer-test-resume.XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void write_summary(const char *text) {
  char path[128];
  snprintf(path, sizeof(path), "%s/summary.json", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* The golden results (tests/golden/bench/ab.json) with STUDY (JSON) as
 * their "study": --resume checks the whole file before it takes the study
 * over. */
static void write_results(const char *study) {
  json_error_t jerr;
  json_t *j = json_load_file(test_data_path("golden/bench/ab.json"), 0, &jerr);
  json_t *st = json_loads(study, 0, &jerr);
  assert_non_null(j);
  assert_non_null(st);
  json_object_set_new(j, "study", st);
  char *text = json_dumps(j, 0);
  write_summary(text);
  free(text);
  json_decref(j);
}

static void expect_refused(const char *says) {
  struct placer_study *study = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_resume_study(dir, &study, &err), -1);
  assert_null(study);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, says) == NULL)
    fail_msg("got '%s', expected '%s'", err->msg, says);
  assert_null(strchr(err->msg, '\n'));
  placer_error_free(err);
}

static void test_not_a_results_dir(void **state) {
  expect_refused("not a results directory of placer bench?");
  write_summary("{ \"runs\": [");
  expect_refused("summary.json:1:");
  write_summary("{ \"study\": { \"repeats\": 2 } }");
  expect_refused("summary.json: \"format\" is not \"placer-bench-results\"");
  write_results("{ \"repeats\": 2 }");
  expect_refused("summary.json does not name its study file");
  /* #35: the counts it takes over are checked first (-1 was a 136-year fio run) */
  write_results("{ \"study_file\": \"/x.yaml\", \"repeats\": 2, \"runtime_s\": -1 }");
  expect_refused("summary.json: study.runtime_s: -1 is less than 1");
}

static void test_study_and_counts(void **state) {
  char text[8192];
  /* the shipped default study, run with --repeats 5 --warmup 0 --runtime 7 */
  snprintf(text, sizeof(text),
           "{ \"study_file\": \"%s/studies/default.yaml\", \"repeats\": 5, \"repeats_max\": 5, "
           "\"warmup\": 0, \"runtime_s\": 7, \"ci_width\": 0 }",
           PLACER_SOURCE_DIR);
  write_results(text);
  struct placer_study *study = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_resume_study(dir, &study, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(study->repeats, 5);
  assert_int_equal(study->repeats_max, 5);
  assert_int_equal(study->warmup, 0);
  assert_int_equal(study->workloads.runtime_s, 7);
  placer_study_free(study);
  /* the study file gone since */
  snprintf(text, sizeof(text), "{ \"study_file\": \"%s/no-such.yaml\", \"repeats\": 2 }", dir);
  write_results(text);
  expect_refused("no-such.yaml");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_not_a_results_dir, make_dir, remove_dir),
    cmocka_unit_test_setup_teardown(test_study_and_counts, make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
