/* What apply's backends share, and how placer_apply / placer_status /
 * placer_reset (apply-backend.c) find them: the backends' ops table (cgroupfs:
 * apply-cgroupfs*.c, apply-cgroupfs-internal.h; systemd: apply-systemd*.c,
 * apply-systemd-internal.h), the helpers of apply-common.c and running
 * systemctl (apply-systemctl.c).  Private to apply: the rest of placer
 * calls apply.h. */
#ifndef PLACER_APPLY_INTERNAL_H
#define PLACER_APPLY_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hwloc.h>
#include <jansson.h>

#include "apply/apply.h"
#include "lib/string-list.h"

/* Now as RFC 3339 UTC ("2025-01-02T03:04:05Z"), the states' applied_at;
 * NULL on ENOMEM. */
char *apply_now_rfc3339(void);

/* What only a backend's reset reports (placer_reset_result's details, under
 * its name in reset --json): the arrays KEYS (NULL-terminated) made empty;
 * VALUE (taken, also on failure) appended to the array KEY.  -1 when out
 * of memory. */
int apply_reset_details(struct placer_reset_result *res, const char *const *keys);
int apply_reset_detail(struct placer_reset_result *res, const char *key, json_t *value);
size_t apply_reset_detail_count(const struct placer_reset_result *res, const char *key);

/* The head of either backend's status document (docs/apply.md, status
 * --json): schema, backend, state_dir, applied, profile, profile_path, in
 * that order; the backend adds its own keys after.  NULL on ENOMEM. */
json_t *apply_status_doc_new(const char *backend, const char *state_dir, bool applied, const char *profile,
                             const char *profile_path);

/* The status text's lines under an instance of either backend: its "drift"
 * and its "notes", escaped for the terminal (a comm is any 15 bytes). */
void apply_print_instance_lines(json_t *inst, FILE *out);

/* FMT formatted (vasprintf); NULL on ENOMEM. */
char *apply_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A setting a backend takes beside the common options (its own
 * command-line options: the systemd backend's --persist, --restart...). */
struct placer_apply_setting_spec {
  const char *name; /* "persist": --persist */
  bool takes_value; /* --restart rolling */
};
/* The value of setting NAME in OPT: "" for a flag given, its value, or
 * NULL when it is not given. */
const char *apply_setting(const struct placer_apply_options *opt, const char *name);

/* A backend of apply/status/reset, fio's engine shape: its name, its
 * settings and its operations.  Every op is set (the check below).  A new
 * backend is one file with one of these and its line in apply-backend.c's
 * PLACER_APPLY_BACKENDS. */
struct placer_apply_backend_ops {
  const char *name;
  /* Its state file in the state directory, which records "backend": NAME
   * (placer_apply_backend_recorded). */
  const char *state_file;
  const struct placer_apply_setting_spec *settings; /* what it takes beyond the common options; { NULL } ends */
  int (*apply)(const struct placer_plan *plan, const struct placer_apply_options *opt,
               struct placer_apply_report **report, struct placer_error **err);
  int (*status)(const char *state_dir, json_t **out, bool *drift, struct placer_error **err);
  int (*reset)(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err);
  /* The same, with what was undone (reset --json). */
  int (*reset_run)(const char *state_dir, struct placer_reset_result *result, struct placer_error **err);
  int (*print_status)(json_t *status, FILE *out);
};

/* apply-backend.c: the backend NAME means on this host (NULL or "auto":
 * systemd when /run/systemd/system exists, PID 1 is systemd; else
 * cgroupfs); NULL when none has that name. */
const struct placer_apply_backend_ops *placer_apply_backend_get(const char *name);
/* The I-th backend of the table, NULL past its end. */
const struct placer_apply_backend_ops *placer_apply_backend_at(size_t i);
/* The backend whose placement STATE_DIR (NULL: the default) holds, from
 * the "backend" its state file records; cgroupfs when nothing is applied
 * or the state predates the record.  An unknown name is an error. */
int placer_apply_backend_recorded(const char *state_dir, const struct placer_apply_backend_ops **out,
                                  struct placer_error **err);
/* What is wrong with OPS (a name, every op, its place in the table under
 * that name: fio's check_engine_ops()); NULL when nothing. */
const char *placer_apply_backend_ops_check(const struct placer_apply_backend_ops *ops);

/* apply-systemctl.c: run ARGV (systemctl, or a command of irqbalance's) with
 * a TIMEOUT_MS; *out (may be NULL) its stdout.  A non-zero exit is an error
 * naming the command line and its first line of stderr. */
int apply_systemctl(char **argv, unsigned timeout_ms, char **out, struct placer_error **err);

#endif
