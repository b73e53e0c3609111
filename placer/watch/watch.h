/* The core of `placer watch`: keeps the processes of a plan's instances in
 * their groups as they start (the kernel's proc connector, or a periodic
 * scan of /proc where it is not available), serves its metrics in
 * Prometheus's text format over HTTP and into a file for node_exporter, all
 * from one epoll loop.  What apply puts in force (groups, values, IRQs) and
 * the periodic checks of it come from the caller, through hooks.  The
 * module sits above apply (docs/ARCHITECTURE.md); docs/apply.md, "placer
 * watch (in progress)". */
#ifndef PLACER_WATCH_H
#define PLACER_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "role.h"

/* The scan's period and the periodic checks' (--interval). */
#define PLACER_WATCH_INTERVAL_MS_DEFAULT 2000u
#define PLACER_WATCH_INTERVAL_MS_MIN 10u
#define PLACER_WATCH_INTERVAL_MS_MAX 3600000u

/* One instance whose processes the watcher keeps placed.  The watcher keeps
 * a copy. */
struct placer_watch_rule {
  const char *instance; /* "osd.0" */
  const char *role;     /* "osd" */
  enum placer_role_kind kind;
  struct placer_match match; /* how its processes are told (procmatch.h) */
  const char *group;         /* where they go: "placer/osd/osd.0" */
  const char *cpus;          /* the planned cpus ("2-3"); NULL when unpinned (metrics only) */
};

/* Which rule a process belongs to (match.c). */
enum placer_watch_match_result {
  PLACER_WATCH_MATCH_NONE,      /* no rule: not ours */
  PLACER_WATCH_MATCH_ONE,       /* *index names the rule */
  PLACER_WATCH_MATCH_GONE,      /* exited (or a kernel thread): nothing to read */
  PLACER_WATCH_MATCH_AMBIGUOUS, /* two instances claim it: placed in neither (*index: the first) */
};
/* Decide which of RULES process PID belongs to, from one read of its
 * /proc/PID/cmdline: the ceph daemon's --id, qemu's -name and cmdline
 * patterns through procmatch's tests, a pid file's PID read and compared.
 * Podman containers are not told here (podman inspect is far too slow for
 * every exec): the watcher asks podman at a rescan and when a container's
 * first process starts.  Returns the result, or -1 (out of memory). */
int placer_watch_match(const struct placer_watch_rule *rules, size_t n_rules, pid_t pid, size_t *index,
                       struct placer_error **err);
/* Does RULE need the slow road (podman inspect) to find its processes? */
bool placer_watch_rule_is_slow(const struct placer_watch_rule *rule);

/* What placing a process did. */
enum placer_watch_placed {
  PLACER_WATCH_PLACED,  /* moved into the group, every thread, and its descendants */
  PLACER_WATCH_ALREADY, /* it was there already (a child of a placed process) */
  PLACER_WATCH_GONE,    /* it exited before it could be moved: not an error */
};
/* The default "place PID in its instance's group": the process, its threads
 * and its descendants moved into GROUP (placer_cgroup_attach_pid); a
 * process that exits meanwhile is PLACER_WATCH_GONE, not an error. */
int placer_watch_place_cgroup(struct placer_cgroup *cg, const char *group, pid_t pid, enum placer_watch_placed *out,
                              struct placer_error **err);

/* What the periodic checks found: the caller's hooks report through
 * placer_watch_count_drift. */
enum placer_watch_drift_kind {
  PLACER_WATCH_DRIFT_PROCESS, /* a process of an instance found outside its group */
  PLACER_WATCH_DRIFT_GROUP,   /* a group's value changed by someone (cpuset.cpus, ...) */
  PLACER_WATCH_DRIFT_IRQ,     /* a steered IRQ moved */
  PLACER_WATCH_DRIFT_VCPU,    /* a pinned vCPU thread off its PU */
  PLACER_WATCH_DRIFT_N_KINDS,
};

/* A steered IRQ whose interrupts per CPU the metrics show. */
struct placer_watch_irq {
  unsigned irq;
  const char *name; /* "virtio1-config" */
};

struct placer_watch;

/* What the caller plugs in.  Every hook may be NULL. */
struct placer_watch_hooks {
  void *ctx;
  /* Place PID, matched to RULE, in its instance's group.  NULL:
   * placer_watch_place_cgroup into rule->group. */
  int (*place)(void *ctx, const struct placer_watch_rule *rule, pid_t pid, enum placer_watch_placed *out,
               struct placer_error **err);
  /* Thread TID of process PID renamed itself (the proc connector's comm
   * event; the scan sees no threads): qemu names each vCPU thread it makes,
   * "CPU 1/TCG", for the caller's pins.  SINCE_NS: the rename (CLOCK_MONOTONIC).
   * An error is logged, not fatal. */
  int (*thread_named)(void *ctx, pid_t pid, pid_t tid, uint64_t since_ns, struct placer_error **err);
  /* Every interval: the group values and IRQ affinities (put back or
   * reported, placer_watch_count_drift).  An error is logged, not fatal. */
  int (*check)(void *ctx, struct placer_watch *w, struct placer_error **err);
  /* SIGHUP: re-read the profile; a new plan comes in through
   * placer_watch_set_rules.  An error is logged and the running rules stay. */
  int (*reload)(void *ctx, struct placer_watch *w, struct placer_error **err);
  /* One line per action (no newline), for stdout or the journal. */
  void (*log)(void *ctx, const char *line);
};

struct placer_watch_options {
  unsigned interval_ms;     /* 0: PLACER_WATCH_INTERVAL_MS_DEFAULT */
  bool scan;                /* scan /proc even where the proc connector works (tests, the benchmark) */
  const char *metrics_addr; /* "127.0.0.1:9101", "[::1]:9101", ":9101" (loopback); NULL: no listener */
  const char *metrics_file; /* rewritten atomically every interval and at the end; NULL: none */
};

/* Check OPTS and open what can fail before anything is applied: the metrics
 * listener (a malformed address, or one in use: PLACER_EXIT_USAGE), the
 * event source (the proc connector, else the scan, said once through the log
 * hook).  CG is the caller's and must outlive the watcher. */
int placer_watch_new(const struct placer_watch_options *opts, const struct placer_watch_hooks *hooks,
                     struct placer_cgroup *cg, struct placer_watch **out, struct placer_error **err);
void placer_watch_free(struct placer_watch *w);
/* The instances to keep placed (replaces the previous ones; a reload). */
int placer_watch_set_rules(struct placer_watch *w, const struct placer_watch_rule *rules, size_t n,
                           struct placer_error **err);
/* Where INSTANCE's processes are now: GROUP (a valid group path) in place of
 * its rule's, its counts kept (the systemd backend: the unit's group, known
 * once a process of the instance runs in it).  0 also when no rule has
 * that instance. */
int placer_watch_set_rule_group(struct placer_watch *w, const char *instance, const char *group,
                                struct placer_error **err);
/* The steered IRQs the metrics count. */
int placer_watch_set_irqs(struct placer_watch *w, const struct placer_watch_irq *irqs, size_t n,
                          struct placer_error **err);
/* "proc connector" or "scan of /proc". */
const char *placer_watch_source_name(const struct placer_watch *w);
/* The address the metrics listener is bound to ("127.0.0.1:9101"; the
 * port the kernel chose for port 0), NULL when there is none. */
const char *placer_watch_metrics_address(const struct placer_watch *w);

/* Place what runs now (a rescan of /proc), then follow the events until
 * SIGTERM or SIGINT: *signo says which.  SIGHUP calls the reload hook.
 * Everything placed stays in force.  -1 only when the loop itself fails. */
int placer_watch_run(struct placer_watch *w, int *signo, struct placer_error **err);

/* For the hooks: a drift found (and put back, when FIXED). */
void placer_watch_count_drift(struct placer_watch *w, enum placer_watch_drift_kind kind, bool fixed);
/* For the hooks: whether INSTANCE is off its plan now (the drift gauge). */
void placer_watch_set_instance_drift(struct placer_watch *w, const char *instance, bool drift);

/* The metrics now, in the text format (what /metrics and the file hold). */
int placer_watch_metrics_text(struct placer_watch *w, char **text, size_t *len, struct placer_error **err);

#endif
