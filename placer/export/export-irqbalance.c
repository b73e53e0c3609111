/* export --format irqbalance: the lines of irqbalance's environment file
 * (/etc/default/irqbalance on Debian and Ubuntu, /etc/sysconfig/irqbalance
 * on RHEL, Fedora and SUSE) that keep its interrupts off every CPU a role
 * holds (they go to the host reserve, its NIC cores among them, and to CPUs
 * nobody holds), and that ban the IRQs the plan steers itself, as `placer
 * apply --irqbalance ban` does.  irqbalance's reading: setup_banned_cpus()
 * in cputree.c (a non-empty IRQBALANCE_BANNED_CPUS wins over
 * IRQBALANCE_BANNED_CPULIST, which 1.8 brought), --banirq in irqbalance.c. */
#include <errno.h>
#include <stdlib.h>

#include "export/export-internal.h"

static const char *const irqbalance_targets[] = { "1.7", "1.8", "1.9", NULL };

/* SET as the kernel's cpumask text (what IRQBALANCE_BANNED_CPUS held before
 * 1.8): 32-bit hex words, the highest first, apart by commas. */
static void write_mask(FILE *f, hwloc_const_bitmap_t set) {
  int last = hwloc_bitmap_last(set);
  int words = last < 0 ? 1 : last / 32 + 1;
  for (int k = words - 1; k >= 0; k--) {
    unsigned long word = 0;
    for (int b = 0; b < 32; b++)
      if (hwloc_bitmap_isset(set, (unsigned)(k * 32 + b)))
        word |= 1UL << b;
    fprintf(f, k == words - 1 ? "%lx" : ",%08lx", word);
  }
}

/* The IRQs the plan steers (not the kernel's managed ones): irqbalance
 * must leave them alone.  Their numbers are this node's: known only when
 * the plan read the node's IRQs (no --topology). */
static void write_banirq(struct placer_export_writer *w, FILE *f) {
  const struct placer_plan *plan = w->in->plan;
  if (plan->n_irq_rules == 0)
    return;
  if (!plan->irqs_known) {
    fputs("# The plan steers the IRQs of", f);
    for (size_t i = 0; i < plan->n_irq_rules; i++) {
      fputs(i ? ", " : " ", f);
      export_comment_text(f, plan->irq_rules[i].device, PLACER_EXPORT_SHELL);
    }
    fputs(": their numbers are the node's own; placer export --format irqbalance on the node itself (no --topology) "
          "writes their --banirq.\n",
          f);
    export_note(w, "the IRQs the plan steers are not banned here: their numbers are the node's (run export there, "
                   "without --topology)");
    return;
  }
  bool any = false;
  for (size_t i = 0; i < plan->n_irqs; i++)
    any |= plan->irqs[i].to != NULL;
  if (!any)
    return;
  fputs("# The IRQs the plan steers itself, which irqbalance would move again (placer apply --irqbalance ban writes "
        "the same); your own IRQBALANCE_ARGS go in here too.\nIRQBALANCE_ARGS=\"",
        f);
  bool first = true;
  for (size_t i = 0; i < plan->n_irqs; i++)
    if (plan->irqs[i].to) {
      fprintf(f, "%s--banirq=%u", first ? "" : " ", plan->irqs[i].irq);
      first = false;
    }
  fputs("\"\n", f);
}

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
  fprintf(f,
          "# In /etc/default/irqbalance (Debian, Ubuntu) or /etc/sysconfig/irqbalance (RHEL, Fedora, SUSE), in place "
          "of the lines of the same names; then restart irqbalance. Interrupts go to CPUs %s (the host reserve and "
          "the free CPUs).\n",
          export_cpus(w, left));
  if (export_target_at_least(w, "1.8")) {
    fputs("# A non-empty IRQBALANCE_BANNED_CPUS (the mask before 1.8) would win over the list: emptied.\n"
          "IRQBALANCE_BANNED_CPUS=\n",
          f);
    fprintf(f, "IRQBALANCE_BANNED_CPULIST=%s\n", export_cpus(w, banned));
  } else {
    fputs("# irqbalance before 1.8 reads a mask only (32-bit hex words, the highest first)\nIRQBALANCE_BANNED_CPUS=",
          f);
    write_mask(f, banned);
    fputs("\n", f);
  }
  write_banirq(w, f);
out:
  hwloc_bitmap_free(banned);
  hwloc_bitmap_free(left);
  return ret;
}

const struct placer_export_format placer_export_irqbalance = {
  .name = "irqbalance",
  .summary = "irqbalance's environment file: the CPUs every role holds banned, the IRQs the plan steers banned",
  .syntax = PLACER_EXPORT_SHELL,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .consumer = "irqbalance",
  .targets = irqbalance_targets,
  .write = write_irqbalance,
};
