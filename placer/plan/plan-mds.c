/* The plan's MDS facts for a person (planner-mds.c): one line per MDS under
 * the table (plan-json.c gives each MDS instance its "mds" object). */
#include <stdio.h>
#include <stdlib.h>

#include "plan/plan.h"
#include "lib/units.h"

static void print_list(FILE *out, hwloc_const_bitmap_t set) {
  char *text = placer_cpulist_format(set);
  fputs(text ? text : "?", out);
  free(text);
}

/* "cores 4-5 whole (SMT siblings 36-37 kept)": cores named by their first PU. */
static void print_cores(FILE *out, const struct placer_plan *plan, const struct placer_plan_mds *m) {
  const struct placer_instance *inst = &plan->instances[m->instance];
  if (!inst->pinned) {
    fputs("unpinned (pin: false)", out);
    return;
  }
  fprintf(out, "core%s ", m->n_cores == 1 ? "" : "s");
  print_list(out, m->first_pus);
  if (m->n_shared_with > 0) {
    fputs(" shared with ", out);
    for (size_t k = 0; k < m->n_shared_with && k < 3; k++)
      fprintf(out, "%s%s", k ? ", " : "", m->shared_with[k]);
    if (m->n_shared_with > 3)
      fprintf(out, " and %zu more", m->n_shared_with - 3);
    fputs(inst->exclusive ? "" : " (its pool)", out);
    return;
  }
  if (!hwloc_bitmap_iszero(m->not_held)) {
    fputs(" in part (", out);
    print_list(out, m->not_held);
    fputs(" free)", out);
    return;
  }
  int n_siblings = hwloc_bitmap_weight(m->siblings);
  if (n_siblings == 0) {
    fputs(" whole (no SMT)", out);
    return;
  }
  fprintf(out, " whole (SMT sibling%s ", n_siblings == 1 ? "" : "s");
  print_list(out, m->siblings);
  fputs(" kept)", out);
}

static void print_nic(FILE *out, const struct placer_plan *plan, const struct placer_plan_mds *m) {
  const struct placer_instance *inst = &plan->instances[m->instance];
  if (!inst->pinned)
    return;
  if (inst->nic == NULL) {
    fputs(inst->locality == PLACER_LOCALITY_REMOTE ? ", near no NIC (see the warnings)" : ", not placed near a NIC",
          out);
    return;
  }
  fprintf(out, ", %s NIC %s", inst->locality == PLACER_LOCALITY_LOCAL ? "near" : "away from", inst->nic);
  if (!hwloc_bitmap_iszero(m->nic_nodes)) {
    fprintf(out, " on NUMA node%s ", hwloc_bitmap_weight(m->nic_nodes) == 1 ? "" : "s");
    print_list(out, m->nic_nodes);
  }
  if (inst->locality == PLACER_LOCALITY_REMOTE)
    fputs(" (see the warnings)", out);
}

static void print_cache(FILE *out, const struct placer_plan *plan, const struct placer_plan_mds *m) {
  const struct placer_instance *inst = &plan->instances[m->instance];
  if (!m->has_cache_limit) {
    fputs("; no memory limit, so no mds_cache_memory_limit", out);
    return;
  }
  char cache[32], memory[32];
  placer_format_bytes(m->cache_limit_bytes, cache, sizeof(cache));
  placer_format_bytes(inst->memory_bytes, memory, sizeof(memory));
  fprintf(out, "; mds_cache_memory_limit %s (its %s / %d)", cache, memory, PLACER_MDS_MEMORY_PER_CACHE);
}

int placer_plan_mds_print_text(const struct placer_plan *plan, FILE *out) {
  if (plan->n_mds == 0)
    return 0;
  fprintf(out, "\nmds (whole cores of its own near the storage NIC; its cache from its memory, docs/profiles.md):\n");
  for (size_t i = 0; i < plan->n_mds; i++) {
    const struct placer_plan_mds *m = &plan->mds[i];
    const struct placer_instance *inst = &plan->instances[m->instance];
    fprintf(out, "  %s", inst->name);
    if (inst->match.kind == PLACER_MATCH_CEPH_ID && inst->match.value)
      fprintf(out, " (mds.%s)", inst->match.value);
    fputs(": ", out);
    print_cores(out, plan, m);
    print_nic(out, plan, m);
    print_cache(out, plan, m);
    fputc('\n', out);
  }
  return ferror(out) ? -1 : 0;
}
