/* export --format irqbalance: the IRQBALANCE_BANNED_CPULIST line of
 * /etc/default/irqbalance, which keeps irqbalance's interrupts off every CPU
 * a role holds: they go to the host reserve (its NIC cores among them) and
 * to CPUs nobody holds.  IRQ planning proper (irqs: in the profile) will
 * refine this. */
#include <errno.h>

#include "export-internal.h"

static int write_irqbalance(const struct placer_export_input *in, struct placer_export_writer *w,
                            struct placer_error **err) {
  const struct placer_plan *plan = in->plan;
  hwloc_bitmap_t banned = hwloc_bitmap_alloc(), left = hwloc_bitmap_alloc();
  int ret = 0;
  if (banned == NULL || left == NULL) {
    w->failed = true;
    goto out;
  }
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_or(banned, banned, plan->instances[i].cpus);
  hwloc_bitmap_andnot(banned, banned, plan->reserved_cpus);
  hwloc_bitmap_or(left, plan->reserved_cpus, plan->free_cpus);
  hwloc_bitmap_andnot(left, left, banned);
  if (hwloc_bitmap_iszero(left)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "interrupts would have no CPU: profile '%s' reserves no core for the host and leaves none "
                           "free (reserve: cores)",
                           plan->profile_name);
    goto out;
  }
  FILE *f = export_unit(w, "irqbalance.env");
  if (f == NULL)
    goto out;
  fprintf(f, "# Interrupts go to CPUs %s (the host reserve and the free CPUs).\n", export_cpus(w, left));
  fprintf(f, "IRQBALANCE_BANNED_CPULIST=%s\n", export_cpus(w, banned));
out:
  hwloc_bitmap_free(banned);
  hwloc_bitmap_free(left);
  return ret;
}

const struct placer_export_format placer_export_irqbalance = {
  .name = "irqbalance",
  .summary = "IRQBALANCE_BANNED_CPULIST for /etc/default/irqbalance: every CPU a role holds",
  .syntax = PLACER_EXPORT_SHELL,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .write = write_irqbalance,
};
