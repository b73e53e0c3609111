/* The real-cgroup scenario shared by test_cgroup_v1_live.c and
 * test_cgroup_v2_live.c (included by them, not compiled on its own).
 *
 * It needs root and a cgroup root of the wanted mode ($PLACER_CGROUP_ROOT
 * or /sys/fs/cgroup); otherwise every test is skipped.  It really creates
 * placer-test-PID/... groups, moves forked children (with threads) into
 * them, checks what the kernel then enforces (/proc/PID/task/TID/status,
 * the cgroup files, an OOM kill), moves them back and removes everything.
 * The group teardown kills the children and removes the groups even when a
 * test failed half-way. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "proc.h"
#include "test_support.h"

#define LIVE_MEMORY_LIMIT (64u << 20)
#define LIVE_HOG_BYTES (200u << 20)
#define LIVE_WEIGHT 50u

static struct {
  bool ready;
  char why[512];
  struct placer_cgroup *cg;
  char base[64], inst[128], other[128], hog[128], busy[128];
  char cpu[16], other_cpu[16]; /* the instance's CPU, and another where there is one */
  char mem[16];                /* the instance's NUMA node */
  pid_t children[16];
  size_t n_children;
} live;

/* ------------------------------------------------------------------ helpers */

static void live_fail_err(struct placer_error *err, const char *what) {
  if (err)
    fail_msg("%s: %s", what, err->msg);
  fail_msg("%s failed without an error", what);
}

static char *live_read(const char *dir, const char *file) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  char *s = test_read_file(path);
  if (s == NULL)
    fail_msg("read %s: %s", path, strerror(errno));
  size_t len = strlen(s);
  while (len > 0 && s[len - 1] == '\n')
    s[--len] = '\0';
  return s;
}

static void live_expect_file(enum placer_cgroup_controller c, const char *group, const char *file, const char *want) {
  char *dir = placer_cgroup_dir(live.cg, c, group);
  char *have = live_read(dir, file);
  if (strcmp(have, want) != 0)
    fail_msg("%s/%s holds '%s', expected '%s'", dir, file, have, want);
  free(have);
  free(dir);
}

static bool live_dir_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Highest and lowest CPU this process may use; highest NUMA node online. */
static void live_pick_resources(void) {
  cpu_set_t set;
  int lo = 0, hi = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    lo = -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
      if (CPU_ISSET(i, &set)) {
        if (lo < 0)
          lo = i;
        hi = i;
      }
  }
  snprintf(live.cpu, sizeof(live.cpu), "%d", hi);
  snprintf(live.other_cpu, sizeof(live.other_cpu), "%d", lo);
  char *nodes = test_read_file("/sys/devices/system/node/online");
  const char *last = nodes ? strrchr(nodes, '-') : NULL;
  const char *comma = nodes ? strrchr(nodes, ',') : NULL;
  if (comma && (!last || comma > last))
    last = comma;
  snprintf(live.mem, sizeof(live.mem), "%d", nodes ? atoi(last ? last + 1 : nodes) : 0);
  free(nodes);
}

static void live_track(pid_t pid) {
  if (live.n_children < sizeof(live.children) / sizeof(live.children[0]))
    live.children[live.n_children++] = pid;
}

static void live_reap(pid_t pid, int *status) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  for (size_t i = 0; i < live.n_children; i++)
    if (live.children[i] == pid)
      live.children[i] = 0;
  if (status)
    *status = st;
}

static void live_kill(pid_t pid) {
  kill(pid, SIGKILL);
  live_reap(pid, NULL);
}

/* ------------------------------------------------------------------ children */

static void *live_sleeper(void *arg) {
  (void)arg;
  for (;;)
    pause();
  return NULL;
}

static void *live_short_lived(void *arg) {
  return arg;
}

static void *live_churner(void *arg) {
  (void)arg;
  for (;;) {
    pthread_t t;
    if (pthread_create(&t, NULL, live_short_lived, NULL) == 0)
      pthread_join(t, NULL);
  }
  return NULL;
}

/* A child with N_SLEEPERS sleeping threads (and a thread that keeps
 * creating short-lived threads when CHURN); returns once it is ready. */
static pid_t live_spawn_threads(int n_sleepers, bool churn) {
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    for (int i = 0; i < n_sleepers; i++) {
      pthread_t t;
      if (pthread_create(&t, NULL, live_sleeper, NULL) != 0)
        _exit(2);
    }
    if (churn) {
      pthread_t t;
      if (pthread_create(&t, NULL, live_churner, NULL) != 0)
        _exit(2);
    }
    if (write(ready[1], "R", 1) != 1)
      _exit(2);
    for (;;)
      pause();
  }
  close(ready[1]);
  live_track(pid);
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  close(ready[0]);
  return pid;
}

/* A child that waits for a byte on GO, then allocates and touches BYTES;
 * exits 0 if it survived. */
static pid_t live_spawn_hog(int *go_fd, size_t bytes) {
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(go[1]);
    char c;
    if (read(go[0], &c, 1) != 1)
      _exit(2);
    for (size_t done = 0; done < bytes; done += 1u << 20) {
      char *chunk = malloc(1u << 20);
      if (chunk == NULL)
        _exit(3);
      memset(chunk, 0x5a, 1u << 20); /* touch it: only touched pages count */
    }
    _exit(0);
  }
  close(go[0]);
  live_track(pid);
  *go_fd = go[1];
  return pid;
}

/* Every thread of PID is in GROUP (for every controller) and may run on
 * CPUS / use MEMS only.  Threads that exit meanwhile are skipped; returns
 * how many were checked. */
static size_t live_expect_threads(pid_t pid, const char *group, const char *cpus, const char *mems) {
  struct placer_error *err = NULL;
  pid_t *tids = NULL;
  size_t n = 0, checked = 0;
  if (placer_task_list(pid, &tids, &n, &err) < 0)
    live_fail_err(err, "list threads");
  for (size_t i = 0; i < n; i++) {
    char *c = NULL, *m = NULL;
    if (placer_task_read_allowed(pid, tids[i], &c, &m, &err) < 0) {
      placer_error_free(err); /* exited */
      err = NULL;
      continue;
    }
    char task_dir[64];
    snprintf(task_dir, sizeof(task_dir), "/proc/%d/task/%d", (int)pid, (int)tids[i]);
    char path[96];
    snprintf(path, sizeof(path), "%s/cgroup", task_dir);
    char *content = test_read_file(path);
    /* An exiting thread is not migrated by the kernel (it stays in the old
     * group until it is gone): not a failure, nothing to check. */
    if (content == NULL || placer_task_exiting(pid, tids[i])) {
      free(content);
      free(c);
      free(m);
      continue;
    }
    for (int ctl = 0; ctl < PLACER_CGROUP_N_CONTROLLERS; ctl++) {
      if (live.cg->hier[ctl].shared)
        continue; /* one hierarchy with an earlier controller: checked there */
      char *have = NULL;
      bool v2 = placer_cgroup_get_mode(live.cg) == PLACER_CGROUP_V2;
      const char *name = v2 ? NULL : placer_cgroup_controller_name(ctl);
      char *want = cg_path_to_proc(live.cg->hier[ctl].mount_root, group);
      if (placer_cgroup_proc_lookup(content, name, &have) < 0 || strcmp(have, want) != 0) {
        char stat_path[96];
        snprintf(stat_path, sizeof(stat_path), "%s/stat", task_dir);
        char *st = test_read_file(stat_path);
        print_message("misplaced thread stat: %s\n", st ? st : "(gone)");
        free(st);
        fail_msg("thread %d of %d: %s group is '%s', expected '%s'", (int)tids[i], (int)pid,
                 placer_cgroup_controller_name(ctl), have ? have : "(none)", want);
      }
      free(have);
      free(want);
    }
    if (cpus && strcmp(c, cpus) != 0)
      fail_msg("thread %d of %d: Cpus_allowed_list %s, expected %s", (int)tids[i], (int)pid, c, cpus);
    if (mems && strcmp(m, mems) != 0)
      fail_msg("thread %d of %d: Mems_allowed_list %s, expected %s", (int)tids[i], (int)pid, m, mems);
    checked++;
    free(content);
    free(c);
    free(m);
  }
  free(tids);
  return checked;
}

/* Create GROUP with the instance's cpus/mems and a memory limit. */
static void live_make_group(const char *group, const char *cpus, uint64_t limit) {
  struct placer_error *err = NULL;
  if (placer_cgroup_create(live.cg, group, &err) < 0 || placer_cgroup_set_cpus(live.cg, group, cpus, &err) < 0 ||
      placer_cgroup_set_mems(live.cg, group, live.mem, &err) < 0 ||
      placer_cgroup_set_memory_limit(live.cg, group, limit, &err) < 0)
    live_fail_err(err, group);
}

/* ------------------------------------------------------------------ setup / teardown */

static int live_setup(enum placer_cgroup_mode want) {
  memset(&live, 0, sizeof(live));
  if (geteuid() != 0) {
    snprintf(live.why, sizeof(live.why), "not root");
    return 0;
  }
  struct placer_error *err = NULL;
  if (placer_cgroup_open(NULL, &live.cg, &err) < 0) {
    snprintf(live.why, sizeof(live.why), "%s", err->msg);
    placer_error_free(err);
    return 0;
  }
  if (placer_cgroup_get_mode(live.cg) != want) {
    snprintf(live.why, sizeof(live.why), "cgroups here are %s, not %s",
             placer_cgroup_mode_name(placer_cgroup_get_mode(live.cg)), placer_cgroup_mode_name(want));
    return 0;
  }
  if (want == PLACER_CGROUP_V2) {
    char *controllers = live_read(live.cg->hier[0].mount_point, "cgroup.controllers");
    bool all = strstr(controllers, "cpuset") && strstr(controllers, "memory") && strstr(controllers, "cpu");
    if (!all)
      snprintf(live.why, sizeof(live.why), "cgroup v2 root offers only '%s'", controllers);
    free(controllers);
    if (!all)
      return 0;
  }
  snprintf(live.base, sizeof(live.base), "placer-test-%d", (int)getpid());
  snprintf(live.inst, sizeof(live.inst), "%s/role/inst", live.base);
  snprintf(live.other, sizeof(live.other), "%s/role/other", live.base);
  snprintf(live.hog, sizeof(live.hog), "%s/role/hog", live.base);
  snprintf(live.busy, sizeof(live.busy), "%s/busy", live.base);
  live_pick_resources();
  live.ready = true;
  return 0;
}

static int live_teardown(void **state) {
  (void)state;
  for (size_t i = 0; i < live.n_children; i++)
    if (live.children[i] > 0)
      live_kill(live.children[i]);
  if (live.cg && live.base[0]) {
    struct placer_error *err = NULL;
    if (placer_cgroup_remove(live.cg, live.base, &err) < 0) {
      fprintf(stderr, "teardown: %s\n", err->msg);
      placer_error_free(err);
    }
  }
  placer_cgroup_close(live.cg);
  live.cg = NULL;
  return 0;
}

/* Skip when this host cannot run the scenario, unless PLACER_LIVE_REQUIRED
 * is set (the qemu guests of tests/integration/cgroup_vm.sh): there a skip
 * would hide a broken setup. */
#define LIVE_REQUIRE()                          \
  do {                                          \
    if (!live.ready) {                          \
      if (getenv("PLACER_LIVE_REQUIRED"))       \
        fail_msg("cannot run: %s", live.why);   \
      print_message("skipped: %s\n", live.why); \
      skip();                                   \
    }                                           \
  } while (0)

/* ------------------------------------------------------------------ tests */

static void test_create_set_read_back(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  live_make_group(live.inst, live.cpu, LIVE_MEMORY_LIMIT);
  if (placer_cgroup_set_cpu_weight(live.cg, live.inst, LIVE_WEIGHT, &err) < 0)
    live_fail_err(err, "set weight");
  assert_true(placer_cgroup_exists(live.cg, live.inst));

  /* Through the API... */
  char *cpus = NULL, *mems = NULL;
  uint64_t limit = 0;
  unsigned weight = 0;
  if (placer_cgroup_read_cpus(live.cg, live.inst, &cpus, &err) < 0 ||
      placer_cgroup_read_mems(live.cg, live.inst, &mems, &err) < 0 ||
      placer_cgroup_read_memory_limit(live.cg, live.inst, &limit, &err) < 0 ||
      placer_cgroup_read_cpu_weight(live.cg, live.inst, &weight, &err) < 0)
    live_fail_err(err, "read back");
  assert_string_equal(cpus, live.cpu);
  assert_string_equal(mems, live.mem);
  assert_int_equal(limit, LIVE_MEMORY_LIMIT);
  assert_int_equal(weight, LIVE_WEIGHT);
  free(cpus);
  free(mems);

  /* ...and in the files themselves. */
  char value[32];
  live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cpuset.cpus", live.cpu);
  live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cpuset.mems", live.mem);
  snprintf(value, sizeof(value), "%u", LIVE_MEMORY_LIMIT);
  if (placer_cgroup_get_mode(live.cg) == PLACER_CGROUP_V1) {
    live_expect_file(PLACER_CGROUP_MEMORY, live.inst, "memory.limit_in_bytes", value);
    snprintf(value, sizeof(value), "%" PRIu64, placer_cgroup_weight_to_shares(LIVE_WEIGHT));
    live_expect_file(PLACER_CGROUP_CPU, live.inst, "cpu.shares", value);
    live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cpuset.memory_migrate", "1");
    /* The intermediate v1 cpuset was populated from its parent. */
    char *root_dir = placer_cgroup_dir(live.cg, PLACER_CGROUP_CPUSET, "");
    char *root_cpus = live_read(root_dir, "cpuset.cpus");
    char role[96];
    snprintf(role, sizeof(role), "%s/role", live.base);
    live_expect_file(PLACER_CGROUP_CPUSET, role, "cpuset.cpus", root_cpus);
    free(root_cpus);
    free(root_dir);
  } else {
    live_expect_file(PLACER_CGROUP_MEMORY, live.inst, "memory.max", value);
    snprintf(value, sizeof(value), "%u", LIVE_WEIGHT);
    live_expect_file(PLACER_CGROUP_CPU, live.inst, "cpu.weight", value);
    /* Every ancestor passes the controllers on; the leaf does not. */
    char role[96];
    snprintf(role, sizeof(role), "%s/role", live.base);
    char *dir = placer_cgroup_dir(live.cg, PLACER_CGROUP_CPUSET, role);
    char *sc = live_read(dir, "cgroup.subtree_control");
    assert_non_null(strstr(sc, "cpuset"));
    assert_non_null(strstr(sc, "memory"));
    assert_non_null(strstr(sc, "cpu"));
    free(sc);
    free(dir);
    live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cgroup.subtree_control", "");
  }

  /* Unlimited and back. */
  if (placer_cgroup_set_memory_limit(live.cg, live.inst, PLACER_CGROUP_UNLIMITED, &err) < 0 ||
      placer_cgroup_read_memory_limit(live.cg, live.inst, &limit, &err) < 0)
    live_fail_err(err, "unlimited");
  assert_true(limit == PLACER_CGROUP_UNLIMITED);
  if (placer_cgroup_set_memory_limit(live.cg, live.inst, LIVE_MEMORY_LIMIT, &err) < 0)
    live_fail_err(err, "limit");

  /* Creating again keeps what is there. */
  if (placer_cgroup_create(live.cg, live.inst, &err) < 0)
    live_fail_err(err, "create again");
  live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cpuset.cpus", live.cpu);
}

static void test_refused_cpuset_names_file_value_errno(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  assert_int_equal(placer_cgroup_set_cpus(live.cg, live.inst, "100000", &err), -1);
  assert_non_null(err);
  char *dir = placer_cgroup_dir(live.cg, PLACER_CGROUP_CPUSET, live.inst);
  char want[512];
  snprintf(want, sizeof(want), "write %s/cpuset.cpus = '100000': %s", dir, strerror(err->errno_value));
  assert_string_equal(err->msg, want);
  assert_true(err->errno_value == EINVAL || err->errno_value == ERANGE);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  placer_error_free(err);
  free(dir);
  /* The refused write changed nothing. */
  live_expect_file(PLACER_CGROUP_CPUSET, live.inst, "cpuset.cpus", live.cpu);
}

static void test_move_process_with_threads_and_back(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  pid_t child = live_spawn_threads(4, false);

  struct placer_cgroup_membership before = { { 0 } };
  if (placer_cgroup_pid_membership(live.cg, child, &before, &err) < 0)
    live_fail_err(err, "membership before");
  if (placer_cgroup_attach_pid(live.cg, live.inst, child, &err) < 0)
    live_fail_err(err, "attach");

  assert_int_equal(live_expect_threads(child, live.inst, live.cpu, live.mem), 5);
  pid_t *pids = NULL;
  size_t n = 0;
  if (placer_cgroup_list_pids(live.cg, live.inst, &pids, &n, &err) < 0)
    live_fail_err(err, "list pids");
  assert_int_equal(n, 1);
  assert_int_equal(pids[0], child);
  free(pids);
  struct placer_cgroup_membership now = { { 0 } };
  if (placer_cgroup_pid_membership(live.cg, child, &now, &err) < 0)
    live_fail_err(err, "membership now");
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    assert_string_equal(now.path[c], live.inst);
  placer_cgroup_membership_clear(&now);

  /* Rollback: back where it was, every thread, every controller. */
  if (placer_cgroup_restore_pid(live.cg, child, &before, &err) < 0)
    live_fail_err(err, "restore");
  if (placer_cgroup_pid_membership(live.cg, child, &now, &err) < 0)
    live_fail_err(err, "membership after");
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    assert_string_equal(now.path[c], before.path[c]);
  placer_cgroup_membership_clear(&now);
  placer_cgroup_membership_clear(&before);
  if (placer_cgroup_list_pids(live.cg, live.inst, &pids, &n, &err) < 0)
    live_fail_err(err, "list pids after");
  assert_int_equal(n, 0);
  free(pids);
  live_kill(child);
}

static void test_move_while_threads_are_born(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  live_make_group(live.other, live.other_cpu, LIVE_MEMORY_LIMIT);
  pid_t child = live_spawn_threads(2, true);
  for (int i = 0; i < 20; i++) {
    const char *to = (i % 2) ? live.inst : live.other;
    if (placer_cgroup_attach_pid(live.cg, to, child, &err) < 0)
      live_fail_err(err, "attach while churning");
    live_expect_threads(child, to, NULL, NULL);
  }
  live_kill(child);
}

static void test_move_one_thread_and_pin(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  live_make_group(live.other, live.other_cpu, LIVE_MEMORY_LIMIT);
  pid_t child = live_spawn_threads(2, false);
  if (placer_cgroup_attach_pid(live.cg, live.inst, child, &err) < 0)
    live_fail_err(err, "attach");
  pid_t *tids = NULL;
  size_t n = 0;
  if (placer_task_list(child, &tids, &n, &err) < 0)
    live_fail_err(err, "tasks");
  assert_int_equal(n, 3);
  pid_t tid = tids[2];

  if (placer_cgroup_get_mode(live.cg) == PLACER_CGROUP_V1) {
    /* v1 `tasks`: one thread moves, the others stay. */
    if (placer_cgroup_attach_tid(live.cg, live.other, tid, &err) < 0)
      live_fail_err(err, "attach tid");
    char *c = NULL;
    if (placer_task_read_allowed(child, tid, &c, NULL, &err) < 0)
      live_fail_err(err, "allowed");
    assert_string_equal(c, live.other_cpu);
    free(c);
    if (placer_task_read_allowed(child, tids[0], &c, NULL, &err) < 0)
      live_fail_err(err, "allowed");
    assert_string_equal(c, live.cpu);
    free(c);
    /* Moving the process reunites it. */
    if (placer_cgroup_attach_pid(live.cg, live.inst, child, &err) < 0)
      live_fail_err(err, "reunite");
    assert_int_equal(live_expect_threads(child, live.inst, live.cpu, live.mem), 3);
  } else {
    assert_int_equal(placer_cgroup_attach_tid(live.cg, live.other, tid, &err), -1);
    assert_non_null(strstr(err->msg, "cgroup.threads"));
    placer_error_free(err);
    err = NULL;
  }

  /* Per-thread pinning inside the cpuset works; outside it is refused. */
  if (placer_task_set_affinity(tid, live.cpu, &err) < 0)
    live_fail_err(err, "pin inside");
  if (strcmp(live.cpu, live.other_cpu) != 0) {
    assert_int_equal(placer_task_set_affinity(tid, live.other_cpu, &err), -1);
    assert_int_equal(err->errno_value, EINVAL);
    assert_non_null(strstr(err->msg, "sched_setaffinity"));
    placer_error_free(err);
    err = NULL;
  }
  free(tids);
  live_kill(child);
}

static void test_memory_limit_kills_hog(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  live_make_group(live.hog, live.cpu, LIVE_MEMORY_LIMIT);
  struct placer_cgroup_membership self_before = { { 0 } }, self_after = { { 0 } };
  if (placer_cgroup_pid_membership(live.cg, getpid(), &self_before, &err) < 0)
    live_fail_err(err, "own membership");

  int go = -1;
  pid_t hog = live_spawn_hog(&go, LIVE_HOG_BYTES);
  if (placer_cgroup_attach_pid(live.cg, live.hog, hog, &err) < 0)
    live_fail_err(err, "attach hog");
  assert_int_equal(write(go, "G", 1), 1);
  close(go);
  int status = 0;
  live_reap(hog, &status);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
    fail_msg("the %u MiB hog in a %u MiB group was not OOM-killed (status 0x%x)", LIVE_HOG_BYTES >> 20,
             LIVE_MEMORY_LIMIT >> 20, status);

  /* The kernel says it was the group's OOM killer. */
  char *dir = placer_cgroup_dir(live.cg, PLACER_CGROUP_MEMORY, live.hog);
  char *events =
      live_read(dir, placer_cgroup_get_mode(live.cg) == PLACER_CGROUP_V1 ? "memory.oom_control" : "memory.events");
  const char *kills = strstr(events, "oom_kill ");
  assert_non_null(kills);
  assert_true(atoi(kills + strlen("oom_kill ")) >= 1);
  free(events);
  free(dir);

  /* This process was not touched: same groups, still running. */
  if (placer_cgroup_pid_membership(live.cg, getpid(), &self_after, &err) < 0)
    live_fail_err(err, "own membership after");
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    assert_string_equal(self_after.path[c], self_before.path[c]);
  placer_cgroup_membership_clear(&self_before);
  placer_cgroup_membership_clear(&self_after);
}

static void test_remove_refuses_busy_then_removes(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  live_make_group(live.busy, live.cpu, PLACER_CGROUP_UNLIMITED);
  pid_t child = live_spawn_threads(1, false);
  if (placer_cgroup_attach_pid(live.cg, live.busy, child, &err) < 0)
    live_fail_err(err, "attach");

  /* Leftover children like podman's conmon group, made behind placer's back. */
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    char *dir = placer_cgroup_dir(live.cg, c, live.inst);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/conmon", dir);
    if (mkdir(sub, 0755) < 0 && errno != EEXIST)
      fail_msg("mkdir %s: %s", sub, strerror(errno));
    free(dir);
  }

  assert_int_equal(placer_cgroup_remove(live.cg, live.base, &err), -1);
  assert_non_null(err);
  assert_int_equal(err->errno_value, EBUSY);
  char pid_text[16];
  snprintf(pid_text, sizeof(pid_text), "%d", (int)child);
  assert_non_null(strstr(err->msg, "still has processes"));
  assert_non_null(strstr(err->msg, pid_text));
  assert_non_null(strstr(err->msg, live.busy));
  placer_error_free(err);
  err = NULL;
  /* Refused before anything was removed. */
  assert_true(placer_cgroup_exists(live.cg, live.inst));
  assert_true(placer_cgroup_exists(live.cg, live.hog));

  live_kill(child);
  if (placer_cgroup_remove(live.cg, live.base, &err) < 0)
    live_fail_err(err, "remove");
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    char *dir = placer_cgroup_dir(live.cg, c, live.base);
    if (live_dir_exists(dir))
      fail_msg("%s still exists after remove", dir);
    free(dir);
  }
  /* Removing what is gone is fine. */
  if (placer_cgroup_remove(live.cg, live.base, &err) < 0)
    live_fail_err(err, "remove again");
}

static void test_remove_empty_parents(void **state) {
  (void)state;
  LIVE_REQUIRE();
  struct placer_error *err = NULL;
  char deep[160], sibling[160];
  snprintf(deep, sizeof(deep), "%s/a/b/c", live.base);
  snprintf(sibling, sizeof(sibling), "%s/a/keep", live.base);
  if (placer_cgroup_create(live.cg, deep, &err) < 0 || placer_cgroup_create(live.cg, sibling, &err) < 0 ||
      placer_cgroup_remove(live.cg, deep, &err) < 0 || placer_cgroup_remove_empty_parents(live.cg, deep, &err) < 0)
    live_fail_err(err, "prune");
  char ab[160], a[160];
  snprintf(ab, sizeof(ab), "%s/a/b", live.base);
  snprintf(a, sizeof(a), "%s/a", live.base);
  /* a/b went (empty); a stays (it holds keep), and so does the base. */
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    char *dab = placer_cgroup_dir(live.cg, c, ab), *da = placer_cgroup_dir(live.cg, c, a);
    assert_false(live_dir_exists(dab));
    assert_true(live_dir_exists(da));
    free(dab);
    free(da);
  }
  if (placer_cgroup_remove(live.cg, live.base, &err) < 0)
    live_fail_err(err, "remove");
  assert_false(placer_cgroup_exists(live.cg, live.base));
}

#define LIVE_TESTS                                                                                                   \
  cmocka_unit_test(test_create_set_read_back), cmocka_unit_test(test_refused_cpuset_names_file_value_errno),         \
      cmocka_unit_test(test_move_process_with_threads_and_back), cmocka_unit_test(test_move_while_threads_are_born), \
      cmocka_unit_test(test_move_one_thread_and_pin), cmocka_unit_test(test_memory_limit_kills_hog),                 \
      cmocka_unit_test(test_remove_refuses_busy_then_removes), cmocka_unit_test(test_remove_empty_parents)
