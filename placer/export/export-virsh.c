/* export --format virsh: the commands that put the libvirt format's
 * placement on domains that already exist.  Every vCPU the definition has
 * (its maximum: hot-plugged ones too), the emulator threads and every
 * IOThread (what <vcpu cpuset> covers, which virsh cannot set), in the
 * running domain (--live, only when it runs: libvirt refuses it on a
 * shut-off one) and in its definition (--config); the memory binding in the
 * definition (libvirt cannot change it on a running domain). */
#include <errno.h>

#include "export/export-internal.h"
#include "lib/cpulist.h"

/* Fixed text: the domain is always an argument ("$1"), never in here. */
static const char virsh_code[] =
    "# live DOMAIN: the domain runs (or is paused): libvirt takes --live then, and refuses it on a shut-off one\n"
    "live() {\n"
    "  case $(virsh domstate \"$1\") in\n"
    "    running | paused | idle | 'in shutdown') return 0 ;;\n"
    "  esac\n"
    "  return 1\n"
    "}\n"
    "# pin_vcpus DOMAIN CPUS...: vCPU k of all the definition has (its maximum) on the (k mod n)-th CPUS, in the\n"
    "# definition; those the running domain has online now too\n"
    "pin_vcpus() {\n"
    "  domain=$1\n"
    "  shift\n"
    "  max=$(virsh vcpucount \"$domain\" --maximum --config)\n"
    "  online=0\n"
    "  if live \"$domain\"; then online=$(virsh vcpucount \"$domain\" --active --live); fi\n"
    "  k=0\n"
    "  while [ \"$k\" -lt \"$max\" ]; do\n"
    "    i=0\n"
    "    for c in \"$@\"; do\n"
    "      if [ \"$i\" -eq $((k % $#)) ]; then cpus=$c; fi\n"
    "      i=$((i + 1))\n"
    "    done\n"
    "    if [ \"$k\" -lt \"$online\" ]; then\n"
    "      virsh vcpupin \"$domain\" \"$k\" \"$cpus\" --live --config >/dev/null\n"
    "    else\n"
    "      virsh vcpupin \"$domain\" \"$k\" \"$cpus\" --config >/dev/null\n"
    "    fi\n"
    "    k=$((k + 1))\n"
    "  done\n"
    "}\n"
    "# pin_threads DOMAIN CPUS: qemu's emulator threads and every IOThread of the definition\n"
    "pin_threads() {\n"
    "  live=\n"
    "  if live \"$1\"; then live=--live; fi\n"
    "  virsh emulatorpin \"$1\" \"$2\" ${live:+\"$live\"} --config >/dev/null\n"
    "  for id in $(virsh iothreadinfo \"$1\" --config | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do\n"
    "    virsh iothreadpin \"$1\" \"$id\" \"$2\" ${live:+\"$live\"} --config >/dev/null\n"
    "  done\n"
    "}\n";

static void virsh(FILE *f, const char *verb, const char *domain) {
  fprintf(f, "%s ", verb);
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
  fputs("# Each domain as planned, whether it runs or not: every vCPU its definition has (its maximum, hot-plugged "
        "ones too), its emulator threads and IOThreads, now (--live, when it runs) and from its next start (--config); "
        "<vcpu cpuset> itself only a definition can hold (--format libvirt --merge).\n",
        f);
  export_sh_code(f, virsh_code);
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    const char *domain = export_domain_name(in, inst);
    const char *cpus = export_cpus(w, inst->cpus);
    const char *mems = export_cpus(w, inst->mems);
    unsigned vcpus = export_vcpus(in, inst);
    fprintf(f, "\n# %s (role %s): %u vCPU%s planned on CPUs %s%s, memory on NUMA node(s) %s\n", inst->name, inst->role,
            vcpus, vcpus == 1 ? "" : "s", cpus, inst->pin_vcpus ? " (one PU each, in turn)" : "", mems);
    virsh(f, "pin_vcpus", domain);
    if (inst->pin_vcpus) {
      int n = hwloc_bitmap_weight(inst->cpus);
      for (unsigned k = 0; k < (unsigned)(n > 0 ? n : 1); k++)
        fprintf(f, " %d", placer_cpulist_nth(inst->cpus, k));
      fputs("\n", f);
    } else {
      fprintf(f, " %s\n", cpus);
    }
    virsh(f, "pin_threads", domain);
    fprintf(f, " %s\n", export_cpus(w, export_emulator_cpus(in->plan, inst)));
    /* libvirt refuses to change a running domain's strict binding ("can't
     * change nodeset for strict mode for running domain"): the next start */
    fputs("# memory: from the domain's next start (a running domain's strict binding cannot change)\n", f);
    virsh(f, "virsh numatune", domain);
    fprintf(f, " --mode strict --nodeset %s --config\n", mems);
  }
  return 0;
}

const struct placer_export_format placer_export_virsh = {
  .name = "virsh",
  .summary = "the virsh commands that apply the libvirt format to existing domains, running or shut off",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .write = write_virsh,
};
