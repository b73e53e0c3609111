/* The topology for a person: compact, aligned, one screen for a 2-socket node. */
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"
#include "lib/units.h"

static void print_cpulist(FILE *out, const char *fmt, hwloc_const_bitmap_t set) {
  cleanup_free char *s = placer_cpulist_format(set);
  fprintf(out, fmt, s && *s ? s : "-");
}

static void print_nodes(FILE *out, hwloc_const_bitmap_t nodes) {
  if (hwloc_bitmap_iszero(nodes)) {
    fprintf(out, "%-8s", "unknown");
    return;
  }
  print_cpulist(out, "%-8s", nodes);
}

/* Cores as "0+32 1+33 ..." wrapped at 100 columns under a label. */
static void print_cores_of(FILE *out, const struct placer_topology *topo, hwloc_const_bitmap_t within, int indent) {
  int col = indent;
  for (size_t i = 0; i < topo->n_cores; i++) {
    const struct placer_core *c = &topo->cores[i];
    if (!hwloc_bitmap_isincluded(c->pus, within))
      continue;
    char buf[64];
    size_t len = 0;
    unsigned pu;
    hwloc_bitmap_foreach_begin(pu, c->pus) {
      len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", len ? "+" : "", pu);
      if (len >= sizeof(buf))
        break;
    }
    hwloc_bitmap_foreach_end();
    if (col + (int)strlen(buf) + 1 > 100) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    }
    col += fprintf(out, " %s", buf);
  }
  fprintf(out, "\n");
}

static void print_numa(FILE *out, const struct placer_topology *topo) {
  fprintf(out, "\nNUMA  package  memory      cpus\n");
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    const struct placer_numa_node *n = &topo->numa_nodes[i];
    char mem[32];
    placer_format_bytes(n->memory_bytes, mem, sizeof(mem));
    fprintf(out, "%4u  %7u  %-10s ", n->os_index, n->package, n->memory_bytes ? mem : "unknown");
    print_cpulist(out, " %s\n", n->cpus);
  }
  if (topo->distances == NULL || topo->n_numa_nodes > 16)
    return;
  fprintf(out, "distances ");
  for (size_t j = 0; j < topo->n_numa_nodes; j++)
    fprintf(out, " %4u", topo->numa_nodes[j].os_index);
  fprintf(out, "\n");
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    fprintf(out, "%9u ", topo->numa_nodes[i].os_index);
    for (size_t j = 0; j < topo->n_numa_nodes; j++)
      fprintf(out, " %4llu", (unsigned long long)topo->distances[i * topo->n_numa_nodes + j]);
    fprintf(out, "\n");
  }
}

static void print_groups(FILE *out, const struct placer_topology *topo, const char *level,
                         const struct placer_cache_group *groups, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char size[32];
    placer_format_bytes(groups[i].size_bytes, size, sizeof(size));
    int w = fprintf(out, "  %s #%zu %s:", level, i, size);
    print_cores_of(out, topo, groups[i].cpus, w);
  }
}

static void print_cores(FILE *out, const struct placer_topology *topo) {
  if (topo->n_l2_clusters > 0) {
    fprintf(out, "\ncores by shared L2 (clusters; other cores have an L2 of their own)\n");
    print_groups(out, topo, "L2", topo->l2_clusters, topo->n_l2_clusters);
  }
  if (topo->n_l3_groups > 0) {
    fprintf(out, "\ncores by shared L3 (a core's PUs joined by '+')\n");
    print_groups(out, topo, "L3", topo->l3_groups, topo->n_l3_groups);
    return;
  }
  fprintf(out, "\ncores by NUMA node (a core's PUs joined by '+'; no L3 known)\n");
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    int w = fprintf(out, "  node %u:", topo->numa_nodes[i].os_index);
    print_cores_of(out, topo, topo->numa_nodes[i].cpus, w);
  }
}

static void print_io(FILE *out, const struct placer_topology *topo) {
  if (topo->n_blockdevs > 0) {
    fprintf(out, "\n%-12s %-8s %-10s %-13s %-8s %s\n", "block device", "kind", "size", "pci", "numa", "model");
    for (size_t i = 0; i < topo->n_blockdevs; i++) {
      const struct placer_blockdev *b = &topo->blockdevs[i];
      char size[32];
      placer_format_bytes(b->size_bytes, size, sizeof(size));
      fprintf(out, "%-12s %-8s %-10s %-13s ", b->name, placer_device_kind_name(b->kind), b->size_bytes ? size : "-",
              b->pci_busid ? b->pci_busid : "-");
      print_nodes(out, b->numa_nodes);
      fprintf(out, " %s\n", b->model ? b->model : "");
    }
  }
  if (topo->n_nics > 0) {
    fprintf(out, "\n%-12s %-13s %-8s %s\n", "interface", "pci", "numa", "speed");
    for (size_t i = 0; i < topo->n_nics; i++) {
      const struct placer_nic *n = &topo->nics[i];
      fprintf(out, "%-12s %-13s ", n->name, n->pci_busid ? n->pci_busid : "-");
      print_nodes(out, n->numa_nodes);
      if (n->speed_mbps)
        fprintf(out, " %llu Mb/s", (unsigned long long)n->speed_mbps);
      else
        fprintf(out, " unknown");
      if (n->pci_link_gbps > 0)
        fprintf(out, " (PCI link %.2f GB/s)", n->pci_link_gbps);
      for (size_t k = 0; k < n->n_ip_addresses; k++)
        fprintf(out, "%s%s", k ? ", " : "  ", n->ip_addresses[k]);
      fputc('\n', out);
    }
  }
}

int placer_topology_print_text(const struct placer_topology *topo, FILE *out) {
  int pus = hwloc_bitmap_weight(topo->online_cpus);
  fprintf(out, "topology %s: %u package%s, %zu NUMA node%s, %zu cores, %d PUs%s\n", topo->source, topo->n_packages,
          topo->n_packages == 1 ? "" : "s", topo->n_numa_nodes, topo->n_numa_nodes == 1 ? "" : "s", topo->n_cores, pus,
          (size_t)pus > topo->n_cores ? "" : " (no SMT)");
  print_cpulist(out, "this process may use cpus %s", topo->allowed_cpus);
  print_cpulist(out, ", mems %s\n", topo->allowed_mems);
  print_numa(out, topo);
  print_cores(out, topo);
  print_io(out, topo);
  return ferror(out) ? -1 : 0;
}
