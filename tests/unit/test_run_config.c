/* The run: section of profile roles (profile-run.c) and the records of what
 * `placer run` started (runstate.c, JSON round trip).  Pure. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "profile/profile-run.h"
#include "profile/profile.h"
#include "runstate.h"
#include "lib/substitute.h"
#include "test_support.h"

static struct placer_profile *parse_ok(const char *text) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("t.yaml", text, strlen(text), &p, &err) < 0)
    fail_msg("parse: %s", err->msg);
  return p;
}

static void expect_error(const char *text, const char *fragment) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_parse("t.yaml", text, strlen(text), &p, &err), -1);
  assert_null(p);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, fragment) == NULL)
    fail_msg("error '%s' does not mention '%s'", err->msg, fragment);
  placer_error_free(err);
}

#define HEAD "version: 1\npin: false\nroles:\n  - name: osd\n    kind: ceph-osd\n    count: 2\n"

static void test_exec_list(void **state) {
  (void)state;
  struct placer_profile *p = parse_ok(HEAD "    run:\n"
                                           "      command: [ceph-osd, -f, --id, \"{id}\", \"a b\", \"$(x)\", \"\"]\n"
                                           "      env: { LD_PRELOAD: /usr/lib/libjemalloc.so.2, EMPTY: \"\", N: 5 }\n"
                                           "      stop_timeout: 30\n");
  const struct placer_run_config *run = p->roles[0].run;
  assert_non_null(run);
  assert_int_equal(run->backend, PLACER_RUN_EXEC);
  assert_int_equal(run->command.n, 7);
  assert_string_equal(run->command.items[3], "{id}");
  assert_string_equal(run->command.items[4], "a b");
  assert_string_equal(run->command.items[5], "$(x)");
  assert_string_equal(run->command.items[6], "");
  assert_int_equal(run->env.n, 3);
  assert_string_equal(run->env.items[0], "LD_PRELOAD=/usr/lib/libjemalloc.so.2");
  assert_string_equal(run->env.items[1], "EMPTY=");
  assert_string_equal(run->env.items[2], "N=5");
  assert_int_equal(run->stop_timeout_s, 30);
  assert_int_equal(run->network, PLACER_NETWORK_NONE);
  assert_false(run->has_vm);
  placer_profile_free(p);
}

static void test_string_command_is_split_without_shell(void **state) {
  (void)state;
  struct placer_profile *p = parse_ok(HEAD "    run: { command: \"ceph-osd -f --id {id} 'x y'\" }\n");
  const struct placer_run_config *run = p->roles[0].run;
  assert_int_equal(run->command.n, 6);
  assert_string_equal(run->command.items[4], "'x");
  assert_string_equal(run->command.items[5], "y'");
  assert_int_equal(run->stop_timeout_s, 10); /* default */
  placer_profile_free(p);
}

static void test_podman(void **state) {
  (void)state;
  struct placer_profile *p = parse_ok(HEAD "    run:\n"
                                           "      backend: podman\n"
                                           "      image: localhost/placer/ceph:latest\n"
                                           "      network: host\n"
                                           "      volumes: [\"/srv/{name}:/var/lib/ceph\"]\n"
                                           "      podman_args: [--privileged]\n"
                                           "      command: [ceph-osd, -f, -i, \"{id}\"]\n");
  const struct placer_run_config *run = p->roles[0].run;
  assert_int_equal(run->backend, PLACER_RUN_PODMAN);
  assert_string_equal(run->image, "localhost/placer/ceph:latest");
  assert_int_equal(run->network, PLACER_NETWORK_HOST);
  assert_string_equal(run->volumes.items[0], "/srv/{name}:/var/lib/ceph");
  assert_string_equal(run->podman_args.items[0], "--privileged");
  placer_profile_free(p);
}

static void test_vm(void **state) {
  (void)state;
  struct placer_profile *p = parse_ok("version: 1\npin: false\nroles:\n  - name: vm\n    kind: vm\n"
                                      "    run:\n      vm: { vcpus: 2, memory: 1GiB, seconds: 30, accel: tcg }\n");
  const struct placer_run_config *run = p->roles[0].run;
  assert_true(run->has_vm);
  assert_int_equal(run->vm.vcpus, 2);
  assert_int_equal(run->vm.memory_bytes, 1ull << 30);
  assert_int_equal(run->vm.seconds, 30);
  assert_int_equal(run->vm.accel, PLACER_VM_ACCEL_TCG);
  assert_int_equal(run->vm.work_memory_bytes, 64ull << 20); /* default */
  assert_null(run->vm.kernel);
  placer_profile_free(p);
}

static void test_errors(void **state) {
  (void)state;
  expect_error(HEAD "    run: { command: [ceph-osd, \"--id={ID}\"] }\n", "unknown placeholder '{ID}'");
  expect_error(HEAD "    run: { command: [ceph-osd, \"{id\"] }\n", "unterminated");
  expect_error(HEAD "    run: { command: [] }\n", "must not be empty");
  expect_error(HEAD "    run: { command: [ceph-osd, [x]] }\n", "run.command[1]");
  expect_error(HEAD "    run: { command: \"  \" }\n", "expected a command");
  expect_error(HEAD "    run: { backend: docker }\n", "expected one of exec, podman");
  expect_error(HEAD "    run: { backend: podman, command: [x] }\n", "needs 'image'");
  expect_error(HEAD "    run: { image: foo, command: [x] }\n", "only goes with backend: podman");
  expect_error(HEAD "    run: { backend: podman, image: \"--privileged\" }\n", "not an image name");
  expect_error(HEAD "    run: { env: { \"A-B\": x } }\n", "not a variable name");
  expect_error(HEAD "    run: { env: { A: [x] } }\n", "expected a string value");
  expect_error(HEAD "    run: { env: [A] }\n", "expected a mapping");
  expect_error(HEAD "    run: { network: bridge }\n", "expected one of none, host");
  expect_error(HEAD "    run: { nope: 1 }\n", "unknown key 'nope' in run");
  expect_error(HEAD "    run: { vm: { vcpus: 0 } }\n", "at least 1");
  expect_error(HEAD "    run: { backend: podman, image: x, vm: { vcpus: 1 } }\n", "backend: exec");
  expect_error(HEAD "    run: { vm: { memory: 64MiB, work_memory: 64MiB } }\n", "work_memory");
  /* Errors carry the line and the key path. */
  expect_error(HEAD "    run:\n      command: [\"{x}\"]\n", "t.yaml:8:");
}

static void test_record_round_trip(void **state) {
  (void)state;
  char *argv[] = { "podman", "run", "--env=X=$(id) 'q'", "img", NULL };
  struct placer_launch_record rec = {
    .profile = "hci",
    .instance = "osd.3",
    .role = "osd",
    .backend = "podman",
    .pid = 4242,
    .start_time = 123456789ull,
    .group = "placer/osd/osd.3",
    .container_name = "placer-osd.3",
    .container_id = "abc123",
    .container_cgroup = "placer/osd/osd.3/libpod-abc123",
    .log_path = "/run/placer/run/hci/osd.3.log",
    .accel = NULL,
    .argv = argv,
    .stop_timeout_s = 30,
    .started_at = 1700000000,
    .seq = 4,
    .unmarked = true, /* its group could carry no mark there */
  };
  json_t *j = placer_launch_record_to_json(&rec);
  assert_non_null(j);
  struct placer_launch_record back = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_launch_record_from_json(j, &back, &err), 0);
  assert_string_equal(back.instance, "osd.3");
  assert_string_equal(back.backend, "podman");
  assert_int_equal(back.pid, 4242);
  assert_true(back.start_time == 123456789ull);
  assert_string_equal(back.group, "placer/osd/osd.3");
  assert_string_equal(back.container_cgroup, "placer/osd/osd.3/libpod-abc123");
  assert_null(back.accel);
  assert_int_equal(placer_argv_len(back.argv), 4);
  assert_string_equal(back.argv[2], "--env=X=$(id) 'q'");
  assert_int_equal(back.stop_timeout_s, 30);
  assert_int_equal(back.seq, 4);
  assert_true(back.started_at == 1700000000);
  assert_true(back.unmarked);
  placer_launch_record_clear(&back);

  /* A record naming a group outside placer's paths is refused. */
  json_object_set_new(j, "group", json_string("../../etc"));
  assert_int_equal(placer_launch_record_from_json(j, &back, &err), -1);
  assert_non_null(strstr(err->msg, "bad group"));
  placer_error_free(err);
  err = NULL;
  json_object_set_new(j, "schema", json_integer(99));
  assert_int_equal(placer_launch_record_from_json(j, &back, &err), -1);
  assert_non_null(strstr(err->msg, "schema 99"));
  placer_error_free(err);
  err = NULL;
  /* A stop timeout no role could have set (it would overflow the waits). */
  json_object_set_new(j, "schema", json_integer(PLACER_RUNSTATE_SCHEMA));
  json_object_set_new(j, "group", json_string("placer/osd/osd.3"));
  json_object_set_new(j, "stop_timeout", json_integer(5000000));
  assert_int_equal(placer_launch_record_from_json(j, &back, &err), -1);
  assert_non_null(strstr(err->msg, "'stop_timeout' is not an integer in 0..3600"));
  placer_error_free(err);
  json_decref(j);
}

/* A record names its process by PID and start time: a record whose start
 * time is unknown (0) must not take whatever process has that PID now for
 * the instance (stop would signal it). */
static void test_record_liveness(void **state) {
  (void)state;
  struct placer_launch_record rec = { .pid = getpid(), .start_time = placer_launch_start_time(getpid()) };
  assert_true(rec.start_time != 0);
  assert_true(placer_launch_exec.is_running(&rec));
  assert_true(placer_launch_podman.is_running(&rec));
  rec.start_time++;
  assert_false(placer_launch_exec.is_running(&rec));
  rec.start_time = 0;
  assert_false(placer_launch_exec.is_running(&rec));
  assert_false(placer_launch_podman.is_running(&rec));
  rec.pid = 0;
  assert_false(placer_launch_exec.is_running(&rec));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_list),       cmocka_unit_test(test_string_command_is_split_without_shell),
    cmocka_unit_test(test_podman),          cmocka_unit_test(test_vm),
    cmocka_unit_test(test_errors),          cmocka_unit_test(test_record_round_trip),
    cmocka_unit_test(test_record_liveness),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
