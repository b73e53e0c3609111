/* The string list, the pid list and a group path's levels of lib/
 * (string-list.c, pid-list.c, path-levels.c): what is added is there in
 * order, copies are the list's own, a list built by hand grows from where it
 * is, lists hand their PIDs over sorted, and a path's levels come parents
 * first, each with the one above it, a walk stopped where its step says. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/path-levels.h"
#include "lib/pid-list.h"
#include "lib/string-list.h"
#include "test_support.h"

static void test_strings_added_in_order(void **state) {
  (void)state;
  struct placer_string_list l = { 0 };
  char word[] = "osd.0";
  assert_int_equal(placer_string_list_add(&l, word), 0);
  word[4] = '9'; /* the list holds a copy */
  assert_int_equal(placer_string_list_addn(&l, "mon.abc", 5), 0);
  assert_int_equal(placer_string_list_addf(&l, "%s.%d", "mgr", 2), 0);
  assert_int_equal(placer_string_list_take(&l, strdup("fio.0")), 0);
  assert_int_equal(placer_string_list_take(&l, NULL), -1); /* an allocation that failed */
  assert_int_equal(l.n, 4);
  assert_string_equal(l.items[0], "osd.0");
  assert_string_equal(l.items[1], "mon.a");
  assert_string_equal(l.items[2], "mgr.2");
  assert_string_equal(l.items[3], "fio.0");
  assert_true(placer_string_list_has(&l, "mgr.2"));
  assert_false(placer_string_list_has(&l, "osd.9"));
  /* many more: the room doubles, every string stays */
  for (int i = 0; i < 1000; i++)
    assert_int_equal(placer_string_list_addf(&l, "n%d", i), 0);
  assert_int_equal(l.n, 1004);
  assert_true(l.cap >= l.n);
  assert_string_equal(l.items[1003], "n999");
  placer_string_list_free(&l);
  assert_null(l.items);
  assert_int_equal(l.n, 0);
  placer_string_list_free(&l); /* twice, and NULL: nothing */
  placer_string_list_free(NULL);
}

static void test_hand_built_list_grows(void **state) {
  (void)state;
  /* as the profile's YAML reader builds one: exactly N items, no cap */
  struct placer_string_list l = { calloc(2, sizeof(char *)), 2, 0 };
  assert_non_null(l.items);
  l.items[0] = strdup("a");
  l.items[1] = strdup("b");
  assert_int_equal(placer_string_list_add(&l, "c"), 0);
  assert_int_equal(l.n, 3);
  assert_string_equal(l.items[0], "a");
  assert_string_equal(l.items[2], "c");
  struct placer_string_list same = { 0 }, other = { 0 };
  placer_string_list_add(&same, "a");
  placer_string_list_add(&same, "b");
  placer_string_list_add(&same, "c");
  placer_string_list_add(&other, "a");
  placer_string_list_add(&other, "c");
  placer_string_list_add(&other, "b");
  assert_true(placer_string_list_equal(&l, &same));
  assert_false(placer_string_list_equal(&l, &other));
  placer_string_list_free(&other);
  assert_false(placer_string_list_equal(&l, &other));
  placer_string_list_free(&same);
  placer_string_list_free(&l);
}

/* join, and release: it hands the strings over and leaves an empty list that grows again */
static void test_release(void **state) {
  (void)state;
  struct placer_string_list l = { NULL, 0, 0 };
  size_t n = 99;
  char *none = placer_string_list_join(&l, "; ");
  assert_string_equal(none, "");
  free(none);
  assert_null(placer_string_list_release(&l, &n));
  assert_int_equal(n, 0);
  assert_int_equal(placer_string_list_addf(&l, "a%d", 1), 0);
  assert_int_equal(placer_string_list_add(&l, "b"), 0);
  char **items = placer_string_list_release(&l, &n);
  assert_int_equal(n, 2);
  assert_string_equal(items[0], "a1");
  assert_string_equal(items[1], "b");
  assert_null(l.items);
  assert_int_equal(l.n, 0);
  assert_int_equal(l.cap, 0);
  assert_int_equal(placer_string_list_add(&l, "c"), 0);
  assert_int_equal(l.n, 1);
  char *one = placer_string_list_join(&l, "; ");
  assert_string_equal(one, "c");
  free(one);
  assert_int_equal(placer_string_list_add(&l, "d"), 0);
  char *two = placer_string_list_join(&l, "; ");
  assert_string_equal(two, "c; d");
  free(two);
  placer_string_list_free(&l);
  for (size_t i = 0; i < n; i++)
    free(items[i]);
  free(items);
}

static void test_pids(void **state) {
  (void)state;
  struct placer_pid_list l = { 0 };
  static const pid_t in[] = { 40, 7, 40, 1234, 7, 3 };
  for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
    assert_int_equal(placer_pid_list_add_new(&l, in[i]), 0);
  assert_int_equal(l.n, 4);
  assert_true(placer_pid_list_has(&l, 1234));
  assert_false(placer_pid_list_has(&l, 8));
  assert_int_equal(placer_pid_list_add(&l, 7), 0); /* add keeps duplicates */
  placer_pid_list_sort(&l);
  size_t n = 0;
  pid_t *pids = placer_pid_list_take(&l, &n);
  assert_int_equal(n, 5);
  static const pid_t want[] = { 3, 7, 7, 40, 1234 };
  for (size_t i = 0; i < n; i++)
    assert_int_equal(pids[i], want[i]);
  free(pids);
  assert_null(l.pids);
  assert_int_equal(l.n, 0);
  for (pid_t p = 5000; p > 0; p--)
    assert_int_equal(placer_pid_list_add(&l, p), 0);
  placer_pid_list_sort(&l);
  assert_int_equal(l.n, 5000);
  assert_int_equal(l.pids[0], 1);
  assert_int_equal(l.pids[4999], 5000);
  placer_pid_list_free(&l);
  pids = placer_pid_list_take(&l, &n); /* an empty list hands over nothing */
  assert_null(pids);
  assert_int_equal(n, 0);
}

/* Each level as "index path<parent>last;", so that one string shows the walk. */
static int record_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  (void)err;
  struct placer_string_list *seen = ctx;
  assert_int_equal(placer_string_list_addf(seen, "%zu %s<%s>%d", level->index, level->path,
                                           level->parent ? level->parent : "-", level->last),
                   0);
  return strcmp(level->path, "a/stop") == 0 ? 7 : 0;
}

static int fail_at_second(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  (void)ctx;
  return level->index == 1 ? placer_error_set(err, PLACER_EXIT_SYSTEM, EACCES, "mkdir %s", level->path) : 0;
}

static void test_path_levels(void **state) {
  (void)state;
  struct placer_string_list seen = { 0 };
  assert_int_equal(placer_path_each_level("placer/osd/osd.0", record_level, &seen, NULL), 0);
  cleanup_free char *walk = placer_string_list_join(&seen, ";");
  assert_string_equal(walk, "0 placer<->0;1 placer/osd<placer>0;2 placer/osd/osd.0<placer/osd>1");
  placer_string_list_free(&seen);

  assert_int_equal(placer_path_each_level("one", record_level, &seen, NULL), 0);
  assert_int_equal(seen.n, 1);
  assert_string_equal(seen.items[0], "0 one<->1");
  placer_string_list_free(&seen);

  /* a step that says stop: its value back, the levels below never visited */
  assert_int_equal(placer_path_each_level("a/stop/below", record_level, &seen, NULL), 7);
  assert_int_equal(seen.n, 2);
  placer_string_list_free(&seen);

  struct placer_error *err = NULL;
  assert_int_equal(placer_path_each_level("x/y/z", fail_at_second, NULL, &err), -1);
  assert_non_null(err);
  assert_string_equal(err->msg, "mkdir x/y");
  placer_error_free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_strings_added_in_order),
    cmocka_unit_test(test_hand_built_list_grows),
    cmocka_unit_test(test_release),
    cmocka_unit_test(test_pids),
    cmocka_unit_test(test_path_levels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
