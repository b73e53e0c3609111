/* The admin-socket client (ceph-admin.c) on real sockets of this test's own
 * processes: which socket a process listens on (its .asok first, nothing
 * from another process, none when it holds none), a socket held by another
 * process than the one asked refused before anything is sent, a listener
 * that never answers given up at the deadline.  Talking to a real ceph-mds
 * and ceph-osd: tests/integration/status_mds.sh, ceph_counters.sh. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ceph-admin.h"
#include "test_support.h"

static char dir[128];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/test-ceph-admin-%d", (int)getpid());
  return mkdir(dir, 0700);
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  return system(cmd);
}

/* A Unix socket bound at DIR/NAME, listening when LISTEN; its fd. */
static int bound(const char *name, bool listen_on, char *path, size_t len) {
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  snprintf(path, len, "%s/%s", dir, name);
  snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(fd >= 0);
  assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
  if (listen_on)
    assert_int_equal(listen(fd, 4), 0);
  return fd;
}

static void test_socket_of(void **state) {
  (void)state;
  char path[256], why[512], one[256], asok[256], idle[256];
  /* bound but not listening: no admin socket */
  int a = bound("idle.asok", false, idle, sizeof(idle));
  assert_int_equal(placer_ceph_admin_socket_of(getpid(), path, sizeof(path), why, sizeof(why)), 1);
  char want[128];
  snprintf(want, sizeof(want), "pid %d listens on no admin socket", (int)getpid());
  assert_non_null(strstr(why, want));
  /* the only listener, whatever its name */
  int b = bound("only.sock", true, one, sizeof(one));
  assert_int_equal(placer_ceph_admin_socket_of(getpid(), path, sizeof(path), why, sizeof(why)), 0);
  assert_string_equal(path, one);
  /* with an .asok among several, that one */
  int c = bound("ceph-mds.t.asok", true, asok, sizeof(asok));
  assert_int_equal(placer_ceph_admin_socket_of(getpid(), path, sizeof(path), why, sizeof(why)), 0);
  assert_string_equal(path, asok);
  close(a);
  close(b);
  close(c);
  /* a process that has gone */
  pid_t child = fork();
  if (child == 0)
    _exit(0);
  waitpid(child, NULL, 0);
  assert_int_equal(placer_ceph_admin_socket_of(child, path, sizeof(path), why, sizeof(why)), 1);
  snprintf(want, sizeof(want), "pid %d holds no socket (or has gone)", (int)child);
  assert_string_equal(why, want);
}

static long long ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* This test listens and never answers: asked as another process's socket,
 * refused before anything is sent; asked as its own, no answer by the
 * deadline; a path with no socket says so. */
static void test_command_refused_and_deadline(void **state) {
  (void)state;
  char path[256], why[512], want[512];
  int fd = bound("silent.asok", true, path, sizeof(path));
  char *out = NULL;
  size_t len = 0;
  pid_t other = getppid(); /* SO_PEERCRED names the process that called listen(): this one */
  assert_int_equal(
      placer_ceph_admin_command(path, other, "{\"prefix\": \"config get\"}", 500, 1024, &out, &len, why, sizeof(why)),
      1);
  snprintf(want, sizeof(want), "admin socket %s: held by pid %d, not by pid %d: not asked", path, (int)getpid(),
           (int)other);
  assert_string_equal(why, want);
  long long t0 = ms_now();
  assert_int_equal(placer_ceph_admin_command(path, getpid(), "{\"prefix\": \"config get\"}", 300, 1024, &out, &len, why,
                                             sizeof(why)),
                   1);
  long long took = ms_now() - t0;
  snprintf(want, sizeof(want), "admin socket %s: no answer in 300 ms", path);
  assert_string_equal(why, want);
  assert_true(took >= 290 && took < 1500);
  char gone[300];
  snprintf(gone, sizeof(gone), "%s/none.asok", dir);
  assert_int_equal(placer_ceph_admin_command(gone, 0, "{}", 300, 1024, &out, &len, why, sizeof(why)), 1);
  snprintf(want, sizeof(want), "admin socket %s: No such file or directory", gone);
  assert_string_equal(why, want);
  close(fd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_socket_of),
    cmocka_unit_test(test_command_refused_and_deadline),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
