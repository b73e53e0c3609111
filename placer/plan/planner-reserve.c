/* The host reserve, placed before any role: memory per node, cores per
 * node and in all (round robin over the nodes), and each reserve.nics
 * NIC's cores for its interrupts.  Part of the pure planner
 * (planner-internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner-internal.h"

static unsigned reserve_on_node(struct planner *p, size_t pos, unsigned want) {
  unsigned got = 0;
  const struct node_info *node = &p->nodes[pos];
  for (size_t k = 0; k < node->n_cores && got < want; k++) {
    const struct placer_core *c = planner_core(p, node->cores[k]);
    if (!align_core_free(&p->align, p->used, c))
      continue;
    hwloc_bitmap_or(p->reserved, p->reserved, c->pus);
    hwloc_bitmap_or(p->used, p->used, c->pus);
    got++;
  }
  return got;
}

int planner_reserve(struct planner *p) {
  const struct placer_reserve_spec *r = &p->profile->reserve;
  size_t usable_cores = 0;
  for (size_t c = 0; c < p->topo->n_cores; c++)
    usable_cores += align_core_usable(&p->align, planner_core(p, c));

  /* memory: split evenly, the remainder on the first nodes */
  for (size_t i = 0; i < p->n_nodes; i++) {
    uint64_t share = r->memory_per_numa_bytes;
    if (r->memory_bytes)
      share = r->memory_bytes / p->n_nodes + (i < r->memory_bytes % p->n_nodes ? 1 : 0);
    p->nodes[i].memory_reserved = share;
  }
  if (!p->profile->pin)
    return 0;

  if (r->cores_per_numa) {
    for (size_t i = 0; i < p->n_nodes; i++) {
      if (!planner_node_has_cores(p, i))
        continue;
      unsigned got = reserve_on_node(p, i, r->cores_per_numa);
      if (got < r->cores_per_numa)
        return planner_infeasible(p,
                                  "reserve: cores_per_numa: %u cores on every NUMA node, but NUMA node %u has only %u",
                                  r->cores_per_numa, p->nodes[i].os, got);
    }
  }
  unsigned want = r->cores_is_percent ? (unsigned)(usable_cores * r->cores / 100) : r->cores;
  if (want > usable_cores)
    return planner_infeasible(p, "reserve: cores: %u cores for the host, but the node has only %zu", want,
                              usable_cores);
  /* round robin over the nodes: the host's work is spread like its memory */
  for (unsigned got = 0; got < want;) {
    unsigned before = got;
    for (size_t i = 0; i < p->n_nodes && got < want; i++)
      got += reserve_on_node(p, i, 1);
    if (got == before)
      return planner_infeasible(p, "reserve: cores: %u cores for the host, only %u free", want, got);
  }

  if (r->nics.n) {
    size_t matched = 0;
    for (size_t i = 0; i < p->topo->n_nics; i++) {
      const struct placer_nic *nic = &p->topo->nics[i];
      if (!planner_nic_list_matches(p, &r->nics, i))
        continue;
      matched++;
      hwloc_bitmap_t nodes = hwloc_bitmap_dup(nic->numa_nodes);
      if (nodes == NULL)
        return planner_oom(p);
      if (hwloc_bitmap_iszero(nodes) && p->n_nodes == 1)
        hwloc_bitmap_set(nodes, p->nodes[0].os);
      if (hwloc_bitmap_iszero(nodes)) {
        hwloc_bitmap_free(nodes);
        if (planner_warn(p, 0, 0, 0,
                         "reserve: NUMA locality of NIC '%s' is unknown; no cores reserved for its interrupts",
                         nic->name) < 0)
          return -1;
        continue;
      }
      unsigned got = 0;
      hwloc_bitmap_t before = hwloc_bitmap_dup(p->reserved);
      struct placer_plan_nic_cores *more = realloc(p->nic_cores, (p->n_nic_cores + 1) * sizeof(*more));
      if (more)
        p->nic_cores = more;
      if (before == NULL || more == NULL || (more[p->n_nic_cores].nic = strdup(nic->name)) == NULL) {
        hwloc_bitmap_free(before);
        hwloc_bitmap_free(nodes);
        return planner_oom(p);
      }
      for (size_t k = 0; k < p->n_nodes && got < r->nic_cores; k++)
        if (hwloc_bitmap_isset(nodes, p->nodes[k].os))
          got += reserve_on_node(p, k, r->nic_cores - got);
      /* what this NIC got: where irqs: nic_cores sends its interrupts */
      more[p->n_nic_cores].cpus = before;
      hwloc_bitmap_andnot(before, p->reserved, before);
      p->n_nic_cores++;
      char where[64];
      planner_nodes_text(nodes, where, sizeof(where));
      hwloc_bitmap_free(nodes);
      if (got < r->nic_cores)
        return planner_infeasible(p, "reserve: nic_cores: %u cores for NIC '%s' on %s, only %u free there",
                                  r->nic_cores, nic->name, where, got);
    }
    if (matched == 0) {
      cleanup_free char *names = planner_nic_names(p->topo);
      cleanup_free char *globs = NULL;
      size_t size = 0;
      FILE *f = open_memstream(&globs, &size);
      if (f == NULL)
        return planner_oom(p);
      for (size_t i = 0; i < r->nics.n; i++)
        fprintf(f, "%s'%s'", i ? ", " : "", r->nics.items[i]);
      fclose(f);
      if (planner_warn(p, 0, 0, 0, "reserve: no NIC matches %s (NICs here: %s); no cores reserved for NIC interrupts",
                       globs ? globs : "?", names ? names : "?") < 0)
        return -1;
    }
  }
  return 0;
}
