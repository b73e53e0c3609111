/* The cgroupfs backend of placer apply (placer's own groups under PREFIX,
 * written directly; its ops table at the end): validate a plan against this
 * node and its running processes, then put it in force one journaled step at
 * a time (create a group, set a value, move a process, pin a thread); any
 * failure undoes the steps done so far, newest first (apply-cgroupfs-undo.c). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-cgroupfs-internal.h"
#include "procmatch.h"
#include "topology/topology.h"
#include "lib/units.h"
#include "vcpu.h"

void applier_target_clear(struct target *t) {
  free(t->note);
  for (size_t i = 0; i < t->n_procs; i++) {
    struct bound_proc *p = &t->procs[i];
    free(p->comm);
    free(p->vcpus);
    for (size_t k = 0; k < p->n_vcpus; k++)
      free(p->vcpu_cpus ? p->vcpu_cpus[k] : NULL);
    free(p->vcpu_cpus);
  }
  free(t->procs);
}

static int replace_str(char **slot, const char *value) {
  char *copy = value ? strdup(value) : NULL;
  if (value && copy == NULL)
    return -1;
  free(*slot);
  *slot = copy;
  return 0;
}

static void applier_clear(struct applier *a) {
  for (size_t i = 0; i < a->n_targets; i++)
    applier_target_clear(&a->targets[i]);
  free(a->targets);
  placer_string_list_free(&a->actions);
  placer_string_list_free(&a->notes);
  placer_string_list_free(&a->would_create);
  placer_string_list_free(&a->groups_created);
  placer_string_list_free(&a->groups_changed);
  if (!a->state_held)
    placer_state_free(a->state);
  placer_cgroup_close(a->cg);
  placer_placement_free(a->placement);
}

/* Roll the current transaction back and turn ERR into "... rolled back". */
static int roll_back(struct applier *a, struct placer_error **err) {
  struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  size_t failed = apply_undo(a->cg, a->state, a->txn, &notes, &failures);
  a->state->pending_txn = 0;
  a->state->pending_pid = 0;
  struct placer_error *save_err = NULL;
  if (placer_state_save(a->state, &save_err) < 0) {
    placer_string_list_addf(&failures, "%s", save_err->msg);
    placer_error_free(save_err);
    failed++;
  }
  if (failed == 0) {
    placer_error_prefix(err, "apply failed; the %u steps done are rolled back", a->steps);
  } else {
    char all[2048] = "";
    for (size_t i = 0; i < failures.n; i++)
      snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? "; " : "", failures.items[i]);
    placer_error_prefix(err, "apply failed after %u steps and the rollback is incomplete (%s); run 'placer reset'",
                        a->steps, all);
  }
  if (notes.n && *err) {
    char all[2048] = "";
    for (size_t i = 0; i < notes.n; i++)
      snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? "; " : "", notes.items[i]);
    char *msg = NULL;
    if (asprintf(&msg, "%s (rollback: %s)", (*err)->msg, all) >= 0) {
      free((*err)->msg);
      (*err)->msg = msg;
    }
  }
  placer_string_list_free(&notes);
  placer_string_list_free(&failures);
  return -1;
}

static int cgroupfs_apply(const struct placer_plan *plan, const struct placer_apply_options *opt,
                          struct placer_apply_report **report, struct placer_error **err) {
  struct applier a = { 0 };
  a.plan = plan;
  a.opt = opt;
  a.dry_run = opt->dry_run;
  a.prefix = placer_apply_prefix(opt->prefix);
  const char *state_dir = opt->state_dir ? opt->state_dir : placer_state_default_dir();
  const char *cgroup_root = opt->cgroup_root;
  if (cgroup_root == NULL || *cgroup_root == '\0')
    cgroup_root = getenv("PLACER_CGROUP_ROOT");
  if (cgroup_root == NULL || *cgroup_root == '\0')
    cgroup_root = "/sys/fs/cgroup";

  if (!placer_cgroup_group_is_valid(a.prefix))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "cgroup prefix '%s' is not a relative path of names made of [A-Za-z0-9._-]", a.prefix);
  /* placer watch holds the state, locked, for its whole life: apply under it. */
  a.state_held = opt->state != NULL;
  if (a.state_held)
    a.state = opt->state;
  else if (placer_state_open(state_dir, a.dry_run ? PLACER_STATE_NO_LOCK : PLACER_STATE_LOCK_EXCLUSIVE, &a.state, NULL,
                             err) < 0)
    return -1;
  if (placer_cgroup_open(cgroup_root, &a.cg, err) < 0 || applier_check_state(&a, cgroup_root, err) < 0) {
    applier_clear(&a);
    return -1;
  }

  /* An apply that was killed part-way: take it back first. */
  if (a.state->pending_txn) {
    if (a.dry_run) {
      placer_string_list_addf(&a.notes, "an interrupted apply (pid %d) would be rolled back first",
                              (int)a.state->pending_pid);
    } else {
      if (apply_check_marks(a.cg, a.state, a.state->pending_txn, err) < 0) {
        applier_clear(&a);
        return -1;
      }
      struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
      size_t failed = apply_undo(a.cg, a.state, a.state->pending_txn, &notes, &failures);
      if (failed) {
        placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                         "an interrupted apply (pid %d) could not be rolled back (%s); run 'placer reset'",
                         (int)a.state->pending_pid, failures.items[0]);
        placer_string_list_free(&notes);
        placer_string_list_free(&failures);
        applier_clear(&a);
        return -1;
      }
      placer_string_list_addf(&a.notes, "rolled back an interrupted apply (pid %d)", (int)a.state->pending_pid);
      for (size_t i = 0; i < notes.n; i++)
        placer_string_list_addf(&a.notes, "%s", notes.items[i]);
      placer_string_list_free(&notes);
      placer_string_list_free(&failures);
      a.state->pending_txn = 0;
      if (placer_state_save(a.state, err) < 0) {
        applier_clear(&a);
        return -1;
      }
    }
  }

  /* Validate everything before the first change. */
  if (applier_build_targets(&a, err) < 0 || applier_check_fit(&a, err) < 0 || applier_resolve_processes(&a, err) < 0) {
    applier_clear(&a);
    return -1;
  }

  if (!a.dry_run) {
    struct placer_state *s = a.state;
    /* the record status and reset are dispatched on (apply-backend.c) */
    if (replace_str(&s->backend, placer_apply_backend_cgroupfs.name) < 0 ||
        replace_str(&s->cgroup_mode, placer_cgroup_mode_name(placer_cgroup_get_mode(a.cg))) < 0 ||
        replace_str(&s->cgroup_root, cgroup_root) < 0 || replace_str(&s->prefix, a.prefix) < 0) {
      applier_clear(&a);
      return placer_error_oom(err, NULL);
    }
    a.txn = ++s->last_txn;
    s->pending_txn = a.txn;
    s->pending_pid = getpid();
    if (placer_state_save(s, err) < 0) {
      applier_clear(&a);
      return -1;
    }
  }

  for (size_t i = 0; i < a.n_targets; i++) {
    if (applier_apply_target(&a, &a.targets[i], err) < 0) {
      placer_error_prefix(err, "%s", a.targets[i].inst->name);
      if (!a.dry_run)
        roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
  }

  if (!a.dry_run) {
    struct placer_state *s = a.state;
    if (a.steps == 0)
      s->last_txn--; /* nothing was journaled under it */
    s->pending_txn = 0;
    s->pending_pid = 0;
    if (applier_record_instances(&a, err) < 0 || replace_str(&s->profile_name, plan->profile_name) < 0 ||
        replace_str(&s->profile_path, plan->profile_path) < 0 ||
        replace_str(&s->topology_source, plan->topology_source) < 0) {
      if (*err == NULL)
        placer_error_oom(err, NULL);
      roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
    if (a.steps > 0 || s->applied_at == NULL) {
      free(s->applied_at);
      s->applied_at = apply_now_rfc3339();
    }
    if (placer_state_save(s, err) < 0) {
      roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
  }
  int ret = applier_build_report(&a, report, err);
  applier_clear(&a);
  return ret;
}

const struct placer_apply_backend_ops placer_apply_backend_cgroupfs = {
  .name = "cgroupfs",
  .state_file = PLACER_STATE_FILE,
  .settings = (const struct placer_apply_setting_spec[]){ { NULL, false } }, /* the common options only */
  .apply = cgroupfs_apply,
  .status = cgroupfs_status,
  .reset = cgroupfs_reset,
  .reset_run = cgroupfs_reset_run,
  .print_status = cgroupfs_status_print_text,
};
