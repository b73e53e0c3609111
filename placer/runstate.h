/* What `placer run` started, so that `placer stop` (a later placer process,
 * after a reboot of placer itself) finds, checks and stops it: one JSON
 * record per instance in STATE_DIR/run/PROFILE/INSTANCE.json, written
 * atomically, next to the instance's log INSTANCE.log.  run and stop hold
 * STATE_DIR/run/lock.  Format: docs/run.md. */
#ifndef PLACER_RUNSTATE_H
#define PLACER_RUNSTATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "launch.h"

#define PLACER_RUNSTATE_SCHEMA 1

/* STATE_DIR/run/PROFILE (PROFILE sanitized to a file name); caller frees. */
int placer_runstate_dir(const char *state_dir, const char *profile, char **out, struct placer_error **err);
/* Create STATE_DIR/run and flock its lock file; *fd to close when done. */
int placer_runstate_lock(const char *state_dir, int *fd, struct placer_error **err);

int placer_runstate_save(const char *dir, const struct placer_launch_record *rec, struct placer_error **err);
/* *found false (and 0 returned) when there is no record for INSTANCE. */
int placer_runstate_load(const char *dir, const char *instance, struct placer_launch_record *rec, bool *found,
                         struct placer_error **err);
/* Every record in DIR, sorted by instance name (none: *n = 0). */
int placer_runstate_list(const char *dir, struct placer_launch_record **recs, size_t *n, struct placer_error **err);
int placer_runstate_remove(const char *dir, const char *instance, struct placer_error **err);
void placer_runstate_free_list(struct placer_launch_record *recs, size_t n);

/* Pure conversions (unit-tested round trip). */
json_t *placer_launch_record_to_json(const struct placer_launch_record *rec);
int placer_launch_record_from_json(json_t *json, struct placer_launch_record *rec, struct placer_error **err);

#endif
