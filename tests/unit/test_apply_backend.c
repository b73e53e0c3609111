/* Apply's backends (apply-backend.c): every ops table whole and in the
 * table under its own name (the check fio runs on its engines), a broken
 * one caught, the names --backend takes, and the text of a status document
 * printed by the backend it names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply-internal.h"
#include "apply.h"
#include "test_support.h"

static const enum placer_apply_backend_kind kinds[] = { PLACER_APPLY_BACKEND_CGROUPFS, PLACER_APPLY_BACKEND_SYSTEMD };
static const char *const kind_names[] = { "cgroupfs", "systemd" };

static void test_every_table_whole(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    const struct placer_apply_backend_ops *ops = placer_apply_backend_get(kinds[i]);
    const char *wrong = placer_apply_backend_ops_check(ops);
    if (wrong)
      fail_msg("backend %s: %s", ops->name, wrong);
    assert_string_equal(ops->name, kind_names[i]);
    assert_ptr_equal(placer_apply_backend_find(kind_names[i]), ops);
  }
  assert_ptr_equal(placer_apply_backend_get(PLACER_APPLY_BACKEND_CGROUPFS), &placer_apply_backend_cgroupfs);
  assert_ptr_equal(placer_apply_backend_get(PLACER_APPLY_BACKEND_SYSTEMD), &placer_apply_backend_systemd);
  /* only systemd places units (--persist, --restart) */
  assert_true(placer_apply_backend_systemd.flags & PLACER_APPLY_BACKEND_UNITS);
  assert_false(placer_apply_backend_cgroupfs.flags & PLACER_APPLY_BACKEND_UNITS);
  assert_null(placer_apply_backend_find("auto"));
  assert_null(placer_apply_backend_find("libcgroup"));
  assert_null(placer_apply_backend_find(NULL));
}

static void test_broken_tables_caught(void **state) {
  (void)state;
  struct placer_apply_backend_ops copy = placer_apply_backend_cgroupfs;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "not in backends[]");
  copy.name = "";
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no name");
  copy = placer_apply_backend_systemd;
  copy.apply = NULL;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no apply");
  copy = placer_apply_backend_systemd;
  copy.status = NULL;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no status");
  copy = placer_apply_backend_systemd;
  copy.reset = NULL;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no reset");
  copy = placer_apply_backend_cgroupfs;
  copy.reset_run = NULL;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no reset_run");
  copy = placer_apply_backend_cgroupfs;
  copy.print_status = NULL;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no print_status");
}

static void test_backend_names(void **state) {
  (void)state;
  enum placer_apply_backend_kind k = PLACER_APPLY_BACKEND_AUTO;
  assert_int_equal(placer_apply_backend_parse("systemd", &k), 0);
  assert_int_equal(k, PLACER_APPLY_BACKEND_SYSTEMD);
  assert_int_equal(placer_apply_backend_parse("cgroupfs", &k), 0);
  assert_int_equal(k, PLACER_APPLY_BACKEND_CGROUPFS);
  assert_int_equal(placer_apply_backend_parse("auto", &k), 0);
  assert_int_equal(k, PLACER_APPLY_BACKEND_AUTO);
  assert_int_equal(placer_apply_backend_parse("libcgroup", &k), -1);
  assert_int_equal(placer_apply_backend_parse("", &k), -1);
  assert_int_equal(k, PLACER_APPLY_BACKEND_AUTO); /* untouched on failure */
  /* AUTO is one of the two, whichever PID 1 makes it */
  const struct placer_apply_backend_ops *any = placer_apply_backend_get(PLACER_APPLY_BACKEND_AUTO);
  assert_true(any == &placer_apply_backend_cgroupfs || any == &placer_apply_backend_systemd);
}

/* The text of a status document: each backend's header, by its "backend". */
static char *print_status(const char *doc_text) {
  json_error_t jerr;
  json_t *doc = json_loads(doc_text, 0, &jerr);
  assert_non_null(doc);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  assert_int_equal(placer_status_print_text(doc, f), 0);
  fclose(f);
  json_decref(doc);
  return text;
}

static void test_status_text_by_backend(void **state) {
  (void)state;
#define DOC(BACKEND)                                                                                  \
  "{" BACKEND "\"applied\": true, \"profile\": \"p\", \"applied_at\": \"t\", \"state_dir\": \"/x\", " \
  "\"cgroup_mode\": \"v2\", \"prefix\": \"placer\", \"instances\": []}"
  char *sd = print_status(DOC("\"backend\": \"systemd\", "));
  char *fs = print_status(DOC("\"backend\": \"cgroupfs\", "));
  char *none = print_status(DOC(""));
  assert_non_null(strstr(sd, "profile p applied t through systemd (runtime properties, until reboot; state /x)\n"));
  assert_non_null(strstr(fs, "profile p applied t (cgroup v2, groups under placer/, state /x)\n"));
  assert_null(strstr(fs, "through systemd"));
  assert_string_equal(fs, none); /* no backend named: cgroupfs's */
  free(sd);
  free(fs);
  free(none);
}

/* Status and reset follow the backend the state directory records. */
static void write_in(const char *dir, const char *name, const char *text) {
  char path[300];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  if (text)
    test_write_file(path, text);
  else
    unlink(path);
}

static const char *recorded(const char *dir) {
  const struct placer_apply_backend_ops *ops = NULL;
  struct placer_error *err = NULL;
  if (placer_apply_backend_recorded(dir, &ops, &err) < 0)
    fail_msg("recorded backend of %s: %s", dir, err->msg);
  return ops->name;
}

static void test_recorded_backend(void **state) {
  (void)state;
  char dir[] = "/tmp/test_apply_backend.XXXXXX";
  assert_non_null(mkdtemp(dir));
  /* nothing applied: cgroupfs, whose status and reset say so */
  assert_string_equal(recorded(dir), "cgroupfs");
  /* a state.json from before the record: cgroupfs */
  write_in(dir, "state.json", "{\"schema\": 1, \"last_txn\": 1, \"instances\": [], \"journal\": []}");
  assert_string_equal(recorded(dir), "cgroupfs");
  /* what the cgroupfs backend writes now */
  write_in(dir, "state.json", "{\"schema\": 1, \"backend\": \"cgroupfs\", \"last_txn\": 1}");
  assert_string_equal(recorded(dir), "cgroupfs");
  /* the record decides, not the file's name */
  write_in(dir, "state.json", "{\"schema\": 1, \"backend\": \"systemd\", \"last_txn\": 1}");
  assert_string_equal(recorded(dir), "systemd");
  write_in(dir, "state.json", NULL);
  /* the systemd backend's state, with its record */
  write_in(dir, "systemd.json", "{\"schema\": 1, \"backend\": \"systemd\", \"instances\": []}");
  assert_string_equal(recorded(dir), "systemd");
  /* a file that does not parse: its own backend, whose loader says why */
  write_in(dir, "systemd.json", "{ not json");
  assert_string_equal(recorded(dir), "systemd");
  /* a backend this placer does not know: one line, exit 4 */
  write_in(dir, "systemd.json", "{\"schema\": 1, \"backend\": \"libcgroup\"}");
  const struct placer_apply_backend_ops *ops = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_apply_backend_recorded(dir, &ops, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  char want[400];
  snprintf(want, sizeof(want), "%s/systemd.json: applied through backend 'libcgroup', which this placer does not know",
           dir);
  assert_string_equal(err->msg, want);
  placer_error_free(err);
  write_in(dir, "systemd.json", NULL);
  assert_int_equal(rmdir(dir), 0);
}

/* An old state (no "backend") still works end to end: status reads it
 * through cgroupfs (nothing applied, no instance: no cgroup needed). */
static void test_old_state_status(void **state) {
  (void)state;
  char dir[] = "/tmp/test_apply_backend.XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_in(dir, "state.json",
           "{\"schema\": 1, \"cgroup_mode\": \"v1\", \"cgroup_root\": \"/sys/fs/cgroup\", \"prefix\": \"placer\", "
           "\"last_txn\": 1, \"pending_txn\": null, \"pending_pid\": null, \"instances\": [], \"journal\": []}");
  json_t *doc = NULL;
  bool drift = true;
  struct placer_error *err = NULL;
  if (placer_status(dir, &doc, &drift, &err) < 0)
    fail_msg("status of an old state: %s", err->msg);
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "cgroupfs");
  assert_false(drift);
  json_decref(doc);
  write_in(dir, "state.json", NULL);
  write_in(dir, "lock", NULL);
  assert_int_equal(rmdir(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_table_whole), cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_backend_names),     cmocka_unit_test(test_status_text_by_backend),
    cmocka_unit_test(test_recorded_backend),  cmocka_unit_test(test_old_state_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
