/* export --format ceph: `ceph config set` lines per OSD and MDS, so that
 * the daemons' own settings agree with the plan: NUMA affinity (which an OSD
 * otherwise sets itself), memory targets from the planned limits, and for
 * Crimson OSDs the reactor and BlueStore CPU sets that must be in place
 * before the OSD is deployed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export-internal.h"

/* osd_memory_target's minimum (896 MiB): the mon refuses less. */
#define OSD_MEMORY_TARGET_MIN 939524096ULL

static void config_set(FILE *f, const char *who_type, const char *id, const char *key) {
  fputs("ceph config set ", f);
  char *who = NULL;
  if (asprintf(&who, "%s.%s", who_type, id) < 0) {
    fputs("?", f);
  } else {
    export_sh_word(f, who);
    free(who);
  }
  fprintf(f, " %s ", key);
}

/* Crimson's CPU sets: one reactor per whole core (its first PU), BlueStore's
 * threads on the others (the SMT siblings; without SMT, the last third of
 * the cores).  -1 when the OSD has a single PU: the two cannot be apart. */
static int crimson_sets(const struct placer_topology *topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t reactors,
                        hwloc_bitmap_t bluestore) {
  hwloc_bitmap_zero(reactors);
  hwloc_bitmap_zero(bluestore);
  hwloc_bitmap_t mine = hwloc_bitmap_alloc();
  unsigned cores = 0;
  for (size_t c = 0; c < topo->n_cores; c++) {
    hwloc_bitmap_and(mine, topo->cores[c].pus, cpus);
    int first = hwloc_bitmap_first(mine);
    if (first < 0)
      continue;
    cores++;
    hwloc_bitmap_set(reactors, (unsigned)first);
    hwloc_bitmap_clr(mine, (unsigned)first);
    hwloc_bitmap_or(bluestore, bluestore, mine);
  }
  hwloc_bitmap_free(mine);
  if (hwloc_bitmap_iszero(bluestore)) {
    if (cores < 2)
      return -1;
    unsigned give = (cores + 2) / 3; /* no SMT: BlueStore gets the last third of the cores */
    for (unsigned k = 0; k < give; k++) {
      int last = hwloc_bitmap_last(reactors);
      hwloc_bitmap_clr(reactors, (unsigned)last);
      hwloc_bitmap_set(bluestore, (unsigned)last);
    }
  }
  return 0;
}

static void write_crimson(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst, const char *id,
                          hwloc_bitmap_t reactors, hwloc_bitmap_t bluestore) {
  fprintf(f,
          "# Crimson (Ceph 20 Tentacle's option names; set before the OSD is deployed): %d seastar reactors, one per "
          "whole core; BlueStore's threads on the other PUs\n",
          hwloc_bitmap_weight(reactors));
  config_set(f, "osd", id, "crimson_cpu_num");
  fprintf(f, "%d\n", hwloc_bitmap_weight(reactors));
  config_set(f, "osd", id, "crimson_cpu_set");
  fprintf(f, "%s\n", export_cpus(w, reactors));
  config_set(f, "osd", id, "crimson_bluestore_cpu_set");
  fprintf(f, "%s\n", export_cpus(w, bluestore));
  config_set(f, "osd", id, "crimson_bluestore_num_threads");
  fprintf(f, "%d\n", hwloc_bitmap_weight(bluestore));
  (void)inst;
}

static void write_osd(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst, const char *id,
                      bool crimson, hwloc_bitmap_t reactors, hwloc_bitmap_t bluestore) {
  fprintf(f, "\n# %s (role %s): CPUs %s, NUMA node(s) %s", inst->name, inst->role,
          inst->pinned ? export_cpus(w, inst->cpus) : "any", export_cpus(w, inst->mems));
  if (inst->has_memory_limit)
    fprintf(f, ", memory limit %llu bytes", (unsigned long long)inst->memory_bytes);
  fputs("\n", f);
  /* on, the OSD pins itself to its device's or NIC's node after start */
  config_set(f, "osd", id, "osd_numa_auto_affinity");
  fputs("false\n", f);
  if (inst->pinned && inst->numa_node >= 0) {
    config_set(f, "osd", id, "osd_numa_node");
    fprintf(f, "%d\n", inst->numa_node);
  } else {
    fputs("# (osd_numa_node left unset: the plan does not keep it on one NUMA node)\n", f);
  }
  /* Ceph's own rule for an OSD in a memory cgroup: osd_memory_target_cgroup_limit_ratio, 0.8 */
  uint64_t target = inst->memory_bytes / 5 * 4 + inst->memory_bytes % 5 * 4 / 5;
  if (!inst->has_memory_limit) {
    fputs("# (osd_memory_target left as it is: the plan sets no memory limit)\n", f);
  } else if (target < OSD_MEMORY_TARGET_MIN) {
    fprintf(f, "# (osd_memory_target left as it is: 0.8 x the limit is %llu, below Ceph's minimum %llu)\n",
            (unsigned long long)target, (unsigned long long)OSD_MEMORY_TARGET_MIN);
    export_note(w, "%s: osd_memory_target not written: 0.8 x its memory limit is below Ceph's minimum of 896 MiB",
                inst->name);
  } else {
    config_set(f, "osd", id, "osd_memory_target");
    fprintf(f, "%llu\n", (unsigned long long)target);
  }
  if (crimson)
    write_crimson(w, f, inst, id, reactors, bluestore);
}

static int check_ids(const struct placer_export_input *in, struct placer_error **err) {
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    if (inst->kind != PLACER_KIND_CEPH_OSD && inst->kind != PLACER_KIND_CEPH_MDS)
      continue;
    const char *id = export_ceph_id(in, inst);
    if (id == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s has no Ceph daemon id: give role '%s' a match {ceph_id: ...} or --map %s=ID",
                              inst->name, inst->role, inst->name);
    /* --map gives ids the profile never saw: the same rule as the profile's ceph_id */
    const char *why = placer_ceph_id_problem(inst->kind, id);
    if (why)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: '%s' is not a Ceph %s id: %s", inst->name, id,
                              inst->kind == PLACER_KIND_CEPH_OSD ? "OSD" : "MDS", why);
    /* two instances on one daemon would get two different settings */
    for (size_t j = 0; j < i; j++) {
      const struct placer_instance *other = &in->plan->instances[j];
      const char *other_id = export_ceph_id(in, other);
      if (other->kind == inst->kind && other_id && strcmp(other_id, id) == 0)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s and %s are both Ceph daemon %s.%s", other->name,
                                inst->name, inst->kind == PLACER_KIND_CEPH_OSD ? "osd" : "mds", id);
    }
  }
  return 0;
}

static int write_ceph(const struct placer_export_input *in, struct placer_export_writer *w, struct placer_error **err) {
  if (check_ids(in, err) < 0)
    return -1;
  hwloc_bitmap_t reactors = hwloc_bitmap_alloc(), bluestore = hwloc_bitmap_alloc();
  int ret = 0;
  /* every Crimson OSD's sets first: one that cannot have them fails before any output */
  for (size_t i = 0; i < in->plan->n_instances && ret == 0; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    const struct placer_role_spec *role = export_role(in, inst);
    if (role && role->crimson && inst->pinned && crimson_sets(in->topo, inst->cpus, reactors, bluestore) < 0)
      ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                             "%s: a Crimson OSD needs at least 2 PUs (its reactors and BlueStore's threads apart), "
                             "the plan gives it %s",
                             inst->name, export_cpus(w, inst->cpus));
  }
  FILE *f = ret == 0 ? export_unit(w, "ceph-config.sh") : NULL;
  for (size_t i = 0; f && i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    const struct placer_role_spec *role = export_role(in, inst);
    const char *id = export_ceph_id(in, inst);
    if (inst->kind == PLACER_KIND_CEPH_OSD) {
      bool crimson = role && role->crimson && inst->pinned;
      if (crimson)
        crimson_sets(in->topo, inst->cpus, reactors, bluestore);
      else if (role && role->crimson)
        export_note(w, "%s: Crimson CPU sets not written: the profile pins nothing", inst->name);
      write_osd(w, f, inst, id, crimson, reactors, bluestore);
    } else if (inst->kind == PLACER_KIND_CEPH_MDS) {
      fprintf(f, "\n# %s (role %s): CPUs %s", inst->name, inst->role,
              inst->pinned ? export_cpus(w, inst->cpus) : "any");
      if (!inst->has_memory_limit) {
        fputs("; no memory limit, mds_cache_memory_limit left as it is\n", f);
        continue;
      }
      /* an MDS takes about twice its cache (Red Hat Ceph Storage's hardware guide) */
      fprintf(f, ", memory limit %llu bytes: the cache gets half\n", (unsigned long long)inst->memory_bytes);
      config_set(f, "mds", id, "mds_cache_memory_limit");
      fprintf(f, "%llu\n", (unsigned long long)(inst->memory_bytes / 2));
    }
  }
  hwloc_bitmap_free(reactors);
  hwloc_bitmap_free(bluestore);
  return ret;
}

const struct placer_export_format placer_export_ceph = {
  .name = "ceph",
  .summary = "ceph config set per OSD and MDS: NUMA affinity, memory targets, Crimson's reactor and BlueStore CPUs",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_CEPH,
  .write = write_ceph,
};
