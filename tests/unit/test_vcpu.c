/* vCPU threads: QMP query-cpus-fast replies (one captured from qemu 7.2
 * here), thread names, and the QMP client against a fake server. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"
#include "vcpu.h"

/* qemu-system-x86_64 -accel tcg -smp 2 -S ... : the reply to query-cpus-fast. */
static const char captured_reply[] =
    "{\"return\": [{\"thread-id\": 25049, \"props\": {\"core-id\": 0, \"thread-id\": 0, \"socket-id\": 0}, "
    "\"qom-path\": \"/machine/unattached/device[0]\", \"cpu-index\": 0, \"target\": \"x86_64\"}, "
    "{\"thread-id\": 25050, \"props\": {\"core-id\": 1, \"thread-id\": 0, \"socket-id\": 0}, "
    "\"qom-path\": \"/machine/unattached/device[2]\", \"cpu-index\": 1, \"target\": \"x86_64\"}]}";

static void test_parse_captured(void **state) {
  (void)state;
  struct placer_vcpu *v = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_qmp_parse_cpus(captured_reply, &v, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_int_equal(v[0].cpu_index, 0);
  assert_int_equal(v[0].tid, 25049);
  assert_int_equal(v[1].cpu_index, 1);
  assert_int_equal(v[1].tid, 25050);
  free(v);
}

static void test_parse_sorted_and_errors(void **state) {
  (void)state;
  struct placer_vcpu *v = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_qmp_parse_cpus("{\"return\":[{\"cpu-index\":3,\"thread-id\":13},"
                                         "{\"cpu-index\":1,\"thread-id\":11}]}",
                                         &v, &n, &err),
                   0);
  assert_int_equal(n, 2);
  assert_int_equal(v[0].cpu_index, 1);
  assert_int_equal(v[1].tid, 13);
  free(v);
  assert_int_equal(placer_qmp_parse_cpus("{\"error\":{\"class\":\"CommandNotFound\",\"desc\":\"The command "
                                         "query-cpus-fast has not been found\"}}",
                                         &v, &n, &err),
                   -1);
  assert_non_null(strstr(err->msg, "CommandNotFound"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_qmp_parse_cpus("{\"return\":[{\"cpu-index\":0}]}", &v, &n, &err), -1);
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_qmp_parse_cpus("not json", &v, &n, &err), -1);
  placer_error_free(err);
}

static void test_comm(void **state) {
  (void)state;
  unsigned i = 99;
  assert_int_equal(placer_vcpu_parse_comm("CPU 0/TCG", &i), 0);
  assert_int_equal(i, 0);
  assert_int_equal(placer_vcpu_parse_comm("CPU 13/KVM", &i), 0);
  assert_int_equal(i, 13);
  assert_int_equal(placer_vcpu_parse_comm("IO mon_iothread", &i), -1);
  assert_int_equal(placer_vcpu_parse_comm("call_rcu", &i), -1);
  assert_int_equal(placer_vcpu_parse_comm("CPU x/KVM", &i), -1);
  assert_int_equal(placer_vcpu_parse_comm("CPU 1/KVMx", &i), -1);
  assert_int_equal(placer_vcpu_parse_comm("CPU 1", &i), -1);
}

/* A fake qemu: greeting, an event in between, the capabilities, the query. */
struct fake {
  int listen_fd;
  char path[108];
};

static void *fake_qemu(void *arg) {
  struct fake *f = arg;
  int fd = accept(f->listen_fd, NULL, NULL);
  if (fd < 0)
    return NULL;
  FILE *io = fdopen(fd, "r+");
  char line[512];
  fputs("{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 22, \"minor\": 2, \"major\": 7}}, \"capabilities\": "
        "[\"oob\"]}}\r\n",
        io);
  fflush(io);
  if (fgets(line, sizeof(line), io) && strstr(line, "qmp_capabilities"))
    fputs("{\"return\": {}}\r\n", io);
  fflush(io);
  if (fgets(line, sizeof(line), io) && strstr(line, "query-cpus-fast")) {
    fputs("{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"RESUME\"}\r\n", io);
    fprintf(io, "%s\r\n", captured_reply);
  }
  fflush(io);
  fclose(io);
  return NULL;
}

static void test_qmp_client(void **state) {
  (void)state;
  struct fake f;
  snprintf(f.path, sizeof(f.path), "/tmp/placer-test-qmp.%d.sock", (int)getpid());
  unlink(f.path);
  f.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  strcpy(addr.sun_path, f.path);
  assert_int_equal(bind(f.listen_fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
  assert_int_equal(listen(f.listen_fd, 1), 0);
  pthread_t th;
  pthread_create(&th, NULL, fake_qemu, &f);
  struct placer_vcpu *v = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  int ret = placer_qmp_query_cpus(f.path, &v, &n, &err);
  pthread_join(th, NULL);
  close(f.listen_fd);
  unlink(f.path);
  if (ret < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(n, 2);
  assert_int_equal(v[1].tid, 25050);
  free(v);
  /* Nobody listening: an error, not a hang. */
  assert_int_equal(placer_qmp_query_cpus(f.path, &v, &n, &err), -1);
  assert_non_null(err);
  placer_error_free(err);
}

/* A QMP socket whose one connection slot is taken (libvirt holds it) and
 * that accepts nobody: an error within the timeout, never a hang. */
static void test_qmp_busy_socket(void **state) {
  (void)state;
  char path[108];
  snprintf(path, sizeof(path), "/tmp/placer-test-qmp-busy.%d.sock", (int)getpid());
  unlink(path);
  int listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  strcpy(addr.sun_path, path);
  assert_int_equal(bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
  assert_int_equal(listen(listen_fd, 0), 0);
  int holders[8], n_holders = 0;
  while (n_holders < 8) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
      close(fd);
      break;
    }
    holders[n_holders++] = fd;
  }
  assert_true(n_holders < 8); /* the backlog is full now */
  pid_t child = fork();
  if (child == 0) {
    alarm(10); /* a hang ends the child by SIGALRM */
    struct placer_vcpu *v = NULL;
    size_t n = 0;
    struct placer_error *err = NULL;
    _exit(placer_qmp_query_cpus(path, &v, &n, &err) == -1 ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  for (int i = 0; i < n_holders; i++)
    close(holders[i]);
  close(listen_fd);
  unlink(path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the QMP client %s", WIFSIGNALED(status) ? "hung" : "did not fail");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_captured), cmocka_unit_test(test_parse_sorted_and_errors), cmocka_unit_test(test_comm),
    cmocka_unit_test(test_qmp_client),     cmocka_unit_test(test_qmp_busy_socket),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
