/* lib/error.c: messages are one line whatever they quote. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "test_support.h"

/* Found by tests/fuzz: a thread name and a YAML string with newlines made
 * errors of several lines. */
static void test_one_line(void **state) {
  struct placer_error *err = NULL;
  placer_error_set(&err, PLACER_EXIT_USAGE, 0, "name '%s' bad", "a\nb\r\x01\x7f\tc");
  assert_string_equal(err->msg, "name 'a\\nb\\r\\x01\\x7f\tc' bad");
  placer_error_prefix(&err, "in\n%s", "x");
  assert_string_equal(err->msg, "in\\nx: name 'a\\nb\\r\\x01\\x7f\tc' bad");
  placer_error_free(err);
  err = NULL;
  placer_error_errno(&err, PLACER_EXIT_SYSTEM, 2, "open '%s'", "x\ny");
  assert_string_equal(err->msg, "open 'x\\ny': No such file or directory");
  placer_error_free(err);
  err = NULL;
  placer_error_set(&err, PLACER_EXIT_USAGE, 0, "plain");
  assert_string_equal(err->msg, "plain");
  placer_error_free(err);
}

/* Found by apply_load.sh (status segfaulted with threads ending): an error
 * dropped in a loop and freed, then the next failure met it ("first error
 * wins") and it was freed again.  placer_error_clear leaves NULL behind. */
static void test_clear_in_a_loop(void **state) {
  struct placer_error *gone = NULL;
  for (int i = 0; i < 3; i++) {
    placer_error_set(&gone, PLACER_EXIT_SYSTEM, 2, "thread %d gone", i);
    assert_non_null(gone);
    char expected[32];
    snprintf(expected, sizeof(expected), "thread %d gone", i);
    assert_string_equal(gone->msg, expected); /* a fresh error each time */
    placer_error_clear(&gone);
    assert_null(gone);
  }
  placer_error_clear(&gone);
  placer_error_clear(NULL);
}

/* A title with an escape sequence reached the terminal raw (placer compare):
 * text for a terminal has its control bytes escaped, tabs kept. */
static void test_text_escape(void **state) {
  char *s = placer_text_escape("evil\x1b[2J\x1b]0;owned\x07\tok\n");
  assert_string_equal(s, "evil\\x1b[2J\\x1b]0;owned\\x07\tok\\n");
  free(s);
  s = placer_text_escape("");
  assert_string_equal(s, "");
  free(s);
}

/* The one out-of-memory road: "WHAT: out of memory", or without a WHAT the
 * bare words (it called itself forever there), exit 4, errno ENOMEM. */
static void test_oom(void **state) {
  (void)state;
  struct placer_error *err = NULL;
  assert_int_equal(placer_error_oom(&err, "bench run"), -1);
  assert_string_equal(err->msg, "bench run: out of memory");
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_int_equal(err->errno_value, ENOMEM);
  placer_error_clear(&err);
  assert_int_equal(placer_error_oom(&err, NULL), -1);
  assert_string_equal(err->msg, "out of memory");
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_int_equal(err->errno_value, ENOMEM);
  placer_error_free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_line),
    cmocka_unit_test(test_clear_in_a_loop),
    cmocka_unit_test(test_text_escape),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
