/* The systemd apply backend's own types and helpers, shared by
 * apply-systemd.c (apply, reset), apply-systemd-bind.c (a unit's record,
 * placer watch's units), apply-systemd-state.c (systemctl, the units'
 * groups and threads) and apply-systemd-status.c (status).  Not for
 * the rest of placer. */
#ifndef PLACER_APPLY_SYSTEMD_INTERNAL_H
#define PLACER_APPLY_SYSTEMD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>
#include <stdio.h>

#include "apply/apply-internal.h"
#include "state.h"
#include "systemd-unit.h"

/* The state file of the systemd backend, beside state.json in the state
 * directory (whose lock it shares): state.h's kind placer_state_units. */
#define SD_STATE_FILE PLACER_STATE_SYSTEMD_FILE

/* The four properties, in the order of the state file and the messages
 * (placer_state_unit_props: the previous values each unit's record keeps). */
enum sd_prop { SD_ALLOWED_CPUS, SD_ALLOWED_MEMORY_NODES, SD_MEMORY_MAX, SD_CPU_WEIGHT, SD_N_PROPS };
_Static_assert(SD_N_PROPS == PLACER_STATE_UNIT_PROPS, "one previous value per property");

/* Where and how: systemctl's name, the directories of drop-ins and the
 * cgroup2 mount the unit groups are read from. */
struct sd_ctx {
  const char *systemctl;
  const char *etc_dir;     /* /etc/systemd/system */
  const char *control_dir; /* /run/systemd/system.control */
  const char *cgroup_root; /* /sys/fs/cgroup */
  unsigned timeout_ms;     /* for each systemctl call */
};

/* apply-systemd-write.c: the backend's writer (placement.h), on a unit's
 * properties; its ctx is a struct sd_ctx. */
extern const struct placer_writer_ops sd_writer_ops;
/* The values `systemctl show` text SHOW says a unit has (no limit for
 * "infinity", weight 0 for "[not set]"). */
int sd_show_values(const char *show, struct placer_group_values *v, struct placer_error **err);
/* `systemctl set-property --runtime UNIT Property=value` of setting S of
 * WANT (placer_systemd_argv_free); NULL on ENOMEM or a setting a unit has
 * not. */
char **sd_setting_argv(const struct sd_ctx *c, const char *unit, enum placer_setting s,
                       const struct placer_group_values *want);

/* apply-systemd-bind.c: what a unit records before placer changes it.
 * The model's values a unit gets: the ones the plan gives itself (a unit
 * keeps its own where the plan gives none). */
unsigned sd_unit_settings(const struct placer_placed *pd);
/* R's name, role, match and planned values, from the model PD. */
int sd_record_model(const struct placer_placed *pd, struct placer_state_unit *r, struct placer_error **err);
/* R (its unit and cgroup set, from PD's processes) checked (loaded, in the
 * group /proc says, the plan's cpus and nodes on this host) and its
 * previous values recorded: what `systemctl show` says now, or OLD's (an
 * earlier record's) when the instance was placed before: the first record
 * wins.  *needs_set: a property differs from the plan. */
int sd_record_unit(const struct sd_ctx *c, const struct placer_placed *pd, const struct placer_state_unit *old,
                   struct placer_state_unit *r, bool *needs_set, struct placer_error **err);
/* R's processes: every one in its unit now. */
int sd_record_procs(const struct sd_ctx *c, struct placer_state_unit *r, struct placer_error **err);

/* apply-systemd-state.c */
void sd_ctx_init(struct sd_ctx *c, const struct placer_apply_options *opt);
/* The properties an instance sets. */
struct placer_systemd_props sd_instance_props(const struct placer_state_unit *si);

/* Run systemctl ARGV; *out (may be NULL) its stdout.  A non-zero exit is an
 * error naming the command line and systemctl's first line of stderr. */
int sd_systemctl(const struct sd_ctx *c, char **argv, char **out, struct placer_error **err);
/* `systemctl show UNIT -p ...` of placer_systemd_show_keys. */
int sd_show(const struct sd_ctx *c, const char *unit, char **text, struct placer_error **err);
int sd_daemon_reload(const struct sd_ctx *c, struct placer_error **err);
/* The v2 path of PID's group (the part after "0::"). */
int sd_pid_cgroup(pid_t pid, char **path, struct placer_error **err);
/* Every process in the group CGROUP and below it. */
int sd_cgroup_pids(const struct sd_ctx *c, const char *cgroup, pid_t **pids, size_t *n, struct placer_error **err);
/* A file of the unit's group, without its newline; NULL when unreadable. */
char *sd_cgroup_read(const struct sd_ctx *c, const char *cgroup, const char *file);
/* The runtime drop-in of property P for UNIT, as set-property writes it. */
char *sd_control_file(const struct sd_ctx *c, const char *unit, enum sd_prop p);

/* One problem with a unit's placement: "cpuset.cpus.effective of X is 0-1,
 * planned 1".  Checks the group files and every thread of every process in
 * the unit; vCPU threads against their own PU.  Calls REPORT once per
 * problem (thread lines carry the tid) and returns how many.  *n_procs and
 * *n_threads (may be NULL) count what was looked at. */
typedef void (*sd_problem_fn)(void *ctx, const char *msg);
size_t sd_check_unit(const struct sd_ctx *c, const struct placer_state_unit *si, sd_problem_fn report, void *ctx,
                     size_t *n_procs, size_t *n_threads);
/* Pin the vCPU threads of every qemu in the unit, one per PU. */
int sd_pin_vcpus(const struct sd_ctx *c, const struct placer_state_unit *si, size_t *n_pinned, const char **source,
                 struct placer_error **err);

/* What undoing one instance did. */
struct sd_undone {
  bool unit_set_back;  /* its properties back as before placer (false: the unit is gone) */
  bool dropin_removed; /* the drop-in of apply --persist removed */
};

/* apply-systemd-bind.c: undo what the state records for SI (properties back,
 * drop-ins placer made removed); *reload is set when a daemon-reload is
 * needed; *done (may be NULL) says what was done. */
int sd_undo_instance(const struct sd_ctx *c, const struct placer_state_unit *si, bool *reload,
                     struct placer_string_list *notes, struct sd_undone *done, struct placer_error **err);
/* Add to RES (reset --json) that SI was undone as DONE says: its unit among
 * units_restored, its drop-in among dropins_removed, each one change. */
int sd_reset_result_add(struct placer_reset_result *res, const struct placer_state_unit *si,
                        const struct sd_undone *done);

/* The ops table (apply-systemd.c). */
extern const struct placer_apply_backend_ops placer_apply_backend_systemd;

/* apply-systemd-status.c: the ops table's status and its text. */
int sd_status(const char *state_dir, json_t **out, bool *drift, struct placer_error **err);
int sd_status_print_text(json_t *status, FILE *out);

#endif
