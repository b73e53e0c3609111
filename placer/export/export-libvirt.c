/* export --format libvirt: per vm instance, the domain XML elements that
 * hold its placement (<vcpu cpuset>, <cputune>, <numatune>), to merge into
 * the domain's definition so that every start and migration keeps it; or
 * with --merge DOMAIN.xml that whole domain, merged (export-libvirt-merge.c). */
#include "export/export-internal.h"
#include "lib/cpulist.h"

static void write_domain(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst) {
  const struct placer_export_input *in = w->in;
  unsigned vcpus = export_vcpus(in, inst);
  const char *domain = export_domain_name(in, inst);
  fputs("<!-- ", f);
  export_comment_text(f, inst->name, PLACER_EXPORT_XML);
  fputs(" (role ", f);
  export_comment_text(f, inst->role, PLACER_EXPORT_XML);
  if (domain) {
    fputs("): merge these elements into the definition of domain '", f);
    export_comment_text(f, domain, PLACER_EXPORT_XML);
    fputs("' (virsh edit), or have placer write the whole domain from its XML (option merge). -->\n", f);
  } else {
    fputs("): merge these elements into its domain's definition (virsh edit), or have placer write the whole "
          "domain from its XML (option merge). -->\n",
          f);
  }
  fputs("<domain>\n", f);
  fprintf(f, "  <vcpu placement='static' cpuset='%s'>%u</vcpu>\n", export_cpus(w, inst->cpus), vcpus);
  fputs("  <cputune>\n", f);
  for (unsigned k = 0; inst->pin_vcpus && k < vcpus; k++)
    fprintf(f, "    <vcpupin vcpu='%u' cpuset='%d'/>\n", k, placer_cpulist_nth(inst->cpus, k));
  fprintf(f, "    <emulatorpin cpuset='%s'/>\n", export_cpus(w, export_emulator_cpus(in->plan, inst)));
  fputs("  </cputune>\n", f);
  fputs("  <numatune>\n", f);
  fprintf(f, "    <memory mode='strict' nodeset='%s'/>\n", export_cpus(w, inst->mems));
  fputs("  </numatune>\n", f);
  fputs("</domain>\n", f);
}

static int write_libvirt(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  if (in->merge_text)
    return export_libvirt_merge(in, w, err);
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    FILE *f = export_unit(w, "%s.xml", inst->name);
    if (f == NULL)
      return 0; /* the render fails on w->failed */
    write_domain(w, f, inst);
  }
  return 0;
}

const struct placer_export_format placer_export_libvirt = {
  .name = "libvirt",
  .summary = "per VM instance, a domain XML fragment: <vcpu cpuset>, <cputune> (vcpupin, emulatorpin), <numatune>",
  .syntax = PLACER_EXPORT_XML,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .takes_merge = true,
  .write = write_libvirt,
};
