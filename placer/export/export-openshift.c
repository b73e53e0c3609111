/* export --format openshift: a PerformanceProfile (performance.openshift.io/v2,
 * OpenShift's Node Tuning Operator) for the nodes of this plan: the host
 * reserve as spec.cpu.reserved, which the operator gives the host's own
 * daemons (systemd's CPUAffinity, the kubelet's and CRI-O's, IRQs) and the
 * kubelet's reservedSystemCPUs; the plan's exclusive sets (the OSDs', the
 * guests with CPUs of their own) as spec.cpu.isolated; the Topology Manager
 * policy the guests need.  The operator's reading:
 * pkg/apis/performanceprofile/v2/performanceprofile_{types,validation}.go. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "export/export-internal.h"

/* metadata.name and the node role: a DNS label made of the profile's name. */
static void dns_label(FILE *f, const char *name) {
  for (const char *c = name; *c; c++)
    fputc(*c == '_' ? '-' : tolower((unsigned char)*c), f);
}

static int write_openshift(const struct placer_export_input *in, struct placer_export_writer *w,
                           struct placer_error **err) {
  const struct placer_plan *plan = in->plan;
  if (hwloc_bitmap_iszero(plan->reserved_cpus))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "profile '%s' reserves no CPU for the host (reserve:), and a PerformanceProfile's "
                            "spec.cpu.reserved may not be empty",
                            plan->profile_name);
  hwloc_bitmap_t isolated = hwloc_bitmap_alloc(), neither = hwloc_bitmap_alloc();
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].exclusive)
      hwloc_bitmap_or(isolated, isolated, plan->instances[i].cpus);
  int ret = 0;
  if (hwloc_bitmap_iszero(isolated)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "profile '%s' has no CPUs of an instance's own (every role in a pool), and a "
                           "PerformanceProfile's spec.cpu.isolated may not be empty",
                           plan->profile_name);
    goto out;
  }
  export_usable_cpus(plan, neither);
  hwloc_bitmap_andnot(neither, neither, isolated);
  hwloc_bitmap_andnot(neither, neither, plan->reserved_cpus);
  FILE *f = export_unit(w, "performance-profile.yaml");
  if (f == NULL)
    goto out;
  fputs("# oc apply -f this file; the operator selects the nodes labelled node-role.kubernetes.io/placer-", f);
  dns_label(f, plan->profile_name);
  fputs(" (a MachineConfigPool of that role must exist) and reboots them into it.\n", f);
  fprintf(f,
          "# reserved, %s: the host's own daemons (systemd's default CPUAffinity, the kubelet, CRI-O), its IRQs and "
          "the kubelet's reservedSystemCPUs.\n# isolated, %s: the CPUs the plan gives %s alone; the kubelet's CPU "
          "manager chooses which Guaranteed pod gets which of them (a PerformanceProfile holds no per-pod CPUs).\n",
          export_cpus(w, plan->reserved_cpus), export_cpus(w, isolated), export_holders(w, isolated));
  if (!hwloc_bitmap_iszero(neither))
    fprintf(f, "# %s, in neither set, are %s: pods share them, and so does the kernel's housekeeping.\n",
            export_cpus(w, neither), export_holders(w, neither));
  fputs("# The plan has no huge pages: spec.hugepages is left out.\n", f);
  fputs("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: placer-", f);
  dns_label(f, plan->profile_name);
  fprintf(f, "\nspec:\n  cpu:\n    reserved: \"%s\"\n    isolated: \"%s\"\n", export_cpus(w, plan->reserved_cpus),
          export_cpus(w, isolated));
  fprintf(f, "  numa:\n    topologyPolicy: %s\n", export_topology_policy(plan));
  fputs("  nodeSelector:\n    node-role.kubernetes.io/placer-", f);
  dns_label(f, plan->profile_name);
  fputs(": \"\"\n", f);
out:
  hwloc_bitmap_free(isolated);
  hwloc_bitmap_free(neither);
  return ret;
}

const struct placer_export_format placer_export_openshift = {
  .name = "openshift",
  .summary = "an OpenShift PerformanceProfile: the host reserve reserved, the plan's exclusive CPUs isolated, the "
             "Topology Manager policy",
  .syntax = PLACER_EXPORT_YAML,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .write = write_openshift,
};
