/* placer watch: a profile applied as `placer apply` applies it (a
 * backend's transaction and state, under the state lock it holds for its
 * whole life), then kept in force by the watcher's core (watch.h): each new
 * process of an instance bound through the model and journaled (cgroupfs),
 * or its unit placed (systemd), the group values or unit properties and the
 * steered IRQs compared every interval (put back or reported), new IRQs of
 * the profile's devices steered, SIGHUP re-reading the profile.
 * docs/apply.md, "placer watch". */
#ifndef PLACER_WATCH_APPLY_H
#define PLACER_WATCH_APPLY_H

#include <stdbool.h>

#include "lib/error.h"
#include "watch/watch.h"

struct placer_watch_apply_options {
  const char *profile_path;
  const char *state_dir; /* NULL: placer_state_default_dir() */
  const char *prefix;    /* NULL: $PLACER_CGROUP_PREFIX, else placer */
  const char *backend;   /* apply's: "cgroupfs", "systemd"; NULL or "auto": systemd where PID 1 is systemd */
  bool report_only;      /* --on-drift report: drift counted and logged, left as it is */
  struct placer_watch_options watch;
  void (*log)(void *ctx, const char *line); /* one line per action, no newline */
  void *log_ctx;
};

/* Open the metrics listener and the event source (a malformed address or
 * one in use: PLACER_EXIT_USAGE, nothing done), refuse a user who is not
 * root (PLACER_EXIT_SYSTEM), read and plan the profile, take the state
 * lock (held: another watcher, apply or reset is refused), apply, then
 * keep the plan in force until SIGTERM or SIGINT (*signo), leaving it in
 * force.  -1 with ERR on a failure before the loop (nothing changed unless
 * ERR says so) or of the loop itself. */
int placer_watch_apply(const struct placer_watch_apply_options *opt, int *signo, struct placer_error **err);

#endif
