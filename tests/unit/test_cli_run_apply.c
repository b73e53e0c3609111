/* The command lines of run, stop, apply, status and reset as docs/run.md and
 * docs/apply.md write them: options may follow the profile, and bad input is
 * exit 2 before anything starts.  Only dry runs and commands on an empty
 * state directory: no root, nothing changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

static char work[64];

static int setup(void **state) {
  (void)state;
  snprintf(work, sizeof(work), "/tmp/placer-test-cli.XXXXXX");
  return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
  return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof(path), "%s/%s", work, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* Run "placer ARGS" (ARGS may use $W, the work directory); exit code, and
 * stdout+stderr in *output (caller frees). */
static int placer(const char *args, char **output) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "W='%s'; '%s' %s >\"$W/out\" 2>&1", work, bin, args);
  int status = system(cmd);
  assert_true(WIFEXITED(status));
  char path[256];
  snprintf(path, sizeof(path), "%s/out", work);
  *output = test_read_file(path);
  assert_non_null(*output);
  return WEXITSTATUS(status);
}

static void expect(const char *args, int want_rc, const char *fragment) {
  char *out = NULL;
  int rc = placer(args, &out);
  if (rc != want_rc || (fragment && strstr(out, fragment) == NULL))
    fail_msg("placer %s: exit %d (want %d), output:\n%s(want '%s' in it)", args, rc, want_rc, out,
             fragment ? fragment : "");
  free(out);
}

#define PROFILE_HEAD "version: 1\nname: t-cli\npin: false\nroles:\n"

static void test_options_after_profile(void **state) {
  (void)state;
  write_file("p.yaml", PROFILE_HEAD "  - name: w\n    kind: generic\n    count: 1\n    cpu: { threads: 1 }\n"
                                    "    match: { cmdline: 'no-such-process-t-cli*' }\n"
                                    "    run: { command: [sleep, '100'] }\n");
  expect("run \"$W/p.yaml\" --dry-run --state-dir \"$W/state\"", 0, "w.0: backend exec");
  expect("apply \"$W/p.yaml\" --dry-run --state-dir \"$W/state\" --cgroup-prefix t-cli-$$", 0, "nothing was changed");
  expect("stop \"$W/p.yaml\" --timeout 1 --state-dir \"$W/state\"", 0, "nothing of profile 't-cli' is running");
  expect("status --state-dir \"$W/state\" --json", 0, "\"applied\": false");
  expect("reset --state-dir \"$W/state\"", 0, "nothing to reset");
  /* Still one profile only, however the options are placed. */
  expect("run \"$W/p.yaml\" --dry-run extra", 2, "placer run: unexpected argument 'extra'");
  expect("stop --timeout 3601 \"$W/p.yaml\"", 2, "--timeout wants seconds 0..3600");
}

static void test_missing_guest_kernel_is_bad_input(void **state) {
  (void)state;
  write_file("vm.yaml", PROFILE_HEAD "  - name: client\n    kind: vm\n    count: 1\n    cpu: { threads: 1 }\n"
                                     "    run:\n      vm: { kernel: /nonexistent/vmlinux, initrd: /dev/null }\n");
  expect("run --dry-run --state-dir \"$W/state\" \"$W/vm.yaml\"", 2,
         "placer: client.0: guest kernel '/nonexistent/vmlinux': No such file or directory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_options_after_profile),
    cmocka_unit_test(test_missing_guest_kernel_is_bad_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
