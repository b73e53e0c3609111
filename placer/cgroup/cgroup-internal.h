/* Shared by the cgroup layer's files (cgroup.c, cgroup-v1.c, cgroup-v2.c,
 * cgroup-names.c, cgroup-attach.c, cgroup-remove.c, cgroup-proc.c).  Not
 * for the rest of placer (tests may use it). */
#ifndef PLACER_CGROUP_INTERNAL_H
#define PLACER_CGROUP_INTERNAL_H

#include "cgroup/cgroup.h"
#include "proc.h"

/* One mode's implementation: what differs between v1 and v2, as file names
 * and the few steps that really differ.  GROUP arguments are already
 * validated. */
struct placer_cgroup_ops {
  const char *name;
  const char *memory_limit_file;   /* "memory.limit_in_bytes" / "memory.max" */
  const char *memory_unlimited;    /* what to write for no limit: "-1" / "max" */
  uint64_t memory_unlimited_floor; /* a limit read back this large means none */
  const char *cpu_weight_file;     /* the raw weight file: "cpu.shares" / "cpu.weight" */
  const char *effective_cpus_file; /* "cpuset.effective_cpus" / "cpuset.cpus.effective" */
  const char *effective_mems_file;
  const char *cpu_usage_file; /* "cpuacct.usage" (ns) / "cpu.stat" (usage_usec) */
  /* What cpu_usage_file holds, in ns (cgroup-cpu-usage.c). */
  int (*parse_cpu_usage)(const char *text, uint64_t *out_ns, struct placer_error **err);
  /* Find each controller's hierarchy; MOUNTINFO is /proc/self/mountinfo. */
  int (*init)(struct placer_cgroup *cg, const char *mountinfo, struct placer_error **err);
  int (*create)(struct placer_cgroup *cg, const char *group, struct placer_error **err);
  /* cpu.weight (1..10000) to what cpu_weight_file holds, and back. */
  uint64_t (*weight_to_raw)(unsigned weight);
  unsigned (*raw_to_weight)(uint64_t raw);
  /* The CPU quota as "QUOTA PERIOD" (v2 cpu.max syntax), both ways. */
  int (*read_cpu_max)(struct placer_cgroup *cg, const char *group, char **out, struct placer_error **err);
  int (*write_cpu_max)(struct placer_cgroup *cg, const char *group, uint64_t quota_us, uint64_t period_us,
                       struct placer_error **err);
  int (*attach_pid)(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err);
  int (*attach_tid)(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err);
};

extern const struct placer_cgroup_ops placer_cgroup_ops_v1;
extern const struct placer_cgroup_ops placer_cgroup_ops_v2;

/* Where one controller's hierarchy is mounted.  In v2 all entries describe
 * the same unified mount. */
struct placer_cgroup_hier {
  char *mount_point; /* directory placer's group paths are relative to */
  char *mount_root;  /* hierarchy path mounted there ("/" normally), as /proc/PID/cgroup names it */
  bool shared;       /* same hierarchy as an earlier controller: skip when walking hierarchies */
  int same_as;       /* shared: that earlier controller (its entry in /proc/PID/cgroup stands for this one) */
};

struct placer_cgroup {
  enum placer_cgroup_mode mode;
  const struct placer_cgroup_ops *ops;
  char *root;
  struct placer_cgroup_hier hier[PLACER_CGROUP_N_CONTROLLERS];
  /* Every hierarchy mounted under the root, once each: v1 every cgroup
   * mount directly below it (cpuset, memory, cpu and cpuacct, but also pids, blkio,
   * freezer, ... and the hybrid layout's cgroup2 "unified", where runc
   * makes a container's groups too); v2 the root itself.  Removing a group
   * and listing the processes of a subtree walk all of them. */
  struct placer_cgroup_hier *all;
  size_t n_all;
};

/* Kernel limits from kernel/sched: v1 cpu.shares range. */
#define PLACER_CGROUP_SHARES_MIN 2u
#define PLACER_CGROUP_SHARES_MAX 262144u

/* GROUP's directory is there in controller C's hierarchy. */
bool cg_group_dir_exists(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group);
/* GROUP is a valid relative group path (else a PLACER_EXIT_USAGE error). */
int cg_check_group(const char *group, struct placer_error **err);

/* cgroupfs file I/O.  Errors name the path, the value and errno. */
/* FILE of GROUP ("" or NULL: the root) in controller C's hierarchy. */
int cg_write_group(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group, const char *file,
                   const char *value, struct placer_error **err);
int cg_read_group(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group, const char *file,
                  char **out, struct placer_error **err);
int cg_read_group_u64(const struct placer_cgroup *cg, enum placer_cgroup_controller c, const char *group,
                      const char *file, uint64_t *out, struct placer_error **err);
int cg_write_file(const char *dir, const char *file, const char *value, struct placer_error **err);
/* Whole file, trailing newline stripped. */
int cg_read_file(const char *dir, const char *file, char **out, struct placer_error **err);
/* A decimal number file ("123\n"). */
int cg_read_u64(const char *dir, const char *file, uint64_t *out, struct placer_error **err);
/* Replace *ERR (if its errno is ERRNO_VALUE) by its message plus HINT. */
void cg_error_hint(struct placer_error **err, int errno_value, const char *hint);
/* DIR/GROUP, or DIR when GROUP is "" or NULL. */
char *cg_group_dir(const char *dir, const char *group);
/* Parse the lines of a cgroup.procs-like file. */
int cg_parse_pids(const char *text, pid_t **pids, size_t *n, struct placer_error **err);
/* Move the whole process PID into GROUP in every hierarchy, then check
 * each thread's /proc/PID/task/TID/cgroup and write PID again where one is
 * found elsewhere (born during the move).  Bounded retries. */
int cg_attach_group(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err);

/* /proc parsing, pure (cgroup-proc.c). */
/* Find the cgroup mount of CONTROLLER ("cpuset") in mountinfo text whose
 * mount point is a direct child of ROOT ("/sys/fs/cgroup/cpu,cpuacct").
 * With CONTROLLER NULL: the cgroup2 mount at ROOT or above it (ROOT may be
 * a delegated subtree); *mount_point is then ROOT and *mount_root the
 * hierarchy path of ROOT.  -1 when absent. */
int cg_mountinfo_lookup(const char *mountinfo, const char *root, const char *controller, char **mount_point,
                        char **mount_root);
/* Every cgroup (v1) or cgroup2 mount whose mount point is a direct child of
 * ROOT, once per mount point (a later mount over the same point wins).
 * *n may be 0.  -1 on ENOMEM. */
int cg_mountinfo_children(const char *mountinfo, const char *root, struct placer_cgroup_hier **out, size_t *n);
/* Translate a path from /proc/PID/cgroup (hierarchy path) to one relative
 * to the mount ("" for the mount itself); NULL when outside MOUNT_ROOT. */
char *cg_path_from_proc(const char *mount_root, const char *proc_path);
/* The reverse: the /proc/PID/cgroup path that GROUP has. */
char *cg_path_to_proc(const char *mount_root, const char *group);
#endif
