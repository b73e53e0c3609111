/* The one model of a placed instance (placement.c): everything an instance's
 * placement is, computed once from the plan: its group and its role's group,
 * every value the groups hold with its default (so that "back to unpinned"
 * is a value like any other: all CPUs, all nodes, no memory limit, the
 * default weight, no quota), the role's weight (the sum of its instances')
 * and quota, the IRQs steered for it, and the processes it binds with every
 * check (placement-procs.c).  apply (both backends), status, bench's
 * switching between variants, run, exec and the watcher use it; nothing
 * else works a group's values or its role group out of a plan.
 *
 * Where the values go is a writer (crun's cgroup manager shape: create,
 * read, update, attach, destroy): the cgroupfs writer writes the groups'
 * files (placement-cgroupfs.c), apply's systemd backend writes unit
 * properties; placer_placed_write() (placement-write.c) puts a placed
 * instance in force through any of them, each value that differs written
 * once. */
#ifndef PLACER_PLACEMENT_H
#define PLACER_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "lib/string-list.h"
#include "plan/plan.h"

#define PLACER_DEFAULT_CGROUP_PREFIX "placer"

/* The prefix in force: OPT_PREFIX, else $PLACER_CGROUP_PREFIX, else "placer". */
const char *placer_apply_prefix(const char *opt_prefix);
/* Group of an instance: PREFIX/ROLE/NAME with both names sanitized. */
int placer_instance_group(const char *prefix, const char *role, const char *name, char **out,
                          struct placer_error **err);

/* The group of ROLE's instances' role: PREFIX/ROLE, the name sanitized. */
int placer_role_group(const char *prefix, const char *role, char **out, struct placer_error **err);

/* ------------------------------------------------------------------ values */

#define PLACER_SETTING_BIT(s) (1u << (s))
/* What an instance's group holds, and what its role group holds. */
#define PLACER_GROUP_SETTINGS                                                          \
  (PLACER_SETTING_BIT(PLACER_SETTING_CPUS) | PLACER_SETTING_BIT(PLACER_SETTING_MEMS) | \
   PLACER_SETTING_BIT(PLACER_SETTING_MEMORY_LIMIT) | PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT))
#define PLACER_ROLE_SETTINGS \
  (PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT) | PLACER_SETTING_BIT(PLACER_SETTING_CPU_QUOTA))

/* The values of one group, each with its default. */
struct placer_group_values {
  char *cpus;            /* a cpu list: the plan's; every allowed PU when the instance is unpinned */
  char *mems;            /* a node list: the plan's; every node when unpinned */
  uint64_t memory_limit; /* bytes; PLACER_CGROUP_UNLIMITED: none */
  unsigned cpu_weight;   /* 1..10000; PLACER_CGROUP_WEIGHT_DEFAULT when the plan gives none */
  unsigned cpu_quota;    /* thousandths of a core per period; 0: none */
  unsigned planned;      /* PLACER_SETTING_BIT()s of the values the plan gives itself: the others are defaults */
};
void placer_group_values_clear(struct placer_group_values *v);
/* Setting S of HAVE is what WANT says, as the kernel holds it: the same set
 * whatever the spelling, a memory limit to a page. */
bool placer_group_value_equal(enum placer_setting s, const struct placer_group_values *have,
                              const struct placer_group_values *want);
/* A memory limit as the kernel holds it: rounded down to a page. */
bool placer_memory_limit_equal(uint64_t have, uint64_t want);

/* ------------------------------------------------------------------ processes */

/* A process an instance binds: found by its matcher or given with --pid, or
 * a descendant of one (it goes with its ancestor). */
struct placer_placed_proc {
  pid_t pid;
  uint64_t start_time; /* with pid, names one process */
  char *comm;
  pid_t root_pid; /* the bound process it descends from; 0: bound itself */
};

/* --pid INSTANCE=PID and --qmp INSTANCE=SOCKET. */
struct placer_instance_arg {
  const char *instance;
  const char *value;
};

/* ------------------------------------------------------------------ the model */

struct placer_placed {
  const struct placer_instance *inst;
  char *group;                       /* PREFIX/ROLE/NAME */
  char *role_group;                  /* PREFIX/ROLE: the role's weight and quota, which its instances share */
  struct placer_group_values values; /* the instance group's: cpus, mems, memory limit, weight */
  struct placer_group_values role;   /* the role group's: the weight (the sum of its instances'), the quota */
  unsigned role_writes;   /* the role settings this one writes: all of them for the first instance of its role,
                           none for the others (each role value written once) */
  const char *qmp_socket; /* --qmp for it, or NULL */
  size_t *irqs;           /* indexes into plan->irqs of the IRQs steered for it */
  size_t n_irqs;
  /* The processes it binds (placer_placement_bind); none before. */
  struct placer_placed_proc *procs;
  size_t n_procs;
  bool by_pid; /* given with --pid: its matcher is not used */
  char *note;  /* why it binds none ("no process matches ceph-osd --id 3"), or NULL */
};

struct placer_placement {
  const struct placer_plan *plan;
  char *prefix;
  struct placer_placed *v; /* plan order */
  size_t n;
};

/* Every instance of PLAN placed under PREFIX (placer_apply_prefix()'s):
 * refused (PLACER_EXIT_USAGE) when two would share a group or a weight is
 * outside 1..10000.  QMPS (N_QMPS of them) name each instance's QMP socket. */
int placer_placement_compute(const struct placer_plan *plan, const char *prefix, const struct placer_instance_arg *qmps,
                             size_t n_qmps, struct placer_placement **out, struct placer_error **err);
void placer_placement_free(struct placer_placement *pl);
/* The placed instance NAME; NULL when none. */
const struct placer_placed *placer_placement_find(const struct placer_placement *pl, const char *name);

/* The processes every instance of PL binds, with every check
 * (placement-procs.c): the --pid values PIDS (N_PIDS) given for it, each a
 * running process that is not PID 1, placer, one of its ancestors or a
 * kernel thread (else PLACER_EXIT_USAGE), or else what its matcher finds
 * (never those, nor a process given with --pid or below one), refused
 * (PLACER_EXIT_USAGE) when that is more unrelated process trees than the
 * plan has instances; each bound process with its descendants, up to
 * another instance's; a process two instances would bind refused
 * (PLACER_EXIT_USAGE).  An instance that binds none gets a note saying
 * why, or with STRICT is an error (PLACER_EXIT_INFEASIBLE). */
int placer_placement_bind(struct placer_placement *pl, const struct placer_instance_arg *pids, size_t n_pids,
                          bool strict, struct placer_error **err);
/* "This process belongs to P": PID bound to P (of PL) with the same checks
 * and its descendants, unless another instance binds it (the watcher's
 * way in). */
int placer_placement_bind_pid(struct placer_placement *pl, struct placer_placed *p, pid_t pid,
                              struct placer_error **err);

/* The processes bound in PL that have exited since (by pid and start
 * time) forgotten: a watcher binding short processes keeps the model the
 * size of what runs, and a reused pid is not taken for the one gone.
 * Returns how many. */
size_t placer_placement_forget_exited(struct placer_placement *pl);

/* One instance alone in GROUP (PREFIX/ROLE/NAME), without its plan: its
 * group's values and its role's quota (the role's weight needs the plan,
 * placer_placement_compute).  For what starts one instance at a time. */
int placer_placed_of_instance(const struct placer_instance *inst, const char *group, struct placer_placed *out,
                              struct placer_error **err);
void placer_placed_clear(struct placer_placed *p);

/* ------------------------------------------------------------------ writers */

/* Where a placement's values are written, crun's cgroup manager shape: the
 * writer makes the groups, reads and writes their values, moves processes
 * in, removes the groups.  WHERE is a group path (or whatever a writer
 * places: systemd's units). */
struct placer_writer_ops {
  const char *name;
  bool (*exists)(void *ctx, const char *where);
  /* Make WHERE, whose parent exists; *unmarked: it could not carry MARK
   * (placer_cgroup_mark). */
  int (*create)(void *ctx, const char *where, const char *mark, bool *unmarked, struct placer_error **err);
  /* The values in SETTINGS that WHERE holds now; what a new WHERE would
   * hold when it does not exist. */
  int (*read)(void *ctx, const char *where, unsigned settings, struct placer_group_values *now,
              struct placer_error **err);
  /* Setting S of WHERE to WANT's. */
  int (*update)(void *ctx, const char *where, enum placer_setting s, const struct placer_group_values *want,
                struct placer_error **err);
  /* Every thread of process PID into WHERE. */
  int (*attach)(void *ctx, const char *where, pid_t pid, struct placer_error **err);
  /* WHERE and what is below it removed. */
  int (*destroy)(void *ctx, const char *where, struct placer_error **err);
};
struct placer_writer {
  const struct placer_writer_ops *ops;
  void *ctx;
};
/* The groups of CG, written as cgroup files (placement-cgroupfs.c). */
extern const struct placer_writer_ops placer_writer_cgroupfs_ops;
struct placer_writer placer_writer_cgroupfs(struct placer_cgroup *cg);

/* What writing a placed instance does, step by step, for a caller that
 * journals each step before it happens (apply) or only says it (a dry run).
 * before: 0 carries the step out, 1 skips it (what a dry run would do), -1
 * fails; after: the step was carried out (UNMARKED: the group created could
 * not carry the mark). */
enum placer_write_step { PLACER_WRITE_CREATE, PLACER_WRITE_UPDATE };
struct placer_write_hooks {
  void *ctx;
  int (*before)(void *ctx, const struct placer_placed *p, enum placer_write_step step, const char *where,
                enum placer_setting s, const struct placer_group_values *now, const struct placer_group_values *want,
                struct placer_error **err);
  int (*after)(void *ctx, const struct placer_placed *p, enum placer_write_step step, bool unmarked,
               struct placer_error **err);
};

/* Put P in force through W (placement-write.c): each missing level of its
 * group made (carrying MARK when not NULL), each of its values that
 * differs written once: of its own GROUP_SETTINGS (PLACER_GROUP_SETTINGS:
 * all of them) and of its role group's ROLE_SETTINGS (PLACER_ROLE_SETTINGS;
 * a placement writes them with the role's first instance, p->role_writes).
 * HOOKS may be NULL.  MADE (may be
 * NULL) holds the levels made (or skipped by HOOKS) so far, across the
 * instances of one placement.  0, or 1 when a level made could not carry
 * MARK. */
int placer_placed_write(const struct placer_writer *w, const struct placer_placed *p, unsigned group_settings,
                        unsigned role_settings, const char *mark, const struct placer_write_hooks *hooks,
                        struct placer_string_list *made, struct placer_error **err);
/* P's own values of GROUP_SETTINGS written at WHERE through W, each that
 * differs once: a writer whose places are not the model's groups (the
 * systemd backend's units). */
int placer_placed_write_values(const struct placer_writer *w, const struct placer_placed *p, const char *where,
                               unsigned group_settings, const struct placer_write_hooks *hooks,
                               struct placer_error **err);
/* Every instance of PL in force through W, each value once: bench's switch
 * between variants. */
int placer_placement_write(const struct placer_writer *w, const struct placer_placement *pl, struct placer_error **err);

/* GROUP (PREFIX/ROLE/NAME) of INST made when missing, INST's values
 * written and its role's quota, through the cgroupfs writer: what starts
 * one instance at a time (bench's neighbours and ceph-fuse).  The levels
 * it makes carry MARK (when not NULL): 0, or 1 when one could not. */
int placer_instance_place_group(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                struct placer_error **err);
int placer_instance_place_group_marked(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                       const char *mark, struct placer_error **err);

#endif
