/* Where the watcher's process events come from and what it does with one
 * process: the scan's differ on two captured proc roots
 * (tests/fixtures/proc/scan), the proc connector's datagrams decoded (built
 * here as the kernel lays them out, linux/cn_proc.h), the metrics
 * address and the requests the listener answers, and placer_watch_match on
 * processes of this test. */
#include <arpa/inet.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/textfile.h"
#include "proc.h"
#include "test_support.h"
#include "watch/watch-internal.h"
#include "watch/watch.h"

/* ------------------------------------------------------------------ collecting events */

struct seen {
  struct watch_event v[32];
  size_t n;
  int fail_at; /* the emit that fails (1-based), 0: none */
};

static int collect(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  struct seen *s = ctx;
  if (s->fail_at && (int)s->n + 1 == s->fail_at)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stop");
  assert_true(s->n < 32);
  s->v[s->n++] = *ev;
  return 0;
}

static void expect(const struct seen *s, size_t i, enum watch_event_kind kind, pid_t pid, uint64_t time) {
  assert_true(i < s->n);
  assert_int_equal(s->v[i].kind, kind);
  assert_int_equal(s->v[i].pid, pid);
  assert_int_equal(s->v[i].tgid, pid);
  assert_int_equal(s->v[i].time_ns, time);
}

/* ------------------------------------------------------------------ the scan */

static void scan_reads_a_proc_root(void **state) {
  (void)state;
  struct watch_proc_entry *e = NULL;
  size_t n = 0;
  assert_int_equal(watch_scan_read(test_data_path("fixtures/proc/scan/after"), &e, &n, NULL), 0);
  /* self/ and uptime are not processes */
  assert_int_equal(n, 5);
  pid_t want[] = { 18291, 30716, 30717, 30718, 30815 };
  for (size_t i = 0; i < n; i++)
    assert_int_equal(e[i].pid, want[i]);
  assert_string_equal(e[0].comm, "x) (y z!");
  assert_int_equal(e[2].arg_start, 140733508889192u);
  assert_string_equal(e[2].comm, "sleep");
  assert_int_equal(e[2].start_ticks, 107876);
  assert_int_equal(e[3].start_ticks, 108210);
  free(e);

  struct placer_error *err = NULL;
  assert_int_equal(watch_scan_read(test_data_path("fixtures/proc/scan/none"), &e, &n, &err), -1);
  assert_non_null(strstr(err->msg, "scan/none"));
  placer_error_free(err);
}

static void scan_diff_captured(void **state) {
  (void)state;
  struct watch_proc_entry *before = NULL, *after = NULL;
  size_t n_before = 0, n_after = 0;
  assert_int_equal(watch_scan_read(test_data_path("fixtures/proc/scan/before"), &before, &n_before, NULL), 0);
  assert_int_equal(watch_scan_read(test_data_path("fixtures/proc/scan/after"), &after, &n_after, NULL), 0);
  struct seen s = { .n = 0 };
  assert_int_equal(watch_scan_diff(before, n_before, after, n_after, collect, &s, NULL), 0);
  /* 30716 unchanged: nothing */
  assert_int_equal(s.n, 5);
  expect(&s, 0, WATCH_EVENT_COMM, 18291, 86707);  /* renamed, argv where it was */
  expect(&s, 1, WATCH_EVENT_EXEC, 30717, 107876); /* sh exec'd sleep: the same PID and start, argv moved */
  expect(&s, 2, WATCH_EVENT_EXIT, 30718, 107876); /* the PID reused: the old one ended... */
  expect(&s, 3, WATCH_EVENT_EXEC, 30718, 108210); /* ...and a new one runs */
  expect(&s, 4, WATCH_EVENT_EXEC, 30815, 108207);

  /* backwards: what started ended, what ended started */
  s.n = 0;
  assert_int_equal(watch_scan_diff(after, n_after, before, n_before, collect, &s, NULL), 0);
  assert_int_equal(s.n, 5);
  expect(&s, 0, WATCH_EVENT_COMM, 18291, 86707);
  expect(&s, 1, WATCH_EVENT_EXEC, 30717, 107876);
  expect(&s, 2, WATCH_EVENT_EXIT, 30718, 108210);
  expect(&s, 3, WATCH_EVENT_EXEC, 30718, 107876);
  expect(&s, 4, WATCH_EVENT_EXIT, 30815, 108207);

  /* the same program exec'd again (a storm's self-exec): only argv's address tells */
  struct watch_proc_entry one = after[1], again = after[1];
  again.arg_start += 4096;
  s.n = 0;
  assert_int_equal(watch_scan_diff(&one, 1, &again, 1, collect, &s, NULL), 0);
  assert_int_equal(s.n, 1);
  expect(&s, 0, WATCH_EVENT_EXEC, 30716, 107876);

  /* the first picture against nothing: every process is new; a failing emit stops it */
  s.n = 0;
  assert_int_equal(watch_scan_diff(NULL, 0, after, n_after, collect, &s, NULL), 0);
  assert_int_equal(s.n, n_after);
  struct seen stop = { .fail_at = 2 };
  struct placer_error *err = NULL;
  assert_int_equal(watch_scan_diff(NULL, 0, after, n_after, collect, &stop, &err), -1);
  assert_int_equal(stop.n, 1);
  placer_error_free(err);
  free(before);
  free(after);
}

/* A handler that asks the scan to drop from its picture each process it
 * sees exec (as the watcher does with one caught in the middle of its exec). */
struct forgetting {
  struct watch_scan *scan;
  struct seen seen;
};

static int forget_execs(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  struct forgetting *f = ctx;
  if (collect(&f->seen, ev, err) < 0)
    return -1;
  if (ev->kind == WATCH_EVENT_EXEC)
    watch_scan_forget(f->scan, ev->pid);
  return 0;
}

static void scan_steps_and_forgets(void **state) {
  (void)state;
  struct watch_scan scan;
  assert_int_equal(watch_scan_open(&scan, test_data_path("fixtures/proc/scan/before"), NULL), 0);
  assert_int_equal(scan.n_entries, 4);
  free(scan.proc_root);
  scan.proc_root = strdup(test_data_path("fixtures/proc/scan/after"));
  /* The first step emits what changed; the handler forgets the processes it
   * sees exec (after the step: the picture it compares with is not touched
   * meanwhile). */
  struct forgetting f = { .scan = &scan };
  assert_int_equal(watch_scan_step(&scan, forget_execs, &f, NULL), 0);
  assert_int_equal(f.seen.n, 5);
  /* 30717, 30718 and 30815 were forgotten: the same tree again shows them as new */
  assert_int_equal(scan.n_entries, 2);
  f.seen.n = 0;
  assert_int_equal(watch_scan_step(&scan, collect, &f.seen, NULL), 0);
  assert_int_equal(f.seen.n, 3);
  expect(&f.seen, 0, WATCH_EVENT_EXEC, 30717, 107876);
  expect(&f.seen, 1, WATCH_EVENT_EXEC, 30718, 108210);
  expect(&f.seen, 2, WATCH_EVENT_EXEC, 30815, 108207);
  /* and then nothing */
  f.seen.n = 0;
  assert_int_equal(watch_scan_step(&scan, collect, &f.seen, NULL), 0);
  assert_int_equal(f.seen.n, 0);
  watch_scan_close(&scan);
}

static void scan_ticks_are_on_the_monotonic_clock(void **state) {
  (void)state;
  /* A process started now (its start time read from /proc) is now on
   * CLOCK_MONOTONIC, to a tick (10 ms) and the test's own delay. */
  uint64_t start = 0;
  assert_int_equal(placer_proc_start_time(getpid(), &start, NULL), 0);
  uint64_t mono = watch_scan_ticks_to_monotonic(start);
  assert_true(mono <= watch_monotonic_ns());
  assert_true(mono > 0);
}

/* ------------------------------------------------------------------ the connector's datagrams */

/* One netlink message holding a cn_msg and a proc_event of LEN bytes. */
static size_t put_event(char *buf, const struct proc_event *ev, size_t ev_len) {
  struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
  memset(buf, 0, NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(*ev)));
  nlh->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + ev_len);
  nlh->nlmsg_type = NLMSG_DONE;
  struct cn_msg *msg = NLMSG_DATA(nlh);
  msg->id.idx = CN_IDX_PROC;
  msg->id.val = CN_VAL_PROC;
  msg->len = (unsigned short)ev_len;
  memcpy(msg->data, ev, ev_len);
  return NLMSG_ALIGN(nlh->nlmsg_len);
}

static void connector_decode(void **state) {
  (void)state;
  char buf[4096] __attribute__((aligned(8)));
  size_t off = 0;
  struct proc_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.what = PROC_EVENT_NONE; /* the ack: skipped */
  off += put_event(buf + off, &ev, sizeof(ev));
  ev.what = PROC_EVENT_FORK;
  ev.timestamp_ns = 1000;
  ev.event_data.fork.parent_pid = ev.event_data.fork.parent_tgid = 10;
  ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 11;
  off += put_event(buf + off, &ev, sizeof(ev));
  memset(&ev.event_data, 0, sizeof(ev.event_data));
  ev.what = PROC_EVENT_EXEC;
  ev.timestamp_ns = 2000;
  ev.event_data.exec.process_pid = ev.event_data.exec.process_tgid = 11;
  off += put_event(buf + off, &ev, sizeof(ev));
  ev.what = PROC_EVENT_UID; /* not one the watcher follows */
  off += put_event(buf + off, &ev, sizeof(ev));
  memset(&ev.event_data, 0, sizeof(ev.event_data));
  ev.what = PROC_EVENT_COMM;
  ev.timestamp_ns = 3000;
  ev.event_data.comm.process_pid = 12; /* a thread of 11 naming itself */
  ev.event_data.comm.process_tgid = 11;
  off += put_event(buf + off, &ev, sizeof(ev));
  memset(&ev.event_data, 0, sizeof(ev.event_data));
  ev.what = PROC_EVENT_EXIT;
  ev.timestamp_ns = 4000;
  ev.event_data.exit.process_pid = ev.event_data.exit.process_tgid = 11;
  off += put_event(buf + off, &ev, sizeof(ev));

  struct seen s = { .n = 0 };
  size_t n_events = 0;
  assert_int_equal(watch_connector_decode(buf, off, collect, &s, &n_events, NULL), 0);
  assert_int_equal(n_events, 4);
  assert_int_equal(s.n, 4);
  expect(&s, 0, WATCH_EVENT_FORK, 11, 1000);
  expect(&s, 1, WATCH_EVENT_EXEC, 11, 2000);
  assert_int_equal(s.v[2].kind, WATCH_EVENT_COMM);
  assert_int_equal(s.v[2].pid, 12);
  assert_int_equal(s.v[2].tgid, 11);
  expect(&s, 3, WATCH_EVENT_EXIT, 11, 4000);
  assert_string_equal(watch_event_kind_name(WATCH_EVENT_COMM), "comm");

  /* a cn_msg that claims more than the message holds */
  struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
  size_t one = put_event(buf, &ev, sizeof(ev));
  ((struct cn_msg *)NLMSG_DATA(nlh))->len = 200;
  struct placer_error *err = NULL;
  assert_int_equal(watch_connector_decode(buf, one, collect, &s, &n_events, &err), -1);
  assert_non_null(strstr(err->msg, "truncated"));
  placer_error_free(err);
  /* an event cut before its data */
  one = put_event(buf, &ev, 8);
  err = NULL;
  assert_int_equal(watch_connector_decode(buf, one, collect, &s, &n_events, &err), -1);
  placer_error_free(err);
  /* a datagram shorter than a netlink header: nothing in it */
  assert_int_equal(watch_connector_decode(buf, 7, collect, &s, &n_events, NULL), 0);
  assert_int_equal(n_events, 0);
  /* another connector's message (not CN_IDX_PROC) is skipped */
  one = put_event(buf, &ev, sizeof(ev));
  ((struct cn_msg *)NLMSG_DATA(nlh))->id.idx = CN_IDX_PROC + 1;
  assert_int_equal(watch_connector_decode(buf, one, collect, &s, &n_events, NULL), 0);
  assert_int_equal(n_events, 0);
}

/* What the kernel sent, captured (tests/fixtures/watch/NAME.bin). */
static void decode_captured(const char *name, enum watch_event_kind kind, size_t want) {
  char path[256];
  snprintf(path, sizeof(path), "fixtures/watch/%s.bin", name);
  char *bytes = NULL;
  size_t len = 0;
  assert_int_equal(placer_textfile_read_path(test_data_path(path), 4096, &bytes, &len), 0);
  struct seen s = { .n = 0 };
  size_t n_events = 9;
  assert_int_equal(watch_connector_decode(bytes, len, collect, &s, &n_events, NULL), 0);
  assert_int_equal(n_events, want);
  if (want) {
    assert_int_equal(s.v[0].kind, kind);
    assert_true(s.v[0].pid > 0 && s.v[0].tgid > 0 && s.v[0].time_ns > 0);
  }
  free(bytes);
}

static void connector_captured(void **state) {
  (void)state;
  decode_captured("ack", WATCH_EVENT_EXEC, 0);
  decode_captured("fork", WATCH_EVENT_FORK, 1);
  decode_captured("exec", WATCH_EVENT_EXEC, 1);
  decode_captured("comm", WATCH_EVENT_COMM, 1);
  decode_captured("exit", WATCH_EVENT_EXIT, 1);
}

/* ------------------------------------------------------------------ the metrics address */

static void expect_address(const char *text, int family, const char *host, unsigned port) {
  struct sockaddr_storage ss;
  socklen_t len = 0;
  struct placer_error *err = NULL;
  if (watch_http_parse_address(text, &ss, &len, &err) < 0)
    fail_msg("'%s': %s", text, err->msg);
  assert_int_equal(ss.ss_family, family);
  char got[64];
  if (family == AF_INET) {
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    inet_ntop(AF_INET, &v4->sin_addr, got, sizeof(got));
    assert_int_equal(ntohs(v4->sin_port), port);
    assert_int_equal(len, sizeof(*v4));
  } else {
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    inet_ntop(AF_INET6, &v6->sin6_addr, got, sizeof(got));
    assert_int_equal(ntohs(v6->sin6_port), port);
    assert_int_equal(len, sizeof(*v6));
  }
  assert_string_equal(got, host);
}

static void bad_address(const char *text) {
  struct sockaddr_storage ss;
  socklen_t len = 0;
  struct placer_error *err = NULL;
  if (watch_http_parse_address(text, &ss, &len, &err) == 0)
    fail_msg("'%s' was taken", text);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "metrics address"));
  assert_null(strchr(err->msg, '\n'));
  placer_error_free(err);
}

static void metrics_address(void **state) {
  (void)state;
  expect_address("127.0.0.1:9101", AF_INET, "127.0.0.1", 9101);
  expect_address(":9101", AF_INET, "127.0.0.1", 9101);
  expect_address("9101", AF_INET, "127.0.0.1", 9101);
  expect_address("localhost:0", AF_INET, "127.0.0.1", 0);
  expect_address("10.1.2.3:65535", AF_INET, "10.1.2.3", 65535);
  expect_address("[::1]:9101", AF_INET6, "::1", 9101);
  bad_address("");
  bad_address("127.0.0.1");
  bad_address("127.0.0.1:");
  bad_address("127.0.0.1:65536");
  bad_address("127.0.0.1:-1");
  bad_address("127.0.0.1:91x");
  bad_address("127.0.0.1: 9101");
  bad_address("host.example:9101"); /* no name is resolved */
  bad_address("::1:9101");          /* IPv6 needs its brackets */
  bad_address("[::1]9101");
  bad_address("[127.0.0.1]:9101");
  bad_address("[::1:9101");
  bad_address("300.1.1.1:80");
}

static void expect_route(const char *request, enum watch_http_route want, bool want_head) {
  bool head = !want_head;
  enum watch_http_route got = watch_http_route(request, &head);
  if (got != want)
    fail_msg("'%s': route %d, not %d", request, (int)got, (int)want);
  assert_int_equal(head, want_head);
}

static void http_routes(void **state) {
  (void)state;
  expect_route("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", WATCH_HTTP_METRICS, false);
  expect_route("GET /metrics?x=1 HTTP/1.0\r\n\r\n", WATCH_HTTP_METRICS, false);
  expect_route("HEAD /metrics HTTP/1.1\n\n", WATCH_HTTP_METRICS, true);
  expect_route("GET / HTTP/1.1\r\n\r\n", WATCH_HTTP_ROOT, false);
  expect_route("GET /metricsx HTTP/1.1\r\n\r\n", WATCH_HTTP_NOT_FOUND, false);
  expect_route("GET /../metrics HTTP/1.1\r\n\r\n", WATCH_HTTP_NOT_FOUND, false);
  expect_route("POST /metrics HTTP/1.1\r\n\r\n", WATCH_HTTP_BAD_METHOD, false);
  expect_route("get /metrics HTTP/1.1\r\n\r\n", WATCH_HTTP_BAD_METHOD, false); /* methods are case-sensitive */
  expect_route("GET /metrics\r\n\r\n", WATCH_HTTP_BAD_REQUEST, false);         /* HTTP/0.9 */
  expect_route("GET /metrics HTTP/2\r\n\r\n", WATCH_HTTP_BAD_REQUEST, false);
  expect_route("GET /metrics HTTP/1.1x\r\n\r\n", WATCH_HTTP_BAD_REQUEST, false);
  expect_route("GET /metrics HTTP/1.1 extra\r\n\r\n", WATCH_HTTP_BAD_REQUEST, false);
  expect_route("\r\n\r\n", WATCH_HTTP_BAD_REQUEST, false);
  char long_line[400];
  memset(long_line, 'a', sizeof(long_line) - 1);
  long_line[sizeof(long_line) - 1] = '\0';
  memcpy(long_line, "GET /", 5);
  expect_route(long_line, WATCH_HTTP_TOO_LONG, false);
}

/* ------------------------------------------------------------------ matching one process */

static pid_t start(const char *arg) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    execlp("sleep", "sleep", arg, (char *)NULL);
    _exit(127);
  }
  /* its exec: until then its command line is ours */
  for (int i = 0; i < 2000; i++) {
    char path[64], buf[64] = "";
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
      size_t n = fread(buf, 1, sizeof(buf) - 1, f);
      fclose(f);
      if (n >= 5 && strcmp(buf, "sleep") == 0)
        return pid;
    }
    usleep(1000);
  }
  fail_msg("sleep %s did not start", arg);
  return -1;
}

static void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

static void match_one_process(void **state) {
  (void)state;
  char pidfile[] = "/tmp/placer-test-watch-XXXXXX";
  int fd = mkstemp(pidfile);
  assert_true(fd >= 0);
  pid_t a = start("1001.5"), b = start("1002.5");
  dprintf(fd, "%d\n", (int)b);
  close(fd);
  struct placer_watch_rule rules[] = {
    { .instance = "w.0",
      .role = "w",
      .kind = PLACER_KIND_GENERIC,
      .group = "g/w.0",
      .match = { PLACER_MATCH_CMDLINE, "sleep 1001.5" } },
    { .instance = "w.1",
      .role = "w",
      .kind = PLACER_KIND_GENERIC,
      .group = "g/w.1",
      .match = { PLACER_MATCH_PIDFILE, pidfile } },
    { .instance = "c",
      .role = "c",
      .kind = PLACER_KIND_GENERIC,
      .group = "g/c",
      .match = { PLACER_MATCH_CONTAINER, "sleep 1002.5" } },
    { .instance = "osd.0",
      .role = "osd",
      .kind = PLACER_KIND_CEPH_OSD,
      .group = "g/osd.0",
      .match = { PLACER_MATCH_CEPH_ID, "0" } },
  };
  size_t n = sizeof(rules) / sizeof(rules[0]);
  size_t index = 99;
  assert_int_equal(placer_watch_match(rules, n, a, &index, NULL), PLACER_WATCH_MATCH_ONE);
  assert_int_equal(index, 0);
  index = 99;
  assert_int_equal(placer_watch_match(rules, n, b, &index, NULL), PLACER_WATCH_MATCH_ONE);
  assert_int_equal(index, 1); /* by its pid file; a container is never told from one process */
  assert_true(placer_watch_rule_is_slow(&rules[2]));
  assert_false(placer_watch_rule_is_slow(&rules[0]));
  /* this test itself: no rule */
  assert_int_equal(placer_watch_match(rules, n, getpid(), &index, NULL), PLACER_WATCH_MATCH_NONE);
  /* a second rule claiming a: apply refuses such a process, so does the watcher */
  rules[3].match = (struct placer_match){ PLACER_MATCH_CMDLINE, "sleep 1001*" };
  rules[3].kind = PLACER_KIND_GENERIC;
  assert_int_equal(placer_watch_match(rules, n, a, &index, NULL), PLACER_WATCH_MATCH_AMBIGUOUS);
  assert_int_equal(index, 0);
  /* exited (a zombie: its command line is empty), then reaped (no /proc entry) */
  kill(a, SIGKILL);
  for (int i = 0; i < 2000 && placer_proc_state(a) != 'Z'; i++)
    usleep(1000);
  assert_int_equal(placer_watch_match(rules, n, a, &index, NULL), PLACER_WATCH_MATCH_GONE);
  waitpid(a, NULL, 0);
  assert_int_equal(placer_watch_match(rules, n, a, &index, NULL), PLACER_WATCH_MATCH_GONE);
  /* a kernel thread: no command line (kthreadd is PID 2 outside a PID namespace) */
  char *comm = placer_proc_comm(2);
  if (comm && strcmp(comm, "kthreadd") == 0)
    assert_int_equal(placer_watch_match(rules, n, 2, &index, NULL), PLACER_WATCH_MATCH_GONE);
  free(comm);
  stop(b);
  unlink(pidfile);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(scan_reads_a_proc_root), cmocka_unit_test(scan_diff_captured),
    cmocka_unit_test(scan_steps_and_forgets), cmocka_unit_test(scan_ticks_are_on_the_monotonic_clock),
    cmocka_unit_test(connector_decode),       cmocka_unit_test(connector_captured),
    cmocka_unit_test(metrics_address),        cmocka_unit_test(http_routes),
    cmocka_unit_test(match_one_process),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
