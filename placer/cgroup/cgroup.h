/* The cgroup layer: create placer's groups, set cpus/mems/memory/weight,
 * move processes in and out, read it all back.  cgroup v1 (and the hybrid
 * layout) and v2 are detected once and hidden behind one ops table
 * (cgroup-v1.c, cgroup-v2.c); callers never see file names. */
#ifndef PLACER_CGROUP_H
#define PLACER_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

enum placer_cgroup_mode {
  PLACER_CGROUP_V1, /* v1 controllers mounted under the root (also the hybrid layout) */
  PLACER_CGROUP_V2, /* the root is the unified cgroup2 hierarchy */
};

/* The controllers placer uses.  In v2 they share one hierarchy.  CPUACCT
 * (CPU usage accounting) is cpu's hierarchy where the two are mounted
 * together ("cpu,cpuacct"), in v2 (cpu.stat) and where v1 has no cpuacct
 * mount; a hierarchy of its own where it is mounted apart (Debian 12's
 * hybrid layout).  Groups are created, entered and left in it like in the
 * others. */
enum placer_cgroup_controller {
  PLACER_CGROUP_CPUSET,
  PLACER_CGROUP_MEMORY,
  PLACER_CGROUP_CPU,
  PLACER_CGROUP_CPUACCT,
  PLACER_CGROUP_N_CONTROLLERS,
};

/* The values placer sets on a group, in the order it writes them (the
 * model of a placed instance computes them: placement.h). */
enum placer_setting {
  PLACER_SETTING_CPUS,
  PLACER_SETTING_MEMS,
  PLACER_SETTING_MEMORY_LIMIT,
  PLACER_SETTING_CPU_WEIGHT,
  PLACER_SETTING_CPU_QUOTA, /* on a role group */
  PLACER_SETTING_N,
};
/* "cpus", "mems", "memory_limit", "cpu_weight", "cpu_quota" (state files
 * record these); "?" for anything else. */
const char *placer_setting_name(enum placer_setting s);

/* memory limit meaning "no limit" (v1 -1, v2 "max"). */
#define PLACER_CGROUP_UNLIMITED UINT64_MAX
/* cgroup v2 cpu.weight scale; v1 cpu.shares are converted to and from it. */
#define PLACER_CGROUP_WEIGHT_MIN 1u
#define PLACER_CGROUP_WEIGHT_DEFAULT 100u
#define PLACER_CGROUP_WEIGHT_MAX 10000u
/* CPU quota (bandwidth) in thousandths of a core over this period: 1500
 * millicores = "150000 100000" in v2 cpu.max, cpu.cfs_quota_us=150000 with
 * cpu.cfs_period_us=100000 in v1.  0 millicores: no quota ("max", -1). */
#define PLACER_CGROUP_CPU_PERIOD_US 100000u
#define PLACER_CGROUP_QUOTA_MIN_MCORES 10u       /* 1 ms per 100 ms period (the kernel's floor) */
#define PLACER_CGROUP_QUOTA_MAX_MCORES 65536000u /* 65536 cores */

struct placer_cgroup; /* opaque handle: mode, root, where each controller lives */

/* Detect the mode of ROOT (NULL: $PLACER_CGROUP_ROOT, else /sys/fs/cgroup)
 * by its filesystem magic, and find each controller's directory (v1: from
 * /proc/self/mountinfo, so "cpu,cpuacct" mounts are found too; cpuacct is
 * optional in v1 and is then taken to be cpu's hierarchy). */
int placer_cgroup_open(const char *root, struct placer_cgroup **out, struct placer_error **err);
void placer_cgroup_close(struct placer_cgroup *cg);

enum placer_cgroup_mode placer_cgroup_get_mode(const struct placer_cgroup *cg);
const char *placer_cgroup_mode_name(enum placer_cgroup_mode mode); /* "v1", "v2" */
const char *placer_cgroup_controller_name(enum placer_cgroup_controller c);
/* Directory of GROUP ("" for the root) in controller C's hierarchy; caller frees. */
char *placer_cgroup_dir(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group);

/* Group paths are relative, '/'-separated, e.g. "placer/osd/osd.0"; every
 * component must be a sanitized name, so a profile can never make placer
 * write outside its subtree. */

/* NAME with every byte outside [A-Za-z0-9._-] mapped to '_'; "", "." and
 * ".." are refused (PLACER_EXIT_USAGE). */
int placer_cgroup_sanitize_name(const char *name, char **out, struct placer_error **err);
/* The longest name of one group: a directory name (NAME_MAX). */
#define PLACER_CGROUP_NAME_MAX 255
/* True when NAME is already sanitized (not "", ".", ".."; no other bytes)
 * and at most PLACER_CGROUP_NAME_MAX bytes. */
bool placer_cgroup_name_is_valid(const char *name);
/* PARENT + "/" + NAME (PARENT may be "" or NULL); NAME must be valid: a '/'
 * in it is refused. */
int placer_cgroup_path_join(const char *parent, const char *name, char **out, struct placer_error **err);
/* True when GROUP is a non-empty relative path of valid names. */
bool placer_cgroup_group_is_valid(const char *group);

/* Create GROUP and every missing ancestor.  v1: intermediate cpusets get
 * their parent's cpus/mems (a new v1 cpuset starts empty) and GROUP gets
 * cpuset.memory_migrate=1; v2: +cpuset +memory +cpu are enabled in every
 * ancestor's cgroup.subtree_control.  Existing groups are kept as they are. */
int placer_cgroup_create(struct placer_cgroup *cg, const char *group, struct placer_error **err);
/* placer's mark (cgroup-mark.c): the "trusted.placer.state" attribute of a
 * group's directory in each of placer's hierarchies, MARK naming the state
 * directory that created it.  Only CAP_SYS_ADMIN (of the first user
 * namespace) can set a trusted attribute, and nobody else can read one, so
 * a state file can name a group but cannot make it carry the mark.  0 when
 * marked; 1 when the cgroupfs keeps no xattrs or placer may not set one
 * (root in a user namespace): the group stays unmarked, and its creator
 * records that (no error). */
int placer_cgroup_mark(struct placer_cgroup *cg, const char *group, const char *mark, struct placer_error **err);
enum placer_cgroup_mark_state {
  PLACER_CGROUP_MARK_OURS,    /* every hierarchy's directory carries MARK */
  PLACER_CGROUP_MARK_FOREIGN, /* one carries none, or another state's */
  PLACER_CGROUP_MARK_GONE,    /* the group exists nowhere */
  PLACER_CGROUP_MARK_UNKNOWN, /* this cgroupfs keeps no xattrs (nor refuses): cannot tell */
};
enum placer_cgroup_mark_state placer_cgroup_mark_check(const struct placer_cgroup *cg, const char *group,
                                                       const char *mark);
/* Is there a group below GROUP (GROUP itself not counted) that carries a
 * mark other than MARK: another placer state's? */
bool placer_cgroup_subtree_has_other_mark(const struct placer_cgroup *cg, const char *group, const char *mark);
/* placer_cgroup_create, and MARK (when not NULL) on each level it made: 0,
 * or 1 when a level it made could not be marked (placer_cgroup_mark). */
int placer_cgroup_create_marked(struct placer_cgroup *cg, const char *group, const char *mark,
                                struct placer_error **err);
/* A group path recorded from /proc/PID/cgroup ("" the root, any names, no
 * "." or ".." and not absolute): one a restore may write a PID into. */
bool placer_cgroup_recorded_path_is_safe(const char *path);

/* GROUP is there in cpuset, memory and cpu (a separate cpuacct need not
 * have it: see placer_cgroup_accounts). */
bool placer_cgroup_exists(const struct placer_cgroup *cg, const char *group);
/* The nearest ancestor of GROUP that exists ("" for the root); caller
 * frees, NULL when out of memory. */
char *placer_cgroup_existing_parent(const struct placer_cgroup *cg, const char *group);
/* GROUP is there in the cpuacct hierarchy too (always where cpuacct is
 * cpu's hierarchy or v2).  A group placer did not make (by hand, or by a
 * placer before cpuacct was part of the layer) may lack it where cpuacct is
 * mounted apart: moving a process in then leaves its cpuacct group alone,
 * and its CPU usage cannot be read. */
bool placer_cgroup_accounts(const struct placer_cgroup *cg, const char *group);

/* CPUS / MEMS are kernel list syntax ("0-3,8").  A refused value fails with
 * "write PATH = 'VALUE': strerror". */
int placer_cgroup_set_cpus(struct placer_cgroup *cg, const char *group, const char *cpus, struct placer_error **err);
int placer_cgroup_set_mems(struct placer_cgroup *cg, const char *group, const char *mems, struct placer_error **err);
/* BYTES or PLACER_CGROUP_UNLIMITED. */
int placer_cgroup_set_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t bytes,
                                   struct placer_error **err);
/* WEIGHT on the v2 scale 1..10000 (v1 writes the equivalent cpu.shares). */
int placer_cgroup_set_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned weight,
                                 struct placer_error **err);

/* GROUP's CPU quota: MCORES thousandths of a core per
 * PLACER_CGROUP_CPU_PERIOD_US, or none (0). */
int placer_cgroup_set_cpu_quota(struct placer_cgroup *cg, const char *group, unsigned mcores,
                                struct placer_error **err);
/* GROUP's CPU quota as millicores (0: none), rounded to the nearest. */
int placer_cgroup_read_cpu_quota(struct placer_cgroup *cg, const char *group, unsigned *mcores,
                                 struct placer_error **err);
/* The quota as "QUOTA PERIOD" in v2's cpu.max syntax ("max 100000",
 * "150000 100000") in both modes, and writing such a value back exactly
 * (a rollback restores the period too). */
int placer_cgroup_read_cpu_quota_raw(struct placer_cgroup *cg, const char *group, char **out,
                                     struct placer_error **err);
int placer_cgroup_write_cpu_quota_raw(struct placer_cgroup *cg, const char *group, const char *value,
                                      struct placer_error **err);
/* Pure: parse "QUOTA PERIOD" (QUOTA "max" or -1: *quota_us =
 * PLACER_CGROUP_UNLIMITED); -1 when malformed.  And millicores of it (0 for
 * none). */
int placer_cgroup_parse_cpu_max(const char *text, uint64_t *quota_us, uint64_t *period_us);
unsigned placer_cgroup_cpu_max_mcores(uint64_t quota_us, uint64_t period_us);

/* Move a whole process (every thread) into GROUP, in every controller
 * (cpuacct where GROUP accounts), and
 * verify each thread landed there (threads born during the move are moved
 * too, with bounded retries). */
int placer_cgroup_attach_pid(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err);
/* Move one thread.  v1 only: in v2 a thread can only move inside a threaded
 * subtree, and the process is the unit (fails with EOPNOTSUPP there). */
int placer_cgroup_attach_tid(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err);

/* Read back; strings are what the kernel holds ("" when empty). */
int placer_cgroup_read_cpus(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err);
int placer_cgroup_read_mems(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err);
int placer_cgroup_read_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t *out,
                                    struct placer_error **err);
int placer_cgroup_read_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned *out,
                                  struct placer_error **err);
/* CPU time used by GROUP's processes (and its children's) since the group
 * was made, in ns: v1 cpuacct.usage of the cpuacct hierarchy, v2 usage_usec
 * of cpu.stat times 1000. */
int placer_cgroup_read_cpu_usage_ns(const struct placer_cgroup *cg, const char *group, uint64_t *out,
                                    struct placer_error **err);
/* The parsers (pure): v1 cpuacct.usage, one integer in ns; v2 cpu.stat, its
 * "usage_usec" line, returned in ns. */
int placer_cgroup_parse_cpuacct_usage(const char *text, uint64_t *out_ns, struct placer_error **err);
int placer_cgroup_parse_cpu_stat(const char *text, uint64_t *out_ns, struct placer_error **err);
/* PIDs in cgroup.procs of GROUP (cpuset hierarchy in v1); sorted. */
int placer_cgroup_list_pids(struct placer_cgroup *cg, const char *group, pid_t **pids, size_t *n_pids,
                            struct placer_error **err);

/* Where a process is now, per controller: the path relative to the
 * hierarchy's mount ("" for the root).  Recorded before a move so that a
 * rollback can put the process back. */
struct placer_cgroup_membership {
  char *path[PLACER_CGROUP_N_CONTROLLERS];
};
int placer_cgroup_pid_membership(struct placer_cgroup *cg, pid_t pid, struct placer_cgroup_membership *out,
                                 struct placer_error **err);
/* Move PID (whole process) back to the groups in M.  These are existing
 * groups of any name, so only "." and ".." components are refused.  A NULL
 * path means "not recorded" (a state file written before placer knew
 * cpuacct): that hierarchy is left alone. */
int placer_cgroup_restore_pid(struct placer_cgroup *cg, pid_t pid, const struct placer_cgroup_membership *m,
                              struct placer_error **err);
void placer_cgroup_membership_clear(struct placer_cgroup_membership *m);
/* M is GROUP in every hierarchy (cpuacct only where GROUP accounts). */
bool placer_cgroup_membership_is(const struct placer_cgroup *cg, const struct placer_cgroup_membership *m,
                                 const char *group);

/* Effective cpus and mems of GROUP ("" or NULL: the hierarchy's root):
 * v1 cpuset.effective_cpus / cpuset.effective_mems, v2 cpuset.cpus.effective /
 * cpuset.mems.effective.  Where the root has no such file (v2 without the
 * cpuset controller), the online CPUs and the NUMA nodes with memory from
 * /sys.  Either out may be NULL.  Lets a plan be checked before anything
 * changes. */
int placer_cgroup_read_effective(const struct placer_cgroup *cg, const char *group, char **cpus, char **mems,
                                 struct placer_error **err);
/* The raw content of GROUP's CPU weight file (v1 cpu.shares, v2 cpu.weight),
 * and writing it back: a rollback restores v1 shares exactly, as the shares
 * -> weight -> shares round trip is not the identity (512 comes back as 521).
 * VALUE must be a decimal number. */
int placer_cgroup_read_cpu_raw(const struct placer_cgroup *cg, const char *group, char **out,
                               struct placer_error **err);
int placer_cgroup_write_cpu_raw(const struct placer_cgroup *cg, const char *group, const char *value,
                                struct placer_error **err);

/* Remove GROUP and everything below it (deepest first, e.g. the conmon
 * children podman leaves behind), in every hierarchy mounted under the
 * root: placer's four and the others runc makes a container's groups in
 * (pids, blkio, freezer, the hybrid "unified", ...); never anywhere else.
 * Nothing is removed while any of them still has processes: the error
 * names the group and its PIDs.  A group that is already gone is not an
 * error. */
int placer_cgroup_remove(struct placer_cgroup *cg, const char *group, struct placer_error **err);
/* Remove GROUP's ancestors that are now empty, deepest first, in every
 * hierarchy; stops quietly at the first one that still has children or
 * processes. */
int placer_cgroup_remove_empty_parents(struct placer_cgroup *cg, const char *group, struct placer_error **err);

/* Every process in GROUP and the groups below it, in every hierarchy
 * mounted under the root, once each, sorted (zombies included). */
int placer_cgroup_subtree_pids(struct placer_cgroup *cg, const char *group, pid_t **pids, size_t *n_pids,
                               struct placer_error **err);
/* Is PID in GROUP or below it, in some hierarchy (by /proc/PID/cgroup)? */
bool placer_cgroup_pid_in_subtree(const struct placer_cgroup *cg, pid_t pid, const char *group);
/* Send SIG (0: none) to every process of GROUP's subtree that is not a
 * zombie; *n_live (may be NULL) counts them.  Each PID is held with a pidfd
 * and checked to be still in the subtree before the signal goes, so a PID
 * reused by another process meanwhile is never signalled. */
int placer_cgroup_signal_subtree(struct placer_cgroup *cg, const char *group, int sig, size_t *n_live,
                                 struct placer_error **err);

/* cpu.weight (v2 scale) <-> cpu.shares (v1), linear so that weights are
 * ratios on both: shares = weight * 1024 / 100 (1 -> 10, 100 -> 1024,
 * 10000 -> 102400); back to the nearest weight, clamped to 1..10000. */
unsigned placer_cgroup_shares_to_weight(uint64_t shares);
uint64_t placer_cgroup_weight_to_shares(unsigned weight);

/* Parse /proc/PID/cgroup text: the path of CONTROLLER ("cpuset"; a line
 * "4:cpu,cpuacct:/x" matches "cpu"), or with CONTROLLER NULL the v2 line
 * "0::/path".  Returns 0 and a copy in *path, or -1 (no error filled) when
 * there is no such line. */
int placer_cgroup_proc_lookup(const char *content, const char *controller, char **path);

#endif
