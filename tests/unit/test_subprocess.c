/* Running helper programs (subprocess.c): output and status collected, no
 * shell, a program that cannot run reported like one that failed, a hung
 * one killed at the timeout, the child's environment.  Uses /bin/sh and
 * sleep, nothing else. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* #35: a program that closes its output and hangs (gnuplot, as a hostile
 * one did) was waited for forever: the timeout covers its whole life. */
static void test_timeout_after_output_closed(void **state) {
  (void)state;
  char *out, *errout;
  int status = 0;
  struct placer_error *err = NULL;
  char *argv[] = { "sh", "-c", "exec >&- 2>&-; exec sleep 30", NULL };
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  assert_int_equal(run(argv, NULL, 300, &out, &errout, &status, &err), -1);
  clock_gettime(CLOCK_MONOTONIC, &b);
  assert_true(b.tv_sec - a.tv_sec < 5);
  assert_int_equal(err->errno_value, ETIMEDOUT);
  placer_error_free(err);
}

/* The group variant: the program and what it started go together, at the
 * timeout, on a raised stop flag (exit 130), and when it exits leaving a
 * child behind. */
static volatile sig_atomic_t stop_flag;

static bool alive(pid_t pid) {
  char path[64], stat[256] = "";
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return false;
  size_t n = fread(stat, 1, sizeof(stat) - 1, f);
  fclose(f);
  stat[n] = '\0';
  const char *close = strrchr(stat, ')');
  return close && close[2] != 'Z';
}

static pid_t read_pid(const char *path) {
  FILE *f = fopen(path, "r");
  int pid = 0;
  if (f) {
    if (fscanf(f, "%d", &pid) != 1)
      pid = 0;
    fclose(f);
  }
  return (pid_t)pid;
}

static void test_group(void **state) {
  (void)state;
  char pidfile[] = "/tmp/placer-test-subprocess-XXXXXX";
  int fd = mkstemp(pidfile);
  assert_true(fd >= 0);
  close(fd);
  char script[256];
  snprintf(script, sizeof(script), "sleep 30 & echo $! >%s; exec >&- 2>&-; wait", pidfile);
  char *argv[] = { "sh", "-c", script, NULL };
  char *out = NULL, *errout = NULL;
  int status = 0;
  struct placer_error *err = NULL;
  /* the timeout */
  assert_int_equal(placer_subprocess_capture_group(argv, NULL, 300, &stop_flag, &out, &errout, &status, &err), -1);
  assert_int_equal(err->errno_value, ETIMEDOUT);
  placer_error_free(err);
  err = NULL;
  pid_t child = read_pid(pidfile);
  assert_true(child > 0);
  for (int i = 0; i < 100 && alive(child); i++)
    usleep(10000);
  assert_false(alive(child));
  /* the stop flag */
  stop_flag = 1;
  assert_int_equal(placer_subprocess_capture_group(argv, NULL, 30000, &stop_flag, &out, &errout, &status, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_INTERRUPTED);
  assert_int_equal(err->errno_value, EINTR);
  placer_error_free(err);
  err = NULL;
  stop_flag = 0;
  /* an exit that leaves a child in the group */
  snprintf(script, sizeof(script), "sleep 30 & echo $! >%s; echo done", pidfile);
  assert_int_equal(placer_subprocess_capture_group(argv, NULL, 30000, &stop_flag, &out, &errout, &status, &err), 0);
  assert_string_equal(out, "done\n");
  free(out);
  free(errout);
  child = read_pid(pidfile);
  for (int i = 0; i < 100 && alive(child); i++)
    usleep(10000);
  assert_false(alive(child));
  unlink(pidfile);
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
    cmocka_unit_test(test_timeout_after_output_closed),
    cmocka_unit_test(test_group),
    cmocka_unit_test(test_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
