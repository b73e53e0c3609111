/* export --format tuned: a child profile of tuned's cpu-partitioning
 * (placer-PROFILE/tuned.conf, include=cpu-partitioning) that isolates what
 * the plan keeps apart (the OSDs' exclusive CPUs, the pinned guests') and
 * keeps what cpu-partitioning would otherwise undo: placer's IRQ steering
 * (the scheduler plugin's irq_process off), Ceph's and qemu's threads (its
 * ps_blacklist), irqbalance's banned list (the plan's); and beside it a
 * systemd drop-in per isolated service with its own CPUAffinity=, since
 * cpu-partitioning makes every service start on the CPUs it does not
 * isolate.  tuned's reading: profiles/cpu-partitioning/tuned.conf,
 * tuned/plugins/plugin_scheduler.py, plugin_irqbalance.py, profiles/merger.py. */
#include <errno.h>
#include <stdlib.h>

#include "export/export-internal.h"
#include "systemd-unit.h"

/* cpu-partitioning's own ps_blacklist, kept (a child's option replaces the
 * parent's), and the daemons placer pins on isolated CPUs: the scheduler
 * plugin matches each process's comm (15 characters) and skips its threads. */
#define PS_BLACKLIST                                                                                               \
  ".*pmd.*;.*PMD.*;^DPDK;.*qemu-kvm.*;^contrail-vroute$;^lcore-slave-.*;^rte_mp_handle$;^rte_mp_async$;^eal-intr-" \
  "thread$;^ceph-osd$;^crimson-osd$;^ceph-mds$;^qemu-system-"

#define TUNED_DROPIN_NAME "51-placer-tuned.conf"

/* isolated: every CPU an OSD holds exclusively, and every vm instance with
 * CPUs of its own and pinned vCPUs (the classic isolated guest).
 * no_balance: only the pinned guests' (one vCPU thread per PU: there is
 * nothing to balance); an OSD's many threads must keep moving between its
 * cores. */
static bool isolated_instance(const struct placer_instance *inst) {
  return inst->exclusive && (inst->kind == PLACER_KIND_CEPH_OSD || (inst->kind == PLACER_KIND_VM && inst->pin_vcpus));
}

static void write_profile(struct placer_export_writer *w, hwloc_const_bitmap_t isolated,
                          hwloc_const_bitmap_t no_balance, hwloc_const_bitmap_t banned) {
  const struct placer_plan *plan = w->in->plan;
  FILE *f = export_unit(w, "placer-%s/tuned.conf", plan->profile_name);
  if (f == NULL)
    return;
  hwloc_bitmap_t housekeeping = hwloc_bitmap_alloc();
  export_usable_cpus(plan, housekeeping);
  hwloc_bitmap_andnot(housekeeping, housekeeping, isolated);
  fprintf(f,
          "# Install as /etc/tuned/placer-%s/tuned.conf, then: tuned-adm profile placer-%s, and reboot "
          "(cpu-partitioning puts nohz_full and the housekeeping CPUs on the kernel command line).\n",
          plan->profile_name, plan->profile_name);
  fprintf(f,
          "# The kernel's housekeeping (timer ticks, RCU callbacks, unbound workqueues) and every service systemd "
          "starts (cpu-partitioning's [systemd] cpu_affinity) run on the CPUs it does not isolate, %s: those of %s. "
          "The isolated services get their own CPUAffinity= from the drop-ins beside this file.\n",
          export_cpus(w, housekeeping), export_holders(w, housekeeping));
  fprintf(f, "[main]\nsummary=placer's cpu-partitioning for profile %s\ninclude=cpu-partitioning\n\n",
          plan->profile_name);
  fprintf(
      f,
      "[variables]\n# what the plan keeps apart: the OSDs' exclusive CPUs and the pinned guests'\nisolated_cores=%s\n",
      export_cpus(w, isolated));
  if (!hwloc_bitmap_iszero(no_balance))
    fprintf(f, "# the pinned guests' CPUs: one vCPU thread per PU, no load to balance\nno_balance_cores=%s\n",
            export_cpus(w, no_balance));
  fputs("\n[scheduler]\n# its scheduler plugin moves every thread off the isolated CPUs but these (cpu-partitioning's "
        "list, Ceph's daemons, qemu): an OSD without a cgroup cpuset would land on the housekeeping CPUs\n"
        "ps_blacklist=" PS_BLACKLIST "\n"
        "# and every IRQ it can: placer's steering (the profile's irqs:) and irqbalance decide them instead\n"
        "irq_process=false\n",
        f);
  fprintf(f,
          "\n[irqbalance]\n# irqbalance's banned CPUs: every CPU a role holds, as --format irqbalance writes them "
          "(cpu-partitioning would ban the isolated ones only)\nbanned_cpus=%s\n",
          export_cpus(w, banned));
  hwloc_bitmap_free(housekeeping);
}

/* Each isolated instance's service: its CPUs as its own CPUAffinity=. */
static void write_dropins(struct placer_export_writer *w) {
  const struct placer_export_input *in = w->in;
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (!isolated_instance(inst))
      continue;
    cleanup_free char *owned = NULL;
    const char *unit = export_systemd_unit(in, inst, &owned);
    if (unit == NULL || !export_is_service(unit)) {
      /* a guest's CPUs are its VM manager's to pin (libvirt's vcpupin and cgroups): only a daemon needs a unit */
      if (inst->kind != PLACER_KIND_VM)
        export_note(w,
                    "%s: no systemd service known (--map %s=UNIT.service): no CPUAffinity= for it, its service "
                    "would start on the housekeeping CPUs",
                    inst->name, inst->name);
      continue;
    }
    FILE *f = export_unit(w, "%s.d/%s", unit, TUNED_DROPIN_NAME);
    if (f == NULL)
      return;
    fprintf(f,
            "# %s (role %s): its CPUs %s are isolated, and cpu-partitioning starts every service on the others: "
            "install as %s/%s.d/%s, then systemctl daemon-reload.\n[Service]\nCPUAffinity=%s\n",
            inst->name, inst->role, export_cpus(w, inst->cpus), PLACER_SYSTEMD_ETC_DIR, unit, TUNED_DROPIN_NAME,
            export_cpus(w, inst->cpus));
  }
}

static int write_tuned(const struct placer_export_input *in, struct placer_export_writer *w,
                       struct placer_error **err) {
  hwloc_bitmap_t isolated = hwloc_bitmap_alloc(), no_balance = hwloc_bitmap_alloc(), banned = hwloc_bitmap_alloc();
  int ret = 0;
  if (isolated == NULL || no_balance == NULL || banned == NULL) {
    w->failed = true;
    goto out;
  }
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    hwloc_bitmap_or(banned, banned, inst->cpus);
    if (isolated_instance(inst))
      hwloc_bitmap_or(isolated, isolated, inst->cpus);
    if (isolated_instance(inst) && inst->kind == PLACER_KIND_VM)
      hwloc_bitmap_or(no_balance, no_balance, inst->cpus);
  }
  hwloc_bitmap_andnot(banned, banned, in->plan->reserved_cpus);
  if (hwloc_bitmap_iszero(isolated)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "profile '%s' isolates no CPU: no OSD has CPUs of its own and no vm pins its vCPUs on CPUs "
                           "of its own",
                           in->plan->profile_name);
    goto out;
  }
  write_profile(w, isolated, no_balance, banned);
  write_dropins(w);
out:
  hwloc_bitmap_free(isolated);
  hwloc_bitmap_free(no_balance);
  hwloc_bitmap_free(banned);
  return ret;
}

const struct placer_export_format placer_export_tuned = {
  .name = "tuned",
  .summary = "a child profile of cpu-partitioning isolating the OSDs' and pinned guests' CPUs, keeping placer's IRQs "
             "and Ceph's threads; the isolated services' CPUAffinity= drop-ins",
  .syntax = PLACER_EXPORT_INI,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .write = write_tuned,
};
