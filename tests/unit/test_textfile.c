/* The one file reader (lib/textfile.c): whole files with their NULs, the
 * size limit, and errors that name the path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/textfile.h"
#include "test_support.h"

static char *write_temp(const char *bytes, size_t len) {
  char *path = strdup("/tmp/placer-textfile-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, len), (ssize_t)len);
  close(fd);
  return path;
}

static void test_whole_file_with_nuls(void **state) {
  static const char raw[] = "ceph-osd\0--id\0003\0";
  char *path = write_temp(raw, sizeof(raw) - 1);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, &len), 0);
  assert_int_equal(len, sizeof(raw) - 1);
  assert_memory_equal(text, raw, len);
  assert_int_equal(text[len], '\0');
  free(text);
  unlink(path);
  free(path);
}

static void test_limit(void **state) {
  /* Larger than one read buffer, so the limit is checked while growing too. */
  size_t size = 10000;
  char *big = malloc(size);
  memset(big, 'x', size);
  char *path = write_temp(big, size);
  char *text = NULL;
  size_t len = 0;
  errno = 0;
  assert_int_equal(placer_textfile_read_path(path, size - 1, &text, &len), -1);
  assert_int_equal(errno, EFBIG);
  assert_null(text);
  assert_int_equal(placer_textfile_read_path(path, 100, &text, &len), -1);
  assert_int_equal(errno, EFBIG);
  assert_int_equal(placer_textfile_read_path(path, size, &text, &len), 0);
  assert_int_equal(len, size);
  free(text);
  unlink(path);
  free(path);
  free(big);
}

static void test_proc_file_and_errors(void **state) {
  /* /proc files say size 0; the reader reads to the end anyway. */
  char *text = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_textfile_read("/proc/self/status", &text, &err), 0);
  assert_non_null(strstr(text, "Cpus_allowed_list:"));
  free(text);
  text = NULL;
  assert_int_equal(placer_textfile_read("/nonexistent/placer", &text, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "'/nonexistent/placer'"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_textfile_read("/proc/self", &text, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  placer_error_free(err);
}

/* A file the user names: a regular file only, found without blocking (a
 * FIFO with no writer blocked open() forever), every refusal one line and
 * exit 2. */
static void expect_input_refused(const char *path, const char *expected) {
  char *text = NULL;
  size_t len = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_textfile_read_input("study", path, 1 << 20, &text, &len, &err), -1);
  assert_null(text);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, expected) == NULL)
    fail_msg("got '%s', expected '%s' in it", err->msg, expected);
  placer_error_free(err);
}

static void test_input_regular_only(void **state) {
  char dir[] = "/tmp/placer-input-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char fifo[64], loop[64], file[64];
  snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
  snprintf(loop, sizeof(loop), "%s/loop", dir);
  snprintf(file, sizeof(file), "%s/study.yaml", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_int_equal(symlink(loop, loop), 0);
  expect_input_refused(fifo, "study '/tmp/placer-input-");
  expect_input_refused(fifo, "/fifo': a FIFO, not a regular file");
  expect_input_refused(dir, "': a directory, not a regular file");
  expect_input_refused("/dev/zero", "study '/dev/zero': a character device, not a regular file");
  expect_input_refused(loop, "/loop': Too many levels of symbolic links");
  expect_input_refused(file, "/study.yaml': No such file or directory");
  /* the limit, in MiB or in bytes */
  int fd = open(file, O_WRONLY | O_CREAT, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (2 << 20) + 1), 0);
  close(fd);
  expect_input_refused(file, "/study.yaml': larger than 1 MiB");
  /* a regular file reads as before, and is read with blocking reads */
  assert_int_equal(truncate(file, 5), 0);
  char *text = NULL;
  size_t len = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_textfile_read_input("study", file, 1 << 20, &text, &len, &err), 0);
  assert_int_equal(len, 5);
  free(text);
  unlink(file);
  unlink(fifo);
  unlink(loop);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_whole_file_with_nuls),
    cmocka_unit_test(test_limit),
    cmocka_unit_test(test_proc_file_and_errors),
    cmocka_unit_test(test_input_regular_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
