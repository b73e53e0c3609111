/* The process tree below a process: descendants from a (pid, ppid) table,
 * the parent field of /proc/PID/stat, and a live tree of our own children. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "test_support.h"

static bool has(const pid_t *v, size_t n, pid_t pid) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == pid)
      return true;
  return false;
}

static void test_table(void **state) {
  (void)state;
  /* 1 -> 10 -> {11 -> 13, 12}; 1 -> 20 -> 21; 30 is its own parent (a
   * table read while PIDs were reused) and 31 its child. */
  const struct placer_proc_parent table[] = {
    { 1, 0 }, { 10, 1 }, { 11, 10 }, { 12, 10 }, { 13, 11 }, { 20, 1 }, { 21, 20 }, { 30, 30 }, { 31, 30 },
  };
  size_t n_table = sizeof(table) / sizeof(table[0]);
  pid_t *d = NULL;
  size_t n = 0;
  assert_int_equal(placer_proc_tree_descendants(table, n_table, 10, NULL, 0, &d, &n), 0);
  assert_int_equal(n, 3);
  /* Breadth first: children before grandchildren. */
  assert_int_equal(d[0], 11);
  assert_int_equal(d[1], 12);
  assert_int_equal(d[2], 13);
  free(d);

  /* A stop pid is neither listed nor descended into. */
  const pid_t stop[] = { 11, 20 };
  assert_int_equal(placer_proc_tree_descendants(table, n_table, 1, stop, 2, &d, &n), 0);
  assert_int_equal(n, 2);
  assert_true(has(d, n, 10) && has(d, n, 12));
  free(d);

  assert_int_equal(placer_proc_tree_descendants(table, n_table, 13, NULL, 0, &d, &n), 0);
  assert_int_equal(n, 0);
  free(d);
  assert_int_equal(placer_proc_tree_descendants(table, n_table, 30, NULL, 0, &d, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(d[0], 31);
  free(d);
}

static void test_stat_ppid(void **state) {
  (void)state;
  pid_t ppid = 0;
  assert_int_equal(placer_proc_stat_ppid("4242 (ceph-osd) S 1 4242 4242 0 -1", &ppid), 0);
  assert_int_equal(ppid, 1);
  /* A comm with blanks and ')' does not shift the fields. */
  assert_int_equal(placer_proc_stat_ppid("77 (a) b) 9) R 76 77 77", &ppid), 0);
  assert_int_equal(ppid, 76);
  assert_int_equal(placer_proc_stat_ppid("2 (kthreadd) S 0 0 0", &ppid), 0);
  assert_int_equal(ppid, 0);
  assert_int_equal(placer_proc_stat_ppid("garbage", &ppid), -1);
  assert_int_equal(placer_proc_stat_ppid("5 (x) S", &ppid), -1);
}

/* Live, but harmless: a child that forks a grandchild. */
static void test_live_tree(void **state) {
  (void)state;
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0) {
      if (write(ready[1], &grandchild, 1) != 1)
        _exit(1);
      pause();
      _exit(0);
    }
    pause();
    _exit(0);
  }
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  pid_t *d = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_proc_descendants(child, NULL, 0, &d, &n, &err), 0);
  assert_int_equal(n, 1);
  pid_t grandchild = d[0];
  free(d);
  assert_int_equal(placer_proc_descendants(getpid(), NULL, 0, &d, &n, &err), 0);
  assert_true(has(d, n, child) && has(d, n, grandchild));
  free(d);
  assert_int_equal(placer_proc_descendants(getpid(), &child, 1, &d, &n, &err), 0);
  assert_false(has(d, n, child) || has(d, n, grandchild));
  free(d);
  kill(grandchild, SIGKILL);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  /* The orphaned grandchild went to init (or a subreaper), out of our tree;
   * a process that is gone has no descendants. */
  assert_int_equal(placer_proc_descendants(child, NULL, 0, &d, &n, &err), 0);
  assert_int_equal(n, 0);
  free(d);
  close(ready[0]);
  close(ready[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_stat_ppid),
    cmocka_unit_test(test_live_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
