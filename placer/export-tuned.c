/* export --format tuned: cpu-partitioning-variables.conf for tuned's
 * cpu-partitioning profile: the CPUs kept free of the kernel's housekeeping
 * (timer ticks, RCU callbacks, unbound kernel threads), and those where the
 * scheduler need not balance load. */
#include <errno.h>

#include "export-internal.h"

/* isolated_cores: every CPU an OSD holds exclusively, and every vm instance
 * with CPUs of its own and pinned vCPUs (the classic isolated guest).
 * no_balance_cores: only the pinned guests' (one vCPU thread per PU: there
 * is nothing to balance); an OSD's many threads must keep moving between
 * its cores. */
static int write_tuned(const struct placer_export_input *in, struct placer_export_writer *w,
                       struct placer_error **err) {
  hwloc_bitmap_t isolated = hwloc_bitmap_alloc(), no_balance = hwloc_bitmap_alloc();
  int ret = 0;
  if (isolated == NULL || no_balance == NULL) {
    w->failed = true;
    goto out;
  }
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (!inst->exclusive)
      continue;
    if (inst->kind == PLACER_KIND_CEPH_OSD)
      hwloc_bitmap_or(isolated, isolated, inst->cpus);
    if (inst->kind == PLACER_KIND_VM && inst->pin_vcpus) {
      hwloc_bitmap_or(isolated, isolated, inst->cpus);
      hwloc_bitmap_or(no_balance, no_balance, inst->cpus);
    }
  }
  if (hwloc_bitmap_iszero(isolated)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "profile '%s' isolates no CPU: no OSD has CPUs of its own and no vm pins its vCPUs on CPUs "
                           "of its own",
                           in->plan->profile_name);
    goto out;
  }
  FILE *f = export_unit(w, "cpu-partitioning-variables.conf");
  if (f == NULL)
    goto out;
  fputs("# The OSDs' exclusive CPUs and the pinned guests'; the host reserve keeps the housekeeping.\n", f);
  fprintf(f, "isolated_cores=%s\n", export_cpus(w, isolated));
  if (!hwloc_bitmap_iszero(no_balance))
    fprintf(f, "# The pinned guests' CPUs: one vCPU thread per PU, no load to balance.\nno_balance_cores=%s\n",
            export_cpus(w, no_balance));
out:
  hwloc_bitmap_free(isolated);
  hwloc_bitmap_free(no_balance);
  return ret;
}

const struct placer_export_format placer_export_tuned = {
  .name = "tuned",
  .summary = "cpu-partitioning-variables.conf: isolated_cores (the OSDs' own CPUs, pinned guests'), no_balance_cores",
  .syntax = PLACER_EXPORT_INI,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .write = write_tuned,
};
