/* placer run's transaction (run-roles.h): prepare every instance, take the
 * run lock, clean up after a previous run that died, start what is not
 * running, and on a failure stop what this run started, newest first. */
#include "run-roles.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "launch.h"
#include "placement.h"
#include "runstate.h"

void placer_run_clear(struct placer_run *run) {
  for (size_t i = 0; run->instances && i < run->n; i++)
    placer_launch_prepared_clear(&run->instances[i]);
  free(run->instances);
  for (size_t i = 0; i < run->n_rollback; i++)
    free(run->rollback[i]);
  free(run->rollback);
  free(run->rundir);
  memset(run, 0, sizeof(*run));
}

/* One line of what the rollback did; a line lost to ENOMEM is dropped
 * (the rollback itself goes on). */
static void rollback_line(struct placer_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rollback_line(struct placer_run *run, const char *fmt, ...) {
  char *line = NULL;
  va_list ap;
  va_start(ap, fmt);
  int rc = vasprintf(&line, fmt, ap);
  va_end(ap);
  char **bigger = rc < 0 ? NULL : realloc(run->rollback, (run->n_rollback + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    free(rc < 0 ? NULL : line);
    return;
  }
  run->rollback = bigger;
  run->rollback[run->n_rollback++] = line;
}

/* Start the prepared instances; *n_started: how many of them were tried
 * and started (the rollback's range). */
static int start_all(struct placer_cgroup *cg, const struct placer_profile *profile,
                     const struct placer_placement *placement, struct placer_run *run, size_t *n_started,
                     struct placer_error **err) {
  struct placer_writer w = placer_writer_cgroupfs(cg);
  for (size_t i = 0; i < run->n; i++) {
    struct placer_launch_prepared *p = &run->instances[i];
    if (p->ops == NULL)
      continue;
    struct placer_launch_record old = { 0 };
    bool found = false;
    if (placer_runstate_load(run->rundir, p->inst->name, &old, &found, err) < 0)
      return -1;
    if (found) {
      const struct placer_launch_ops *ops = placer_launch_find(old.backend);
      if (ops && old.pid > 0 && ops->is_running(&old)) {
        p->rec = old; /* already running: leave it alone */
        p->state = "running";
        p->note = strdup("started earlier");
        continue;
      }
      /* A record of something that died: clear what it left first. */
      bool ignored;
      if (ops && placer_launch_stop_recorded(cg, run->rundir, run->mark, &old, &ignored, err) < 0) {
        placer_launch_record_clear(&old);
        return placer_error_prefix(err, "%s: clean up after the previous run", p->inst->name);
      }
      placer_launch_record_clear(&old);
    }
    /* its role's group gets the role's weight and quota (the model's) */
    if (placer_launch_start_prepared(cg, profile->name, run->rundir, (unsigned)i, run->mark, p, err) < 0 ||
        placer_placed_write(&w, &placement->v[i], 0, PLACER_ROLE_SETTINGS, NULL, NULL, NULL, err) < 0) {
      /* The failed one too: its group, its record, a container half made. */
      struct placer_error *e2 = NULL;
      bool ignored;
      placer_launch_stop_recorded(cg, run->rundir, run->mark, &p->rec, &ignored, &e2);
      placer_error_free(e2);
      p->state = "failed";
      return -1;
    }
    *n_started = i + 1;
  }
  return 0;
}

/* Undo what this run started, newest first; keep what ran before. */
static void roll_back(struct placer_cgroup *cg, struct placer_run *run, size_t n_started) {
  for (size_t i = n_started; i-- > 0;) {
    struct placer_launch_prepared *p = &run->instances[i];
    if (p->ops == NULL || strcmp(p->state, "started") != 0)
      continue;
    struct placer_error *e2 = NULL;
    bool ignored;
    if (placer_launch_stop_recorded(cg, run->rundir, run->mark, &p->rec, &ignored, &e2) < 0) {
      rollback_line(run, "rollback of %s: %s", p->inst->name, e2->msg);
      placer_error_free(e2);
    } else {
      rollback_line(run, "rolled back: stopped %s", p->inst->name);
    }
  }
}

int placer_run(const struct placer_profile *profile, const struct placer_plan *plan, const char *state_dir,
               bool dry_run, struct placer_run *run, struct placer_error **err) {
  memset(run, 0, sizeof(*run));
  if (placer_runstate_dir(state_dir, profile->name, &run->rundir, err) < 0)
    return -1;
  const char *prefix = placer_apply_prefix(NULL);
  struct placer_placement *placement = NULL;
  if (placer_placement_compute(plan, prefix, NULL, 0, &placement, err) < 0)
    return -1;
  run->n = plan->n_instances;
  run->instances = calloc(run->n ? run->n : 1, sizeof(*run->instances));
  int rc = run->instances ? 0 : placer_error_oom(err, NULL);
  /* Everything is checked and substituted before anything starts. */
  for (size_t i = 0; rc == 0 && i < run->n; i++)
    if (placer_launch_prepare(profile, &plan->instances[i], prefix, run->rundir, &run->instances[i], err) < 0)
      rc = placer_error_prefix(err, "%s", plan->instances[i].name);
  if (rc < 0 || dry_run) {
    placer_placement_free(placement);
    return rc;
  }

  struct placer_cgroup *cg = NULL;
  int lock_fd = -1;
  char *lock_made = NULL;
  if (placer_runstate_lock(state_dir, true, &lock_fd, run->mark, &lock_made, err) < 0 ||
      placer_cgroup_open(NULL, &cg, err) < 0) {
    placer_runstate_unlock(lock_fd, lock_made);
    placer_runstate_tidy(state_dir);
    placer_placement_free(placement);
    return -1;
  }
  size_t n_started = 0;
  rc = start_all(cg, profile, placement, run, &n_started, err);
  placer_placement_free(placement);
  if (rc < 0)
    roll_back(cg, run, n_started);
  placer_runstate_unlock(lock_fd, lock_made);
  placer_cgroup_close(cg);
  if (rc < 0)
    placer_runstate_tidy(state_dir); /* nothing started: nothing left behind */
  return rc;
}
