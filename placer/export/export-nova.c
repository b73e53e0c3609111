/* export --format nova: nova.conf lines for an OpenStack compute node
 * (the CPU sets Nova may give guests, the memory it must leave alone, the
 * allocation ratios that keep it to the plan's guests) and, per vm role, the
 * flavor extra specs that make its guests land as the plan says.  Nova's
 * rules: nova/conf/compute.py (cpu_shared_set, cpu_dedicated_set,
 * vcpu_pin_set, reserved_host_cpus, the allocation ratios). */
#include <string.h>

#include "export/export-internal.h"

/* What Nova must not give guests: the host reserve, every other role's
 * memory, and the per-guest overhead placer budgets (TripleO's HCI formula
 * reserves it the same way). */
static uint64_t reserved_host_memory(const struct placer_export_input *in, FILE *f) {
  const struct placer_plan *plan = in->plan;
  uint64_t total = plan->reserved_memory_bytes;
  fprintf(f, "# reserved_host_memory_mb: the host reserve (%llu MiB)",
          (unsigned long long)export_mib_up(plan->reserved_memory_bytes));
  for (size_t r = 0; in->profile && r < in->profile->n_roles; r++) {
    const struct placer_role_spec *role = &in->profile->roles[r];
    uint64_t sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < plan->n_instances; i++) {
      const struct placer_instance *inst = &plan->instances[i];
      if (strcmp(inst->role, role->name) != 0)
        continue;
      n++;
      if (inst->kind == PLACER_KIND_VM)
        sum += role->memory_overhead_bytes;
      else if (inst->has_memory_limit)
        sum += inst->memory_bytes;
    }
    if (sum == 0)
      continue;
    fprintf(f, " + %s %zu x %llu MiB%s", role->name, n, (unsigned long long)export_mib_up(sum / n),
            role->kind == PLACER_KIND_VM ? " overhead" : "");
    total += sum;
  }
  fputs("\n", f);
  return export_mib_up(total);
}

/* The NUMA nodes the widest instance of ROLE spans. */
static int role_numa_nodes(const struct placer_plan *plan, const char *role) {
  int most = 1;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (strcmp(plan->instances[i].role, role) == 0 && hwloc_bitmap_weight(plan->instances[i].mems) > most)
      most = hwloc_bitmap_weight(plan->instances[i].mems);
  return most;
}

static void write_flavor(struct placer_export_writer *w, FILE *f, const struct placer_role_spec *role,
                         bool have_shared) {
  const struct placer_plan *plan = w->in->plan;
  size_t n = 0;
  const struct placer_instance *first = NULL;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (strcmp(plan->instances[i].role, role->name) == 0 && n++ == 0)
      first = &plan->instances[i];
  if (first == NULL)
    return;
  bool dedicated = first->exclusive;
  unsigned vcpus = export_vcpus(w->in, first);
  fprintf(f, "#\n# role %s: %zu instance%s, %u vCPU%s, %s CPUs\n", role->name, n, n == 1 ? "" : "s", vcpus,
          vcpus == 1 ? "" : "s", dedicated ? "dedicated" : "shared");
  fprintf(f, "#   openstack flavor set FLAVOR --property hw:cpu_policy=%s --property hw:numa_nodes=%d",
          dedicated ? "dedicated" : "shared", role_numa_nodes(plan, role->name));
  /* share: onto cpu_shared_set when there is one, else over the guest's own
   * PCPUs; isolate would take a PCPU more per guest than the plan gives it */
  if (dedicated)
    fputs(" --property hw:emulator_threads_policy=share", f);
  fputs("\n", f);
  if (dedicated)
    fprintf(f, "#   (emulator threads on %s)\n",
            have_shared ? "cpu_shared_set, the vm pools" : "each guest's own PCPUs");
  if (!dedicated)
    fputs("#   (hw:emulator_threads_policy applies to dedicated CPUs only: shared guests' emulator threads run on "
          "their vCPUs' set)\n",
          f);
}

/* cpu_allocation_ratio: the pooled guests' vCPUs over cpu_shared_set's PUs,
 * rounded up to 4 decimals so that Placement's int(PUs x ratio) is exactly
 * the plan's vCPUs (PUs < 10000): no more shared guests than planned.  It
 * does not apply to PCPU (dedicated) inventory, which is never overcommitted. */
static void write_ratios(struct placer_export_writer *w, FILE *f, hwloc_const_bitmap_t shared) {
  const struct placer_plan *plan = w->in->plan;
  unsigned long long vcpus = 0;
  unsigned pus = (unsigned)hwloc_bitmap_weight(shared);
  fputs("# cpu_allocation_ratio: the vm pools' vCPUs", f);
  for (size_t r = 0; w->in->profile && r < w->in->profile->n_roles; r++) {
    const struct placer_role_spec *role = &w->in->profile->roles[r];
    unsigned n = 0, each = 0;
    for (size_t i = 0; i < plan->n_instances; i++) {
      const struct placer_instance *inst = &plan->instances[i];
      if (inst->kind == PLACER_KIND_VM && !inst->exclusive && strcmp(inst->role, role->name) == 0) {
        n++;
        each = export_vcpus(w->in, inst);
        vcpus += each;
      }
    }
    if (n)
      fprintf(f, " (role %s: %u x %u)", role->name, n, each);
  }
  unsigned long long ten_thousandths = (vcpus * 10000 + pus - 1) / pus;
  fprintf(f,
          ", %llu, over cpu_shared_set's %u PUs, rounded up: Nova places no more shared vCPUs there than the plan "
          "holds (its initial ratio is 16.0, 4.0 from 2023.1)\ncpu_allocation_ratio = %llu.%04llu\n",
          vcpus, pus, ten_thousandths / 10000, ten_thousandths % 10000);
}

static int write_nova(const struct placer_export_input *in, struct placer_export_writer *w, struct placer_error **err) {
  (void)err;
  const struct placer_plan *plan = in->plan;
  hwloc_bitmap_t shared = hwloc_bitmap_alloc(), dedicated = hwloc_bitmap_alloc();
  if (shared == NULL || dedicated == NULL) {
    hwloc_bitmap_free(shared);
    hwloc_bitmap_free(dedicated);
    w->failed = true;
    return 0;
  }
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind == PLACER_KIND_VM)
      hwloc_bitmap_or(inst->exclusive ? dedicated : shared, inst->exclusive ? dedicated : shared, inst->cpus);
  }
  FILE *f = export_unit(w, "nova.conf");
  if (f) {
    fputs("# Remove vcpu_pin_set and reserved_host_cpus from your nova.conf: vcpu_pin_set is an error next to "
          "cpu_dedicated_set and next to cpu_shared_set gives guests its own CPUs instead; reserved_host_cpus cannot "
          "be set with either (the CPUs in neither set are the host's).\n[DEFAULT]\n",
          f);
    uint64_t mib = reserved_host_memory(in, f);
    fprintf(f, "reserved_host_memory_mb = %llu\n", (unsigned long long)mib);
    if (!hwloc_bitmap_iszero(shared))
      write_ratios(w, f, shared);
    fputs("# ram_allocation_ratio: no memory overcommit past reserved_host_memory_mb (the initial ratio is 1.5, 1.0 "
          "from 2023.1)\nram_allocation_ratio = 1.0\n\n[compute]\n",
          f);
    if (!hwloc_bitmap_iszero(shared))
      fprintf(f, "# the vm pools (hw:cpu_policy=shared)\ncpu_shared_set = %s\n", export_cpus(w, shared));
    if (!hwloc_bitmap_iszero(dedicated))
      fprintf(f, "# the vm instances with CPUs of their own (hw:cpu_policy=dedicated)\ncpu_dedicated_set = %s\n",
              export_cpus(w, dedicated));
    fputs("\n# Flavor extra specs per vm role (flavors live in Nova's API, not in nova.conf):\n", f);
    for (size_t r = 0; in->profile && r < in->profile->n_roles; r++)
      if (in->profile->roles[r].kind == PLACER_KIND_VM)
        write_flavor(w, f, &in->profile->roles[r], !hwloc_bitmap_iszero(shared));
  }
  hwloc_bitmap_free(shared);
  hwloc_bitmap_free(dedicated);
  return 0;
}

const struct placer_export_format placer_export_nova = {
  .name = "nova",
  .summary = "nova.conf: cpu_shared_set, cpu_dedicated_set, reserved_host_memory_mb; flavor extra specs per vm role",
  .syntax = PLACER_EXPORT_INI,
  .needs = PLACER_EXPORT_NEEDS_PINNED | PLACER_EXPORT_NEEDS_VM | PLACER_EXPORT_GIVES_VM_CPUS,
  .write = write_nova,
};
