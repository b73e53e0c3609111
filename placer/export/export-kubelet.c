/* export --format kubelet: a KubeletConfiguration (kubelet's config file,
 * kubelet.config.k8s.io/v1beta1) that keeps pods, KubeVirt guests included,
 * off every CPU and byte of memory placer plans for something else: the
 * static CPU manager with reservedSystemCPUs and strict-cpu-reservation, the
 * Topology Manager, and the Memory Manager with reservedMemory per node.  A
 * fragment, or with --merge the operator's whole file (export-kubelet-merge.c).
 * The CPU manager's options and their feature gates per kubelet release:
 * pkg/kubelet/cm/cpumanager/policy_options.go and KEPs 2625, 4540, 4800. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-kubelet.h"
#include "lib/cpulist.h"

static const char *const kubelet_targets[] = { "1.29", "1.30", "1.31", "1.32", "1.33", "1.34", NULL };

/* Every CPU kept from pods: the host reserve and every instance that is not
 * a vm (KubeVirt guests are pods). */
static void kept_from_pods(const struct placer_plan *plan, hwloc_bitmap_t out) {
  hwloc_bitmap_copy(out, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind != PLACER_KIND_VM)
      hwloc_bitmap_or(out, out, plan->instances[i].cpus);
}

/* Is SET made of whole cores (every PU of a core, or none)? */
static bool whole_cores(const struct placer_topology *topo, hwloc_const_bitmap_t set) {
  for (size_t c = 0; c < topo->n_cores; c++)
    if (hwloc_bitmap_intersects(topo->cores[c].pus, set) && !hwloc_bitmap_isincluded(topo->cores[c].pus, set))
      return false;
  return true;
}

/* Per NUMA node, kept from pods: the host reserve's share and every non-vm
 * instance's memory, split evenly over its nodes as the planner charges it;
 * each rounded up to whole MiB. */
static void kept_memory(const struct placer_export_input *in, struct kubelet_plan *kp) {
  export_reserve_per_node(in, kp->node_bytes);
  const struct placer_topology *t = in->topo;
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    int nodes = hwloc_bitmap_weight(inst->mems);
    if (inst->kind == PLACER_KIND_VM || !inst->has_memory_limit || nodes <= 0)
      continue;
    for (size_t n = 0; n < t->n_numa_nodes; n++)
      if (hwloc_bitmap_isset(inst->mems, t->numa_nodes[n].os_index))
        kp->node_bytes[n] += inst->memory_bytes / (uint64_t)nodes;
  }
  for (size_t n = 0; n < t->n_numa_nodes; n++) {
    kp->node_bytes[n] = export_mib_up(kp->node_bytes[n]) << 20;
    kp->kept_bytes += kp->node_bytes[n];
  }
}

static void choose_options(struct placer_export_writer *w, struct kubelet_plan *kp, hwloc_const_bitmap_t reserved) {
  const struct placer_plan *plan = w->in->plan;
  bool vms = false, all_whole = true, cache = false;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    vms = true;
    all_whole = all_whole && inst->whole_cores;
    const struct placer_role_spec *role = export_role(w->in, inst);
    cache = cache || (role && inst->pinned && placer_plan_aligns_by_cache(w->in->topo, role));
  }
  /* whole cores for guests only when the reserve is whole cores too:
   * kubelet refuses full-pcpus-only on a reserve that splits a core */
  kp->full_pcpus_only = vms && all_whole && whole_cores(w->in->topo, reserved);
  /* strict-cpu-reservation: alpha in 1.32, beta (on by default) from 1.33 */
  kp->strict = export_target_at_least(w, "1.32");
  /* prefer-align-cpus-by-uncorecache: alpha in 1.32 and 1.33, beta from 1.34 */
  kp->uncore_cache = cache && export_target_at_least(w, "1.32");
  kp->uncore_unknown = cache && !kp->uncore_cache;
  kp->alpha_gate =
      (kp->strict && !export_target_at_least(w, "1.33")) || (kp->uncore_cache && !export_target_at_least(w, "1.34"));
  /* full-pcpus-only is beta until 1.33 (GA) */
  kp->beta_gate = (kp->strict && export_target_at_least(w, "1.33")) ||
                  (kp->uncore_cache && export_target_at_least(w, "1.34")) ||
                  (kp->full_pcpus_only && !export_target_at_least(w, "1.33"));
  kp->topology_policy = export_topology_policy(plan);
}

static void kubelet_header(struct placer_export_writer *w, FILE *f, const struct kubelet_plan *kp) {
  if (kp->strict)
    fprintf(f,
            "# Pods (KubeVirt guests too) get CPUs %s: every CPU the plan keeps for nothing else; "
            "strict-cpu-reservation keeps BestEffort and Burstable pods off reservedSystemCPUs too.\n",
            kp->pods);
  else
    fprintf(f,
            "# Guaranteed pods with whole CPUs get CPUs %s; BestEffort and Burstable pods (KubeVirt guests without "
            "dedicated "
            "CPUs) also run on reservedSystemCPUs %s, which %s hold: kubelet %s has no strict-cpu-reservation (1.32 "
            "and later).\n",
            kp->pods, kp->reserved, kp->shared_by, w->target);
  fputs("# Before the kubelet runs with this: drain the node, stop the kubelet, remove "
        "/var/lib/kubelet/cpu_manager_state and /var/lib/kubelet/memory_manager_state (a kubelet whose policy or "
        "reserved CPUs differ from the ones recorded there does not start), start it, uncordon the node.\n",
        f);
}

static void write_fragment(struct placer_export_writer *w, FILE *f, const struct kubelet_plan *kp) {
  fprintf(f,
          "# Merge into a KubeletConfiguration whose enforceNodeAllocatable is [pods] (the default), without "
          "kubeReserved.memory and with evictionHard's default memory.available (%lluMi): reservedMemory sums to "
          "that; --merge KUBELET.yaml writes your whole file instead, adapted to it.\n",
          (unsigned long long)(KUBELET_EVICTION_DEFAULT_BYTES >> 20));
  fputs("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n", f);
  if (kp->alpha_gate)
    fputs("featureGates:\n  CPUManagerPolicyAlphaOptions: true\n", f);
  fputs("cpuManagerPolicy: static\n", f);
  if (kp->full_pcpus_only || kp->strict || kp->uncore_cache)
    fputs("cpuManagerPolicyOptions:\n", f);
  if (kp->full_pcpus_only)
    fputs("  full-pcpus-only: \"true\"\n", f);
  if (kp->strict)
    fputs("  strict-cpu-reservation: \"true\"\n", f);
  /* the guests' CPUs kept in the fewest L3s, as placer keeps them */
  if (kp->uncore_cache)
    fputs("  prefer-align-cpus-by-uncorecache: \"true\"\n", f);
  fprintf(f, "reservedSystemCPUs: \"%s\"\n", kp->reserved);
  fprintf(f, "topologyManagerPolicy: %s\n", kp->topology_policy);
  fputs("memoryManagerPolicy: Static\n", f);
  if (kp->kept_bytes)
    fprintf(f, "systemReserved:\n  memory: %s\n", export_quantity(w, kp->kept_bytes));
  fprintf(f,
          "# reservedMemory sums to systemReserved + evictionHard's default memory.available (%lluMi, on the first "
          "node)\nreservedMemory:\n",
          (unsigned long long)(KUBELET_EVICTION_DEFAULT_BYTES >> 20));
  for (size_t n = 0; n < kp->n_nodes; n++) {
    uint64_t bytes = kp->node_bytes[n] + (n == 0 ? KUBELET_EVICTION_DEFAULT_BYTES : 0);
    if (bytes)
      fprintf(f, "  - numaNode: %u\n    limits:\n      memory: %s\n", kp->node_os[n], export_quantity(w, bytes));
  }
}

static int write_kubelet(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  const struct placer_topology *t = in->topo;
  hwloc_bitmap_t reserved = hwloc_bitmap_alloc(), pods = hwloc_bitmap_alloc();
  struct kubelet_plan kp = { .n_nodes = t->n_numa_nodes };
  unsigned *node_os = calloc(t->n_numa_nodes ? t->n_numa_nodes : 1, sizeof(*node_os));
  kp.node_bytes = calloc(t->n_numa_nodes ? t->n_numa_nodes : 1, sizeof(*kp.node_bytes));
  int ret = 0;
  if (reserved == NULL || pods == NULL || kp.node_bytes == NULL || node_os == NULL) {
    w->failed = true;
    goto out;
  }
  for (size_t n = 0; n < t->n_numa_nodes; n++)
    node_os[n] = t->numa_nodes[n].os_index;
  kp.node_os = node_os;
  kept_from_pods(in->plan, reserved);
  export_usable_cpus(in->plan, pods);
  hwloc_bitmap_andnot(pods, pods, reserved);
  if (hwloc_bitmap_iszero(pods)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "pods would get no CPU: the host reserve and the roles that are not vm hold all %d",
                           hwloc_bitmap_weight(reserved));
    goto out;
  }
  kp.reserved = export_cpus(w, reserved);
  kp.pods = export_cpus(w, pods);
  kp.shared_by = export_holders(w, reserved);
  choose_options(w, &kp, reserved);
  if (kp.uncore_unknown)
    export_note(w, "prefer-align-cpus-by-uncorecache not written: kubelet %s does not know it (1.32 and later)",
                w->target);
  kept_memory(in, &kp);
  struct kubelet_merge *merge = NULL;
  if (in->merge_text && kubelet_merge_load(w, &kp, &merge, err) < 0) {
    ret = -1;
    goto out;
  }
  FILE *f = export_unit(w, "kubelet-config.yaml");
  if (f) {
    kubelet_header(w, f, &kp);
    if (merge)
      kubelet_merge_write(merge, f);
    else
      write_fragment(w, f, &kp);
  }
  kubelet_merge_free(merge);
out:
  hwloc_bitmap_free(reserved);
  hwloc_bitmap_free(pods);
  free(kp.node_bytes);
  free(node_os);
  return ret;
}

const struct placer_export_format placer_export_kubelet = {
  .name = "kubelet",
  .summary = "a KubeletConfiguration: static CPU manager, reservedSystemCPUs, strict-cpu-reservation, Topology and "
             "Memory managers",
  .syntax = PLACER_EXPORT_YAML,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .consumer = "kubelet",
  .targets = kubelet_targets,
  .takes_merge = true,
  .write = write_kubelet,
};
