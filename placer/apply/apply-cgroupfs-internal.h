/* The cgroupfs apply backend's own types and helpers, shared by
 * apply-cgroupfs.c (the transaction, the ops table), apply-cgroupfs-steps.c
 * (journaled changes), apply-cgroupfs-validate.c (checks before the first
 * change), apply-cgroupfs-report.c (state summary and report),
 * apply-cgroupfs-undo.c (rollback, reset) and apply-cgroupfs-status.c.  Not
 * for the rest of placer. */
#ifndef PLACER_APPLY_CGROUPFS_INTERNAL_H
#define PLACER_APPLY_CGROUPFS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "apply/apply-internal.h"
#include "cgroup/cgroup.h"
#include "placement.h"
#include "state.h"
#include "vcpu.h"

struct bound_proc {
  pid_t pid;
  uint64_t start_time;
  char *comm;
  struct placer_vcpu *vcpus;
  size_t n_vcpus;
  char **vcpu_cpus; /* the PU each vCPU is pinned to, "3" */
  const char *vcpu_source;
  bool moved;     /* dry run: would be moved */
  pid_t root_pid; /* a descendant of this bound process; 0: bound itself */
  bool gone;      /* a descendant that exited during apply */
};

/* One instance being applied: the model's placed instance (its groups and
 * values: placement.h) and what applying it finds and does. */
struct target {
  const struct placer_placed *pd;
  const struct placer_instance *inst; /* pd->inst */
  bool explicit_pids;                 /* bound with --pid: the matcher is not used */
  struct bound_proc *procs;
  size_t n_procs;
  char *note;
  unsigned changes;
};

struct applier {
  struct placer_cgroup *cg;
  struct placer_state *state;
  bool state_held; /* the caller's (placer watch's, opt->state): not freed here */
  const struct placer_plan *plan;
  const struct placer_apply_options *opt;
  const char *prefix;
  struct placer_placement *placement; /* the model of every instance; targets[i].pd is its v[i] */
  bool dry_run;
  unsigned txn;
  unsigned steps;
  struct target *targets;
  size_t n_targets;
  struct placer_string_list actions;
  struct placer_string_list notes;
  struct placer_string_list would_create;   /* groups made by now (a dry run: that would exist by now) */
  struct placer_string_list groups_created; /* by this apply (dry run: that would be) */
  struct placer_string_list groups_changed; /* existing or new groups whose values were set */
};

void applier_target_clear(struct target *t);

/* apply-cgroupfs-validate.c: everything checked before the first change. */
int applier_check_state(struct applier *a, const char *cgroup_root, struct placer_error **err);
int applier_build_targets(struct applier *a, struct placer_error **err);
int applier_check_fit(struct applier *a, struct placer_error **err);
int applier_resolve_processes(struct applier *a, struct placer_error **err);
/* P's vcpu_cpus from its vcpus: the k-th vCPU (by cpu-index) on the k-th
 * PU of T's cpus (placer_cpulist_nth), a note when they share PUs. */
int applier_vcpu_pus(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err);
/* Add process PID to T (a descendant of ROOT_PID, or 0); *index (may be
 * NULL) says where it is.  A pid already there is not added twice. */
int applier_add_proc(struct target *t, pid_t pid, pid_t root_pid, size_t *index, struct placer_error **err);
/* The pids of every target but T (roots and descendants): where T's
 * descendants stop.  Caller frees. */
int applier_other_pids(const struct applier *a, const struct target *t, pid_t **out, size_t *n,
                       struct placer_error **err);

/* apply-cgroupfs-steps.c: put one instance in force, one journaled step at a time. */
int applier_apply_target(struct applier *a, struct target *t, struct placer_error **err);
/* T's processes from FIRST on moved in, each move journaled first, their
 * threads pinned and checked, as applier_apply_target does them (placer
 * watch's one more process, apply-cgroupfs-bind.c). */
int applier_bind_procs(struct applier *a, struct target *t, size_t first, struct placer_error **err);

/* apply-cgroupfs-report.c */
int applier_record_instances(struct applier *a, struct placer_error **err);
int applier_build_report(struct applier *a, struct placer_apply_report **out, struct placer_error **err);

/* apply-cgroupfs-undo.c */
/* A thread of PID whose cgroups differ from the main thread's (someone
 * moved one thread with v1 `tasks`), or 0 when all agree. */
pid_t apply_stray_thread(pid_t pid);
/* Open the cgroup hierarchy a state was applied to, refusing a mode
 * different from the recorded one. */
int apply_open_cgroup(const struct placer_state *state, const char *root, struct placer_cgroup **out,
                      struct placer_error **err);
/* Undo the journal entries of TXN (0: all of them), newest first.  Each
 * undone entry leaves the journal and the state is saved at the end (an
 * interrupted undo replays its records again: each undo is idempotent).  Processes that are gone are skipped
 * with a note; a step that cannot be undone is a failure, undo goes on and
 * leaves that entry in the journal.  Returns the number of failures. */
size_t apply_undo(struct placer_cgroup *cg, struct placer_state *state, unsigned txn, struct placer_string_list *notes,
                  struct placer_string_list *failures);
/* Every group the journal says TXN (0: any) created, that exists, carries
 * the state's mark: else an error naming it, and nothing may be undone. */
int apply_check_marks(const struct placer_cgroup *cg, const struct placer_state *state, unsigned txn,
                      struct placer_error **err);
/* The ops table's reset (and reset --json). */
int cgroupfs_reset(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err);
int cgroupfs_reset_run(const char *state_dir, struct placer_reset_result *res, struct placer_error **err);

/* The ops table (apply-cgroupfs.c). */
extern const struct placer_apply_backend_ops placer_apply_backend_cgroupfs;

/* apply-cgroupfs-status.c: the ops table's status and its text. */
int cgroupfs_status(const char *state_dir, json_t **out, bool *drift, struct placer_error **err);
int cgroupfs_status_print_text(json_t *status, FILE *out);

#endif
