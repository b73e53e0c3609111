/* The parts of the watcher behind watch.h: process events and where they
 * come from (the proc connector, proc-events.c; the scan of /proc,
 * proc-scan.c), the metrics' text format (metrics.c) and their HTTP
 * listener (metrics-http.c), the epoll loop (loop.c).  Private to
 * placer/watch/. */
#ifndef PLACER_WATCH_INTERNAL_H
#define PLACER_WATCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "lib/error.h"
#include "lib/pid-list.h"
#include "watch.h"

/* ------------------------------------------------------------------ process events */

enum watch_event_kind {
  WATCH_EVENT_EXEC, /* a process ran execve(): its command line is new */
  WATCH_EVENT_FORK, /* a process or a thread was born (it inherits its parent's groups) */
  WATCH_EVENT_COMM, /* a thread renamed itself (prctl PR_SET_NAME); the scan: a process whose comm changed */
  WATCH_EVENT_EXIT, /* a process or a thread ended */
  WATCH_EVENT_N_KINDS,
};
const char *watch_event_kind_name(enum watch_event_kind kind); /* "exec", "fork", "comm", "exit" */

struct watch_event {
  enum watch_event_kind kind;
  pid_t pid;        /* the thread (the child, for a fork) */
  pid_t tgid;       /* its process */
  uint64_t time_ns; /* CLOCK_MONOTONIC: the kernel's timestamp of the event; for the scan, the process's start */
};

/* Called once per event; -1 stops the reading with the error. */
typedef int (*watch_event_fn)(void *ctx, const struct watch_event *ev, struct placer_error **err);

/* The kernel's proc connector (proc-events.c): netlink NETLINK_CONNECTOR,
 * group CN_IDX_PROC, a non-blocking socket with a receive buffer sized for
 * storms. */
struct watch_connector {
  int fd;              /* -1 when closed */
  int rcvbuf_bytes;    /* what the kernel gave (SO_RCVBUF read back) */
  uint64_t n_overruns; /* ENOBUFS seen: events lost */
};
/* Subscribe (PROC_CN_MCAST_LISTEN) and wait for the kernel's ack.  0 when
 * listening; 1 when the connector is not available here, *why_not saying
 * why in a few words ("bind: Operation not permitted" without CAP_NET_ADMIN,
 * "no answer from the kernel" in another pid or user namespace); -1 on
 * another error. */
int watch_connector_open(struct watch_connector *c, char **why_not, struct placer_error **err);
/* Read every datagram queued (the socket is non-blocking) and hand each
 * event of interest to EMIT.  *overrun is set when the socket overran
 * (ENOBUFS): events were lost and the caller rescans /proc. */
int watch_connector_read(struct watch_connector *c, watch_event_fn emit, void *ctx, bool *overrun,
                         struct placer_error **err);
/* Unsubscribe (PROC_CN_MCAST_IGNORE: the kernel stops making events when no
 * one listens) and close. */
void watch_connector_close(struct watch_connector *c);
/* Decode one datagram of LEN bytes (pure): every proc_event in it of kind
 * fork, exec, comm or exit goes to EMIT, with the kernel's timestamp; the
 * ack and other kinds (uid, gid, sid, ptrace, coredump) are skipped.
 * *n_events counts those emitted; -1 when EMIT fails or the datagram is
 * malformed (a truncated header). */
int watch_connector_decode(const void *buf, size_t len, watch_event_fn emit, void *ctx, size_t *n_events,
                           struct placer_error **err);

/* The scan of /proc (proc-scan.c): where the connector is not available,
 * the same events made by comparing what runs now with what ran at the last
 * scan. */
struct watch_proc_entry {
  pid_t pid;
  uint64_t start_ticks; /* field 22 of /proc/PID/stat: with the PID, one process beyond PID reuse */
  uint64_t arg_start;   /* field 48, where argv lies: each exec puts it elsewhere (0: unreadable) */
  char comm[17];        /* field 2: the kernel's 16 bytes with its NUL */
};
/* The processes under PROC_ROOT ("/proc", or a captured tree), sorted by
 * PID; a process that ends while it is read is left out. */
int watch_scan_read(const char *proc_root, struct watch_proc_entry **out, size_t *n, struct placer_error **err);
/* Pure: PREV and CUR sorted by PID.  A PID in CUR only, or with another
 * start time, is an exec (after the exit of the process that had that PID);
 * a PID in PREV only an exit; the same process with its argv elsewhere an
 * exec (of any program, itself too: the stack of a new program is placed
 * at random), with only another comm a comm event (a rename).  The events'
 * time_ns is the process's start in clock ticks as read
 * (watch_scan_ticks_to_monotonic converts it); emitted in PID order. */
int watch_scan_diff(const struct watch_proc_entry *prev, size_t n_prev, const struct watch_proc_entry *cur,
                    size_t n_cur, watch_event_fn emit, void *ctx, struct placer_error **err);
/* A start time in clock ticks since boot as CLOCK_MONOTONIC ns (the clock
 * of the connector's timestamps): the same instant, to a tick. */
uint64_t watch_scan_ticks_to_monotonic(uint64_t start_ticks);

struct watch_scan {
  char *proc_root;
  struct watch_proc_entry *entries; /* what ran at the last scan */
  size_t n_entries;
  struct placer_pid_list forget; /* dropped from the picture once this scan is done */
};
/* Take the first picture (no events). */
int watch_scan_open(struct watch_scan *s, const char *proc_root, struct placer_error **err);
/* Scan again and emit what changed since the last one. */
int watch_scan_step(struct watch_scan *s, watch_event_fn emit, void *ctx, struct placer_error **err);
/* Drop PID from the picture (from an event handler: once the scan under
 * way is done), so that the next scan sees it as new, an exec, again.  For
 * a process caught in the middle of its exec, whose command line could not
 * be read yet. */
void watch_scan_forget(struct watch_scan *s, pid_t pid);
void watch_scan_close(struct watch_scan *s);

/* ------------------------------------------------------------------ metrics: the text format */

/* Prometheus's text exposition format 0.0.4 (metrics.c): the families and
 * samples written into a memory stream; names and label names checked,
 * label values and help texts escaped. */
enum watch_metric_type { WATCH_METRIC_COUNTER, WATCH_METRIC_GAUGE, WATCH_METRIC_HISTOGRAM };

struct watch_label {
  const char *name;
  const char *value;
};

struct watch_metrics_text {
  FILE *f; /* open_memstream */
  char *buf;
  size_t len;
  bool bad; /* a name refused or out of memory: the text is not used */
};
int watch_metrics_text_open(struct watch_metrics_text *t, struct placer_error **err);
/* The text (caller frees) and its length; -1 when a write failed. */
int watch_metrics_text_close(struct watch_metrics_text *t, char **text, size_t *len, struct placer_error **err);
/* "# HELP NAME HELP" and "# TYPE NAME TYPE", once before a family's samples. */
void watch_metrics_family(struct watch_metrics_text *t, const char *name, const char *help,
                          enum watch_metric_type type);
/* "NAME{L1="V1",...} VALUE"; N_LABELS may be 0. */
void watch_metrics_sample(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                          size_t n_labels, double value);
void watch_metrics_sample_u64(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                              size_t n_labels, uint64_t value);

/* Is NAME a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) / a label name
 * ([a-zA-Z_][a-zA-Z0-9_]*, not starting "__")? */
bool watch_metric_name_is_valid(const char *name);
bool watch_label_name_is_valid(const char *name);
/* A label value as the format writes it between its quotes: backslash,
 * double quote and newline escaped; bytes that are not UTF-8 written as
 * U+FFFD.  Caller frees; NULL on ENOMEM. */
char *watch_metrics_escape_label(const char *value);
/* A HELP text: backslash and newline escaped (and the same UTF-8 repair). */
char *watch_metrics_escape_help(const char *help);
/* A float as Go's strconv.ParseFloat reads it, shortest first: "0.0001",
 * "2.5", "1e-05", "+Inf", "-Inf", "NaN".  BUF of 32 bytes. */
void watch_metrics_format_double(double v, char buf[32]);

/* A histogram of durations (exec to placed): fixed upper bounds in
 * seconds, counts per bucket, the sum and the count. */
#define WATCH_HISTOGRAM_N_BOUNDS 16
extern const double watch_histogram_bounds_s[WATCH_HISTOGRAM_N_BOUNDS];
struct watch_histogram {
  uint64_t buckets[WATCH_HISTOGRAM_N_BOUNDS + 1]; /* per bucket, not cumulative; the last is +Inf */
  uint64_t sum_ns;
  uint64_t count;
};
void watch_histogram_observe(struct watch_histogram *h, uint64_t ns);
/* NAME_bucket{...,le="B"} (cumulative, +Inf last), NAME_sum (seconds),
 * NAME_count, after its family line. */
void watch_metrics_histogram(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                             size_t n_labels, const struct watch_histogram *h);

/* ------------------------------------------------------------------ the epoll loop */

struct watch_loop;
/* Called when FD is ready (EVENTS: EPOLLIN, EPOLLOUT, EPOLLHUP...); -1 ends
 * the loop with the error. */
typedef int (*watch_loop_fn)(void *ctx, int fd, uint32_t events, struct placer_error **err);

int watch_loop_new(struct watch_loop **out, struct placer_error **err);
/* Closes every timer and signal fd the loop made (not the others: their
 * owners close them) and restores the signal mask. */
void watch_loop_free(struct watch_loop *l);
int watch_loop_add(struct watch_loop *l, int fd, uint32_t events, watch_loop_fn fn, void *ctx,
                   struct placer_error **err);
int watch_loop_modify(struct watch_loop *l, int fd, uint32_t events, struct placer_error **err);
/* Safe from inside a handler, for any fd (its pending events are dropped). */
void watch_loop_remove(struct watch_loop *l, int fd);
/* A timerfd firing every INTERVAL_MS; FN is called once per expiry read. */
int watch_loop_add_timer(struct watch_loop *l, unsigned interval_ms, watch_loop_fn fn, void *ctx,
                         struct placer_error **err);
/* SIGNALS blocked and read through a signalfd: FN gets the signal number in
 * place of the events. */
int watch_loop_add_signals(struct watch_loop *l, const int *signals, size_t n, watch_loop_fn fn, void *ctx,
                           struct placer_error **err);
/* Dispatch until watch_loop_stop (from a handler) or an error. */
int watch_loop_run(struct watch_loop *l, struct placer_error **err);
void watch_loop_stop(struct watch_loop *l);

/* ------------------------------------------------------------------ metrics over HTTP */

/* A loopback listener serving GET /metrics from the loop (metrics-http.c):
 * one request per connection, answered whole and closed; a client that
 * has not sent its request in WATCH_HTTP_CLIENT_TIMEOUT_MS is dropped. */
#define WATCH_HTTP_CLIENT_TIMEOUT_MS 5000u
#define WATCH_HTTP_MAX_CLIENTS 32u
#define WATCH_HTTP_MAX_REQUEST 8192u

/* "HOST:PORT" with HOST an IPv4 address, "[IPv6]" or "localhost"; ":PORT"
 * or "PORT" alone: 127.0.0.1.  PORT 0..65535 (0: the kernel picks one).
 * -1 and one line (PLACER_EXIT_USAGE) when malformed. */
int watch_http_parse_address(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct placer_error **err);

/* What a request asks for (pure, from the bytes received up to the blank
 * line): the request line only is read; *head_only for HEAD. */
enum watch_http_route {
  WATCH_HTTP_METRICS,     /* GET or HEAD /metrics (a query string ignored) */
  WATCH_HTTP_ROOT,        /* GET or HEAD /: a pointer to /metrics */
  WATCH_HTTP_NOT_FOUND,   /* another path: 404 */
  WATCH_HTTP_BAD_METHOD,  /* another method: 405 */
  WATCH_HTTP_BAD_REQUEST, /* not "METHOD TARGET HTTP/1.x": 400 */
  WATCH_HTTP_TOO_LONG,    /* a request line past 299 bytes: 414 */
};
enum watch_http_route watch_http_route(const char *request, bool *head_only);

/* What a scrape answers: the metrics text (caller frees). */
typedef int (*watch_http_body_fn)(void *ctx, char **text, size_t *len, struct placer_error **err);

struct watch_http;
/* Parse ADDR, bind and listen (an address in use: PLACER_EXIT_USAGE). */
int watch_http_open(const char *addr, struct watch_http **out, struct placer_error **err);
/* "127.0.0.1:9101": where it listens. */
const char *watch_http_address(const struct watch_http *h);
/* Serve from LOOP: the listener and then each client. */
int watch_http_attach(struct watch_http *h, struct watch_loop *loop, watch_http_body_fn body, void *ctx,
                      struct placer_error **err);
/* Drop the clients and leave the loop (before it is freed). */
void watch_http_detach(struct watch_http *h);
/* Drop the clients past their deadline (called from the periodic timer). */
void watch_http_expire(struct watch_http *h, uint64_t now_ms);
void watch_http_free(struct watch_http *h);

/* CLOCK_MONOTONIC in ns: the clock of the connector's timestamps. */
uint64_t watch_monotonic_ns(void);

/* ------------------------------------------------------------------ the watcher (watch.c) */

/* What the watcher counts per rule. */
struct watch_rule_counts {
  uint64_t placements; /* processes moved into the group */
  uint64_t exited;     /* matched, but exited before they could be moved */
  uint64_t errors;     /* moves that failed */
  bool drift;          /* set by the caller's checks */
  bool had_process;    /* at the last check (true before the first): "no process" is said once */
};

struct placer_watch {
  struct placer_watch_hooks hooks;
  struct placer_cgroup *cg;
  unsigned interval_ms;
  char *metrics_file;
  /* the rules, their strings owned */
  struct placer_watch_rule *rules;
  struct watch_rule_counts *counts;
  size_t n_rules;
  bool any_slow;                 /* a podman container among them */
  struct placer_watch_irq *irqs; /* names owned */
  size_t n_irqs;
  /* where the events come from */
  bool scanning;
  struct watch_connector connector;
  struct watch_scan scan;
  struct watch_http *http;
  struct watch_loop *loop;
  int signo; /* the signal that ended run() */
  /* counters */
  uint64_t events[WATCH_EVENT_N_KINDS];
  uint64_t overruns, rescans, ambiguous;
  uint64_t drift_found[PLACER_WATCH_DRIFT_N_KINDS], drift_fixed[PLACER_WATCH_DRIFT_N_KINDS];
  struct watch_histogram exec_to_placed;
};

/* One line through the log hook (watch.c). */
void watch_say(struct placer_watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
