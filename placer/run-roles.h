/* placer run's transaction (run-roles.c): every instance of a plan whose
 * role has a run: section checked and substituted before anything starts,
 * then, under the run lock, started already placed and recorded; when one
 * fails, what this run started is stopped again, newest first.  The CLI
 * (cli/cmd-run.c) parses, calls placer_run() and prints.  docs/run.md. */
#ifndef PLACER_RUN_ROLES_H
#define PLACER_RUN_ROLES_H

#include <stdbool.h>
#include <stddef.h>

#include "launch-prepare.h"
#include "lib/error.h"
#include "lib/statedir.h"
#include "plan/plan.h"
#include "profile/profile.h"

struct placer_run {
  char *rundir;                      /* STATE_DIR/run/PROFILE: the records and logs */
  char mark[PLACER_STATEDIR_ID_MAX]; /* STATE_DIR's id: the mark of the groups run makes */
  /* One per plan instance, in plan order: ops NULL for a role without
   * run:; after placer_run, state says "started", "running" (started
   * earlier) or "failed". */
  struct placer_launch_prepared *instances;
  size_t n;
  /* When a start failed: what undoing this run's starts did, one line
   * each ("rolled back: stopped osd.0", "rollback of osd.1: ..."). */
  char **rollback;
  size_t n_rollback;
};

/* Run PLAN of PROFILE with its records under STATE_DIR: fill RUN (cleared
 * first), and unless DRY_RUN start every instance that is not running yet.
 * On a failed start, -1 with ERR and what was rolled back in RUN. */
int placer_run(const struct placer_profile *profile, const struct placer_plan *plan, const char *state_dir,
               bool dry_run, struct placer_run *run, struct placer_error **err);
void placer_run_clear(struct placer_run *run);

#endif
