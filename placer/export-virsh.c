/* export --format virsh: the commands that put the libvirt format's
 * placement on domains that already exist: vCPUs and emulator threads
 * running (--live) and in their definition (--config), the memory binding
 * in the definition (libvirt cannot change it on a running domain). */
#include <errno.h>

#include "export-internal.h"
#include "lib/cpulist.h"

static void virsh(FILE *f, const char *verb, const char *domain) {
  fprintf(f, "virsh %s ", verb);
  export_sh_word(f, domain);
}

static int write_virsh(const struct placer_export_input *in, struct placer_export_writer *w,
                       struct placer_error **err) {
  /* every domain name first: a missing one fails before any output */
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    const char *domain = export_domain_name(in, inst);
    if (domain == NULL)
      return placer_error_set(
          err, PLACER_EXIT_USAGE, EINVAL,
          "%s has no libvirt domain name: give role '%s' a match {qemu_name: ...} or --map %s=DOMAIN", inst->name,
          inst->role, inst->name);
    /* libvirt refuses them too */
    if (export_has_control(domain))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: libvirt domain name '%s' holds a control character",
                              inst->name, domain);
  }
  FILE *f = export_unit(w, "virsh.sh");
  if (f == NULL)
    return 0;
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    const char *domain = export_domain_name(in, inst);
    const char *cpus = export_cpus(w, inst->cpus);
    const char *mems = export_cpus(w, inst->mems);
    unsigned vcpus = export_vcpus(in, inst);
    fprintf(f, "\n# %s (role %s): %u vCPU%s on CPUs %s%s, memory on NUMA node(s) %s\n", inst->name, inst->role, vcpus,
            vcpus == 1 ? "" : "s", cpus, inst->pin_vcpus ? " (one PU each)" : "", mems);
    for (unsigned k = 0; k < vcpus; k++) {
      virsh(f, "vcpupin", domain);
      if (inst->pin_vcpus)
        fprintf(f, " %u %d --live --config\n", k, placer_cpulist_nth(inst->cpus, k));
      else
        fprintf(f, " %u %s --live --config\n", k, cpus);
    }
    virsh(f, "emulatorpin", domain);
    fprintf(f, " %s --live --config\n", export_cpus(w, export_emulator_cpus(in->plan, inst)));
    /* libvirt refuses to change a running domain's strict binding ("can't
     * change nodeset for strict mode for running domain"): the next start */
    fputs("# memory: from the domain's next start (a running domain's strict binding cannot change)\n", f);
    virsh(f, "numatune", domain);
    fprintf(f, " --mode strict --nodeset %s --config\n", mems);
  }
  return 0;
}

const struct placer_export_format placer_export_virsh = {
  .name = "virsh",
  .summary = "the virsh vcpupin/emulatorpin/numatune commands that apply the libvirt format to existing domains",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .write = write_virsh,
};
