/* export --format kubelet: a KubeletConfiguration fragment (kubelet's
 * config file, kubelet.config.k8s.io/v1beta1) that keeps pods, KubeVirt
 * guests included, off every CPU and byte of memory placer plans for
 * something else: the static CPU manager with reservedSystemCPUs, the
 * Topology Manager, and the Memory Manager with reservedMemory per node. */
#include <errno.h>
#include <stdlib.h>

#include "export-internal.h"

/* Kubelet's default hard eviction threshold (evictionHard memory.available);
 * the Memory Manager wants reservedMemory to sum to systemReserved +
 * kubeReserved + this, and placer leaves evictionHard at its default (setting
 * the map would zero its other signals). */
#define KUBELET_EVICTION_MIB 100

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

/* Per NUMA node, MiB kept from pods: the host reserve's share and every
 * non-vm instance's memory, split evenly over its nodes as the planner
 * charges it. */
static void kept_memory(const struct placer_export_input *in, uint64_t *bytes) {
  export_reserve_per_node(in, bytes);
  const struct placer_topology *t = in->topo;
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    int nodes = hwloc_bitmap_weight(inst->mems);
    if (inst->kind == PLACER_KIND_VM || !inst->has_memory_limit || nodes <= 0)
      continue;
    for (size_t n = 0; n < t->n_numa_nodes; n++)
      if (hwloc_bitmap_isset(inst->mems, t->numa_nodes[n].os_index))
        bytes[n] += inst->memory_bytes / (uint64_t)nodes;
  }
}

static void write_options(struct placer_export_writer *w, FILE *f, hwloc_const_bitmap_t reserved) {
  const struct placer_plan *plan = w->in->plan;
  bool vms = false, all_whole = true, all_one_node = true, cache = false;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    vms = true;
    all_whole = all_whole && inst->whole_cores;
    all_one_node = all_one_node && inst->numa_node >= 0;
    const struct placer_role_spec *role = export_role(w->in, inst);
    cache = cache || (role && inst->pinned && placer_plan_aligns_by_cache(w->in->topo, role));
  }
  /* whole cores for guests only when the reserve is whole cores too:
   * kubelet refuses full-pcpus-only on a reserve that splits a core */
  bool full = vms && all_whole && whole_cores(w->in->topo, reserved);
  if (full || cache)
    fputs("cpuManagerPolicyOptions:\n", f);
  if (full)
    fputs("  full-pcpus-only: \"true\"\n", f);
  /* the guests' CPUs kept in the fewest L3s, as placer keeps them */
  if (cache)
    fputs("  prefer-align-cpus-by-uncorecache: \"true\"\n", f);
  fprintf(f, "reservedSystemCPUs: \"%s\"\n", export_cpus(w, reserved));
  fprintf(f, "topologyManagerPolicy: %s\n", vms && all_one_node ? "single-numa-node" : "best-effort");
}

static int write_kubelet(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  const struct placer_topology *t = in->topo;
  hwloc_bitmap_t reserved = hwloc_bitmap_alloc(), pods = hwloc_bitmap_alloc();
  uint64_t *bytes = calloc(t->n_numa_nodes ? t->n_numa_nodes : 1, sizeof(*bytes));
  int ret = 0;
  if (reserved == NULL || pods == NULL || bytes == NULL) {
    w->failed = true;
    goto out;
  }
  kept_from_pods(in->plan, reserved);
  export_usable_cpus(in->plan, pods);
  hwloc_bitmap_andnot(pods, pods, reserved);
  if (hwloc_bitmap_iszero(pods)) {
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "pods would get no CPU: the host reserve and the roles that are not vm hold all %d",
                           hwloc_bitmap_weight(reserved));
    goto out;
  }
  kept_memory(in, bytes);
  FILE *f = export_unit(w, "kubelet-config.yaml");
  if (f == NULL)
    goto out;
  fprintf(f, "# Pods (KubeVirt guests too) get CPUs %s: every CPU the plan keeps for nothing else.\n",
          export_cpus(w, pods));
  fputs("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n", f);
  write_options(w, f, reserved);
  fputs("memoryManagerPolicy: Static\n", f);
  uint64_t total = 0;
  for (size_t n = 0; n < t->n_numa_nodes; n++)
    total += export_mib_up(bytes[n]);
  if (total)
    fprintf(f, "systemReserved:\n  memory: %lluMi\n", (unsigned long long)total);
  fprintf(f,
          "# reservedMemory sums to systemReserved + evictionHard's default memory.available (%uMi, on the first "
          "node)\nreservedMemory:\n",
          KUBELET_EVICTION_MIB);
  for (size_t n = 0; n < t->n_numa_nodes; n++) {
    uint64_t mib = export_mib_up(bytes[n]) + (n == 0 ? KUBELET_EVICTION_MIB : 0);
    if (mib)
      fprintf(f, "  - numaNode: %u\n    limits:\n      memory: %lluMi\n", t->numa_nodes[n].os_index,
              (unsigned long long)mib);
  }
out:
  hwloc_bitmap_free(reserved);
  hwloc_bitmap_free(pods);
  free(bytes);
  return ret;
}

const struct placer_export_format placer_export_kubelet = {
  .name = "kubelet",
  .summary = "a KubeletConfiguration fragment: static CPU manager, reservedSystemCPUs, Topology and Memory managers",
  .syntax = PLACER_EXPORT_YAML,
  .needs = PLACER_EXPORT_NEEDS_PINNED,
  .write = write_kubelet,
};
