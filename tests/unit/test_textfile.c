/* The one file reader (lib/textfile.c): whole files with their NULs, the
 * size limit, and errors that name the path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_whole_file_with_nuls),
    cmocka_unit_test(test_limit),
    cmocka_unit_test(test_proc_file_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
