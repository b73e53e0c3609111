/* The podman launch backend's command lines (podman-argv.c), checked
 * without podman: every value is one "--option=value" element, hostile
 * values included, and what podman would refuse is refused first. */
#include <stdlib.h>
#include <string.h>

#include "podman-argv.h"
#include "lib/substitute.h"
#include "test_support.h"

static struct placer_launch_spec base_spec(void) {
  static char *argv[] = { "ceph-osd", "-f", "--id", "3", NULL };
  struct placer_launch_spec s = {
    .instance = "osd.3",
    .role = "osd",
    .profile = "hci",
    .group = "placer/osd/osd.3",
    .pinned = true,
    .cpus = "4-7",
    .mems = "1",
    .has_memory_limit = true,
    .memory_bytes = 6ull << 30,
    .argv = argv,
    .image = "localhost/placer/ceph:latest",
    .network = PLACER_NETWORK_HOST,
    .container_name = "placer-osd.3",
    .stop_timeout_s = 30,
  };
  return s;
}

static char **build_ok(const struct placer_launch_spec *s) {
  char **argv = NULL;
  struct placer_error *err = NULL;
  if (placer_podman_run_argv(s, &argv, &err) < 0)
    fail_msg("podman argv: %s", err->msg);
  return argv;
}

static void expect_refused(const struct placer_launch_spec *s, const char *fragment) {
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_podman_run_argv(s, &argv, &err), -1);
  assert_null(argv);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, fragment) == NULL)
    fail_msg("error '%s' does not mention '%s'", err->msg, fragment);
  placer_error_free(err);
}

static void test_full_argv(void **state) {
  (void)state;
  struct placer_launch_spec s = base_spec();
  char *env[] = { "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
                  "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=134217728", NULL };
  char *vols[] = { "/var/lib/ceph:/var/lib/ceph", NULL };
  char *extra[] = { "--privileged", NULL };
  s.env = env;
  s.volumes = vols;
  s.extra_args = extra;
  s.log_path = "/run/placer/run/hci/osd.3.log";
  char **argv = build_ok(&s);
  const char *want[] = {
    "podman",
    "run",
    "--detach",
    "--replace",
    "--pull=never",
    "--name=placer-osd.3",
    "--cgroup-parent=/placer/osd/osd.3",
    "--cpuset-cpus=4-7",
    "--cpuset-mems=1",
    "--memory=6442450944b",
    "--network=host",
    "--stop-timeout=30",
    "--label=placer.instance=osd.3",
    "--label=placer.role=osd",
    "--label=placer.profile=hci",
    "--log-opt=path=/run/placer/run/hci/osd.3.log",
    "--env=LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
    "--env=TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=134217728",
    "--volume=/var/lib/ceph:/var/lib/ceph",
    "--privileged",
    "localhost/placer/ceph:latest",
    "ceph-osd",
    "-f",
    "--id",
    "3",
  };
  size_t n = sizeof(want) / sizeof(want[0]);
  assert_int_equal(placer_argv_len(argv), n);
  for (size_t i = 0; i < n; i++)
    assert_string_equal(argv[i], want[i]);
  placer_argv_free(argv);
}

static size_t index_of(char **argv, const char *s) {
  for (size_t i = 0; argv[i]; i++)
    if (strcmp(argv[i], s) == 0)
      return i;
  return (size_t)-1;
}

static void test_unpinned_unlimited_no_network(void **state) {
  (void)state;
  struct placer_launch_spec s = base_spec();
  s.pinned = false;
  s.has_memory_limit = false;
  s.network = PLACER_NETWORK_NONE;
  s.stop_timeout_s = 0;
  char **argv = build_ok(&s);
  for (size_t i = 0; argv[i]; i++) {
    assert_null(strstr(argv[i], "--cpuset"));
    assert_null(strstr(argv[i], "--memory"));
    assert_null(strstr(argv[i], "--stop-timeout"));
  }
  assert_true(index_of(argv, "--network=none") != (size_t)-1);
  /* The cgroup parent is always there: the container lives under placer's subtree. */
  assert_true(index_of(argv, "--cgroup-parent=/placer/osd/osd.3") != (size_t)-1);
  placer_argv_free(argv);
}

/* Hostile values in the command and the environment are single literal
 * elements; after the image podman parses no options, so a command
 * argument that looks like an option is the command's. */
static void test_hostile_values(void **state) {
  (void)state;
  struct placer_launch_spec s = base_spec();
  char *cmd[] = { "sh", "-c", "echo \"$X\" '$(id)' `id`; rm -rf /", "--name=evil", "a b", NULL };
  char *env[] = { "X=$(touch /tmp/pwned) 'q' \"d\" ; --privileged", "EMPTY=", NULL };
  s.argv = cmd;
  s.env = env;
  char **argv = build_ok(&s);
  size_t img = index_of(argv, "localhost/placer/ceph:latest");
  assert_true(img != (size_t)-1);
  assert_string_equal(argv[img + 1], "sh");
  assert_string_equal(argv[img + 2], "-c");
  assert_string_equal(argv[img + 3], "echo \"$X\" '$(id)' `id`; rm -rf /");
  assert_string_equal(argv[img + 4], "--name=evil");
  assert_string_equal(argv[img + 5], "a b");
  assert_null(argv[img + 6]);
  assert_true(index_of(argv, "--env=X=$(touch /tmp/pwned) 'q' \"d\" ; --privileged") < img);
  assert_true(index_of(argv, "--env=EMPTY=") < img);
  assert_true(index_of(argv, "--privileged") == (size_t)-1);
  /* The one --name is ours. */
  assert_true(index_of(argv, "--name=placer-osd.3") < img);
  placer_argv_free(argv);
}

static void test_refusals(void **state) {
  (void)state;
  struct placer_launch_spec s = base_spec();
  s.image = NULL;
  expect_refused(&s, "needs an image");
  s.image = "--privileged";
  expect_refused(&s, "not an image name");
  s.image = "a b";
  expect_refused(&s, "not an image name");

  s = base_spec();
  s.container_name = "-x";
  expect_refused(&s, "not a valid container name");
  s.container_name = "placer osd";
  expect_refused(&s, "not a valid container name");
  s.container_name = NULL;
  expect_refused(&s, "not a valid container name");

  s = base_spec();
  char *bad_env1[] = { "NOEQUALS", NULL };
  s.env = bad_env1;
  expect_refused(&s, "'NOEQUALS'");
  char *bad_env2[] = { "1X=y", NULL };
  s.env = bad_env2;
  expect_refused(&s, "'1X=y'");
  char *bad_env3[] = { "A-B=y", NULL };
  s.env = bad_env3;
  expect_refused(&s, "'A-B=y'");

  s = base_spec();
  s.group = "/placer/osd";
  expect_refused(&s, "cgroup parent");
}

static void test_names(void **state) {
  (void)state;
  char *n = placer_podman_container_name("osd.3");
  assert_string_equal(n, "placer-osd.3");
  free(n);
  n = placer_podman_container_name("vm 1/$(x)");
  assert_string_equal(n, "placer-vm_1___x_");
  assert_true(placer_podman_name_is_valid(n));
  free(n);
  assert_true(placer_podman_name_is_valid("a"));
  assert_false(placer_podman_name_is_valid(""));
  assert_false(placer_podman_name_is_valid(".a"));
  assert_true(placer_env_entry_is_valid("_A1=x"));
  assert_true(placer_env_entry_is_valid("A="));
  assert_false(placer_env_entry_is_valid("=x"));
  assert_false(placer_env_entry_is_valid("A"));
}

static void test_stop_rm_inspect(void **state) {
  (void)state;
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_podman_stop_argv("placer-osd.3", 30, &argv, &err), 0);
  char *q = placer_argv_quote(argv);
  assert_string_equal(q, "podman stop --time=30 placer-osd.3");
  free(q);
  placer_argv_free(argv);
  assert_int_equal(placer_podman_rm_argv("placer-osd.3", &argv, &err), 0);
  q = placer_argv_quote(argv);
  assert_string_equal(q, "podman rm --force --ignore placer-osd.3");
  free(q);
  placer_argv_free(argv);
  assert_int_equal(placer_podman_inspect_argv("placer-osd.3", &argv, &err), 0);
  assert_string_equal(argv[3], "--format={{.State.Pid}} {{.State.CgroupPath}} {{.Id}}");
  assert_string_equal(argv[4], "placer-osd.3");
  placer_argv_free(argv);
  assert_int_equal(placer_podman_rm_argv("--all", &argv, &err), -1);
  assert_non_null(err);
  placer_error_free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_full_argv),      cmocka_unit_test(test_unpinned_unlimited_no_network),
    cmocka_unit_test(test_hostile_values), cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_names),          cmocka_unit_test(test_stop_rm_inspect),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
