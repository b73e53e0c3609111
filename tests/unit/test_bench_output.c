/* What placer bench writes into its results directory when the disk fills
 * up (bench/output.c, lib/fsfile.c), with the file-size limit standing in
 * for a full disk (a write past RLIMIT_FSIZE fails with EFBIG, after the
 * bytes that fit, as one past the last free block fails with ENOSPC):
 *   - summary.json is replaced whole or not at all: the old one stays, byte
 *     for byte, no temporary file is left, the error names summary.json;
 *   - the CSV rows written since the last summary.json are cut again when
 *     it cannot be written, and a row cut in the middle goes too, so that
 *     --resume appends to whole rows of the runs summary.json holds;
 *   - summary.json's csv_bytes says how long each CSV file was then. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/internal.h"
#include "bench/study.h"
#include "lib/fsfile.h"
#include "test_support.h"

static char dir[64];
static struct rlimit unlimited;

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/placer-test-output.XXXXXX");
  signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
  return mkdtemp(dir) && getrlimit(RLIMIT_FSIZE, &unlimited) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  setrlimit(RLIMIT_FSIZE, &unlimited);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void limit_file_size(off_t bytes) {
  struct rlimit r = { (rlim_t)bytes, unlimited.rlim_max };
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &r), 0);
}

static char *read_file(const char *name) {
  char path[160];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return test_read_file(path);
}

static off_t file_size(const char *name) {
  char path[160];
  struct stat st;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Nothing but NAMES in the directory (no temporary file left). */
static void expect_files(const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    assert_true(file_size(names[i]) >= 0);
  char cmd[160];
  snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) = %zu", dir, n);
  if (system(cmd) != 0) {
    snprintf(cmd, sizeof(cmd), "ls -lA %s >&2", dir);
    if (system(cmd) != 0) /* only a listing for the message below */
      fprintf(stderr, "(ls failed)\n");
    fail_msg("files left in %s besides the expected %zu", dir, n);
  }
}

static void test_file_replace(void **state) {
  (void)state;
  struct placer_error *err = NULL;
  assert_int_equal(placer_file_replace(dir, "state.json", "{\"a\": 1}", &err), 0);
  char *text = read_file("state.json");
  assert_string_equal(text, "{\"a\": 1}\n");
  free(text);
  assert_int_equal(placer_file_replace_bytes(dir, "report.txt", "two\nlines", 9, &err), 0);
  text = read_file("report.txt");
  assert_string_equal(text, "two\nlines"); /* as they are: no newline added */
  free(text);
  /* not fsynced, the same file all the same, and no temporary left */
  assert_int_equal(placer_file_replace_volatile(dir, "report.txt", "three", 5, &err), 0);
  text = read_file("report.txt");
  assert_string_equal(text, "three");
  free(text);

  /* room for 64 bytes: a longer file is not written, the old one stays */
  char big[200];
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  limit_file_size(64);
  assert_int_equal(placer_file_replace(dir, "state.json", big, &err), -1);
  setrlimit(RLIMIT_FSIZE, &unlimited);
  char want[160];
  snprintf(want, sizeof(want), "write %s/state.json: %s", dir, strerror(EFBIG));
  assert_string_equal(err->msg, want);
  assert_int_equal(err->errno_value, EFBIG);
  placer_error_free(err);
  err = NULL;
  text = read_file("state.json");
  assert_string_equal(text, "{\"a\": 1}\n");
  free(text);
  const char *names[] = { "state.json", "report.txt" };
  expect_files(names, 2);
  assert_int_equal(placer_file_replace(dir, "state.json", big, &err), 0);
  assert_int_equal(file_size("state.json"), (off_t)sizeof(big));
}

/* #35: nothing bench writes in a results directory goes through a link
 * planted there: the atomic replace's temporary file is made anew, the CSV
 * and plan files and fio's output are opened without following one (the
 * write fails, the decoy stays), and --resume's check refuses them all up
 * front. */
static void test_no_write_through_links(void **state) {
  (void)state;
  char decoy[160], path[200];
  snprintf(decoy, sizeof(decoy), "%s/decoy", dir);
  FILE *f = fopen(decoy, "w");
  assert_non_null(f);
  fputs("precious\n", f);
  fclose(f);
  struct placer_error *err = NULL;
  /* a link where the temporary file goes: replaced, not written through */
  snprintf(path, sizeof(path), "%s/.summary.json.tmp", dir);
  assert_int_equal(symlink(decoy, path), 0);
  assert_int_equal(placer_file_replace(dir, "summary.json", "{}", &err), 0);
  char *text = read_file("decoy");
  assert_string_equal(text, "precious\n");
  free(text);
  /* a CSV file, a plan, fio's output: refused (ELOOP), the decoy as it was */
  snprintf(path, sizeof(path), "%s/runs.csv", dir);
  assert_int_equal(symlink(decoy, path), 0);
  assert_null(bench_file_open(path, true, &err));
  assert_int_equal(err->errno_value, ELOOP);
  assert_non_null(strstr(err->msg, "a symbolic link: placer does not write through one"));
  placer_error_free(err);
  err = NULL;
  assert_null(bench_file_open(path, false, &err));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(bench_file_fresh(path, &err), -1);
  assert_int_equal(err->errno_value, ELOOP);
  placer_error_free(err);
  err = NULL;
  text = read_file("decoy");
  assert_string_equal(text, "precious\n");
  free(text);
  /* --resume's check sees it first, naming it */
  assert_int_equal(bench_results_dir_check(dir, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "runs.csv is a symbolic link"));
  placer_error_free(err);
  err = NULL;
  unlink(path);
  /* without the link: a fresh regular file */
  assert_int_equal(bench_file_fresh(path, &err), 0);
  assert_int_equal(file_size("runs.csv"), 0);
  assert_int_equal(bench_results_dir_check(dir, &err), 0);
}

/* A bench with one variant, workload, condition and repeat, summary.json
 * and two CSV files in DIR/bench. */
struct fixture {
  struct placer_study *study;
  struct placer_bench_options opt;
  struct bench b;
  char out[96];
};

static void fixture_open(struct fixture *f) {
  static const char text[] = "cluster: { type: none }\nvariants: [ { name: a, profile: unpinned } ]\n"
                             "workloads: { path: /tmp/x, patterns: [randwrite] }\nrepeats: 1\n";
  struct placer_error *err = NULL;
  memset(f, 0, sizeof(*f));
  assert_int_equal(placer_study_parse("inline.yaml", text, strlen(text), &f->study, &err), 0);
  snprintf(f->out, sizeof(f->out), "%s/bench", dir);
  assert_int_equal(mkdir(f->out, 0755), 0);
  f->b.study = f->study;
  f->b.opt = &f->opt;
  f->b.out = f->out;
  static const char *const variants[] = { "a" };
  static const struct placer_bench_workload workloads[] = {
    { .name = "4k-randwrite", .pattern = "randwrite", .block_size_bytes = 4096 }
  };
  static const struct placer_bench_condition conditions[] = { { "alone", 0 } };
  struct placer_bench_spec spec = {
    .title = "disk full",
    .storage_role = "fio",
    .neighbour_name = "neighbours",
    .neighbour_unit = "bogo ops/s",
    .level_unit = "workers",
    .variants = variants,
    .n_variants = 1,
    .workloads = workloads,
    .n_workloads = 1,
    .conditions = conditions,
    .n_conditions = 1,
    .repeats = 1,
  };
  assert_int_equal(placer_bench_results_new(&spec, &f->b.results, &err), 0);
  char path[160];
  snprintf(path, sizeof(path), "%s/runs.csv", f->out);
  assert_non_null(f->b.runs_csv = fopen(path, "w"));
  snprintf(path, sizeof(path), "%s/placement.csv", f->out);
  assert_non_null(f->b.placement_csv = fopen(path, "w"));
  fputs("variant,repeat,condition,workload,fio_json\n", f->b.runs_csv);
  fputs("variant,repeat,instance\n", f->b.placement_csv);
  assert_int_equal(bench_write_summary(&f->b, &err), 0);
}

static void fixture_close(struct fixture *f) {
  fclose(f->b.runs_csv);
  fclose(f->b.placement_csv);
  placer_bench_results_free(f->b.results);
  placer_study_free(f->study);
}

/* The run's rows, then summary.json with the run: 0, or -1 and the error. */
static int record_run(struct fixture *f, const char *row, struct placer_error **err) {
  struct placer_bench_run *run = placer_bench_results_run(f->b.results, 0, 0, 0, 0);
  fputs(row, f->b.runs_csv);
  bench_csv_flush(&f->b, f->b.runs_csv);
  fputs("a,0,fio\n", f->b.placement_csv);
  bench_csv_flush(&f->b, f->b.placement_csv);
  run->done = true;
  run->duration_s = 3;
  if (bench_write_summary(&f->b, err) < 0) {
    run->done = false;
    return -1;
  }
  return 0;
}

static long long csv_bytes_of(const char *summary, const char *name) {
  char key[64];
  snprintf(key, sizeof(key), "\"%s\": ", name);
  const char *at = strstr(summary, "\"csv_bytes\"");
  assert_non_null(at);
  at = strstr(at, key);
  assert_non_null(at);
  return atoll(at + strlen(key));
}

static void test_summary_not_written(void **state) {
  (void)state;
  struct fixture f;
  fixture_open(&f);
  char *before = read_file("bench/summary.json");
  off_t runs_before = file_size("bench/runs.csv"), placement_before = file_size("bench/placement.csv");
  assert_int_equal(csv_bytes_of(before, "runs.csv"), runs_before);
  assert_int_equal(csv_bytes_of(before, "placement.csv"), placement_before);

  /* the rows fit, summary.json does not */
  limit_file_size((off_t)strlen(before) - 1);
  struct placer_error *err = NULL;
  assert_int_equal(record_run(&f, "a,0,alone,4k-randwrite,fio/a.json\n", &err), -1);
  setrlimit(RLIMIT_FSIZE, &unlimited);
  char want[160];
  snprintf(want, sizeof(want), "write %s/summary.json: %s", f.out, strerror(EFBIG));
  assert_string_equal(err->msg, want);
  placer_error_free(err);
  err = NULL;
  char *after = read_file("bench/summary.json");
  assert_string_equal(after, before); /* as it was, not cut */
  free(after);
  assert_int_equal(file_size("bench/runs.csv"), runs_before); /* the run's rows went again */
  assert_int_equal(file_size("bench/placement.csv"), placement_before);
  const char *names[] = { "bench" };
  expect_files(names, 1);
  snprintf(want, sizeof(want), "test $(ls -A %s | wc -l) = 3", f.out); /* summary.json and the two CSVs */
  assert_int_equal(system(want), 0);

  /* room again: the run is recorded, once */
  assert_int_equal(record_run(&f, "a,0,alone,4k-randwrite,fio/a.json\n", &err), 0);
  after = read_file("bench/summary.json");
  char *runs = read_file("bench/runs.csv");
  assert_string_equal(runs, "variant,repeat,condition,workload,fio_json\na,0,alone,4k-randwrite,fio/a.json\n");
  assert_int_equal(csv_bytes_of(after, "runs.csv"), (long long)strlen(runs));
  assert_non_null(strstr(after, "\"duration_s\": 3"));
  free(runs);
  free(after);
  free(before);
  fixture_close(&f);
}

static void test_csv_row_cut(void **state) {
  (void)state;
  struct fixture f;
  fixture_open(&f);
  char *before = read_file("bench/summary.json");
  off_t runs_before = file_size("bench/runs.csv");

  /* 10 bytes of the row fit: the file ends in the middle of it */
  limit_file_size(runs_before + 10);
  struct placer_error *err = NULL;
  assert_int_equal(record_run(&f, "a,0,alone,4k-randwrite,fio/a.json\n", &err), -1);
  setrlimit(RLIMIT_FSIZE, &unlimited);
  char want[160];
  snprintf(want, sizeof(want), "write %s/runs.csv: %s", f.out, strerror(EFBIG));
  assert_string_equal(err->msg, want);
  placer_error_free(err);
  err = NULL;
  assert_int_equal(file_size("bench/runs.csv"), runs_before); /* the cut row went */
  char *after = read_file("bench/summary.json");
  assert_string_equal(after, before); /* not written: it would hold a run runs.csv does not */
  free(after);

  /* and the next rows follow whole ones */
  assert_int_equal(record_run(&f, "a,0,alone,4k-randwrite,fio/b.json\n", &err), 0);
  char *runs = read_file("bench/runs.csv");
  assert_string_equal(runs, "variant,repeat,condition,workload,fio_json\na,0,alone,4k-randwrite,fio/b.json\n");
  free(runs);
  free(before);
  fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_file_replace, setup, teardown),
    cmocka_unit_test_setup_teardown(test_no_write_through_links, setup, teardown),
    cmocka_unit_test_setup_teardown(test_summary_not_written, setup, teardown),
    cmocka_unit_test_setup_teardown(test_csv_row_cut, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
