/* Template substitution of run commands (substitute.c): placeholders are
 * replaced per argv element after splitting, never through a shell, so
 * hostile values stay one literal argument each. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "lib/substitute.h"
#include "test_support.h"

static const struct placer_subst_var vars[] = {
  { "id", "3" },     { "name", "osd.3" }, { "role", "osd" }, { "device", "nvme0n1" },
  { "cpus", "4-7" }, { "mems", "1" },     { "nic", NULL }, /* this instance has no NIC */
};
#define N_VARS (sizeof(vars) / sizeof(vars[0]))

static char *subst_ok(const char *tmpl) {
  struct placer_error *err = NULL;
  char *out = NULL;
  assert_int_equal(placer_substitute(tmpl, vars, N_VARS, &out, &err), 0);
  assert_null(err);
  assert_non_null(out);
  return out;
}

static void expect(const char *tmpl, const char *want) {
  char *out = subst_ok(tmpl);
  assert_string_equal(out, want);
  free(out);
}

static void expect_error(const char *tmpl, const char *fragment) {
  struct placer_error *err = NULL;
  char *out = NULL;
  assert_int_equal(placer_substitute(tmpl, vars, N_VARS, &out, &err), -1);
  assert_null(out);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, fragment) == NULL)
    fail_msg("error '%s' does not mention '%s'", err->msg, fragment);
  placer_error_free(err);
}

static void test_placeholders(void **state) {
  (void)state;
  expect("ceph-osd", "ceph-osd");
  expect("{id}", "3");
  expect("--id={id}", "--id=3");
  expect("/var/lib/ceph/{role}/ceph-{id}", "/var/lib/ceph/osd/ceph-3");
  expect("{name}@{cpus}:{mems}/{device}", "osd.3@4-7:1/nvme0n1");
  expect("{id}{id}{id}", "333");
  expect("", "");
}

static void test_braces(void **state) {
  (void)state;
  expect("{{id}}", "{id}"); /* escaped: literal braces, no substitution */
  expect("{{{id}}}", "{3}");
  expect("a}b", "a}b");                 /* a lone closing brace is literal */
  expect("{{\"k\": 1}}", "{\"k\": 1}"); /* JSON needs {{ ... }} */
}

static void test_errors(void **state) {
  (void)state;
  expect_error("{x}", "unknown placeholder '{x}'");
  expect_error("--opt={ID}", "'{ID}'"); /* case matters */
  expect_error("{id", "unterminated");
  expect_error("{}", "unknown placeholder '{}'");
  expect_error("{nic}", "'{nic}' has no value");
  expect_error("{ id }", "'{ id }'");
  /* The message names the known placeholders. */
  expect_error("{device_name}", "{device}");
}

/* Values are never re-parsed: whatever an instance field holds lands as is,
 * inside the one element that named it. */
static void test_hostile_values_stay_literal(void **state) {
  (void)state;
  static const char *const hostile[] = {
    "a b c", "\"quoted\"", "'single'", "$(touch /tmp/pwned)", "`id`", "; rm -rf /", "x\ny", "{id}", "$HOME", "*",
  };
  for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
    struct placer_subst_var v[] = { { "device", hostile[i] }, { "id", "7" } };
    char *tmpl[] = { "prog", "--dev={device}", "{device}", "{id}", NULL };
    char **argv = NULL;
    struct placer_error *err = NULL;
    assert_int_equal(placer_substitute_argv(tmpl, v, 2, &argv, &err), 0);
    assert_int_equal(placer_argv_len(argv), 4);
    assert_string_equal(argv[0], "prog");
    char want[128];
    snprintf(want, sizeof(want), "--dev=%s", hostile[i]);
    assert_string_equal(argv[1], want);
    assert_string_equal(argv[2], hostile[i]); /* "{id}" as a value is not substituted again */
    assert_string_equal(argv[3], "7");
    placer_argv_free(argv);
  }
}

static void test_split_has_no_shell_semantics(void **state) {
  (void)state;
  struct placer_error *err = NULL;
  char **argv = NULL;
  assert_int_equal(placer_argv_split("  ceph-osd -f\t--id {id}\n -c '/etc/a b.conf' $(x) \"q\" ", &argv, &err), 0);
  const char *want[] = { "ceph-osd", "-f", "--id", "{id}", "-c", "'/etc/a", "b.conf'", "$(x)", "\"q\"" };
  assert_int_equal(placer_argv_len(argv), 9);
  for (size_t i = 0; i < 9; i++)
    assert_string_equal(argv[i], want[i]);
  placer_argv_free(argv);

  assert_int_equal(placer_argv_split(" \t\n", &argv, &err), -1);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static void test_argv_on_error_is_not_returned(void **state) {
  (void)state;
  char *tmpl[] = { "ok", "{bad}", NULL };
  char **argv = (char **)0x1;
  struct placer_error *err = NULL;
  assert_int_equal(placer_substitute_argv(tmpl, vars, N_VARS, &argv, &err), -1);
  assert_ptr_equal(argv, (char **)0x1); /* out-parameters only on success */
  assert_non_null(strstr(err->msg, "'{bad}'"));
  placer_error_free(err);
}

static void test_quote(void **state) {
  (void)state;
  char *in[] = { "sh", "-c", "echo 'hi' $X", "", "plain-arg_1.2=x:y", NULL };
  char *q = placer_argv_quote(in);
  assert_string_equal(q, "sh -c 'echo '\\''hi'\\'' $X' '' plain-arg_1.2=x:y");
  free(q);
  /* joined as they are, blanks between, nothing quoted */
  q = placer_argv_join(in);
  assert_string_equal(q, "sh -c echo 'hi' $X  plain-arg_1.2=x:y");
  free(q);
  q = placer_argv_join((char *[]){ NULL });
  assert_string_equal(q, "");
  free(q);
  q = placer_argv_join(NULL);
  assert_string_equal(q, "");
  free(q);
}

static void test_vars_from_instance(void **state) {
  (void)state;
  struct placer_instance inst = { 0 };
  inst.name = "osd.12";
  inst.role = "osd";
  inst.index = 12;
  inst.device = "nvme3n1";
  inst.cpus = hwloc_bitmap_alloc();
  inst.mems = hwloc_bitmap_alloc();
  hwloc_bitmap_set_range(inst.cpus, 8, 11);
  hwloc_bitmap_set(inst.cpus, 40);
  hwloc_bitmap_set(inst.mems, 1);
  struct placer_subst_vars v;
  placer_subst_vars_from_instance(&inst, &v);
  char *tmpl[] = { "{id}", "{index}", "{name}", "{role}", "{device}", "{cpus}", "{mems}", NULL };
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_substitute_argv(tmpl, v.vars, v.n, &argv, &err), 0);
  const char *want[] = { "12", "12", "osd.12", "osd", "nvme3n1", "8-11,40", "1" };
  for (size_t i = 0; i < 7; i++)
    assert_string_equal(argv[i], want[i]);
  placer_argv_free(argv);
  /* No NIC: {nic} is known but has no value. */
  char *nic[] = { "{nic}", NULL };
  assert_int_equal(placer_substitute_argv(nic, v.vars, v.n, &argv, &err), -1);
  assert_non_null(strstr(err->msg, "no value"));
  placer_error_free(err);
  hwloc_bitmap_free(inst.cpus);
  hwloc_bitmap_free(inst.mems);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_placeholders),
    cmocka_unit_test(test_braces),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_hostile_values_stay_literal),
    cmocka_unit_test(test_split_has_no_shell_semantics),
    cmocka_unit_test(test_argv_on_error_is_not_returned),
    cmocka_unit_test(test_quote),
    cmocka_unit_test(test_vars_from_instance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
