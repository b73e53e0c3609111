/* Running helper programs (subprocess.c): output and status collected, no
 * shell, a program that cannot run reported like one that failed, a hung
 * one killed at the timeout, the child's environment.  Uses /bin/sh and
 * sleep, nothing else. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/subprocess.h"
#include "test_support.h"

static int run(char *const argv[], char *const envp[], unsigned timeout_ms, char **out, char **errout, int *status,
               struct placer_error **err) {
  *out = *errout = NULL;
  return placer_subprocess_capture(argv, envp, timeout_ms, out, errout, status, err);
}

static void test_output_and_status(void **state) {
  (void)state;
  char *out, *errout;
  int status = 0;
  struct placer_error *err = NULL;
  char *argv[] = { "sh", "-c", "echo out; echo err >&2; read x; echo \"[$x]\"; exit 3", NULL };
  assert_int_equal(run(argv, NULL, 10000, &out, &errout, &status, &err), 0);
  assert_string_equal(out, "out\n[]\n"); /* stdin is /dev/null */
  assert_string_equal(errout, "err\n");
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  free(out);
  free(errout);

  /* Arguments reach the program as they are: no shell in between. */
  char *literal[] = { "sh", "-c", "printf '%s|' \"$@\"", "sh", "a b", "$(id)", "'q'", NULL };
  assert_int_equal(run(literal, NULL, 10000, &out, &errout, &status, &err), 0);
  assert_string_equal(out, "a b|$(id)|'q'|");
  free(out);
  free(errout);
}

static void test_exec_failure(void **state) {
  (void)state;
  char *out, *errout;
  int status = 0;
  struct placer_error *err = NULL;
  char *argv[] = { "/nonexistent/podman", "inspect", NULL };
  assert_int_equal(run(argv, NULL, 10000, &out, &errout, &status, &err), 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
  assert_string_equal(errout, "exec '/nonexistent/podman': No such file or directory");
  assert_string_equal(out, "");
  free(out);
  free(errout);
}

static void test_timeout(void **state) {
  (void)state;
  char *out, *errout;
  int status = 0;
  struct placer_error *err = NULL;
  char *argv[] = { "sleep", "30", NULL };
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  assert_int_equal(run(argv, NULL, 300, &out, &errout, &status, &err), -1);
  clock_gettime(CLOCK_MONOTONIC, &b);
  assert_true(b.tv_sec - a.tv_sec < 5);
  assert_non_null(err);
  assert_int_equal(err->errno_value, ETIMEDOUT);
  assert_non_null(strstr(err->msg, "sleep 30: no answer within 0.3 s"));
  placer_error_free(err);
}

static void test_environment(void **state) {
  (void)state;
  setenv("PLACER_TEST_SUBPROCESS_A", "from-placer", 1);
  setenv("PLACER_TEST_SUBPROCESS_B", "replaced", 1);
  char *add[] = { "PLACER_TEST_SUBPROCESS_B=mine", "PLACER_TEST_SUBPROCESS_C=x=y", NULL };
  char **envp = placer_env_merge(add);
  assert_non_null(envp);
  char *out, *errout;
  int status = 0;
  struct placer_error *err = NULL;
  char *argv[] = { "sh", "-c",
                   "echo $PLACER_TEST_SUBPROCESS_A $PLACER_TEST_SUBPROCESS_B $PLACER_TEST_SUBPROCESS_C; "
                   "env | grep -c ^PLACER_TEST_SUBPROCESS_B=",
                   NULL };
  assert_int_equal(run(argv, envp, 10000, &out, &errout, &status, &err), 0);
  assert_string_equal(out, "from-placer mine x=y\n1\n");
  free(out);
  free(errout);
  free(envp);
  unsetenv("PLACER_TEST_SUBPROCESS_A");
  unsetenv("PLACER_TEST_SUBPROCESS_B");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_output_and_status),
    cmocka_unit_test(test_exec_failure),
    cmocka_unit_test(test_timeout),
    cmocka_unit_test(test_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
