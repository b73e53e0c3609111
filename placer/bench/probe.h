/* Sampling around one benchmark run: a snapshot before, one after, and the
 * differences written into the run's record (CPU per instance, peak RSS, busiest
 * threads, per-core utilisation, device writes, duration). */
#ifndef PLACER_BENCH_PROBE_H
#define PLACER_BENCH_PROBE_H

#include <stddef.h>
#include <sys/types.h>

#include "results/results.h"
#include "cgroup/cgroup.h"
#include "lib/error.h"

/* One instance to watch. */
struct placer_bench_target {
  const char *instance; /* "osd.0" */
  const char *role;     /* "osd" */
  const char *group;    /* its cgroup, whose CPU usage is read (placer_cgroup_read_cpu_usage_ns),
                             or NULL: then the CPU time of pid itself */
  pid_t pid;            /* its main process, for RSS and threads; 0: none */
};

struct placer_bench_probe;

/* The "before" snapshot. CG (NULL when no target has a group) reads the
 * targets' groups; it must outlive the probe. proc_root is "/proc" (a captured tree in tests);
 * devices are /proc/diskstats names ("nvme0n1"), n_devices may be 0; a name
 * that is not there fails. The targets and device names are copied. */
int placer_bench_probe_start(struct placer_cgroup *cg, const char *proc_root, const struct placer_bench_target *targets,
                             size_t n_targets, const char *const *devices, size_t n_devices,
                             struct placer_bench_probe **out, struct placer_error **err);
/* The "after" snapshot, and into run: duration_s (monotonic clock between the
 * two calls), one role entry per target (CPU delta; peak RSS = VmHWM now, the
 * process's peak since it started, 0 without a pid; the share of its group's
 * processes' resident memory on the group's NUMA nodes, NAN without a group), the top_threads busiest
 * threads of each target with a pid, per-core utilisation, and the devices'
 * bytes written. It does not touch run->done or the fio figures. On failure
 * the run may hold part of these: leave it not done. */
int placer_bench_probe_finish(struct placer_bench_probe *p, const char *proc_root, size_t top_threads,
                              struct placer_bench_run *run, struct placer_error **err);
void placer_bench_probe_free(struct placer_bench_probe *p);

/* The share of the resident memory of GROUP's processes (PID's when the group
 * is empty) on GROUP's NUMA nodes now (numa-locality.h), in [0, 1].  NAN when
 * it cannot be told (no group or cgroup layer, nothing readable): a
 * measurement, never a reason to fail a run. */
double placer_bench_group_local_mem_share(struct placer_cgroup *cg, const char *proc_root, const char *group,
                                          pid_t pid);

#endif
