/* From a plan instance to a running, recorded instance: what `placer run`
 * does for each instance (substitute its role's run: section, check it,
 * place its group, start it through its backend, record it, pin a guest's
 * vCPUs), and what `placer exec` does to itself before exec.  Bench starts
 * its neighbours through the same group placement and vCPU pinning. */
#ifndef PLACER_LAUNCH_PREPARE_H
#define PLACER_LAUNCH_PREPARE_H

#include <stdbool.h>

#include "cgroup/cgroup.h"
#include "launch.h"
#include "lib/error.h"
#include "plan/plan.h"
#include "profile/profile-run.h"
#include "profile/profile.h"

/* One instance of a run: its launch spec with the storage it points into,
 * and after the start its record and a line for the table. */
struct placer_launch_prepared {
  const struct placer_instance *inst;
  const struct placer_launch_ops *ops;
  struct placer_launch_spec spec;
  char **argv, **env, **volumes, **extra;
  char *image, *group, *cpus, *mems, *container_name, *log_path, *conf, *console;
  bool is_vm;
  unsigned vcpus;
  enum placer_vm_accel accel;
  const char *accel_why;
  /* after start */
  struct placer_launch_record rec;
  const char *state; /* "started", "running", "-" */
  char *note;
};
void placer_launch_prepared_clear(struct placer_launch_prepared *p);

/* Fill P for INST: nothing to do (p->ops NULL) when its role has no run:
 * section; else every template substituted, the guest files and the
 * podman argv checked, the group PREFIX/ROLE/INSTANCE and the log (and a
 * guest's console) in RUNDIR named.  Nothing on the system changes. */
int placer_launch_prepare(const struct placer_profile *profile, const struct placer_instance *inst, const char *prefix,
                          const char *rundir, struct placer_launch_prepared *p, struct placer_error **err);
/* Record P in RUNDIR (before the start, so that stop finds what a crash
 * left), place its group (the levels it makes carry MARK, the state
 * directory's id), start it, record what started, pin a guest's vCPUs;
 * p->state becomes "started".  SEQ: its position in the plan. */
int placer_launch_start_prepared(struct placer_cgroup *cg, const char *profile, const char *rundir, unsigned seq,
                                 const char *mark, struct placer_launch_prepared *p, struct placer_error **err);
/* Stop and clean up one recorded instance and remove its record (and, when
 * it still ran, its log); *was_running says whether it still ran.  Only
 * what run made: the record must name the group PREFIX/ROLE/INSTANCE (the
 * prefix in force), the container placer-INSTANCE, and its group must carry
 * MARK; its process is signalled only while it is in that group.  Else one
 * line (PLACER_EXIT_SYSTEM), nothing stopped and the record kept. */
int placer_launch_stop_recorded(struct placer_cgroup *cg, const char *rundir, const char *mark,
                                const struct placer_launch_record *rec, bool *was_running, struct placer_error **err);
/* The check placer_launch_stop_recorded makes first, alone: stop checks
 * every record before it stops anything. */
int placer_launch_check_recorded(struct placer_cgroup *cg, const char *mark, const struct placer_launch_record *rec,
                                 struct placer_error **err);

/* What placer_launch_place_self changed, so that an exec that fails takes
 * it back: where the process was, the group levels it made. */
struct placer_launch_self_undo {
  struct placer_cgroup_membership original;
  char *created[16]; /* parents first */
  size_t n_created;
};
/* `placer exec`: place INST's group GROUP, move the calling process in and
 * give it INST's CPUs as its affinity, so what it execs next never runs
 * elsewhere.  *UNDO says what to take back (placer_launch_unplace_self),
 * also on failure. */
int placer_launch_place_self(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                             struct placer_launch_self_undo *undo, struct placer_error **err);
/* The calling process back where it was and the levels placing it made
 * removed (the command could not run): nothing of the exec is left. */
void placer_launch_unplace_self(struct placer_cgroup *cg, struct placer_launch_self_undo *undo);

#endif
