/* NEEDS ROOT on a cgroup v1 (hybrid) host, else skipped: removing a group
 * in every hierarchy under the cgroup root and nowhere else, signalling a
 * group's processes only, and a reset that meets a corrupt recorded value.
 * Runs in its own mount namespace (the test's bind mounts vanish with it);
 * every group it makes is named placer-test-rm-PID and removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "cgroup/cgroup.h"
#include "launch.h"
#include "test_support.h"

#define CG "/sys/fs/cgroup"

static char top[64], why[256];
static bool ready;

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int setup(void **state) {
  (void)state;
  snprintf(top, sizeof(top), "placer-test-rm-%d", (int)getpid());
  if (geteuid() != 0)
    snprintf(why, sizeof(why), "needs root");
  else if (!is_dir(CG "/cpuset") || !is_dir(CG "/memory") || !is_dir(CG "/cpu") || !is_dir(CG "/pids"))
    snprintf(why, sizeof(why), "no cgroup v1 cpuset, memory, cpu and pids under " CG);
  else if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    snprintf(why, sizeof(why), "no private mount namespace: %s", strerror(errno));
  else
    ready = true;
  return 0;
}

/* What a test that failed half-way leaves: its mounts (private to this
 * namespace, but still in the way), its directories under /tmp, and every
 * group named TOP below each hierarchy, deepest first. */
static int teardown(void **state) {
  (void)state;
  if (!ready)
    return 0;
  char path[128];
  const char *subs[] = { "cpuset", "memory", "cpu", "" };
  for (size_t i = 0; i < 4; i++) {
    snprintf(path, sizeof(path), "/tmp/%s/%s", top, subs[i]);
    umount2(path, MNT_DETACH);
  }
  snprintf(path, sizeof(path), "/tmp/%s", top);
  rmdir(path);
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "rm -rf '/tmp/%s-state'", top);
  if (system(cmd) != 0)
    return -1;
  snprintf(cmd, sizeof(cmd),
           "for d in " CG "/*/%s; do [ -d \"$d\" ] && find \"$d\" -depth -type d -exec rmdir {} \\; ; done; true", top);
  return system(cmd) == 0 ? 0 : -1;
}

static void need_ready(void) {
  if (!ready) {
    fprintf(stderr, "skipped: %s\n", why);
    skip();
  }
}

static struct placer_cgroup *open_cg(const char *root) {
  struct placer_cgroup *cg = NULL;
  struct placer_error *err = NULL;
  if (placer_cgroup_open(root, &cg, &err) < 0)
    fail_msg("open %s: %s", root ? root : "default", err->msg);
  return cg;
}

static void mkdir_or_fail(const char *path) {
  if (mkdir(path, 0755) < 0 && errno != EEXIST)
    fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* runc makes a container's groups in every hierarchy, pids and the hybrid
 * "unified" included: removal takes them all, and the emptied parents. */
static void test_remove_takes_every_hierarchy(void **state) {
  (void)state;
  need_ready();
  struct placer_cgroup *cg = open_cg(NULL);
  struct placer_error *err = NULL;
  char group[128], path[512];
  snprintf(group, sizeof(group), "%s/a/a.0", top);
  if (placer_cgroup_create(cg, group, &err) < 0)
    fail_msg("create: %s", err->msg);
  const char *extra[] = { CG "/pids", CG "/unified", NULL };
  for (size_t i = 0; extra[i]; i++) {
    if (!is_dir(extra[i]))
      continue;
    snprintf(path, sizeof(path), "%s/%s", extra[i], top);
    mkdir_or_fail(path);
    snprintf(path, sizeof(path), "%s/%s/a", extra[i], top);
    mkdir_or_fail(path);
    snprintf(path, sizeof(path), "%s/%s", extra[i], group);
    mkdir_or_fail(path);
    snprintf(path, sizeof(path), "%s/%s/libpod-x", extra[i], group);
    mkdir_or_fail(path);
  }
  if (placer_cgroup_remove(cg, group, &err) < 0 || placer_cgroup_remove_empty_parents(cg, group, &err) < 0)
    fail_msg("remove: %s", err->msg);
  const char *all[] = { CG "/cpuset", CG "/memory", CG "/cpu", CG "/pids", CG "/unified", NULL };
  for (size_t i = 0; all[i]; i++) {
    snprintf(path, sizeof(path), "%s/%s", all[i], top);
    if (is_dir(path))
      fail_msg("%s is left behind", path);
  }
  placer_cgroup_close(cg);
}

/* With the cgroup root somewhere else (PLACER_CGROUP_ROOT, a test's own
 * mounts), a group of the same name in a hierarchy outside that root is
 * not placer's to remove. */
static void test_remove_stays_under_the_root(void **state) {
  (void)state;
  need_ready();
  char root[96], path[512], group[128];
  snprintf(root, sizeof(root), "/tmp/%s", top);
  mkdir_or_fail(root);
  if (mount("tmpfs", root, "tmpfs", 0, "size=1m") < 0)
    fail_msg("mount tmpfs on %s: %s", root, strerror(errno));
  const char *binds[][2] = { { CG "/cpuset", "cpuset" }, { CG "/memory", "memory" }, { CG "/cpu", "cpu" } };
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s/%s", root, binds[i][1]);
    mkdir_or_fail(path);
    if (mount(binds[i][0], path, NULL, MS_BIND, NULL) < 0)
      fail_msg("bind %s on %s: %s", binds[i][0], path, strerror(errno));
  }
  struct placer_cgroup *cg = open_cg(root);
  struct placer_error *err = NULL;
  snprintf(group, sizeof(group), "%s/b", top);
  if (placer_cgroup_create(cg, group, &err) < 0)
    fail_msg("create: %s", err->msg);
  /* Not under ROOT: pids is mounted at /sys/fs/cgroup only. */
  snprintf(path, sizeof(path), CG "/pids/%s", top);
  mkdir_or_fail(path);
  snprintf(path, sizeof(path), CG "/pids/%s", group);
  mkdir_or_fail(path);
  if (placer_launch_remove_group(cg, group, true, &err) < 0)
    fail_msg("remove: %s", err->msg);
  snprintf(path, sizeof(path), "%s/cpuset/%s", root, top);
  assert_false(is_dir(path));
  snprintf(path, sizeof(path), CG "/pids/%s", group);
  if (!is_dir(path))
    fail_msg("%s, outside the cgroup root %s, was removed", path, root);
  placer_cgroup_close(cg);
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof(path), "%s/%s", root, binds[i][1]);
    umount(path);
  }
  umount(root);
  rmdir(root);
}

static pid_t spawn_sleeper(void) {
  pid_t pid = fork();
  if (pid == 0) {
    execlp("sleep", "sleep", "60", (char *)NULL);
    _exit(127);
  }
  assert_true(pid > 0);
  return pid;
}

static bool exited(pid_t pid) {
  for (int i = 0; i < 200; i++) {
    if (waitpid(pid, NULL, WNOHANG) == pid)
      return true;
    usleep(10000);
  }
  return false;
}

/* Everything in the group's subtree is signalled, nothing outside it. */
static void test_kill_group_only_its_processes(void **state) {
  (void)state;
  need_ready();
  struct placer_cgroup *cg = open_cg(NULL);
  struct placer_error *err = NULL;
  char group[128], sub[160];
  snprintf(group, sizeof(group), "%s/k", top);
  snprintf(sub, sizeof(sub), "%s/inner", group);
  if (placer_cgroup_create(cg, sub, &err) < 0)
    fail_msg("create: %s", err->msg);
  pid_t in_group = spawn_sleeper(), below = spawn_sleeper(), outside = spawn_sleeper();
  if (placer_cgroup_attach_pid(cg, group, in_group, &err) < 0 || placer_cgroup_attach_pid(cg, sub, below, &err) < 0)
    fail_msg("attach: %s", err->msg);
  size_t live = 0;
  assert_int_equal(placer_cgroup_signal_subtree(cg, group, 0, &live, &err), 0);
  assert_int_equal(live, 2);
  if (placer_launch_kill_group(cg, group, 2, &err) < 0)
    fail_msg("kill: %s", err->msg);
  assert_true(exited(in_group));
  assert_true(exited(below));
  assert_int_equal(kill(outside, 0), 0);
  kill(outside, SIGKILL);
  waitpid(outside, NULL, 0);
  if (placer_launch_remove_group(cg, group, true, &err) < 0)
    fail_msg("remove: %s", err->msg);
  placer_cgroup_close(cg);
}

/* reset writes a recorded memory limit back: a record that is not "max" or
 * bytes is an error naming it, and the limit in force stays (read as 0, it
 * would OOM-kill the group's processes). */
static void test_undo_refuses_corrupt_limit(void **state) {
  (void)state;
  need_ready();
  struct placer_cgroup *cg = open_cg(NULL);
  struct placer_error *err = NULL;
  char group[128];
  snprintf(group, sizeof(group), "%s/u", top);
  if (placer_cgroup_create(cg, group, &err) < 0 || placer_cgroup_set_memory_limit(cg, group, 64u << 20, &err) < 0)
    fail_msg("prepare: %s", err->msg);
  char dir[96];
  snprintf(dir, sizeof(dir), "/tmp/%s-state", top);
  mkdir_or_fail(dir);
  struct placer_state *st = calloc(1, sizeof(*st));
  st->dir = strdup(dir);
  st->lock_fd = -1;
  st->n_journal = 1;
  st->journal = calloc(1, sizeof(*st->journal));
  st->journal[0] = (struct placer_journal_entry){ .txn = 1,
                                                  .op = PLACER_JOURNAL_SET,
                                                  .group = strdup(group),
                                                  .setting = PLACER_SETTING_MEMORY_LIMIT,
                                                  .previous = strdup("12abc") };
  struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  assert_int_equal(apply_undo(cg, st, 0, &notes, &failures), 1);
  assert_int_equal(failures.n, 1);
  if (strstr(failures.items[0], "recorded memory limit '12abc' is not 'max' or bytes") == NULL)
    fail_msg("failure: %s", failures.items[0]);
  assert_int_equal(st->n_journal, 1); /* kept for the next reset */
  uint64_t limit = 0;
  assert_int_equal(placer_cgroup_read_memory_limit(cg, group, &limit, &err), 0);
  assert_true(limit == 64u << 20);
  placer_string_list_free(&notes);
  placer_string_list_free(&failures);
  char path[128];
  snprintf(path, sizeof(path), "%s/state.json", dir);
  unlink(path);
  rmdir(dir);
  placer_state_free(st);
  if (placer_launch_remove_group(cg, group, true, &err) < 0)
    fail_msg("remove: %s", err->msg);
  placer_cgroup_close(cg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_remove_takes_every_hierarchy),
    cmocka_unit_test(test_remove_stays_under_the_root),
    cmocka_unit_test(test_kill_group_only_its_processes),
    cmocka_unit_test(test_undo_refuses_corrupt_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
