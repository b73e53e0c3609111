/* `placer apply --json` and `placer reset --json` documents (apply-json.c):
 * the changed flag, groups created and changed, pids bound, per instance
 * what changed; a dry run says would_bind; reset's document is one shape
 * for both backends, and what only one reports (the groups removed and pids
 * moved back of cgroupfs, the units set back and drop-ins removed of
 * systemd) sits under the backend's name.  Built from reports made by hand and, for
 * systemd, by the backend's own sd_reset_result_add; plus the CLI on an
 * empty state directory of each backend (no root, nothing changes). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply/apply-systemd-internal.h"
#include "apply/apply.h"
#include "test_support.h"

static char *sv[] = { "t/osd", "t/osd/osd.0" };
static char *changed_groups[] = { "t/osd/osd.0" };
static char *acts[] = { "osd.0: create group t/osd", "osd.0: create group t/osd/osd.0",
                        "osd.0: set t/osd/osd.0 cpus = 1 (was 0-1)" };

static void fill_report(struct placer_apply_report *r, struct placer_apply_instance_report *ri,
                        struct placer_apply_bound *b, bool dry_run, unsigned steps) {
  *b = (struct placer_apply_bound){ .pid = 4505, .comm = "ceph-osd", .n_threads = 59, .n_descendants = 2 };
  *ri = (struct placer_apply_instance_report){ .name = "osd.0",
                                               .group = "t/osd/osd.0",
                                               .cpus = "1",
                                               .mems = "0",
                                               .has_memory_limit = true,
                                               .memory_bytes = 1610612736,
                                               .bound = b,
                                               .n_bound = 1,
                                               .changes = steps };
  *r = (struct placer_apply_report){ .profile_name = "demo",
                                     .cgroup_mode = "v1",
                                     .state_dir = "/run/placer",
                                     .dry_run = dry_run,
                                     .steps = steps,
                                     .instances = ri,
                                     .n_instances = 1,
                                     .actions = steps ? acts : NULL,
                                     .n_actions = steps ? 3 : 0,
                                     .groups_created = steps ? sv : NULL,
                                     .n_groups_created = steps ? 2 : 0,
                                     .groups_changed = steps ? changed_groups : NULL,
                                     .n_groups_changed = steps ? 1 : 0 };
}

static void test_apply_changed(void **state) {
  (void)state;
  struct placer_apply_report r;
  struct placer_apply_instance_report ri;
  struct placer_apply_bound b;
  fill_report(&r, &ri, &b, false, 3);
  json_t *doc = placer_apply_report_json(&r);
  assert_non_null(doc);
  assert_int_equal(json_integer_value(json_object_get(doc, "schema")), PLACER_APPLY_JSON_SCHEMA);
  assert_string_equal(json_string_value(json_object_get(doc, "command")), "apply");
  assert_true(json_is_true(json_object_get(doc, "changed")));
  assert_int_equal(json_integer_value(json_object_get(doc, "changes")), 3);
  json_t *created = json_object_get(doc, "groups_created");
  assert_int_equal(json_array_size(created), 2);
  assert_string_equal(json_string_value(json_array_get(created, 1)), "t/osd/osd.0");
  assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "groups_changed"), 0)), "t/osd/osd.0");
  json_t *pids = json_object_get(doc, "pids_bound");
  assert_int_equal(json_array_size(pids), 1);
  assert_int_equal(json_integer_value(json_array_get(pids, 0)), 4505);
  json_t *inst = json_array_get(json_object_get(doc, "instances"), 0);
  assert_string_equal(json_string_value(json_object_get(inst, "cpus")), "1");
  assert_int_equal(json_integer_value(json_object_get(inst, "memory_bytes")), 1610612736);
  assert_true(json_is_null(json_object_get(inst, "note")));
  json_t *bound = json_object_get(inst, "bound");
  assert_int_equal(json_integer_value(json_object_get(json_array_get(bound, 0), "n_threads")), 59);
  assert_int_equal(json_integer_value(json_object_get(json_array_get(bound, 0), "n_descendants")), 2);
  assert_null(json_object_get(inst, "would_bind"));
  assert_int_equal(json_array_size(json_object_get(doc, "actions")), 3);
  json_decref(doc);
}

static void test_apply_unchanged_and_dry_run(void **state) {
  (void)state;
  struct placer_apply_report r;
  struct placer_apply_instance_report ri;
  struct placer_apply_bound b;
  fill_report(&r, &ri, &b, false, 0);
  ri.has_memory_limit = false;
  json_t *doc = placer_apply_report_json(&r);
  assert_non_null(doc);
  assert_true(json_is_false(json_object_get(doc, "changed")));
  assert_int_equal(json_array_size(json_object_get(doc, "groups_created")), 0);
  assert_int_equal(json_array_size(json_object_get(doc, "pids_bound")), 1); /* still bound */
  json_t *inst = json_array_get(json_object_get(doc, "instances"), 0);
  assert_true(json_is_false(json_object_get(inst, "changed")));
  assert_true(json_is_null(json_object_get(inst, "memory_bytes")));
  json_decref(doc);

  fill_report(&r, &ri, &b, true, 3);
  doc = placer_apply_report_json(&r);
  assert_non_null(doc);
  assert_true(json_is_true(json_object_get(doc, "dry_run")));
  assert_true(json_is_true(json_object_get(doc, "changed")));
  inst = json_array_get(json_object_get(doc, "instances"), 0);
  assert_non_null(json_object_get(inst, "would_bind"));
  assert_null(json_object_get(inst, "bound"));
  json_decref(doc);
}

static void test_reset(void **state) {
  (void)state;
  char *lines[] = { "reset: 5 changes undone" };
  struct placer_reset_result res = {
    .backend = "cgroupfs", .state_dir = "/run/placer", .changed = true, .n_undone = 5, .lines = lines, .n_lines = 1
  };
  /* what only the cgroupfs backend reports: the groups it removed, the processes it moved back */
  const char *const keys[] = { "groups_removed", "pids_restored", NULL };
  assert_int_equal(apply_reset_details(&res, keys), 0);
  assert_int_equal(apply_reset_detail(&res, keys[0], json_string("t/osd/osd.0")), 0);
  assert_int_equal(apply_reset_detail(&res, keys[0], json_string("t/osd")), 0);
  assert_int_equal(apply_reset_detail(&res, keys[0], json_string("t")), 0);
  assert_int_equal(apply_reset_detail(&res, keys[1], json_integer(4505)), 0);
  assert_int_equal(apply_reset_detail_count(&res, keys[0]), 3);
  json_t *doc = placer_reset_result_json(&res);
  assert_non_null(doc);
  assert_int_equal(json_integer_value(json_object_get(doc, "schema")), 2);
  assert_string_equal(json_string_value(json_object_get(doc, "command")), "reset");
  assert_true(json_is_true(json_object_get(doc, "changed")));
  assert_true(json_is_false(json_object_get(doc, "interrupted")));
  assert_int_equal(json_integer_value(json_object_get(doc, "changes")), 5);
  json_t *own = json_object_get(doc, "cgroupfs");
  assert_string_equal(json_string_value(json_array_get(json_object_get(own, "groups_removed"), 2)), "t");
  assert_int_equal(json_integer_value(json_array_get(json_object_get(own, "pids_restored"), 0)), 4505);
  assert_null(json_object_get(doc, "groups_removed")); /* never at the top: it is the backend's */
  assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "messages"), 0)), lines[0]);
  json_decref(doc);
  json_decref(res.details);

  struct placer_reset_result empty = { .backend = "irqs", .state_dir = "/x" };
  doc = placer_reset_result_json(&empty);
  assert_non_null(doc);
  assert_true(json_is_false(json_object_get(doc, "changed")));
  assert_null(json_object_get(doc, "irqs")); /* nothing of a backend's own */
  json_decref(doc);
}

/* The keys of DOC in order, one string ("schema command backend ..."). */
static void keys_of(json_t *doc, char *buf, size_t size) {
  const char *key;
  json_t *v;
  buf[0] = '\0';
  json_object_foreach(doc, key, v) {
    (void)v;
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " " : "", key);
  }
}

/* The keys of a reset document of BACKEND (what only it reports under its name). */
static const char *reset_keys(const char *backend) {
  static char keys[256];
  snprintf(keys, sizeof(keys), "schema command backend state_dir changed interrupted changes %s messages", backend);
  return keys;
}

/* What the systemd backend's reset puts in the document: each unit set back,
 * each drop-in removed, one change each, under "systemd"; the same keys,
 * in the same order, as the cgroupfs backend's, its own under its name. */
static void test_reset_systemd(void **state) {
  (void)state;
  struct placer_state_unit osd = { .name = strdup("osd.0"),
                                   .unit = strdup("ceph-osd@0.service"),
                                   .dropin = strdup("/etc/systemd/system/ceph-osd@0.service.d/50-placer.conf") };
  struct placer_state_unit mds = { .name = strdup("mds.a"), .unit = strdup("ceph-mds@a.service") };
  struct placer_state_unit gone = { .name = strdup("vm.0"),
                                    .unit = strdup("vm0.service"),
                                    .dropin = strdup("/etc/systemd/system/vm0.service.d/50-placer.conf") };
  struct placer_reset_result res = { .backend = "systemd", .state_dir = strdup("/run/placer"), .changed = true };
  /* newest first, as undo_all goes: a unit no longer loaded keeps only its drop-in removal */
  assert_int_equal(sd_reset_result_add(&res, &gone, &(struct sd_undone){ false, true }), 0);
  assert_int_equal(sd_reset_result_add(&res, &mds, &(struct sd_undone){ true, false }), 0);
  assert_int_equal(sd_reset_result_add(&res, &osd, &(struct sd_undone){ true, true }), 0);
  struct placer_string_list lines = { NULL, 0, 0 };
  assert_int_equal(placer_string_list_addf(&lines, "reset: 2 units set back through systemd, 2 drop-ins removed; ..."),
                   0);
  res.lines = lines.items;
  res.n_lines = lines.n;

  json_t *doc = placer_reset_result_json(&res);
  assert_non_null(doc);
  char keys[512];
  keys_of(doc, keys, sizeof(keys));
  assert_string_equal(keys, reset_keys("systemd"));
  assert_string_equal(json_string_value(json_object_get(doc, "command")), "reset");
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "systemd");
  assert_string_equal(json_string_value(json_object_get(doc, "state_dir")), "/run/placer");
  assert_true(json_is_true(json_object_get(doc, "changed")));
  assert_true(json_is_false(json_object_get(doc, "interrupted")));
  assert_int_equal(json_integer_value(json_object_get(doc, "changes")), 4);
  json_t *own = json_object_get(doc, "systemd");
  assert_int_equal(json_object_size(own), 2);
  json_t *units = json_object_get(own, "units_restored");
  assert_int_equal(json_array_size(units), 2);
  assert_string_equal(json_string_value(json_array_get(units, 0)), "ceph-mds@a.service");
  assert_string_equal(json_string_value(json_array_get(units, 1)), "ceph-osd@0.service");
  json_t *dropins = json_object_get(own, "dropins_removed");
  assert_int_equal(json_array_size(dropins), 2);
  assert_string_equal(json_string_value(json_array_get(dropins, 0)), gone.dropin);
  assert_string_equal(json_string_value(json_array_get(dropins, 1)), osd.dropin);
  assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "messages"), 0)), lines.items[0]);
  json_decref(doc);

  placer_reset_result_clear(&res);
  placer_state_unit_clear(&osd);
  placer_state_unit_clear(&mds);
  placer_state_unit_clear(&gone);
}

/* `placer reset --json --state-dir DIR` into WORK/out; the document, exit 0. */
static json_t *cli_reset_json(const char *bin, const char *work) {
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "'%s' reset --json --state-dir '%s/state' >'%s/out' 2>&1", bin, work, work);
  int status = system(cmd);
  assert_true(WIFEXITED(status));
  char path[256];
  snprintf(path, sizeof(path), "%s/out", work);
  char *out = test_read_file(path);
  assert_non_null(out);
  if (WEXITSTATUS(status) != 0)
    fail_msg("reset --json: exit %d: %s", WEXITSTATUS(status), out);
  json_error_t jerr;
  json_t *doc = json_loads(out, 0, &jerr);
  if (doc == NULL)
    fail_msg("reset --json printed no JSON (%s): %s", jerr.text, out);
  free(out);
  return doc;
}

/* The CLI: reset --json on an empty state directory of each backend (the
 * systemd one is a systemd.json without instances: the backend's own reset
 * runs, undoes nothing, needs no systemd and removes the file). */
static void test_cli_reset_json_empty(void **state) {
  (void)state;
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char work[] = "/tmp/placer-test-apply-json.XXXXXX";
  assert_non_null(mkdtemp(work));
  char keys[512];
  json_t *doc = cli_reset_json(bin, work);
  keys_of(doc, keys, sizeof(keys));
  assert_string_equal(keys, reset_keys("cgroupfs"));
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "cgroupfs");
  assert_int_equal(json_array_size(json_object_get(json_object_get(doc, "cgroupfs"), "groups_removed")), 0);
  assert_true(json_is_false(json_object_get(doc, "changed")));
  json_decref(doc);
  char path[256];
  snprintf(path, sizeof(path), "%s/state", work);
  assert_int_equal(access(path, F_OK), -1); /* nothing applied: no state directory left behind */

  assert_int_equal(mkdir(path, 0755), 0);
  const char *binding = test_state_binding(path);
  snprintf(path, sizeof(path), "%s/state/systemd.json", work);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "{ %s\"schema\": 1, \"backend\": \"systemd\", \"profile\": \"p\", \"instances\": [] }\n", binding);
  assert_int_equal(fclose(f), 0);
  doc = cli_reset_json(bin, work);
  keys_of(doc, keys, sizeof(keys));
  assert_string_equal(keys, reset_keys("systemd"));
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "systemd");
  assert_true(json_is_false(json_object_get(doc, "changed")));
  assert_int_equal(json_integer_value(json_object_get(doc, "changes")), 0);
  assert_int_equal(json_array_size(json_object_get(json_object_get(doc, "systemd"), "units_restored")), 0);
  assert_true(strncmp(json_string_value(json_array_get(json_object_get(doc, "messages"), 0)), "nothing to reset", 16) ==
              0);
  json_decref(doc);
  assert_int_equal(access(path, F_OK), -1); /* gone: the next reset is the cgroupfs one's */

  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_apply_changed),
    cmocka_unit_test(test_apply_unchanged_and_dry_run),
    cmocka_unit_test(test_reset),
    cmocka_unit_test(test_reset_systemd),
    cmocka_unit_test(test_cli_reset_json_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
