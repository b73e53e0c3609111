/* Putting a plan in force and taking it back: apply (validate everything,
 * then change the system step by step with an undo journal, rolling back on
 * any failure), status (planned vs actual, drift) and reset (undo it all).
 * Two backends do it (apply-internal.h): cgroupfs and systemd.
 * Reference: docs/apply.md. */
#ifndef PLACER_APPLY_H
#define PLACER_APPLY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/error.h"
#include "placement.h"
#include "plan/plan.h"

#define PLACER_STATUS_JSON_SCHEMA 1

/* Test hooks for rollback tests (the CLI fills them from PLACER_FAULT_AFTER_STEPS,
 * PLACER_FAULT_MODE and PLACER_STEP_DELAY_MS; docs/apply.md). */
struct placer_apply_faults {
  bool fail; /* fail just before carrying out step after_steps+1 */
  unsigned after_steps;
  bool sigkill;           /* with fail: SIGKILL ourselves there instead (a crash) */
  unsigned step_delay_ms; /* sleep after each step so a test can act part-way */
};

/* A setting only some backends take, as the command line gives it
 * (`--persist`, `--restart rolling`): its NAME and VALUE (NULL for a flag).
 * The backend that takes it says so (apply-backend.c's table); another
 * refuses it (PLACER_EXIT_USAGE). */
struct placer_apply_setting {
  const char *name;
  const char *value;
};

/* What apply does about a running irqbalance, which moves IRQs every 10 s
 * (docs/apply.md, "IRQs"). */
enum placer_irqbalance_mode {
  PLACER_IRQBALANCE_REFUSE, /* the default: apply refuses while irqbalance runs */
  PLACER_IRQBALANCE_BAN,    /* keep it off the steered IRQs and the instances' cpus, and restart it */
  PLACER_IRQBALANCE_IGNORE, /* carry on, with a warning */
};
/* The pid of the irqbalance running on this machine, 0 when none: what
 * apply refuses in its default mode (bench checks it before its first run). */
pid_t placer_irqbalance_pid(void);

struct placer_state;

struct placer_apply_options {
  const char *state_dir; /* NULL: placer_state_default_dir() */
  /* STATE_DIR's state opened and locked by the caller, who holds the lock
   * for its whole life (placer watch: no apply or reset meanwhile): applied
   * under it and left open: state.json for the cgroupfs backend,
   * systemd.json for the systemd backend; NULL: opened and locked here. */
  struct placer_state *state;
  /* placer watch: the groups, their values and the IRQs, no process bound:
   * the watcher binds each one itself right after, and as they come
   * (placer_apply_bind_pid).  The cgroupfs backend only. */
  bool processes_by_watcher;
  const char *cgroup_root; /* NULL: $PLACER_CGROUP_ROOT or /sys/fs/cgroup */
  const char *prefix;      /* NULL: $PLACER_CGROUP_PREFIX or "placer" */
  bool dry_run;
  bool strict; /* an instance without a process is an error */
  const struct placer_instance_arg *pids;
  size_t n_pids;
  const struct placer_instance_arg *qmps;
  size_t n_qmps;
  struct placer_apply_faults faults; /* test hooks; all zero in normal use */
  /* Who puts it in force (docs/apply.md, "Backends"): a backend's name
   * (PLACER_APPLY_BACKENDS); NULL or "auto": systemd where PID 1 is
   * systemd, else cgroupfs. */
  const char *backend;
  const struct placer_apply_setting *settings; /* what only the backend takes (placer_apply_setting) */
  size_t n_settings;
  /* IRQs (apply-irq.c) */
  enum placer_irqbalance_mode irqbalance;
  bool irqs_only;                  /* the plan's IRQs alone, no cgroup or unit (the boot unit of --persist) */
  const char *irq_root;            /* NULL: this machine ("" before /proc/irq); a scratch tree in tests */
  const char *irqbalance_defaults; /* NULL: /etc/default/irqbalance */
  const char *irqbalance_initd;    /* NULL: /etc/init.d/irqbalance */
  const char *placer_exe;          /* for the boot unit's ExecStart; NULL: /proc/self/exe */
};

struct placer_apply_bound {
  pid_t pid;
  char *comm;
  size_t n_threads;
  size_t n_descendants; /* its child processes, theirs, ...: bound with it */
};

struct placer_apply_instance_report {
  char *name;
  char *group;
  char *cpus;
  char *mems;
  bool has_memory_limit;
  uint64_t memory_bytes;
  struct placer_apply_bound *bound;
  size_t n_bound;
  size_t n_vcpus_pinned;
  const char *vcpu_source; /* "qmp" / "thread names"; NULL when not pinned */
  char *note;              /* "no process matches ceph-osd --id 3", or NULL */
  unsigned changes;        /* steps done (dry run: that would be done) */
};

/* One IRQ of the plan, as apply left it. */
struct placer_apply_irq_report {
  unsigned irq;
  char *name;
  char *device;
  char *instance; /* NULL: a top-level irqs: entry */
  char *from;     /* smp_affinity_list before */
  char *to;       /* now (planned); NULL when managed */
  bool managed;   /* the kernel keeps it (reported, not moved) */
  char *effective;
  bool changed; /* written by this apply (dry run: would be) */
  char *note;   /* "gone since planning", ...; NULL */
};

struct placer_apply_report {
  const char *backend; /* the backend's name ("cgroupfs"), or "irqs" for --irqs-only */
  char *profile_name;
  const char *cgroup_mode; /* "v1" / "v2" */
  char where[32];          /* what the text says it went through: "cgroup v1", "systemd units", "IRQs only" */
  const char *placed_in;   /* the word the text puts before an instance's group ("unit"); NULL: not shown */
  bool shows_actions;      /* the text says each action done (a handful of commands), not only the count */
  char *state_dir;
  bool dry_run;
  unsigned steps; /* mutating steps done, or that a dry run would do */
  struct placer_apply_instance_report *instances;
  size_t n_instances;
  char **actions; /* one line per step ("create group placer/osd/osd.0") */
  size_t n_actions;
  char **notes; /* things the operator should know */
  size_t n_notes;
  char **groups_created; /* groups this apply created (dry run: would create), parents first */
  size_t n_groups_created;
  char **groups_changed; /* groups whose values it set (new ones included) */
  size_t n_groups_changed;
  struct placer_apply_irq_report *irqs; /* the plan's IRQs, in plan order */
  size_t n_irqs;
};

/* What `placer reset` did.  DETAILS is what only the backend reports, a
 * JSON object the reset document puts under the backend's name (cgroupfs:
 * groups_removed, pids_restored; systemd: units_restored, dropins_removed;
 * docs/apply.md). */
struct placer_reset_result {
  const char *backend; /* the backend's name ("cgroupfs"), or "irqs" */
  char *state_dir;
  bool changed;            /* there was something to undo */
  bool interrupted;        /* the state held an interrupted apply */
  size_t n_undone;         /* the changes undone (journal records, units and drop-ins) */
  json_t *details;         /* the backend's own; NULL: none */
  unsigned *irqs_restored; /* IRQs whose smp_affinity_list was written back */
  size_t n_irqs_restored;
  char **lines; /* what the text output prints, one line each */
  size_t n_lines;
};

/* The backends, one X(NAME) each, in the order --backend lists them: the
 * ops table placer_apply_backend_NAME of apply-NAME.c (apply-backend.c
 * builds its table from this line; fio's engine list).  A new backend is
 * its own file and its name here. */
#define PLACER_APPLY_BACKENDS(X) X(cgroupfs) X(systemd)
/* The names --backend takes, "auto|cgroupfs|systemd", from that line. */
#define PLACER_APPLY_BACKEND_WORD(name) "|" #name
#define PLACER_APPLY_BACKEND_NAMES "auto" PLACER_APPLY_BACKENDS(PLACER_APPLY_BACKEND_WORD)
/* Whether NAME is one of them. */
bool placer_apply_backend_known(const char *name);
/* The backend NAME (one of PLACER_APPLY_BACKEND_NAMES; NULL: auto) means
 * on this host: "systemd" or "cgroupfs"; NULL when none has that name. */
const char *placer_apply_backend_resolve(const char *name);

/* Validate PLAN against this node and the running processes, then apply it.
 * On failure after a change, everything done is rolled back and the error
 * says so.  The report (on success only) says what was done. */
int placer_apply(const struct placer_plan *plan, const struct placer_apply_options *opt,
                 struct placer_apply_report **report, struct placer_error **err);
void placer_apply_report_free(struct placer_apply_report *report);

/* apply-cgroupfs-bind.c, placer watch's way in to what apply put in force
 * with the cgroupfs backend (STATE, the caller's, locked):
 * bind PID to P of PL through the model (placer_placement_bind_pid: every
 * check, its descendants with it) and move each of them in, each move
 * journaled in STATE before it happens (a transaction of its own), as apply
 * moves its processes: reset puts them back where they were; the vCPU
 * threads a pin_vcpus VM's qemu has by then pinned one per PU, as apply
 * pins them (placer_apply_pin_vcpus below, for those it makes after).  *MOVED: how
 * many moved (0: all there already); a process that exits meanwhile is
 * *GONE, not an error. */
int placer_apply_bind_pid(struct placer_state *state, struct placer_cgroup *cg, struct placer_placement *pl,
                          struct placer_placed *p, pid_t pid, size_t *moved, bool *gone, struct placer_error **err);
/* The threads of PID, the qemu of a pin_vcpus VM P binds itself (not a
 * descendant), pinned as apply pins them: each vCPU thread (found by its
 * name, "CPU 1/TCG") on its PU of the instance's cpus (placer_cpulist_nth
 * of its cpu-index), every other thread on the instance's cpus; each
 * change journaled in STATE before it is made (a transaction of its own):
 * reset gives each thread its affinity back.  placer_apply_bind_pid pins a
 * pin_vcpus qemu's vCPU threads the same way as it moves it in; this is for
 * the threads qemu makes after.  *CHANGED: the steps made (0: all as
 * planned); a process that has exited: 0, nothing done. */
int placer_apply_pin_vcpus(struct placer_state *state, struct placer_cgroup *cg, struct placer_placement *pl,
                           const struct placer_placed *p, pid_t pid, size_t *changed, struct placer_error **err);
/* The journal's records of processes that have exited since (nothing to
 * put back) dropped, and the state saved when there were any: a watcher
 * placing short processes keeps its journal the size of what runs.
 * *FORGOTTEN (may be NULL): how many. */
int placer_apply_forget_exited(struct placer_state *state, size_t *forgotten, struct placer_error **err);

/* apply-systemd-bind.c, placer watch's way in to what apply put in force
 * with the systemd backend (STATE: the caller's systemd.json, locked):
 * PID, of P of PL, bound through the model (placer_placement_bind_pid: its
 * checks) and its unit found as apply finds it (/proc/PID/cgroup: a
 * service or a scope; none, init.scope, or a unit another instance holds:
 * an error).  A unit not yet placed for P is placed as apply places it:
 * recorded in STATE (what `systemctl show` says) before `systemctl
 * set-property --runtime` of each property that differs (*PLACED); P's
 * earlier unit, when no process runs in it any more, set back and
 * forgotten first.  A unit placed already needs nothing: its processes
 * have its properties.  *UNIT_CGROUP: the unit's group
 * ("/system.slice/x.service"); a process that exits meanwhile is *GONE,
 * not an error. */
int placer_apply_systemd_bind_pid(struct placer_state *state, struct placer_placement *pl, struct placer_placed *p,
                                  pid_t pid, char **unit_cgroup, bool *placed, bool *gone, struct placer_error **err);
/* Each running unit STATE records, its properties read (`systemctl show`)
 * and compared with its instance's in PL through the backend's writer:
 * HOOKS (placement.h) hear of each that differs and say whether it is put
 * back.  A unit stopped or gone is left: started again, it has its runtime
 * properties. */
int placer_apply_systemd_keep(struct placer_state *state, const struct placer_placement *pl,
                              const struct placer_write_hooks *hooks, struct placer_error **err);

/* apply-irq-keep.c: each IRQ that STATE_DIR's irq.json steers, compared
 * with its plan (as status compares it); one moved by someone is written
 * back when FIX, as apply wrote it.  FOUND gets one line per IRQ off its
 * plan ("IRQ 24 (virtio1-req.0): smp_affinity_list 0-1, planned 1"); one
 * gone with an optional device has none.  IRQ_ROOT: where /proc/irq is
 * (NULL: this machine's; tests point at a captured tree). */
struct placer_apply_irq_kept {
  unsigned irq;
  char *name;
  char *instance; /* NULL: a top-level irqs: entry */
  char *line;     /* what differs, NULL when it is as planned */
  bool fixed;
};
int placer_apply_irqs_keep(const char *state_dir, const char *irq_root, bool fix, struct placer_apply_irq_kept **out,
                           size_t *n, struct placer_error **err);
void placer_apply_irqs_kept_free(struct placer_apply_irq_kept *v, size_t n);

/* Undo everything in the state directory STATE_DIR (NULL: default): bound
 * processes back to their original groups (strays to their instance's
 * original, else the root), changed values restored, placer's groups
 * removed.  *lines says what was done; safe to run twice. */
int placer_reset(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err);
/* The same, with what was undone in *RESULT (placer_reset_result_clear). */
int placer_reset_run(const char *state_dir, struct placer_reset_result *result, struct placer_error **err);
void placer_reset_result_clear(struct placer_reset_result *result);
/* The IRQs of STATE_DIR alone set back (what bench's OUT/irq-state holds):
 * no group, unit or process is looked at. */
int placer_reset_irqs(const char *state_dir, struct placer_reset_result *result, struct placer_error **err);

/* apply-json.c: the documents `placer apply --json` and `placer reset --json`
 * print (schema PLACER_APPLY_JSON_SCHEMA, docs/apply.md); NULL when out of memory. */
#define PLACER_APPLY_JSON_SCHEMA 1
#define PLACER_RESET_JSON_SCHEMA 2 /* 2: what only a backend reports, under its name */
json_t *placer_apply_report_json(const struct placer_apply_report *report);
json_t *placer_reset_result_json(const struct placer_reset_result *result);

/* Planned vs actual for every applied instance, as the JSON document that
 * `placer status --json` prints (schema in docs/apply.md).  *drift is true
 * when anything differs. */
int placer_status(const char *state_dir, json_t **out, bool *drift, struct placer_error **err);
/* The text `placer status` prints, by the backend the document names. */
int placer_status_print_text(json_t *status, FILE *out);

#endif
