/* What `placer run` started, so that `placer stop` (a later placer process,
 * after a reboot of placer itself) finds, checks and stops it: one JSON
 * record per instance in STATE_DIR/run/PROFILE/INSTANCE.json, written
 * atomically, next to the instance's log INSTANCE.log.  run and stop hold
 * STATE_DIR/run/lock.  The directories and records are read through
 * lib/statedir.h, and a record is taken only for the boot and directory it
 * was written for.  Format: docs/run.md. */
#ifndef PLACER_RUNSTATE_H
#define PLACER_RUNSTATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/statedir.h"
#include "launch.h"

#define PLACER_RUNSTATE_SCHEMA 1

/* STATE_DIR/run/PROFILE (PROFILE sanitized to a file name); caller frees. */
int placer_runstate_dir(const char *state_dir, const char *profile, char **out, struct placer_error **err);
/* Open STATE_DIR and STATE_DIR/run (made when CREATE; checked as
 * lib/statedir.h says) and flock run/lock: *fd to close when done, -1 when
 * nothing was ever recorded there (no CREATE).  MARK (PLACER_STATEDIR_ID_MAX bytes) gets
 * STATE_DIR's id: the mark of the groups run makes (placer_cgroup_mark);
 * *MADE the lock file when this call made it (removed with the lock). */
int placer_runstate_lock(const char *state_dir, bool create, int *fd, char *mark, char **made,
                         struct placer_error **err);
/* Release it (FD, MADE as placer_runstate_lock gave them; MADE is freed). */
void placer_runstate_unlock(int fd, char *made);
/* After stop: with no profile's records left, run/lock, run/ and STATE_DIR
 * itself (when empty) go. */
void placer_runstate_tidy(const char *state_dir);

int placer_runstate_save(const char *dir, const struct placer_launch_record *rec, struct placer_error **err);
/* *found false (and 0 returned) when there is no record for INSTANCE. */
int placer_runstate_load(const char *dir, const char *instance, struct placer_launch_record *rec, bool *found,
                         struct placer_error **err);
/* Every record in DIR, sorted by instance name (none: *n = 0). */
int placer_runstate_list(const char *dir, struct placer_launch_record **recs, size_t *n, struct placer_error **err);
/* The record goes; with KEEP_LOG false the instance's log and console too. */
int placer_runstate_remove(const char *dir, const char *instance, bool keep_log, struct placer_error **err);
void placer_runstate_free_list(struct placer_launch_record *recs, size_t n);

/* At most this many records in one profile's directory. */
#define PLACER_RUNSTATE_MAX_RECORDS 10000

/* Pure conversions (unit-tested round trip). */
json_t *placer_launch_record_to_json(const struct placer_launch_record *rec);
int placer_launch_record_from_json(json_t *json, struct placer_launch_record *rec, struct placer_error **err);

#endif
