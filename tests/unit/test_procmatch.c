/* Finding processes, the pure parts: ceph / qemu / fnmatch tests on sample
 * command lines, pid files, /proc/PID/stat start times, descriptions. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procmatch.h"
#include "proc.h"
#include "test_support.h"

/* A command line from space-separated words (no word holds a space). */
static struct placer_cmdline cmdline(const char *words) {
  size_t len = strlen(words);
  char *raw = strdup(words);
  for (size_t i = 0; i < len; i++)
    if (raw[i] == ' ')
      raw[i] = '\0';
  struct placer_cmdline cl;
  assert_int_equal(placer_cmdline_split(raw, len + 1, &cl), 0);
  free(raw);
  return cl;
}

static bool ceph(const char *words, const char *binary, const char *id) {
  struct placer_cmdline cl = cmdline(words);
  bool hit = placer_cmdline_is_ceph_daemon(&cl, binary, id);
  placer_cmdline_clear(&cl);
  return hit;
}

static bool qemu(const char *words, const char *name) {
  struct placer_cmdline cl = cmdline(words);
  bool hit = placer_cmdline_is_qemu_guest(&cl, name);
  placer_cmdline_clear(&cl);
  return hit;
}

static void test_split_join(void **state) {
  (void)state;
  static const char raw[] = "ceph-osd\0-f\0--id\0003\0";
  struct placer_cmdline cl;
  assert_int_equal(placer_cmdline_split(raw, sizeof(raw) - 1, &cl), 0);
  assert_int_equal(cl.argc, 4);
  assert_string_equal(cl.argv[3], "3");
  char *joined = placer_cmdline_join(&cl);
  assert_string_equal(joined, "ceph-osd -f --id 3");
  free(joined);
  placer_cmdline_clear(&cl);
  /* A process that rewrote its argv may drop the last NUL. */
  assert_int_equal(placer_cmdline_split("stress-ng-cpu [run]", 19, &cl), 0);
  assert_int_equal(cl.argc, 1);
  assert_string_equal(cl.argv[0], "stress-ng-cpu [run]");
  placer_cmdline_clear(&cl);
  /* Kernel threads: empty. */
  assert_int_equal(placer_cmdline_split("", 0, &cl), 0);
  assert_int_equal(cl.argc, 0);
  placer_cmdline_clear(&cl);
}

static void test_ceph_ids(void **state) {
  (void)state;
  const char *osd3 = "/usr/bin/ceph-osd -f --cluster ceph --id 3 --setuser ceph --setgroup ceph";
  assert_true(ceph(osd3, "ceph-osd", "3"));
  assert_false(ceph(osd3, "ceph-osd", "30"));
  assert_false(ceph(osd3, "ceph-osd", "0"));
  assert_false(ceph(osd3, "ceph-mds", "3")); /* another daemon kind */
  assert_true(ceph(osd3, NULL, "3"));        /* any ceph daemon */
  assert_true(ceph("ceph-osd -f -i 0 -c /tmp/x/ceph.conf", "ceph-osd", "0"));
  assert_true(ceph("ceph-osd -i12 -f", "ceph-osd", "12"));
  assert_true(ceph("ceph-osd --id=7 -f", "ceph-osd", "7"));
  assert_true(ceph("ceph-mon -f -n mon.a", "ceph-mon", "a"));
  assert_true(ceph("ceph-mds --name=mds.a -f", "ceph-mds", "a"));
  assert_false(ceph("ceph-mds --name=mon.a -f", "ceph-mds", "a")); /* type must be the binary's */
  assert_true(ceph("ceph-mgr -f -i x", "ceph-mgr", "x"));
  /* Only argv[0] counts: a wrapper or a shell mentioning ceph-osd is not it. */
  assert_false(ceph("timeout 10 ceph-osd -f --id 3", "ceph-osd", "3"));
  assert_false(ceph("sh -c ceph-osd --id 3", "ceph-osd", "3"));
  assert_false(ceph("ceph-osd-wrapper --id 3", "ceph-osd", "3"));
  assert_false(ceph("ceph-osd -f", "ceph-osd", "3"));
  assert_false(ceph("ceph-osd --id", "ceph-osd", "3"));
  /* "--" ends the options. */
  assert_false(ceph("ceph-osd -f -- --id 3", "ceph-osd", "3"));
}

static void test_qemu_names(void **state) {
  (void)state;
  const char *vm0 = "/usr/bin/qemu-system-x86_64 -accel tcg -smp 2 -name guest=vm0,debug-threads=on -m 1024";
  assert_true(qemu(vm0, "vm0"));
  assert_false(qemu(vm0, "vm"));
  assert_false(qemu(vm0, "debug-threads=on"));
  assert_true(qemu("qemu-system-aarch64 -name vm1", "vm1"));
  assert_true(qemu("qemu-system-x86_64 -name vm2,debug-threads=on", "vm2"));
  assert_true(qemu("qemu-kvm -name debug-threads=on,guest=vm3", "vm3"));
  assert_true(qemu("qemu-system-x86_64 --name guest=a,,b", "a,b")); /* qemu's ",," escape */
  assert_false(qemu("qemu-system-x86_64 -name guest=a,,b", "a"));
  assert_false(qemu("/usr/bin/python3 -name guest=vm0", "vm0"));
  assert_false(qemu("qemu-system-x86_64 -m 128", "vm0"));
  assert_false(qemu("qemu-system-x86_64 -name", "vm0"));
}

static void test_qmp_socket(void **state) {
  (void)state;
  char *path = NULL;
  struct placer_cmdline cl = cmdline("qemu-system-x86_64 -name guest=v -qmp unix:/run/v.qmp,server=on,wait=off");
  assert_int_equal(placer_cmdline_qmp_socket(&cl, &path), 0);
  assert_string_equal(path, "/run/v.qmp");
  free(path);
  placer_cmdline_clear(&cl);
  cl = cmdline("qemu-system-x86_64 -chardev socket,id=mon0,path=/tmp/m.sock,server=on,wait=off "
               "-mon chardev=mon0,mode=control");
  assert_int_equal(placer_cmdline_qmp_socket(&cl, &path), 0);
  assert_string_equal(path, "/tmp/m.sock");
  free(path);
  placer_cmdline_clear(&cl);
  /* A human monitor (mode=readline) is not QMP; a TCP QMP is not a unix socket. */
  cl = cmdline("qemu-system-x86_64 -chardev socket,id=m,path=/tmp/h.sock,server=on -mon chardev=m,mode=readline "
               "-qmp tcp:127.0.0.1:4444,server=on");
  assert_int_equal(placer_cmdline_qmp_socket(&cl, &path), -1);
  placer_cmdline_clear(&cl);
}

static void test_pattern(void **state) {
  (void)state;
  struct placer_cmdline cl = cmdline("fio --name=randwrite --ioengine=rbd --iodepth=16");
  assert_true(placer_cmdline_matches_pattern(&cl, "fio *"));
  assert_true(placer_cmdline_matches_pattern(&cl, "*--ioengine=rbd*"));
  assert_false(placer_cmdline_matches_pattern(&cl, "fio"));
  assert_false(placer_cmdline_matches_pattern(&cl, "stress-ng*"));
  placer_cmdline_clear(&cl);
  cl = cmdline("/usr/bin/sleep 7001");
  assert_true(placer_cmdline_matches_pattern(&cl, "*/sleep 7001")); /* '*' crosses '/' */
  placer_cmdline_clear(&cl);
}

static void test_pid_text(void **state) {
  (void)state;
  pid_t pid = 0;
  assert_int_equal(placer_parse_pid_text("1234\n", &pid), 0);
  assert_int_equal(pid, 1234);
  assert_int_equal(placer_parse_pid_text("  42  ", &pid), 0);
  assert_int_equal(pid, 42);
  assert_int_equal(placer_parse_pid_text("0\n", &pid), -1); /* podman: not running */
  assert_int_equal(placer_parse_pid_text("-1", &pid), -1);
  assert_int_equal(placer_parse_pid_text("12 34", &pid), -1);
  assert_int_equal(placer_parse_pid_text("", &pid), -1);
  assert_int_equal(placer_parse_pid_text("abc", &pid), -1);
}

static void test_stat_start_time(void **state) {
  (void)state;
  uint64_t t = 0;
  char *odd = test_read_file(test_data_path("fixtures/proc/odd-comm.stat"));
  char *kthreadd = test_read_file(test_data_path("fixtures/proc/kthreadd.stat"));
  assert_non_null(odd);
  assert_non_null(kthreadd);
  assert_int_equal(placer_proc_stat_start_time(kthreadd, &t), 0);
  assert_int_equal(t, 24);
  /* A comm with spaces and ')' must not shift the fields. */
  assert_int_equal(placer_proc_stat_start_time(odd, &t), 0);
  assert_int_equal(t, 86707);
  char comm[17];
  assert_int_equal(placer_proc_stat_comm(odd, comm, sizeof(comm)), 0);
  assert_string_equal(comm, "x) (y z");
  assert_int_equal(placer_proc_stat_comm(odd, comm, 4), 0); /* cut to fit */
  assert_string_equal(comm, "x) ");
  assert_int_equal(placer_proc_stat_comm("4242 x) S", comm, sizeof(comm)), -1);
  assert_int_equal(placer_proc_stat_comm("4242 )x( S", comm, sizeof(comm)), -1);
  free(odd);
  free(kthreadd);
  const char *line = "4242 (ceph-osd) S 1 4242 4242 0 -1 4194560 1 0 0 0 5 6 0 0 20 0 59 0 987654 1 2 3";
  assert_int_equal(placer_proc_stat_start_time(line, &t), 0);
  assert_int_equal(t, 987654);
  assert_int_equal(placer_proc_stat_start_time("4242 (x) S 1 2", &t), -1);
  assert_int_equal(placer_proc_stat_start_time("garbage", &t), -1);
}

static void test_describe(void **state) {
  (void)state;
  struct placer_match m = { PLACER_MATCH_CEPH_ID, "3" };
  char *s = placer_match_describe(PLACER_KIND_CEPH_OSD, &m);
  assert_string_equal(s, "ceph-osd --id 3");
  free(s);
  m = (struct placer_match){ PLACER_MATCH_CONTAINER, "ceph-osd-3" };
  s = placer_match_describe(PLACER_KIND_CEPH_OSD, &m);
  assert_string_equal(s, "podman container 'ceph-osd-3'");
  free(s);
  m = (struct placer_match){ PLACER_MATCH_QEMU_NAME, "vm0" };
  s = placer_match_describe(PLACER_KIND_VM, &m);
  assert_string_equal(s, "qemu -name guest=vm0");
  free(s);
  assert_string_equal(placer_ceph_binary(PLACER_KIND_CEPH_MDS), "ceph-mds");
  assert_null(placer_ceph_binary(PLACER_KIND_FIO));
}

/* Live, but harmless: a scan never returns the caller itself. */
/* A child that pauses until killed. */
static pid_t pausing_child(void) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

/* Real processes: the workers one supervisor forked (stress-ng's, a service's) are one tree,
 * as a process and its descendants are; a process below another parent is a tree of its own. */
static void test_count_trees(void **state) {
  (void)state;
  pid_t a = pausing_child(), b = pausing_child(), c = pausing_child();
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t mid = fork(); /* not in the list: its child is another tree */
  assert_true(mid >= 0);
  if (mid == 0) {
    close(fds[0]);
    pid_t g = pausing_child();
    if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
      _exit(1);
    pause();
    _exit(0);
  }
  close(fds[1]);
  pid_t grandchild = 0;
  assert_int_equal(read(fds[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
  close(fds[0]);
  pid_t siblings[] = { a, b, c };
  assert_int_equal(placer_proc_count_trees(siblings, 3), 1);
  pid_t two[] = { a, b, grandchild };
  assert_int_equal(placer_proc_count_trees(two, 3), 2);
  pid_t with_mid[] = { a, mid, grandchild }; /* a and mid are siblings, the grandchild below mid: one tree */
  assert_int_equal(placer_proc_count_trees(with_mid, 3), 1);
  pid_t alone[] = { grandchild };
  assert_int_equal(placer_proc_count_trees(alone, 1), 1);
  kill(grandchild, SIGKILL);
  pid_t all[] = { a, b, c, mid };
  for (size_t i = 0; i < 4; i++) {
    kill(all[i], SIGKILL);
    waitpid(all[i], NULL, 0);
  }
}

static void test_find_self_never(void **state) {
  (void)state;
  /* A pattern matching every process must not return placer (here: the test) itself. */
  struct placer_match m = { PLACER_MATCH_CMDLINE, "*" };
  pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_procmatch_find(PLACER_KIND_GENERIC, &m, &pids, &n, NULL, &err), 0);
  for (size_t i = 0; i < n; i++)
    assert_int_not_equal(pids[i], getpid());
  free(pids);
  /* A missing pid file is "no process", with the reason. */
  m = (struct placer_match){ PLACER_MATCH_PIDFILE, "/nonexistent/placer-test.pid" };
  char *why = NULL;
  assert_int_equal(placer_procmatch_find(PLACER_KIND_GENERIC, &m, &pids, &n, &why, &err), 0);
  assert_int_equal(n, 0);
  assert_non_null(why);
  assert_non_null(strstr(why, "/nonexistent/placer-test.pid"));
  free(why);
  free(pids);
}

/* A Proxmox guest is found by qemu-server's pid file, RUN_DIR/VMID.pid: here a
 * child of the test's own, in a directory of its own. */
static void test_proxmox_vmid(void **state) {
  (void)state;
  char dir[] = "/tmp/placer-test-proxmox-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("PLACER_PROXMOX_RUN_DIR", dir, 1);
  struct placer_match m = { PLACER_MATCH_PROXMOX_VMID, "101" };
  char *s = placer_match_describe(PLACER_KIND_VM, &m);
  char want[256];
  snprintf(want, sizeof(want), "Proxmox VMID 101 (%s/101.pid)", dir);
  assert_string_equal(s, want);
  free(s);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  char path[300];
  snprintf(path, sizeof(path), "%s/101.pid", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "%d\n", (int)child);
  fclose(f);
  pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_procmatch_find(PLACER_KIND_VM, &m, &pids, &n, NULL, &err), 0);
  assert_int_equal(n, 1);
  assert_int_equal(pids[0], child);
  free(pids);
  /* another VMID: no process, and why */
  m.value = "102";
  char *why = NULL;
  assert_int_equal(placer_procmatch_find(PLACER_KIND_VM, &m, &pids, &n, &why, &err), 0);
  assert_int_equal(n, 0);
  assert_non_null(strstr(why, "102.pid"));
  free(why);
  free(pids);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  unlink(path);
  rmdir(dir);
  unsetenv("PLACER_PROXMOX_RUN_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split_join),      cmocka_unit_test(test_ceph_ids),    cmocka_unit_test(test_qemu_names),
    cmocka_unit_test(test_qmp_socket),      cmocka_unit_test(test_pattern),     cmocka_unit_test(test_pid_text),
    cmocka_unit_test(test_stat_start_time), cmocka_unit_test(test_describe),    cmocka_unit_test(test_find_self_never),
    cmocka_unit_test(test_proxmox_vmid),    cmocka_unit_test(test_count_trees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
