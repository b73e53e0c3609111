/* export --format proxmox: `qm set VMID` per vm instance: the Proxmox VE
 * guest's own CPU affinity (--affinity, kept across restarts and
 * migrations by qemu-server) and one guest NUMA node bound to the plan's
 * host nodes (--numa0 hostnodes=...,policy=bind).  qemu-server's reading:
 * PVE/QemuServer/Memory.pm (numaN, the memory total), --affinity in
 * PVE/QemuServer.pm. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"

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

/* PVE's list syntax for numaN's cpus and hostnodes: ranges apart by ';'. */
static const char *pve_list(struct placer_export_writer *w, hwloc_const_bitmap_t set) {
  char *s = strdup(export_cpus(w, set));
  if (s == NULL || placer_string_list_take(&w->strings, s) < 0) {
    w->failed = true;
    return "";
  }
  for (char *c = s; *c; c++)
    *c = *c == ',' ? ';' : *c;
  return s;
}

/* One guest: its CPUs, and with a memory in the plan one guest NUMA node of
 * all its vCPUs and memory bound (policy=bind) to the host nodes the plan
 * gives it; qemu-server wants the nodes' memory to total the guest's, and
 * their cpus to be its vCPUs, so --memory, --sockets and --cores say them. */
static void write_guest(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst, const char *vmid) {
  unsigned vcpus = export_vcpus(w->in, inst);
  uint64_t mib = export_mib_up(export_guest_memory(w->in, inst));
  fprintf(f, "\n# %s (role %s): %u vCPU%s on CPUs %s", inst->name, inst->role, vcpus, vcpus == 1 ? "" : "s",
          export_cpus(w, inst->cpus));
  if (mib == 0) {
    fprintf(f, "; memory not bound: the plan gives role %s no memory\n", inst->role);
    fprintf(f, "qm set %s --affinity %s\n", vmid, export_cpus(w, inst->cpus));
    export_note(w, "%s: its memory is not bound to a NUMA node: role '%s' has no memory", inst->name, inst->role);
    return;
  }
  fprintf(f, ", its %llu MiB bound to NUMA node(s) %s\n", (unsigned long long)mib, export_cpus(w, inst->mems));
  char *numa0 = NULL;
  if (asprintf(&numa0, "cpus=0-%u,hostnodes=%s,memory=%llu,policy=bind", vcpus - 1, pve_list(w, inst->mems),
               (unsigned long long)mib) < 0) {
    w->failed = true;
    return;
  }
  fprintf(f, "qm set %s --affinity %s --sockets 1 --cores %u --memory %llu --numa 1 --numa0 ", vmid,
          export_cpus(w, inst->cpus), vcpus, (unsigned long long)mib);
  export_sh_word(f, numa0);
  fputs("\n", f);
  free(numa0);
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
  fputs("# qemu-server applies --affinity and the NUMA layout when it starts a guest: each line below is pending "
        "until the guest's next cold start (qm shutdown VMID, then qm start VMID; a reboot from inside the guest keeps "
        "the running qemu). --affinity needs Proxmox VE 7.3 or later.\n",
        f);
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind == PLACER_KIND_VM)
      write_guest(w, f, inst, vmid_of(in, inst));
  }
  return 0;
}

const struct placer_export_format placer_export_proxmox = {
  .name = "proxmox",
  .summary = "qm set VMID --affinity CPUS --numa0 ...,hostnodes=NODES,policy=bind per VM instance (VMIDs from match "
             "proxmox_vmid or --map)",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .write = write_proxmox,
};
