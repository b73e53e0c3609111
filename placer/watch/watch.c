/* The watcher: the events of the proc connector (or of the scan) matched
 * against the instances' rules and each new process of an instance placed,
 * a rescan of /proc when events were lost, the periodic checks, SIGHUP and
 * SIGTERM, the metrics listener, all from one epoll loop (loop.c).  One
 * line per action goes to the caller's log hook. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fsfile.h"
#include "lib/textfile.h"
#include "procmatch.h"
#include "watch-internal.h"

void watch_say(struct placer_watch *w, const char *fmt, ...) {
  if (w->hooks.log == NULL)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *line = NULL;
  int n = vasprintf(&line, fmt, ap);
  va_end(ap);
  if (n < 0)
    return; /* out of memory: the line is lost, the watcher goes on */
  cleanup_free char *clean = placer_text_escape(line);
  free(line);
  if (clean)
    w->hooks.log(w->hooks.ctx, clean);
}

/* ------------------------------------------------------------------ rules */

static void free_rules(struct placer_watch_rule *rules, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free((char *)rules[i].instance);
    free((char *)rules[i].role);
    free((char *)rules[i].group);
    free((char *)rules[i].cpus);
    free(rules[i].match.value);
  }
  free(rules);
}

static char *dup_or_null(const char *s, bool *oom) {
  if (s == NULL)
    return NULL;
  char *copy = strdup(s);
  if (copy == NULL)
    *oom = true;
  return copy;
}

int placer_watch_set_rules(struct placer_watch *w, const struct placer_watch_rule *rules, size_t n,
                           struct placer_error **err) {
  for (size_t i = 0; i < n; i++)
    if (rules[i].instance == NULL || rules[i].group == NULL || !placer_cgroup_group_is_valid(rules[i].group))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "watch rule %zu: no instance, or group '%s' not valid", i,
                              rules[i].group ? rules[i].group : "");
  struct placer_watch_rule *copy = calloc(n ? n : 1, sizeof(*copy));
  struct watch_rule_counts *counts = calloc(n ? n : 1, sizeof(*counts));
  bool oom = copy == NULL || counts == NULL;
  for (size_t i = 0; i < n && !oom; i++) {
    copy[i] = rules[i];
    copy[i].instance = dup_or_null(rules[i].instance, &oom);
    copy[i].role = dup_or_null(rules[i].role ? rules[i].role : "", &oom);
    copy[i].group = dup_or_null(rules[i].group, &oom);
    copy[i].cpus = dup_or_null(rules[i].cpus, &oom);
    copy[i].match.value = dup_or_null(rules[i].match.value, &oom);
  }
  if (oom) {
    if (copy)
      free_rules(copy, n);
    free(counts);
    return placer_error_oom(err, "watch rules");
  }
  free_rules(w->rules, w->n_rules);
  free(w->counts);
  w->rules = copy;
  w->counts = counts;
  w->n_rules = n;
  w->any_slow = false;
  for (size_t i = 0; i < n; i++) {
    w->any_slow = w->any_slow || placer_watch_rule_is_slow(&copy[i]);
    counts[i].had_process = true; /* an instance without a process at the first check is said too */
  }
  return 0;
}

int placer_watch_set_rule_group(struct placer_watch *w, const char *instance, const char *group,
                                struct placer_error **err) {
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "watch rule %s: group '%s' not valid", instance, group);
  for (size_t i = 0; i < w->n_rules; i++) {
    if (strcmp(w->rules[i].instance, instance) != 0 || strcmp(w->rules[i].group, group) == 0)
      continue;
    char *copy = strdup(group);
    if (copy == NULL)
      return placer_error_oom(err, "watch rules");
    free((char *)w->rules[i].group);
    w->rules[i].group = copy;
  }
  return 0;
}

int placer_watch_set_irqs(struct placer_watch *w, const struct placer_watch_irq *irqs, size_t n,
                          struct placer_error **err) {
  struct placer_watch_irq *copy = calloc(n ? n : 1, sizeof(*copy));
  bool oom = copy == NULL;
  for (size_t i = 0; i < n && !oom; i++) {
    copy[i].irq = irqs[i].irq;
    copy[i].name = dup_or_null(irqs[i].name ? irqs[i].name : "", &oom);
  }
  if (oom) {
    for (size_t i = 0; copy && i < n; i++)
      free((char *)copy[i].name);
    free(copy);
    return placer_error_oom(err, "watch irqs");
  }
  for (size_t i = 0; i < w->n_irqs; i++)
    free((char *)w->irqs[i].name);
  free(w->irqs);
  w->irqs = copy;
  w->n_irqs = n;
  return 0;
}

/* ------------------------------------------------------------------ placing */

/* Place PID, which rule I claims; SINCE_NS: the exec (or start) it is
 * measured from, 0 for none, and then FOUND_BY says what found it ("a
 * rescan").  Errors are logged, never fatal: one process that cannot be
 * moved must not stop the watcher. */
static void place(struct placer_watch *w, size_t i, pid_t pid, uint64_t since_ns, const char *found_by) {
  const struct placer_watch_rule *rule = &w->rules[i];
  struct watch_rule_counts *counts = &w->counts[i];
  enum placer_watch_placed placed = PLACER_WATCH_GONE;
  struct placer_error *e = NULL;
  int ret = w->hooks.place ? w->hooks.place(w->hooks.ctx, rule, pid, &placed, &e)
                           : placer_watch_place_cgroup(w->cg, rule->group, pid, &placed, &e);
  if (ret < 0) {
    counts->errors++;
    watch_say(w, "%s: could not place pid %d: %s", rule->instance, (int)pid, e && e->msg ? e->msg : "error");
    placer_error_free(e);
    return;
  }
  switch (placed) {
  case PLACER_WATCH_PLACED: {
    counts->placements++;
    if (since_ns == 0) {
      watch_say(w, "%s: placed pid %d in %s (found by %s)", rule->instance, (int)pid, rule->group, found_by);
      break;
    }
    uint64_t now = watch_monotonic_ns();
    uint64_t latency = now > since_ns ? now - since_ns : 0;
    watch_histogram_observe(&w->exec_to_placed, latency);
    watch_say(w, "%s: placed pid %d in %s, %.3f ms after its exec", rule->instance, (int)pid, rule->group,
              (double)latency / 1e6);
    break;
  }
  case PLACER_WATCH_GONE:
    counts->exited++;
    watch_say(w, "%s: pid %d exited before it could be placed", rule->instance, (int)pid);
    break;
  case PLACER_WATCH_ALREADY: break;
  }
}

/* A new command line (exec, a rename, a process the scan found): whose?
 * Returns the match's result, or -1. */
static int consider(struct placer_watch *w, pid_t pid, uint64_t since_ns, const char *found_by,
                    struct placer_error **err) {
  size_t i = 0;
  int result = placer_watch_match(w->rules, w->n_rules, pid, &i, err);
  if (result < 0)
    return -1;
  if (result == PLACER_WATCH_MATCH_AMBIGUOUS) {
    w->ambiguous++;
    watch_say(w, "pid %d matches %s and another instance: left where it is", (int)pid, w->rules[i].instance);
  } else if (result == PLACER_WATCH_MATCH_ONE) {
    place(w, i, pid, since_ns, found_by);
  }
  return result;
}

/* The containers' processes, through podman (slow: only when a container
 * may have started, and at a rescan). */
static void resolve_containers(struct placer_watch *w) {
  for (size_t i = 0; i < w->n_rules; i++) {
    const struct placer_watch_rule *r = &w->rules[i];
    if (!placer_watch_rule_is_slow(r))
      continue;
    cleanup_free pid_t *pids = NULL;
    size_t n = 0;
    struct placer_error *e = NULL;
    if (placer_procmatch_find(r->kind, &r->match, &pids, &n, NULL, &e) < 0) {
      watch_say(w, "%s: %s", r->instance, e && e->msg ? e->msg : "podman failed");
      placer_error_free(e);
      continue;
    }
    for (size_t k = 0; k < n; k++)
      place(w, i, pids[k], 0, "podman");
  }
}

/* A container's first process is a child of conmon (its subreaper) when
 * runc execs it: then, and only then, podman is asked. */
static bool parent_is_conmon(pid_t pid) {
  pid_t ppid = placer_proc_parent(pid);
  if (ppid <= 0)
    return false;
  cleanup_free char *comm = placer_proc_comm(ppid);
  return comm && strncmp(comm, "conmon", 6) == 0;
}

static int rescan(struct placer_watch *w, const char *why, struct placer_error **err) {
  w->rescans++;
  struct watch_proc_entry *all = NULL;
  size_t n = 0;
  if (watch_scan_read("/proc", &all, &n, err) < 0)
    return placer_error_prefix(err, "rescan (%s)", why);
  int ret = 0;
  for (size_t k = 0; k < n && ret >= 0; k++)
    ret = consider(w, all[k].pid, 0, "a rescan", err);
  free(all);
  ret = ret < 0 ? -1 : 0;
  if (ret == 0 && w->any_slow)
    resolve_containers(w);
  return ret;
}

/* ------------------------------------------------------------------ events */

static int on_event(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  struct placer_watch *w = ctx;
  w->events[ev->kind]++;
  switch (ev->kind) {
  case WATCH_EVENT_EXEC: {
    int result = consider(w, ev->tgid, ev->time_ns, NULL, err);
    if (result < 0)
      return -1;
    if (w->any_slow && parent_is_conmon(ev->tgid))
      resolve_containers(w);
    return result;
  }
  case WATCH_EVENT_COMM:
    if (ev->pid == ev->tgid)
      return consider(w, ev->tgid, ev->time_ns, NULL, err);
    /* A thread naming itself (ceph-osd names its 60) is not a new process;
     * qemu's vCPU threads are the caller's. */
    if (w->hooks.thread_named) {
      struct placer_error *e = NULL;
      if (w->hooks.thread_named(w->hooks.ctx, ev->tgid, ev->pid, ev->time_ns, &e) < 0)
        watch_say(w, "thread %d of pid %d: %s", (int)ev->pid, (int)ev->tgid, e && e->msg ? e->msg : "failed");
      placer_error_free(e);
    }
    return PLACER_WATCH_MATCH_NONE;
  default: return 0; /* a fork inherits its parent's groups; an exit needs nothing */
  }
}

/* The connector's: the result does not matter past the event. */
static int on_connector_event(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  return on_event(ctx, ev, err) < 0 ? -1 : 0;
}

#define PF_KTHREAD 0x00200000u /* field 9 of /proc/PID/stat: a kernel thread */

/* The scan's events carry the start in clock ticks: on the connector's
 * clock.  The scan may catch a process in its exec, after its argv moved
 * and before the kernel lets anyone read it (the connector's event comes
 * after): an empty command line of a process alive that is not a kernel
 * thread is read again at the next scan. */
static int on_scan_event(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  struct placer_watch *w = ctx;
  struct watch_event copy = *ev;
  copy.time_ns = watch_scan_ticks_to_monotonic(ev->time_ns);
  int result = on_event(ctx, &copy, err);
  if (result < 0)
    return -1;
  if (result == PLACER_WATCH_MATCH_GONE && ev->kind != WATCH_EVENT_EXIT) {
    unsigned flags = 0;
    char state = placer_task_state(ev->tgid, ev->tgid, &flags);
    if (state != '\0' && state != 'Z' && state != 'X' && state != '?' && (flags & PF_KTHREAD) == 0)
      watch_scan_forget(&w->scan, ev->tgid);
  }
  return 0;
}

static int connector_ready(void *ctx, int fd, uint32_t events, struct placer_error **err) {
  struct placer_watch *w = ctx;
  bool overrun = false;
  if (watch_connector_read(&w->connector, on_connector_event, w, &overrun, err) < 0)
    return -1;
  if (!overrun)
    return 0;
  w->overruns++;
  watch_say(w, "process events lost (the socket overran): rescanning /proc");
  return rescan(w, "events lost", err);
}

/* ------------------------------------------------------------------ the periodic checks */

static void write_metrics_file(struct placer_watch *w) {
  if (w->metrics_file == NULL)
    return;
  cleanup_free char *text = NULL, *dir = strdup(w->metrics_file);
  size_t len = 0;
  struct placer_error *e = NULL;
  char *slash = dir ? strrchr(dir, '/') : NULL;
  const char *name = slash ? slash + 1 : w->metrics_file;
  if (slash)
    *slash = '\0';
  if (dir == NULL || placer_watch_metrics_text(w, &text, &len, &e) < 0 ||
      placer_file_replace_volatile(slash ? (*dir ? dir : "/") : ".", name, text, len, &e) < 0) {
    watch_say(w, "metrics file %s: %s", w->metrics_file, e && e->msg ? e->msg : "out of memory");
    placer_error_free(e);
  }
}

/* Which instances have no process now (said when it changes, not every
 * interval), and whose processes the pid files name. */
static void check_instances(struct placer_watch *w) {
  for (size_t i = 0; i < w->n_rules; i++) {
    const struct placer_watch_rule *r = &w->rules[i];
    if (r->match.kind == PLACER_MATCH_PIDFILE || r->match.kind == PLACER_MATCH_PROXMOX_VMID) {
      cleanup_free pid_t *pids = NULL;
      size_t n = 0;
      struct placer_error *e = NULL;
      if (placer_procmatch_find(r->kind, &r->match, &pids, &n, NULL, &e) == 0)
        for (size_t k = 0; k < n; k++)
          place(w, i, pids[k], 0, "its pid file");
      placer_error_free(e);
    }
    cleanup_free pid_t *in_group = NULL;
    size_t n_in = 0;
    struct placer_error *e = NULL;
    if (placer_cgroup_list_pids(w->cg, r->group, &in_group, &n_in, &e) < 0) {
      placer_error_free(e);
      n_in = 0;
    }
    if (n_in == 0 && w->counts[i].had_process)
      watch_say(w, "%s: no process", r->instance);
    w->counts[i].had_process = n_in > 0;
  }
}

static int tick(void *ctx, int fd, uint32_t events, struct placer_error **err) {
  struct placer_watch *w = ctx;
  if (w->scanning && watch_scan_step(&w->scan, on_scan_event, w, err) < 0)
    return -1;
  check_instances(w);
  if (w->hooks.check) {
    struct placer_error *e = NULL;
    if (w->hooks.check(w->hooks.ctx, w, &e) < 0)
      watch_say(w, "check: %s", e && e->msg ? e->msg : "failed");
    placer_error_free(e);
  }
  if (w->http)
    watch_http_expire(w->http, watch_monotonic_ns() / 1000000u);
  write_metrics_file(w);
  return 0;
}

static int on_signal(void *ctx, int fd, uint32_t signo, struct placer_error **err) {
  struct placer_watch *w = ctx;
  if (signo != SIGHUP) {
    w->signo = (int)signo;
    watch_say(w, "%s: stopping; everything placed stays in force", strsignal((int)signo));
    watch_loop_stop(w->loop);
    return 0;
  }
  if (w->hooks.reload == NULL) {
    watch_say(w, "SIGHUP: nothing to reload");
    return 0;
  }
  struct placer_error *e = NULL;
  if (w->hooks.reload(w->hooks.ctx, w, &e) < 0) {
    watch_say(w, "SIGHUP: %s; the running plan stays", e && e->msg ? e->msg : "reload failed");
    placer_error_free(e);
    return 0;
  }
  watch_say(w, "SIGHUP: reloaded, %zu instance%s", w->n_rules, w->n_rules == 1 ? "" : "s");
  return rescan(w, "reload", err);
}

static int metrics_body(void *ctx, char **text, size_t *len, struct placer_error **err) {
  return placer_watch_metrics_text(ctx, text, len, err);
}

/* ------------------------------------------------------------------ life */

/* The metrics file is replaced through a temporary file beside it: its
 * directory must be there, and the file, when it is, a regular one. */
static int check_metrics_file(const char *path, char **copy, struct placer_error **err) {
  cleanup_free char *dir = strdup(path);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  char *slash = strrchr(dir, '/');
  const char *parent = slash == NULL ? "." : slash == dir ? "/" : (*slash = '\0', dir);
  struct stat st;
  if (slash && slash[1] == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, EISDIR, "metrics file '%s': names a directory", path);
  if (stat(parent, &st) < 0)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "metrics file '%s': its directory %s", path, parent);
  if (!S_ISDIR(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOTDIR, "metrics file '%s': %s is not a directory", path, parent);
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "metrics file '%s': %s, not a regular file", path,
                            placer_file_type_name(st.st_mode));
  if ((*copy = strdup(path)) == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

int placer_watch_new(const struct placer_watch_options *opts, const struct placer_watch_hooks *hooks,
                     struct placer_cgroup *cg, struct placer_watch **out, struct placer_error **err) {
  unsigned interval = opts->interval_ms ? opts->interval_ms : PLACER_WATCH_INTERVAL_MS_DEFAULT;
  if (interval < PLACER_WATCH_INTERVAL_MS_MIN || interval > PLACER_WATCH_INTERVAL_MS_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "interval %u ms: from %u ms to %u ms", interval,
                            PLACER_WATCH_INTERVAL_MS_MIN, PLACER_WATCH_INTERVAL_MS_MAX);
  struct placer_watch *w = calloc(1, sizeof(*w));
  if (w == NULL)
    return placer_error_oom(err, NULL);
  w->connector.fd = -1;
  w->cg = cg;
  w->interval_ms = interval;
  if (hooks)
    w->hooks = *hooks;
  if (opts->metrics_file && check_metrics_file(opts->metrics_file, &w->metrics_file, err) < 0) {
    placer_watch_free(w);
    return -1;
  }
  /* The listener first: a port in use must stop the watcher before it
   * subscribes to anything (and before the caller applies a plan). */
  if (opts->metrics_addr && watch_http_open(opts->metrics_addr, &w->http, err) < 0) {
    placer_watch_free(w);
    return -1;
  }
  cleanup_free char *why_not = NULL;
  int ret = opts->scan ? 1 : watch_connector_open(&w->connector, &why_not, err);
  if (ret < 0) {
    placer_watch_free(w);
    return -1;
  }
  w->scanning = ret == 1;
  if (w->scanning && watch_scan_open(&w->scan, "/proc", err) < 0) {
    placer_watch_free(w);
    return -1;
  }
  if (!w->scanning)
    watch_say(w, "process events from the kernel's proc connector (receive buffer %d KiB)",
              w->connector.rcvbuf_bytes / 1024);
  else if (why_not)
    watch_say(w, "the proc connector is not available (%s): scanning /proc every %.3g s instead", why_not,
              interval / 1000.0);
  else
    watch_say(w, "scanning /proc every %.3g s (asked for)", interval / 1000.0);
  *out = w;
  return 0;
}

const char *placer_watch_source_name(const struct placer_watch *w) {
  return w->scanning ? "scan of /proc" : "proc connector";
}

const char *placer_watch_metrics_address(const struct placer_watch *w) {
  return w->http ? watch_http_address(w->http) : NULL;
}

int placer_watch_run(struct placer_watch *w, int *signo, struct placer_error **err) {
  static const int signals[] = { SIGHUP, SIGINT, SIGTERM };
  w->signo = 0;
  if (watch_loop_new(&w->loop, err) < 0)
    return -1;
  int ret = watch_loop_add_signals(w->loop, signals, sizeof(signals) / sizeof(signals[0]), on_signal, w, err);
  if (ret == 0 && !w->scanning)
    ret = watch_loop_add(w->loop, w->connector.fd, EPOLLIN, connector_ready, w, err);
  if (ret == 0)
    ret = watch_loop_add_timer(w->loop, w->interval_ms, tick, w, err);
  if (ret == 0 && w->http) {
    ret = watch_http_attach(w->http, w->loop, metrics_body, w, err);
    if (ret == 0)
      watch_say(w, "metrics at http://%s/metrics", watch_http_address(w->http));
  }
  /* What started before the events were followed. */
  if (ret == 0)
    ret = rescan(w, "start", err);
  if (ret == 0) {
    watch_say(w, "watching %zu instance%s", w->n_rules, w->n_rules == 1 ? "" : "s");
    ret = watch_loop_run(w->loop, err);
  }
  if (ret == 0)
    write_metrics_file(w);
  /* The loop goes; the listener stays bound (a second run serves again). */
  if (w->http)
    watch_http_detach(w->http);
  watch_loop_free(w->loop);
  w->loop = NULL;
  *signo = w->signo;
  return ret;
}

void placer_watch_count_drift(struct placer_watch *w, enum placer_watch_drift_kind kind, bool fixed) {
  if (kind >= PLACER_WATCH_DRIFT_N_KINDS)
    return;
  w->drift_found[kind]++;
  if (fixed)
    w->drift_fixed[kind]++;
}

void placer_watch_set_instance_drift(struct placer_watch *w, const char *instance, bool drift) {
  for (size_t i = 0; i < w->n_rules; i++)
    if (strcmp(w->rules[i].instance, instance) == 0)
      w->counts[i].drift = drift;
}

void placer_watch_free(struct placer_watch *w) {
  if (w == NULL)
    return;
  watch_http_free(w->http);
  watch_connector_close(&w->connector);
  watch_scan_close(&w->scan);
  free_rules(w->rules, w->n_rules);
  free(w->counts);
  for (size_t i = 0; i < w->n_irqs; i++)
    free((char *)w->irqs[i].name);
  free(w->irqs);
  free(w->metrics_file);
  free(w);
}
