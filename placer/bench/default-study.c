/* The default study sized to the node; see default-study.h and
 * docs/bench.md ("The default study, sized to the node"). */
#include "bench/default-study.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textfile.h"

#define GIB (UINT64_C(1) << 30)
/* An OSD's memory in the shipped profiles (1 GiB osd_memory_target and
 * headroom); mon and mgr take another GiB beside them on Ceph's node. */
#define OSD_MEMORY (UINT64_C(3) << 29)

/* The usable cores of NODE: cores with a PU this process may use. */
static unsigned node_cores(const struct placer_topology *t, const struct placer_numa_node *node) {
  unsigned n = 0;
  for (size_t i = 0; i < t->n_cores; i++)
    n += hwloc_bitmap_intersects(t->cores[i].pus, node->cpus) &&
         hwloc_bitmap_intersects(t->cores[i].pus, t->allowed_cpus);
  return n;
}

static unsigned node_nvme(const struct placer_topology *t, const struct placer_numa_node *node) {
  unsigned n = 0;
  for (size_t i = 0; i < t->n_blockdevs; i++)
    n += t->blockdevs[i].kind == PLACER_DEVICE_NVME && hwloc_bitmap_isset(t->blockdevs[i].numa_nodes, node->os_index);
  return n;
}

void placer_default_study_size(const struct placer_topology *t, struct placer_default_study *d) {
  memset(d, 0, sizeof(*d));
  int pus = hwloc_bitmap_weight(t->allowed_cpus);
  d->pus = pus > 0 ? (unsigned)pus : 1;
  uint64_t node_memory = 0;
  unsigned osds = 0;
  for (size_t i = 0; i < t->n_numa_nodes; i++) {
    const struct placer_numa_node *node = &t->numa_nodes[i];
    unsigned cores = node_cores(t, node), nvme = node_nvme(t, node);
    if (cores == 0)
      continue;
    d->numa_nodes++;
    d->cores += cores;
    d->nvme += nvme;
    /* one OSD per NVMe while each has 2 cores, else one per 4 cores */
    osds += nvme ? (nvme < cores / 2 ? nvme : cores / 2) : cores / 4;
    if (node->memory_bytes > node_memory)
      node_memory = node->memory_bytes;
  }
  /* at least 2 (a replica each), at most what one host's throwaway cluster
   * builds in reasonable time and what Ceph's NUMA node holds */
  unsigned by_memory = node_memory > 2 * GIB ? (unsigned)((node_memory - 2 * GIB) / OSD_MEMORY) : 2;
  if (osds > PLACER_DEFAULT_STUDY_MAX_OSDS)
    osds = PLACER_DEFAULT_STUDY_MAX_OSDS;
  if (node_memory && osds > by_memory)
    osds = by_memory;
  d->osds = osds < 2 ? 2 : osds;
  d->iodepth = 8 * d->osds;
  d->workers = d->pus / 2 ? d->pus / 2 : 1;
  d->ceph_threads = (d->osds + 1) / 2;
  d->client_threads = d->pus > d->ceph_threads ? d->pus - d->ceph_threads : 1;
  unsigned steps = 2 * d->pus / d->osds;
  d->n_quota = steps < 1 ? 1 : steps > PLACER_DEFAULT_STUDY_MAX_STEPS ? PLACER_DEFAULT_STUDY_MAX_STEPS : steps;
  for (size_t i = 0; i < d->n_quota; i++)
    d->quota[i] = (double)d->osds / 4.0 * (double)(i + 1);
  d->storage_min_percent = d->pus < 8 ? 50 : 90;
}

bool placer_default_study_is_shipped(const struct placer_default_study *d) {
  return d->osds == 2 && d->iodepth == 16 && d->workers == 1 && d->ceph_threads == 1 && d->client_threads == 1 &&
         d->n_quota == 2 && d->quota[0] == 0.5 && d->quota[1] == 1.0 && d->storage_min_percent == 50;
}

int placer_default_study_yaml(const struct placer_default_study *d, const char *source, char **out,
                              struct placer_error **err) {
  char values[128] = "";
  for (size_t i = 0; i < d->n_quota; i++) {
    size_t len = strlen(values);
    snprintf(values + len, sizeof(values) - len, "%s%g", i ? ", " : "", d->quota[i]);
  }
  char count[32] = "", unpinned[48] = "";
  if (d->osds != 2) { /* the shipped profiles place 2 */
    snprintf(count, sizeof(count), "osd.count=%u, ", d->osds);
    snprintf(unpinned, sizeof(unpinned), "    set: [osd.count=%u]\n", d->osds);
  }
  cleanup_free char *what = placer_text_escape(source);
  int n = asprintf(out,
                   "# placer's default study sized to the node (placer bench --print-default; docs/bench.md,\n"
                   "# \"The default study, sized to the node\"): studies/default.yaml's study, its counts from\n"
                   "# %s: %u usable PUs on %u cores in %u NUMA node%s, %u NVMe.\n"
                   "#   OSDs: per NUMA node one per NVMe while each has 2 cores, else one per 4 cores; 2 to %d,\n"
                   "#     as many as Ceph's node holds at 1.5 GiB each: %u\n"
                   "#   fio: one job (librbd's exclusive lock), iodepth 8 per OSD: %u\n"
                   "#   the neighbour: one stress-ng worker per 2 PUs, each busy half the time: %u\n"
                   "#   pinned (demo-local): Ceph on half a PU per OSD (%u), fio and the neighbour on the rest (%u)\n"
                   "#   the quota sweep of the OSDs: steps of a quarter core per OSD, as many as 2 PUs per OSD\n"
                   "#     allow, at most %d: %s cores; the balance point asks for %u%% (50%% under 8 PUs)\n"
                   "version: 1\n"
                   "title: CPU for storage vs a half-busy neighbour, %u OSDs, fio rbd 4K randwrite iodepth %u\n"
                   "\n"
                   "cluster:\n"
                   "  type: local\n"
                   "  osds: %u\n"
                   "  image_size: 1GiB\n"
                   "\n"
                   "variants:             # the first is the baseline A\n"
                   "  - name: unpinned\n"
                   "    profile: unpinned\n"
                   "%s"
                   "  - name: pinned\n"
                   "    profile: demo-local\n"
                   "    set: [%smon.cpu.threads=%u, mgr.cpu.threads=%u, osd.cpu.threads=%u, fio.cpu.threads=%u, "
                   "neighbour.cpu.threads=%u]\n"
                   "\n"
                   "workloads:\n"
                   "  target: rbd\n"
                   "  size: 256MiB\n"
                   "  block_sizes: [4K]\n"
                   "  patterns: [randwrite]\n"
                   "  iodepth: %u\n"
                   "  numjobs: 1\n"
                   "  runtime: 3\n"
                   "  ramp: 2\n"
                   "  prefill: true\n"
                   "\n"
                   "neighbours:\n"
                   "  - name: neighbour\n"
                   "    role: neighbour\n"
                   "    kind: stress-ng\n"
                   "    stressor: cpu\n"
                   "    method: matrixprod\n"
                   "    intensity: %u\n"
                   "    load: 50%%\n"
                   "\n"
                   "sweep:                 # made from the first variant (unpinned)\n"
                   "  parameter: quota\n"
                   "  values: [%s]\n"
                   "  workload: 4k-randwrite\n"
                   "  storage_min_fraction: %u%%\n"
                   "\n"
                   "repeats: { min: 6, max: 7, ci_width: 10%% }\n"
                   "warmup: 0\n",
                   what ? what : "?", d->pus, d->cores, d->numa_nodes, d->numa_nodes == 1 ? "" : "s", d->nvme,
                   PLACER_DEFAULT_STUDY_MAX_OSDS, d->osds, d->iodepth, d->workers, d->ceph_threads, d->client_threads,
                   PLACER_DEFAULT_STUDY_MAX_STEPS, values, d->storage_min_percent, d->osds, d->iodepth, d->osds,
                   unpinned, count, d->ceph_threads, d->ceph_threads, d->ceph_threads, d->client_threads,
                   d->client_threads, d->iodepth, d->workers, values, d->storage_min_percent);
  if (n < 0) {
    *out = NULL;
    return placer_error_oom(err, "default study");
  }
  return 0;
}

int placer_default_study_for(const char *topology_xml, char **text, struct placer_study **study,
                             struct placer_error **err) {
  cleanup_free char *path = NULL, *yaml = NULL;
  if (placer_study_default_path(&path, err) < 0)
    return -1;
  const char *own = getenv("PLACER_DEFAULT_STUDY");
  bool sized = false;
  if (own == NULL || *own == '\0') { /* the user's own default is taken as it is */
    struct placer_topology *topo = NULL;
    if (placer_topology_load(topology_xml, &topo, err) < 0)
      return -1;
    struct placer_default_study d;
    placer_default_study_size(topo, &d);
    if (!placer_default_study_is_shipped(&d)) {
      sized = true;
      if (placer_default_study_yaml(&d, topo->is_live ? "this machine" : topo->source, &yaml, err) < 0) {
        placer_topology_free(topo);
        return -1;
      }
    }
    placer_topology_free(topo);
  }
  if (!sized && placer_study_default_text(&yaml, err) < 0)
    return -1;
  if (study) {
    /* parsed as the shipped file: its directory for relative paths, its
     * name in messages (a sized study is that file's, resized) */
    if (placer_study_parse(path, yaml, strlen(yaml), study, err) < 0)
      return -1;
    if (sized && ((*study)->generated = strdup(yaml)) == NULL) {
      placer_study_free(*study);
      *study = NULL;
      return placer_error_oom(err, "default study");
    }
  }
  if (text)
    *text = TAKE_PTR(yaml);
  return 0;
}
