/* The journal's appended tail (placer/state-log.c) in a temporary state
 * directory: records appended to state.log are read back with state.json's,
 * a record torn by a kill (no newline yet) is read as the records before
 * it, a broken line before the last is refused, a log left by a save killed
 * before it removed it (another log_seq) adds nothing, one of another boot
 * is refused, and a save takes the log in and starts a new one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/textfile.h"
#include "state.h"
#include "test_support.h"

struct dir {
  char base[64];
  char path[128];
};

static void dir_make(struct dir *d) {
  snprintf(d->base, sizeof(d->base), "/tmp/placer-test-state-log.XXXXXX");
  assert_non_null(mkdtemp(d->base));
  snprintf(d->path, sizeof(d->path), "%s/state", d->base);
}

static void dir_remove(struct dir *d) {
  static const char *const names[] = { "state.json", "state.log", "lock" };
  char path[200];
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", d->path, names[i]);
    unlink(path);
  }
  rmdir(d->path);
  rmdir(d->base);
}

static char *file_text(const struct dir *d, const char *name) {
  char path[200];
  snprintf(path, sizeof(path), "%s/%s", d->path, name);
  char *text = NULL;
  if (placer_textfile_read_path(path, 1 << 20, &text, NULL) < 0)
    return NULL;
  return text;
}

static void file_put(const struct dir *d, const char *name, const char *text, bool append) {
  char path[200];
  snprintf(path, sizeof(path), "%s/%s", d->path, name);
  int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

static size_t count_lines(const char *text) {
  size_t n = 0;
  for (const char *p = text; p && *p; p++)
    n += *p == '\n';
  return n;
}

/* A state as placer watch holds it: one instance applied, its group made. */
static struct placer_state *open_applied(const struct dir *d) {
  struct placer_error *err = NULL;
  struct placer_state *s = NULL;
  if (placer_state_open(d->path, PLACER_STATE_LOCK_EXCLUSIVE, &s, NULL, &err) < 0)
    fail_msg("%s", err->msg);
  s->backend = strdup("cgroupfs");
  s->cgroup_mode = strdup("v1");
  s->cgroup_root = strdup("/sys/fs/cgroup");
  s->prefix = strdup("placer");
  s->n_instances = 1;
  s->instances = calloc(1, sizeof(*s->instances));
  s->instances[0] = (struct placer_state_instance){ .name = strdup("w.0"),
                                                    .role = strdup("w"),
                                                    .kind = PLACER_KIND_GENERIC,
                                                    .group = strdup("placer/w/w.0"),
                                                    .cpus = strdup("1"),
                                                    .mems = strdup("0") };
  s->last_txn = 1;
  s->volatile_saves = true;
  s->journal_appends = true;
  struct placer_journal_entry e = { .txn = 1, .op = PLACER_JOURNAL_CREATE, .group = strdup("placer") };
  if (placer_state_journal_add(s, &e, &err) < 0)
    fail_msg("%s", err->msg);
  return s;
}

static void add_move(struct placer_state *s, pid_t pid) {
  struct placer_journal_entry e = { .txn = ++s->last_txn,
                                    .op = PLACER_JOURNAL_MOVE,
                                    .pid = pid,
                                    .start_time = 1000 + (uint64_t)pid,
                                    .group = strdup("placer/w/w.0"),
                                    .instance = strdup("w.0") };
  e.original.path[PLACER_CGROUP_CPUSET] = strdup("");
  e.n_threads = 1;
  e.threads = calloc(1, sizeof(*e.threads));
  e.threads[0] = (struct placer_thread_affinity){ pid, strdup("0-1") };
  struct placer_error *err = NULL;
  if (placer_state_journal_add(s, &e, &err) < 0)
    fail_msg("%s", err->msg);
}

static struct placer_state *reopen(const struct dir *d, struct placer_error **err) {
  struct placer_state *copy = NULL;
  return placer_state_open(d->path, PLACER_STATE_NO_LOCK, &copy, NULL, err) < 0 ? NULL : copy;
}

static void test_appended_records_read_back(void **state) {
  (void)state;
  struct dir d;
  dir_make(&d);
  struct placer_state *s = open_applied(&d);
  /* The first record saved the whole file and began its log. */
  cleanup_free char *json_before = file_text(&d, "state.json");
  assert_non_null(json_before);
  assert_non_null(strstr(json_before, "\"log_seq\""));
  add_move(s, 4242);
  add_move(s, 4343);
  /* Appended, not rewritten: state.json as it was, two lines more in the log. */
  cleanup_free char *json_after = file_text(&d, "state.json");
  assert_string_equal(json_before, json_after);
  cleanup_free char *log = file_text(&d, "state.log");
  assert_int_equal(count_lines(log), 3); /* its head, two records */
  assert_non_null(strstr(log, "\"pid\":4343"));

  struct placer_error *err = NULL;
  struct placer_state *copy = reopen(&d, &err);
  if (copy == NULL)
    fail_msg("%s", err->msg);
  assert_int_equal(copy->n_journal, 3);
  assert_int_equal(copy->journal[2].op, PLACER_JOURNAL_MOVE);
  assert_int_equal(copy->journal[2].pid, 4343);
  assert_int_equal(copy->journal[2].start_time, 1000 + 4343);
  assert_string_equal(copy->journal[2].threads[0].cpus, "0-1");
  assert_int_equal(copy->last_txn, s->last_txn); /* raised to the records' */
  placer_state_free(copy);

  /* A save takes them in: the log starts again with its head alone. */
  assert_int_equal(placer_state_save(s, &err), 0);
  free(log);
  log = file_text(&d, "state.log");
  assert_int_equal(count_lines(log), 1);
  copy = reopen(&d, &err);
  assert_non_null(copy);
  assert_int_equal(copy->n_journal, 3);
  placer_state_free(copy);

  /* Emptied: state.json and its log go. */
  while (s->n_journal)
    placer_state_journal_remove(s, 0);
  placer_state_clear_instances(s);
  assert_int_equal(placer_state_save(s, &err), 0);
  assert_false(placer_state_file_exists(d.path, "state.json"));
  assert_false(placer_state_file_exists(d.path, "state.log"));
  placer_state_free(s);
  dir_remove(&d);
}

static void test_torn_last_record(void **state) {
  (void)state;
  struct dir d;
  dir_make(&d);
  struct placer_state *s = open_applied(&d);
  add_move(s, 4242);
  placer_state_free(s); /* as a kill -9 leaves it: the log not taken in */
  /* Killed inside the write of the next record: part of a line, no newline. */
  file_put(&d, "state.log", "{\"txn\":3,\"op\":\"move\",\"pid\":45", true);
  struct placer_error *err = NULL;
  struct placer_state *copy = reopen(&d, &err);
  if (copy == NULL)
    fail_msg("%s", err->msg);
  assert_int_equal(copy->n_journal, 2); /* the create and the move before it */
  assert_int_equal(copy->journal[1].pid, 4242);
  assert_int_equal(copy->last_txn, 2);
  placer_state_free(copy);

  /* Anything after it makes it a broken line inside the log: refused. */
  file_put(&d, "state.log", "\n{\"txn\":4}\n", true);
  assert_null(reopen(&d, &err));
  assert_non_null(strstr(err->msg, "state.log:3:"));
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  placer_error_free(err);
  dir_remove(&d);
}

static void test_stale_and_foreign_logs(void **state) {
  (void)state;
  struct dir d;
  dir_make(&d);
  struct placer_state *s = open_applied(&d);
  add_move(s, 4242);
  cleanup_free char *old_log = file_text(&d, "state.log");
  struct placer_error *err = NULL;
  /* A save killed after its rename, before it removed the old log: the
   * old log names the old log_seq and adds nothing (no record twice). */
  assert_int_equal(placer_state_save(s, &err), 0);
  placer_state_free(s);
  file_put(&d, "state.log", old_log, false);
  struct placer_state *copy = reopen(&d, &err);
  if (copy == NULL)
    fail_msg("%s", err->msg);
  assert_int_equal(copy->n_journal, 2);
  uint64_t seq = copy->log_seq;
  placer_state_free(copy);

  /* The log_seq of state.json but another boot's id: refused. */
  char head[256];
  snprintf(head, sizeof(head), "{\"log_seq\":%llu,\"boot_id\":\"another-boot\",\"state_id\":\"x\"}\n",
           (unsigned long long)seq);
  file_put(&d, "state.log", head, false);
  assert_null(reopen(&d, &err));
  assert_non_null(strstr(err->msg, "another boot or directory"));
  placer_error_free(err);
  dir_remove(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_appended_records_read_back),
    cmocka_unit_test(test_torn_last_record),
    cmocka_unit_test(test_stale_and_foreign_logs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
