/* Two things apply needs beyond cgroup.h (kept apart from the cgroup layer,
 * which another module owns): what the kernel lets a cgroup use (cpuset's
 * effective cpus and mems), for the hierarchy's root too, so a plan is
 * checked before anything changes; and the CPU weight file's raw value, so a
 * rollback restores v1 cpu.shares exactly (the shares -> weight -> shares
 * round trip is not the identity: 512 comes back as 521). */
#ifndef PLACER_CGROUP_EXTRA_H
#define PLACER_CGROUP_EXTRA_H

#include "cgroup.h"
#include "error.h"

/* Effective cpus and mems of GROUP ("" or NULL: the hierarchy's root):
 * v1 cpuset.effective_cpus / cpuset.effective_mems, v2 cpuset.cpus.effective /
 * cpuset.mems.effective.  Where the root has no such file (v2 without the
 * cpuset controller), the online CPUs and the NUMA nodes with memory from
 * /sys.  Either out may be NULL. */
int placer_cgroup_read_effective(const struct placer_cgroup *cg, const char *group, char **cpus, char **mems,
                                 struct placer_error **err);

/* The raw content of GROUP's CPU weight file: v1 cpu.shares, v2 cpu.weight. */
int placer_cgroup_read_cpu_raw(const struct placer_cgroup *cg, const char *group, char **out,
                               struct placer_error **err);
/* Write VALUE (as read by placer_cgroup_read_cpu_raw) back. */
int placer_cgroup_write_cpu_raw(const struct placer_cgroup *cg, const char *group, const char *value,
                                struct placer_error **err);

#endif
