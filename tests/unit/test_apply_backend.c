/* Apply's backends (apply-backend.c): every ops table whole and in the
 * table under its own name (the check fio runs on its engines), a broken
 * one caught, the names --backend takes read from the table (and what the
 * command line, its man page and its completion offer), a setting one
 * backend takes refused by another, the text of a status document printed
 * by the backend it names, and status and reset dispatched on the backend
 * the state directory records (the systemd backend's state file read
 * back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-internal.h"
#include "apply/apply-systemd-internal.h"
#include "apply/apply.h"
#include "test_support.h"
#include "lib/statedir.h"

/* The table, read as every caller reads it. */
static size_t n_backends(void) {
  size_t n = 0;
  while (placer_apply_backend_at(n))
    n++;
  return n;
}

static void test_every_table_whole(void **state) {
  (void)state;
  size_t n = n_backends();
  assert_true(n >= 2);
  char words[256] = "auto";
  for (size_t i = 0; i < n; i++) {
    const struct placer_apply_backend_ops *ops = placer_apply_backend_at(i);
    const char *wrong = placer_apply_backend_ops_check(ops);
    if (wrong)
      fail_msg("backend %s: %s", ops->name, wrong);
    assert_ptr_equal(placer_apply_backend_get(ops->name), ops);
    assert_true(placer_apply_backend_known(ops->name));
    snprintf(words + strlen(words), sizeof(words) - strlen(words), "|%s", ops->name);
  }
  /* what --backend takes is the table, and nothing else */
  assert_string_equal(PLACER_APPLY_BACKEND_NAMES, words);
  assert_true(placer_apply_backend_known("auto"));
  assert_null(placer_apply_backend_get("libcgroup"));
  assert_false(placer_apply_backend_known("libcgroup"));
  assert_false(placer_apply_backend_known(""));
  assert_false(placer_apply_backend_known(NULL));
  /* "auto" is one of them, whichever PID 1 makes it */
  const struct placer_apply_backend_ops *any = placer_apply_backend_get(NULL);
  assert_non_null(any);
  assert_ptr_equal(placer_apply_backend_get("auto"), any);
}

/* A copy of BASE with FIELD unset: the check names what is missing. */
#define EXPECT_MISSING(BASE, FIELD, WHY)                               \
  do {                                                                 \
    struct placer_apply_backend_ops broken = *(BASE);                  \
    broken.FIELD = NULL;                                               \
    assert_string_equal(placer_apply_backend_ops_check(&broken), WHY); \
  } while (0)

static void test_broken_tables_caught(void **state) {
  (void)state;
  const struct placer_apply_backend_ops *first = placer_apply_backend_at(0), *second = placer_apply_backend_at(1);
  struct placer_apply_backend_ops copy = *first;
  assert_string_equal(placer_apply_backend_ops_check(&copy), "not in backends[]");
  copy.name = "";
  assert_string_equal(placer_apply_backend_ops_check(&copy), "no name");
  copy.name = "auto";
  assert_string_equal(placer_apply_backend_ops_check(&copy), "a name apply keeps for itself");
  EXPECT_MISSING(second, state_file, "no state_file");
  EXPECT_MISSING(second, settings, "no settings");
  EXPECT_MISSING(second, apply, "no apply");
  EXPECT_MISSING(second, status, "no status");
  EXPECT_MISSING(second, reset, "no reset");
  EXPECT_MISSING(first, reset_run, "no reset_run");
  EXPECT_MISSING(first, print_status, "no print_status");
}

/* The value names the command line offers for --backend: its --help, its
 * man page and the bash completion, all from the table. */
static void test_cli_reads_the_table(void **state) {
  (void)state;
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  /* the man page's option line: each word in bold */
  char man[256] = "\\fB\\-\\-backend\\fR \\fBauto\\fR";
  for (size_t i = 0; placer_apply_backend_at(i); i++)
    snprintf(man + strlen(man), sizeof(man) - strlen(man), "|\\fB%s\\fR", placer_apply_backend_at(i)->name);
  char cmd[1024];
  snprintf(cmd, sizeof(cmd),
           "%s apply --help | grep -qF -- '--backend %s' && %s help --man apply | grep -qxF '%s' && "
           "%s help --bash-completion | grep -qF -- '--backend=words:%s'",
           bin, PLACER_APPLY_BACKEND_NAMES, bin, man, bin, PLACER_APPLY_BACKEND_NAMES);
  if (system(cmd) != 0)
    fail_msg("placer's help, man page or completion does not offer --backend %s", PLACER_APPLY_BACKEND_NAMES);
  snprintf(cmd, sizeof(cmd),
           "%s apply --backend nope x.yaml 2>&1 | grep -qxF \"placer apply: --backend wants one of %s, got 'nope'\"",
           bin, PLACER_APPLY_BACKEND_NAMES);
  if (system(cmd) != 0)
    fail_msg("placer apply --backend nope: not the one line naming the table's backends");
}

/* A setting of another backend (the systemd backend's --persist) is refused
 * by name before anything is read or changed, naming who takes it. */
static void test_settings_of_another_backend(void **state) {
  (void)state;
  struct placer_apply_setting persist = { "persist", NULL };
  struct placer_apply_options opt = {
    .backend = "cgroupfs", .settings = &persist, .n_settings = 1, .state_dir = "/nonexistent/placer-test"
  };
  struct placer_plan plan = { .profile_name = "p" };
  struct placer_apply_report *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_apply(&plan, &opt, &r, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "--persist needs the systemd backend (this is cgroupfs)");
  placer_error_clear(&err);
  /* what the systemd backend takes, it checks itself */
  struct placer_apply_setting restart[] = { { "restart", "now" } };
  opt = (struct placer_apply_options){
    .backend = "systemd", .settings = restart, .n_settings = 1, .state_dir = "/nonexistent/placer-test"
  };
  assert_int_equal(placer_apply(&plan, &opt, &r, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "--restart wants 'rolling', got 'now'");
  placer_error_clear(&err);
  struct placer_apply_setting health[] = { { "health-cmd", "true" } };
  opt.settings = health;
  assert_int_equal(placer_apply(&plan, &opt, &r, &err), -1);
  assert_string_equal(err->msg, "--health-cmd and --health-timeout go with --restart rolling");
  placer_error_clear(&err);
  assert_int_equal(access("/nonexistent/placer-test", F_OK), -1);
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

/* A scratch state directory per test, removed also when the test fails:
 * the teardown fails when anything else is left in it. */
static char tmpdir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s.XXXXXX", "test_apply_backend");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  const char *files[] = { "state.json", "systemd.json", "lock" };
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
    unlink(path);
  }
  return rmdir(tmpdir);
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

/* A state file as placer writes it for DIR: BODY after its boot and directory. */
static void write_state(const char *dir, const char *name, const char *body) {
  char text[1024];
  snprintf(text, sizeof(text), "{%s%s", test_state_binding(dir), body);
  write_in(dir, name, text);
}

static void test_recorded_backend(void **state) {
  (void)state;
  const char *dir = tmpdir;
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
}

/* A state without "backend" still works end to end: status reads it
 * through cgroupfs (nothing applied, no instance: no cgroup needed).  One
 * that records no boot and directory (an older placer's, or made by hand)
 * or another directory's (a copy) is refused, exit 4, one line. */
static void test_old_state_status(void **state) {
  (void)state;
  const char *dir = tmpdir;
  const char *body = "\"schema\": 1, \"cgroup_mode\": \"v1\", \"cgroup_root\": \"/sys/fs/cgroup\", \"prefix\": "
                     "\"placer\", \"last_txn\": 1, \"pending_txn\": null, \"pending_pid\": null, \"instances\": [], "
                     "\"journal\": []}";
  write_state(dir, "state.json", body);
  json_t *doc = NULL;
  bool drift = true;
  struct placer_error *err = NULL;
  if (placer_status(dir, &doc, &drift, &err) < 0)
    fail_msg("status of an old state: %s", err->msg);
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "cgroupfs");
  assert_false(drift);
  json_decref(doc);

  char text[1024];
  snprintf(text, sizeof(text), "{%s", body);
  write_in(dir, "state.json", text);
  assert_int_equal(placer_status(dir, &doc, &drift, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_non_null(strstr(err->msg, "state.json records no boot and directory: this placer did not write it"));
  placer_error_clear(&err);
  snprintf(text, sizeof(text), "{\"boot_id\": \"%s\", \"state_id\": \"1:2\", %s", placer_boot_id(), body);
  write_in(dir, "state.json", text);
  assert_int_equal(placer_status(dir, &doc, &drift, &err), -1);
  assert_non_null(strstr(err->msg, "state.json was written for another directory (1:2; this one is "));
  placer_error_clear(&err);
}

/* The systemd backend's state file (state.h's kind placer_state_units):
 * what it records reads back the same, it names its backend, and an
 * emptied state removes the file. */
static void test_systemd_state_round_trip(void **state) {
  (void)state;
  const char *dir = tmpdir;
  struct placer_state *s = NULL;
  struct placer_error *err = NULL;
  /* none: a new state for this directory, locked as the backend's apply locks it */
  assert_int_equal(placer_state_open_kind(dir, &placer_state_units, PLACER_STATE_LOCK_EXCLUSIVE, &s, NULL, &err), 0);
  assert_int_equal(s->n_units, 0);
  assert_true(placer_state_is_empty(s));
  s->backend = strdup("systemd");
  s->profile_name = strdup("p");
  s->applied_at = strdup("2025-01-02T03:04:05Z");
  s->persist = true;
  s->units = calloc(1, sizeof(*s->units));
  s->n_units = 1;
  struct placer_state_unit *si = &s->units[0];
  si->name = strdup("osd.0");
  si->role = strdup("osd");
  si->kind = PLACER_KIND_CEPH_OSD;
  si->match = strdup("ceph-osd --id 0");
  si->unit = strdup("ceph-osd@0.service");
  si->cgroup = strdup("/system.slice/ceph-osd@0.service");
  si->cpus = strdup("2-3");
  si->mems = strdup("0");
  si->has_memory_limit = true;
  si->memory_bytes = 1ull << 30;
  si->cpu_weight = 300;
  si->previous[SD_ALLOWED_CPUS] = strdup("");
  si->created[SD_ALLOWED_CPUS] = true;
  si->dropin = strdup("/etc/systemd/system/ceph-osd@0.service.d/50-placer.conf");
  si->procs = calloc(1, sizeof(*si->procs));
  si->procs[0] = (struct placer_state_process){ .pid = 4505, .start_time = 1234567 };
  si->n_procs = 1;
  assert_int_equal(placer_state_save(s, &err), 0);

  char path[300];
  snprintf(path, sizeof(path), "%s/%s", dir, SD_STATE_FILE);
  char *text = test_read_file(path);
  assert_non_null(text);
  json_t *doc = json_loads(text, 0, NULL);
  assert_non_null(doc);
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "systemd");
  assert_null(json_object_get(doc, "journal")); /* each unit's record says how to set it back */
  json_decref(doc);
  free(text);
  const struct placer_apply_backend_ops *ops = NULL;
  assert_int_equal(placer_apply_backend_recorded(dir, &ops, &err), 0);
  assert_string_equal(ops->name, "systemd");

  /* a second opener waits for the lock the backend holds (the cgroupfs backend's too) */
  struct placer_state *b = NULL;
  assert_int_equal(placer_state_open(dir, PLACER_STATE_LOCK_EXCLUSIVE, &b, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "another placer apply or reset is running"));
  placer_error_clear(&err);
  assert_int_equal(placer_state_open_kind(dir, &placer_state_units, PLACER_STATE_NO_LOCK, &b, NULL, &err), 0);
  assert_string_equal(b->profile_name, "p");
  assert_string_equal(b->applied_at, "2025-01-02T03:04:05Z");
  assert_true(b->persist);
  assert_int_equal(b->n_units, 1);
  const struct placer_state_unit *bi = &b->units[0];
  assert_string_equal(bi->name, "osd.0");
  assert_int_equal(bi->kind, PLACER_KIND_CEPH_OSD);
  assert_string_equal(bi->unit, "ceph-osd@0.service");
  assert_string_equal(bi->cgroup, "/system.slice/ceph-osd@0.service");
  assert_string_equal(bi->cpus, "2-3");
  assert_string_equal(bi->mems, "0");
  assert_true(bi->has_memory_limit);
  assert_int_equal(bi->memory_bytes, 1ull << 30);
  assert_int_equal(bi->cpu_weight, 300);
  assert_string_equal(bi->previous[SD_ALLOWED_CPUS], "");
  assert_null(bi->previous[SD_MEMORY_MAX]);
  assert_true(bi->created[SD_ALLOWED_CPUS]);
  assert_false(bi->created[SD_CPU_WEIGHT]);
  assert_string_equal(bi->dropin, "/etc/systemd/system/ceph-osd@0.service.d/50-placer.conf");
  assert_int_equal(bi->n_procs, 1);
  assert_int_equal(bi->procs[0].pid, 4505);
  assert_int_equal(bi->procs[0].start_time, 1234567);
  placer_state_free(b);

  /* a drop-in placer does not write is refused: nothing would be removed */
  free(s->units[0].dropin);
  s->units[0].dropin = strdup("/etc/passwd");
  assert_int_equal(placer_state_save(s, &err), 0);
  assert_int_equal(placer_state_open_kind(dir, &placer_state_units, PLACER_STATE_NO_LOCK, &b, NULL, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_non_null(strstr(err->msg, "systemd.json: osd.0: drop-in '/etc/passwd' is not the one placer writes"));
  placer_error_clear(&err);

  /* nothing left to undo: the file goes, and nothing is recorded any more */
  placer_state_unit_clear(&s->units[0]);
  s->n_units = 0;
  assert_int_equal(placer_state_save(s, &err), 0);
  assert_int_equal(access(path, F_OK), -1);
  assert_int_equal(placer_apply_backend_recorded(dir, &ops, &err), 0);
  assert_string_equal(ops->name, "cgroupfs");
  assert_int_equal(placer_state_save(s, &err), 0); /* twice is fine */
  placer_state_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_table_whole),
    cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_cli_reads_the_table),
    cmocka_unit_test(test_settings_of_another_backend),
    cmocka_unit_test(test_status_text_by_backend),
    cmocka_unit_test_setup_teardown(test_recorded_backend, make_dir, remove_dir),
    cmocka_unit_test_setup_teardown(test_old_state_status, make_dir, remove_dir),
    cmocka_unit_test_setup_teardown(test_systemd_state_round_trip, make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
