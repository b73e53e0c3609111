/* What apply's backends share, and how placer_apply / placer_status /
 * placer_reset (apply-backend.c) find them: the backends' ops table (cgroupfs:
 * apply-cgroupfs*.c, apply-cgroupfs-internal.h; systemd: apply-systemd*.c,
 * apply-systemd-internal.h), the helpers of apply-common.c.  Private to
 * apply: the rest of placer calls apply.h. */
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

#include "apply.h"
#include "lib/string-list.h"

/* Now as RFC 3339 UTC ("2025-01-02T03:04:05Z"), the states' applied_at;
 * NULL on ENOMEM. */
char *apply_now_rfc3339(void);

/* The status text's lines under an instance of either backend: its "drift"
 * and its "notes", escaped for the terminal (a comm is any 15 bytes). */
void apply_print_instance_lines(json_t *inst, FILE *out);

/* FMT formatted (vasprintf); NULL on ENOMEM. */
char *apply_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A backend of apply/status/reset, fio's engine shape: its name, what it
 * can do (flags) and its operations.  Every op is set (the check below). */
enum {
  PLACER_APPLY_BACKEND_UNITS = 1 << 0, /* places units: --persist drop-ins and rolling restarts */
};
struct placer_apply_backend_ops {
  const char *name;
  unsigned flags;
  /* Its state file in the state directory, which records "backend": NAME
   * (placer_apply_backend_recorded). */
  const char *state_file;
  int (*apply)(const struct placer_plan *plan, const struct placer_apply_options *opt,
               struct placer_apply_report **report, struct placer_error **err);
  int (*status)(const char *state_dir, json_t **out, bool *drift, struct placer_error **err);
  int (*reset)(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err);
  /* The same, with what was undone (reset --json). */
  int (*reset_run)(const char *state_dir, struct placer_reset_result *result, struct placer_error **err);
  int (*print_status)(json_t *status, FILE *out);
};
extern const struct placer_apply_backend_ops placer_apply_backend_cgroupfs; /* apply-cgroupfs.c */
extern const struct placer_apply_backend_ops placer_apply_backend_systemd;  /* apply-systemd.c */

/* apply-backend.c: the backend KIND means on this host (AUTO: systemd when
 * /run/systemd/system exists, PID 1 is systemd; else cgroupfs). */
const struct placer_apply_backend_ops *placer_apply_backend_get(enum placer_apply_backend_kind kind);
/* The backend named NAME; NULL when none is. */
const struct placer_apply_backend_ops *placer_apply_backend_find(const char *name);
/* The backend whose placement STATE_DIR (NULL: the default) holds, from
 * the "backend" its state file records; cgroupfs when nothing is applied
 * or the state predates the record.  An unknown name is an error. */
int placer_apply_backend_recorded(const char *state_dir, const struct placer_apply_backend_ops **out,
                                  struct placer_error **err);
/* What is wrong with OPS (a name, every op, its place in the table under
 * that name: fio's check_engine_ops()); NULL when nothing. */
const char *placer_apply_backend_ops_check(const struct placer_apply_backend_ops *ops);

#endif
