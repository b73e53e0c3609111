/* lib/error.c: messages are one line whatever they quote. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
