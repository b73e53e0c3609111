/* export --format proxmox: `qm set VMID --affinity CPUS --numa 1` per vm
 * instance, the Proxmox VE guest's own CPU affinity (kept across restarts
 * and migrations by qemu-server). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export-internal.h"

/* Proxmox VE accepts VMIDs 100..999999999. */
static bool vmid_ok(const char *s) {
  if (s == NULL || *s == '\0' || strlen(s) > 9 || strspn(s, "0123456789") != strlen(s) || *s == '0')
    return false;
  return strtoul(s, NULL, 10) >= 100;
}

static const char *vmid_of(const struct placer_export_input *in, const struct placer_instance *inst) {
  const char *mapped = export_mapped(in, inst);
  if (mapped)
    return mapped;
  return inst->match.kind == PLACER_MATCH_PROXMOX_VMID ? inst->match.value : NULL;
}

static int write_proxmox(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  const struct placer_plan *plan = in->plan;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    const char *vmid = vmid_of(in, inst);
    if (vmid == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s has no Proxmox VMID: give role '%s' a match {proxmox_vmid: \"{100+index}\"} or "
                              "--map %s=VMID",
                              inst->name, inst->role, inst->name);
    if (!vmid_ok(vmid))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: VMID '%s' is not a number 100..999999999",
                              inst->name, vmid);
    for (size_t j = 0; j < i; j++)
      if (plan->instances[j].kind == PLACER_KIND_VM && strcmp(vmid_of(in, &plan->instances[j]), vmid) == 0)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s and %s both have VMID %s", plan->instances[j].name,
                                inst->name, vmid);
  }
  FILE *f = export_unit(w, "proxmox.sh");
  if (f == NULL)
    return 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    fprintf(f, "# %s (role %s): memory on NUMA node(s) %s\n", inst->name, inst->role, export_cpus(w, inst->mems));
    fprintf(f, "qm set %s --affinity %s --numa 1\n", vmid_of(in, inst), export_cpus(w, inst->cpus));
  }
  return 0;
}

const struct placer_export_format placer_export_proxmox = {
  .name = "proxmox",
  .summary = "qm set VMID --affinity CPUS --numa 1 per VM instance (VMIDs from match proxmox_vmid or --map)",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .write = write_proxmox,
};
