/* The apply state directory without root: state.json round trip (every
 * journal record kind), atomic save/reload in a temporary directory, the
 * lock, and the small comparisons apply and status rely on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply-internal.h"
#include "state.h"
#include "test_support.h"
#include "topology/topology.h"

static void fill_state(struct placer_state *s) {
  s->backend = strdup("cgroupfs");
  s->cgroup_mode = strdup("v1");
  s->cgroup_root = strdup("/sys/fs/cgroup");
  s->prefix = strdup("placer");
  s->profile_name = strdup("demo-local");
  s->profile_path = strdup("profiles/demo-local.yaml");
  s->topology_source = strdup("live");
  s->applied_at = strdup("2025-01-02T03:04:05Z");
  s->last_txn = 2;
  s->pending_txn = 2;
  s->pending_pid = 4321;

  s->n_instances = 1;
  s->instances = calloc(1, sizeof(*s->instances));
  struct placer_state_instance *i = &s->instances[0];
  i->name = strdup("osd.3");
  i->role = strdup("osd");
  i->kind = PLACER_KIND_CEPH_OSD;
  i->group = strdup("placer/osd/osd.3");
  i->pinned = true;
  i->cpus = strdup("4-7");
  i->mems = strdup("1");
  i->has_memory_limit = true;
  i->memory_bytes = 6ull << 30;
  i->cpu_weight = 200;
  i->cpu_quota = 1500;
  i->match.kind = PLACER_MATCH_CEPH_ID;
  i->match.value = strdup("3");
  i->by_pid = true;
  i->n_procs = 2;
  i->procs = calloc(2, sizeof(*i->procs));
  i->procs[0] = (struct placer_state_process){ 1234, 5678 };
  i->procs[1] = (struct placer_state_process){ 1240, 18446744073709551ull };

  s->n_journal = 5;
  s->journal = calloc(5, sizeof(*s->journal));
  s->journal[0] = (struct placer_journal_entry){
    .txn = 1, .op = PLACER_JOURNAL_CREATE, .group = strdup("placer"), .unmarked = true /* no xattrs there */
  };
  s->journal[1] = (struct placer_journal_entry){ .txn = 1,
                                                 .op = PLACER_JOURNAL_SET,
                                                 .group = strdup("placer/osd/osd.3"),
                                                 .setting = PLACER_SETTING_MEMORY_LIMIT,
                                                 .previous = strdup("max") };
  s->journal[4] = (struct placer_journal_entry){ .txn = 2,
                                                 .op = PLACER_JOURNAL_SET,
                                                 .group = strdup("placer/osd"),
                                                 .setting = PLACER_SETTING_CPU_QUOTA,
                                                 .previous = strdup("20000 50000") };
  struct placer_journal_entry *m = &s->journal[2];
  *m = (struct placer_journal_entry){ .txn = 2,
                                      .op = PLACER_JOURNAL_MOVE,
                                      .pid = 1234,
                                      .start_time = 5678,
                                      .group = strdup("placer/osd/osd.3"),
                                      .instance = strdup("osd.3") };
  m->original.path[PLACER_CGROUP_CPUSET] = strdup("");
  m->original.path[PLACER_CGROUP_MEMORY] = strdup("process_api/abc");
  m->original.path[PLACER_CGROUP_CPU] = strdup("system.slice/ceph-osd@3.service");
  m->original.path[PLACER_CGROUP_CPUACCT] = strdup("system.slice/ceph-osd@3.service");
  m->n_threads = 2;
  m->threads = calloc(2, sizeof(*m->threads));
  m->threads[0] = (struct placer_thread_affinity){ 1234, strdup("0-15") };
  m->threads[1] = (struct placer_thread_affinity){ 1250, strdup("3") };
  s->journal[3] = (struct placer_journal_entry){
    .txn = 2, .op = PLACER_JOURNAL_AFFINITY, .pid = 1234, .start_time = 5678, .tid = 1250, .previous = strdup("0-15")
  };
}

static void assert_same(const struct placer_state *a, const struct placer_state *b) {
  assert_string_equal(a->backend, b->backend);
  assert_string_equal(a->cgroup_mode, b->cgroup_mode);
  assert_string_equal(a->prefix, b->prefix);
  assert_string_equal(a->profile_name, b->profile_name);
  assert_string_equal(a->applied_at, b->applied_at);
  assert_int_equal(a->last_txn, b->last_txn);
  assert_int_equal(a->pending_txn, b->pending_txn);
  assert_int_equal(a->pending_pid, b->pending_pid);
  assert_int_equal(a->n_instances, b->n_instances);
  const struct placer_state_instance *x = &a->instances[0], *y = &b->instances[0];
  assert_string_equal(x->name, y->name);
  assert_int_equal(x->kind, y->kind);
  assert_string_equal(x->group, y->group);
  assert_string_equal(x->cpus, y->cpus);
  assert_int_equal(x->memory_bytes, y->memory_bytes);
  assert_int_equal(x->cpu_weight, y->cpu_weight);
  assert_int_equal(x->cpu_quota, y->cpu_quota);
  assert_int_equal(x->match.kind, y->match.kind);
  assert_string_equal(x->match.value, y->match.value);
  assert_true(x->by_pid && y->by_pid);
  assert_int_equal(x->n_procs, y->n_procs);
  assert_int_equal(x->procs[1].start_time, y->procs[1].start_time);
  assert_int_equal(a->n_journal, b->n_journal);
  for (size_t i = 0; i < a->n_journal; i++) {
    const struct placer_journal_entry *e = &a->journal[i], *f = &b->journal[i];
    assert_int_equal(e->txn, f->txn);
    assert_int_equal(e->op, f->op);
    assert_int_equal(e->unmarked, f->unmarked);
    if (e->op == PLACER_JOURNAL_SET)
      assert_int_equal(e->setting, f->setting);
    assert_int_equal(e->pid, f->pid);
    assert_int_equal(e->tid, f->tid);
    assert_int_equal(e->start_time, f->start_time);
    if (e->group)
      assert_string_equal(e->group, f->group);
    if (e->previous)
      assert_string_equal(e->previous, f->previous);
    for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
      if (e->original.path[c])
        assert_string_equal(e->original.path[c], f->original.path[c]);
    assert_int_equal(e->n_threads, f->n_threads);
    for (size_t k = 0; k < e->n_threads; k++) {
      assert_int_equal(e->threads[k].tid, f->threads[k].tid);
      assert_string_equal(e->threads[k].cpus, f->threads[k].cpus);
    }
  }
}

static void test_json_round_trip(void **state) {
  (void)state;
  struct placer_state a = { .lock_fd = -1 }, b = { .lock_fd = -1 };
  fill_state(&a);
  json_t *j = placer_state_to_json(&a);
  char *text = json_dumps(j, 0);
  json_decref(j);
  json_t *back = json_loads(text, 0, NULL);
  struct placer_error *err = NULL;
  if (placer_state_from_json(back, &b, &err) < 0)
    fail_msg("%s", err->msg);
  json_decref(back);
  free(text);
  assert_same(&a, &b);
  a.dir = strdup("x");
  b.dir = strdup("y");
  struct placer_state *pa = malloc(sizeof(a)), *pb = malloc(sizeof(b));
  *pa = a, *pb = b;
  placer_state_free(pa);
  placer_state_free(pb);
}

/* A state file written before placer moved processes in cpuacct has no
 * such entry: it loads, with cpuacct "not recorded" (left alone on undo). */
static void test_loads_state_without_cpuacct(void **state) {
  (void)state;
  const char *old = "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": "
                    "\"move\", \"pid\": 3,"
                    " \"start_time\": 9, \"instance\": \"osd.3\", \"group\": \"placer/osd/osd.3\", \"original\":"
                    " {\"cpuset\": \"\", \"memory\": \"a\", \"cpu\": \"b\"}, \"threads\": []}]}";
  struct placer_state s = { .lock_fd = -1, .dir = strdup("t") };
  json_t *j = json_loads(old, 0, NULL);
  assert_non_null(j);
  struct placer_error *err = NULL;
  if (placer_state_from_json(j, &s, &err) < 0)
    fail_msg("%s", err->msg);
  json_decref(j);
  assert_int_equal(s.n_journal, 1);
  assert_string_equal(s.journal[0].original.path[PLACER_CGROUP_CPU], "b");
  assert_null(s.journal[0].original.path[PLACER_CGROUP_CPUACCT]);
  struct placer_state *p = malloc(sizeof(s));
  *p = s;
  placer_state_free(p);
}

static void test_refuses_bad_json(void **state) {
  (void)state;
  static const char *const bad[] = {
    "{\"schema\": 2, \"last_txn\": 0}",
    "{\"schema\": 1, \"last_txn\": -1}",
    "{\"schema\": 1, \"last_txn\": 0, \"prefix\": \"../etc\"}",
    "{\"schema\": 1, \"last_txn\": 0, \"journal\": [{\"txn\": 1, \"op\": \"create\", \"group\": \"a/../../b\"}]}",
    "{\"schema\": 1, \"last_txn\": 0, \"journal\": [{\"txn\": 1, \"op\": \"explode\"}]}",
    "{\"schema\": 1, \"last_txn\": 0, \"journal\": [{\"txn\": 1, \"op\": \"move\", \"pid\": 3}]}",
    /* what placer never records: a group outside the state's own prefix... */
    "{\"schema\": 1, \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"create\", \"group\": \"placer\"}]}",
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"create\", "
    "\"group\": \"system.slice\"}]}",
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"create\", "
    "\"group\": \"placer/a/b/c\"}]}",
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"set\", "
    "\"group\": \"placer\", \"setting\": \"cpus\", \"previous\": \"0\"}]}",
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"move\", \"pid\": 3, "
    "\"start_time\": 9, \"group\": \"user.slice/x/y\", \"original\": {}}]}",
    /* ...a move back into a group that climbs out of its hierarchy... */
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"journal\": [{\"txn\": 1, \"op\": \"move\", \"pid\": 3, "
    "\"start_time\": 9, \"group\": \"placer/a/a.0\", \"original\": {\"cpuset\": \"../../etc\"}}]}",
    /* ...an instance whose group is not PREFIX/ROLE/NAME */
    "{\"schema\": 1, \"prefix\": \"placer\", \"last_txn\": 1, \"instances\": [{\"name\": \"a.0\", \"group\": "
    "\"placer/a\", \"cpus\": \"0\", \"mems\": \"0\", \"kind\": \"generic\", \"match\": {\"kind\": \"none\"}}]}",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct placer_state s = { .lock_fd = -1, .dir = strdup("t") };
    json_t *j = json_loads(bad[i], 0, NULL);
    assert_non_null(j);
    struct placer_error *err = NULL;
    if (placer_state_from_json(j, &s, &err) == 0)
      fail_msg("accepted: %s", bad[i]);
    placer_error_free(err);
    json_decref(j);
    struct placer_state *p = malloc(sizeof(s));
    *p = s;
    placer_state_free(p);
  }
}

/* A journal longer than any placement writes is refused before it is read. */
static void test_refuses_huge_journal(void **state) {
  (void)state;
  json_t *j = json_pack("{s:i, s:s, s:i}", "schema", 1, "prefix", "placer", "last_txn", 1);
  json_t *journal = json_array();
  for (int i = 0; i <= PLACER_STATE_MAX_RECORDS; i++)
    json_array_append_new(journal, json_pack("{s:i, s:s, s:s}", "txn", 1, "op", "create", "group", "placer"));
  json_object_set_new(j, "journal", journal);
  struct placer_state s = { .lock_fd = -1, .dir = strdup("t") };
  struct placer_error *err = NULL;
  assert_int_equal(placer_state_from_json(j, &s, &err), -1);
  assert_non_null(strstr(err->msg, "100001 journal records: more than a state holds"));
  placer_error_free(err);
  json_decref(j);
  struct placer_state *p = malloc(sizeof(s));
  *p = s;
  placer_state_free(p);
}

static void test_save_open_lock(void **state) {
  (void)state;
  char dir[] = "/tmp/placer-test-state.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char sub[256];
  snprintf(sub, sizeof(sub), "%s/nested/state", dir); /* created on demand */
  struct placer_error *err = NULL;
  struct placer_state *s = NULL;
  if (placer_state_open(sub, PLACER_STATE_LOCK_EXCLUSIVE, &s, NULL, &err) < 0)
    fail_msg("%s", err->msg);
  assert_true(placer_state_is_empty(s));
  /* A second apply/reset is refused while the lock is held... */
  struct placer_state *other = NULL;
  assert_int_equal(placer_state_open(sub, PLACER_STATE_LOCK_EXCLUSIVE, &other, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "another placer apply or reset is running"));
  placer_error_free(err);
  err = NULL;
  /* ...and status sees it as busy. */
  bool busy = false;
  assert_int_equal(placer_state_open(sub, PLACER_STATE_LOCK_SHARED, &other, &busy, &err), 0);
  assert_true(busy);
  placer_state_free(other);

  fill_state(s);
  assert_int_equal(placer_state_save(s, &err), 0);
  struct placer_journal_entry e = { .op = PLACER_JOURNAL_CREATE, .txn = 2, .group = strdup("placer/x") };
  assert_int_equal(placer_state_journal_add(s, &e, &err), 0);
  assert_null(e.group); /* taken over */
  assert_int_equal(s->n_journal, 6);
  struct placer_state *copy = NULL;
  assert_int_equal(placer_state_open(sub, PLACER_STATE_NO_LOCK, &copy, NULL, &err), 0);
  assert_same(s, copy);
  placer_state_free(copy);

  /* Emptied, the state file goes away. */
  while (s->n_journal)
    placer_state_journal_remove(s, 0);
  placer_state_clear_instances(s);
  s->pending_txn = 0;
  assert_int_equal(placer_state_save(s, &err), 0);
  char path[300];
  snprintf(path, sizeof(path), "%s/state.json", sub);
  assert_int_equal(access(path, F_OK), -1);
  placer_state_free(s);
  /* Lock released with the state: a new exclusive open works. */
  assert_int_equal(placer_state_open(sub, PLACER_STATE_LOCK_EXCLUSIVE, &s, NULL, &err), 0);
  placer_state_free(s);
  snprintf(path, sizeof(path), "%s/lock", sub);
  unlink(path);
  rmdir(sub);
  snprintf(path, sizeof(path), "%s/nested", dir);
  rmdir(path);
  rmdir(dir);
}

static void test_comparisons(void **state) {
  (void)state;
  assert_true(placer_cpulist_equal("0-3", "0,1,2,3"));
  assert_true(placer_cpulist_equal("", ""));
  assert_false(placer_cpulist_equal("0-3", "0-2"));
  assert_false(placer_cpulist_equal("", "0"));
  /* The kernel rounds a limit down to a page. */
  assert_true(placer_memory_limit_equal(999997440, 1000000000));
  assert_false(placer_memory_limit_equal(64ull << 20, 128ull << 20));
  assert_true(placer_memory_limit_equal(PLACER_CGROUP_UNLIMITED, PLACER_CGROUP_UNLIMITED));
  assert_false(placer_memory_limit_equal(PLACER_CGROUP_UNLIMITED, 1ull << 30));

  char *group = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_instance_group("placer", "osd", "osd.3", &group, &err), 0);
  assert_string_equal(group, "placer/osd/osd.3");
  free(group);
  assert_int_equal(placer_instance_group("test/placer", "my vm", "my vm.0", &group, &err), 0);
  assert_string_equal(group, "test/placer/my_vm/my_vm.0");
  free(group);
  assert_int_equal(placer_instance_group("placer", "..", "x", &group, &err), -1);
  placer_error_free(err);

  setenv("PLACER_CGROUP_PREFIX", "from-env", 1);
  assert_string_equal(placer_apply_prefix(NULL), "from-env");
  assert_string_equal(placer_apply_prefix("opt"), "opt");
  unsetenv("PLACER_CGROUP_PREFIX");
  assert_string_equal(placer_apply_prefix(NULL), "placer");
}

/* A recorded limit is written back by reset: anything but "max" or bytes
 * must be refused, never read as 0 (a limit of 0 bytes kills the group). */
static void test_memory_limit_parse(void **state) {
  (void)state;
  uint64_t v = 7;
  assert_int_equal(placer_memory_limit_parse("max", &v), 0);
  assert_true(v == PLACER_CGROUP_UNLIMITED);
  assert_int_equal(placer_memory_limit_parse("1048576", &v), 0);
  assert_true(v == 1048576);
  assert_int_equal(placer_memory_limit_parse("0", &v), 0);
  assert_true(v == 0);
  const char *bad[] = { "", "abc", "-1", "12x", " 5", "1e9", "18446744073709551616", "18446744073709551615", NULL };
  for (size_t i = 0; bad[i]; i++) {
    v = 7;
    if (placer_memory_limit_parse(bad[i], &v) != -1)
      fail_msg("'%s' was taken as %llu", bad[i], (unsigned long long)v);
    assert_true(v == 7);
  }
  assert_int_equal(placer_memory_limit_parse(NULL, &v), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_json_round_trip),    cmocka_unit_test(test_loads_state_without_cpuacct),
    cmocka_unit_test(test_refuses_bad_json),   cmocka_unit_test(test_refuses_huge_journal),
    cmocka_unit_test(test_save_open_lock),     cmocka_unit_test(test_comparisons),
    cmocka_unit_test(test_memory_limit_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
