/* The systemd backend's pure parts (systemd-unit.c): the unit of a cgroup
 * path, set-property command lines, placer's drop-in, `systemctl show`. */
#include <stdlib.h>
#include <string.h>

#include "systemd-unit.h"
#include "test_support.h"

static void expect_unit(const char *path, const char *unit, const char *unit_cgroup) {
  char *u = NULL, *cg = NULL;
  struct placer_error *err = NULL;
  if (placer_systemd_unit_from_cgroup(path, &u, &cg, &err) < 0)
    fail_msg("%s: %s", path, err->msg);
  assert_string_equal(u, unit);
  assert_string_equal(cg, unit_cgroup);
  free(u);
  free(cg);
}

static void expect_no_unit(const char *path, const char *fragment) {
  char *u = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_systemd_unit_from_cgroup(path, &u, NULL, &err), -1);
  assert_null(u);
  assert_non_null(err);
  if (strstr(err->msg, fragment) == NULL)
    fail_msg("%s: '%s' lacks '%s'", path, err->msg, fragment);
  assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
  placer_error_free(err);
}

static void test_unit_from_cgroup(void **state) {
  (void)state;
  expect_unit("/system.slice/ceph-osd@0.service", "ceph-osd@0.service", "/system.slice/ceph-osd@0.service");
  /* cephadm: podman's payload group is inside the unit (split cgroups) */
  expect_unit("/system.slice/system-ceph\\x2d1234.slice/ceph-1234@osd.3.service/libpod-payload-abc",
              "ceph-1234@osd.3.service", "/system.slice/system-ceph\\x2d1234.slice/ceph-1234@osd.3.service");
  expect_unit("/user.slice/user-0.slice/session-4.scope", "session-4.scope",
              "/user.slice/user-0.slice/session-4.scope");
  expect_unit("/machine.slice/libpod-0123abcd.scope/container", "libpod-0123abcd.scope",
              "/machine.slice/libpod-0123abcd.scope");
  expect_unit("/stress.service", "stress.service", "/stress.service");
  expect_no_unit("/", "the root");
  expect_no_unit("/system.slice", "no systemd service or scope");
  expect_no_unit("/placer/osd/osd.0", "groups made outside systemd");
  expect_no_unit("/init.scope", "init.scope");
  expect_no_unit("relative.service", "not absolute");
  expect_no_unit("/system.slice/bad name.service", "no systemd service");
}

static void test_cgroup2_line(void **state) {
  (void)state;
  char *p = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(
      placer_systemd_cgroup2_path("12:cpuset:/\n1:name=systemd:/x\n0::/system.slice/a.service\n", &p, &err), 0);
  assert_string_equal(p, "/system.slice/a.service");
  free(p);
  assert_int_equal(placer_systemd_cgroup2_path("12:cpuset:/\n", &p, &err), -1);
  assert_non_null(strstr(err->msg, "cgroup v2"));
  placer_error_free(err);
}

static void test_unit_names(void **state) {
  (void)state;
  assert_true(placer_systemd_unit_name_is_valid("ceph-osd@0.service"));
  assert_true(placer_systemd_unit_name_is_valid("ceph-0f3a@osd.12.service"));
  assert_true(placer_systemd_unit_name_is_valid("session-4.scope"));
  assert_false(placer_systemd_unit_name_is_valid(".service"));
  assert_false(placer_systemd_unit_name_is_valid("../x.service"));
  assert_false(placer_systemd_unit_name_is_valid("a/b.service"));
  assert_false(placer_systemd_unit_name_is_valid("a.txt"));
  assert_false(placer_systemd_unit_name_is_valid(""));
  assert_false(placer_systemd_unit_name_is_valid(NULL));
}

static char *joined(char **argv) {
  size_t len = 1;
  for (size_t i = 0; argv[i]; i++)
    len += strlen(argv[i]) + 1;
  char *s = calloc(1, len);
  for (size_t i = 0; argv[i]; i++) {
    if (i)
      strcat(s, " ");
    strcat(s, argv[i]);
  }
  return s;
}

static void test_property_argv(void **state) {
  (void)state;
  struct placer_systemd_props all = { .allowed_cpus = "2-3",
                                      .allowed_memory_nodes = "1",
                                      .has_memory_max = true,
                                      .memory_max_bytes = 64ull << 20,
                                      .cpu_weight = 300 };
  char **argv = placer_systemd_set_property_argv("systemctl", "ceph-osd@0.service", true, &all);
  char *s = joined(argv);
  assert_string_equal(s, "systemctl set-property --runtime ceph-osd@0.service AllowedCPUs=2-3 AllowedMemoryNodes=1 "
                         "MemoryMax=67108864 CPUWeight=300");
  free(s);
  placer_systemd_argv_free(argv);

  struct placer_systemd_props some = { .allowed_cpus = "1", .allowed_memory_nodes = "0" };
  argv = placer_systemd_set_property_argv("/bin/systemctl", "x.service", false, &some);
  s = joined(argv);
  assert_string_equal(s, "/bin/systemctl set-property x.service AllowedCPUs=1 AllowedMemoryNodes=0");
  free(s);
  placer_systemd_argv_free(argv);

  /* back to what show said: unset values become empty assignments */
  argv = placer_systemd_restore_argv("systemctl", "x.service", &all, "", "", "infinity", "[not set]");
  s = joined(argv);
  assert_string_equal(s, "systemctl set-property --runtime x.service AllowedCPUs= AllowedMemoryNodes= "
                         "MemoryMax=infinity CPUWeight=");
  free(s);
  placer_systemd_argv_free(argv);
  argv = placer_systemd_restore_argv("systemctl", "x.service", &all, "0-1", "0", "1073741824", "50");
  s = joined(argv);
  assert_string_equal(s, "systemctl set-property --runtime x.service AllowedCPUs=0-1 AllowedMemoryNodes=0 "
                         "MemoryMax=1073741824 CPUWeight=50");
  free(s);
  placer_systemd_argv_free(argv);
  argv = placer_systemd_restore_argv("systemctl", "x.service", &some, NULL, NULL, NULL, NULL);
  s = joined(argv);
  assert_string_equal(s, "systemctl set-property --runtime x.service AllowedCPUs= AllowedMemoryNodes=");
  free(s);
  placer_systemd_argv_free(argv);
}

static void test_dropin_text(void **state) {
  (void)state;
  struct placer_systemd_props p = { .allowed_cpus = "1",
                                    .allowed_memory_nodes = "1",
                                    .has_memory_max = true,
                                    .memory_max_bytes = 1ull << 30,
                                    .cpu_weight = 0 };
  char *t = placer_systemd_dropin_text("ceph-osd@1.service", "hci", "osd.1", &p);
  assert_non_null(t);
  assert_string_equal(t, "# Written by 'placer apply --persist' (profile hci, instance osd.1); 'placer reset' "
                         "removes it.\n[Service]\nAllowedCPUs=1\nAllowedMemoryNodes=1\nMemoryMax=1073741824\n");
  free(t);
  assert_null(placer_systemd_dropin_text("session-3.scope", "hci", "osd.1", &p));
  assert_null(placer_systemd_dropin_text("../../etc/passwd.service", "hci", "osd.1", &p));
}

static void test_show_value(void **state) {
  (void)state;
  const char *show = "AllowedCPUs=\nAllowedMemoryNodes=1\nMemoryMax=infinity\nCPUWeight=[not set]\n"
                     "ControlGroup=/system.slice/x.service\nMainPID=0";
  char *v = placer_systemd_show_value(show, "AllowedCPUs");
  assert_string_equal(v, "");
  free(v);
  v = placer_systemd_show_value(show, "CPUWeight");
  assert_string_equal(v, "[not set]");
  free(v);
  v = placer_systemd_show_value(show, "MainPID");
  assert_string_equal(v, "0");
  free(v);
  v = placer_systemd_show_value(show, "ControlGroup");
  assert_string_equal(v, "/system.slice/x.service");
  free(v);
  assert_null(placer_systemd_show_value(show, "Allowed"));
  assert_null(placer_systemd_show_value(show, "CPUQuota"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unit_from_cgroup), cmocka_unit_test(test_cgroup2_line), cmocka_unit_test(test_unit_names),
    cmocka_unit_test(test_property_argv),    cmocka_unit_test(test_dropin_text),  cmocka_unit_test(test_show_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
