/* export --format ceph: the Ceph daemons' own settings agreeing with the
 * plan.  ceph-config.sh: `ceph config set` per OSD and MDS (NUMA affinity,
 * which an OSD otherwise sets itself; memory targets from the planned
 * limits; a Crimson OSD's reactor and BlueStore CPU sets), every option
 * checked with `ceph config help` before the first set.  Beside it, per OSD
 * group, a cephadm service spec that runs the OSDs' containers in the
 * plan's cpuset (classic OSDs have no CPU-set option of their own).
 * Option names per release: src/common/options/{global,osd,mds,crimson}.yaml.in;
 * the affinity an OSD sets at start: OSD::set_numa_affinity. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"

static const char *const ceph_targets[] = { "16", "17", "18", "19", "20", NULL };

/* osd_memory_target's minimum (896 MiB): the mon refuses less. */
#define OSD_MEMORY_TARGET_MIN 939524096ULL

/* Crimson's CPU options of a release (Squid's from ceph/ceph#55276 and
 * #57593, renamed since; before Squid reactors were placed by seastar's own
 * command line only).  NULL: the release does not have one. */
struct crimson_names {
  const char *reactor_set, *reactor_num, *bluestore_set, *bluestore_num;
};

static const struct crimson_names crimson_20 = { "crimson_cpu_set", "crimson_cpu_num", "crimson_bluestore_cpu_set",
                                                 "crimson_bluestore_num_threads" };
static const struct crimson_names crimson_19 = { "crimson_seastar_cpu_cores", NULL, "crimson_alien_thread_cpu_cores",
                                                 "crimson_alien_op_num_threads" };

static const struct crimson_names *crimson_names(const struct placer_export_writer *w) {
  return export_target_at_least(w, "20") ? &crimson_20 : export_target_at_least(w, "19") ? &crimson_19 : NULL;
}

static void config_set(FILE *f, const char *verb, const char *who_type, const char *id, const char *key) {
  fprintf(f, "%s ", verb);
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

static bool is_crimson(const struct placer_export_input *in, const struct placer_instance *inst) {
  const struct placer_role_spec *role = export_role(in, inst);
  return inst->kind == PLACER_KIND_CEPH_OSD && role && role->crimson && inst->pinned;
}

static void write_crimson(struct placer_export_writer *w, FILE *f, const char *id, hwloc_bitmap_t reactors,
                          hwloc_bitmap_t bluestore) {
  const struct crimson_names *names = crimson_names(w);
  fprintf(f,
          "# Crimson (Ceph %s's names; read when the OSD starts, so set before it is deployed): %d seastar reactors, "
          "one per whole core; BlueStore's threads on the other PUs\n",
          w->target, hwloc_bitmap_weight(reactors));
  if (names->reactor_num) {
    config_set(f, "ceph config set", "osd", id, names->reactor_num);
    fprintf(f, "%d\n", hwloc_bitmap_weight(reactors));
  }
  config_set(f, "ceph config set", "osd", id, names->reactor_set);
  fprintf(f, "%s\n", export_cpus(w, reactors));
  config_set(f, "ceph config set", "osd", id, names->bluestore_set);
  fprintf(f, "%s\n", export_cpus(w, bluestore));
  config_set(f, "ceph config set", "osd", id, names->bluestore_num);
  fprintf(f, "%d\n", hwloc_bitmap_weight(bluestore));
}

static hwloc_const_bitmap_t node_cpus(const struct placer_topology *topo, int os) {
  for (size_t n = 0; n < topo->n_numa_nodes; n++)
    if ((int)topo->numa_nodes[n].os_index == os)
      return topo->numa_nodes[n].cpus;
  return NULL;
}

static void write_osd(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst, const char *id,
                      hwloc_bitmap_t reactors, hwloc_bitmap_t bluestore) {
  fprintf(f, "\n# %s (role %s): CPUs %s, NUMA node(s) %s", inst->name, inst->role,
          inst->pinned ? export_cpus(w, inst->cpus) : "any", export_cpus(w, inst->mems));
  if (inst->has_memory_limit)
    fprintf(f, ", memory limit %llu bytes", (unsigned long long)inst->memory_bytes);
  fputs("\n", f);
  /* on, the OSD pins itself to its device's or NIC's node after start */
  config_set(f, "ceph config set", "osd", id, "osd_numa_auto_affinity");
  fputs("false\n", f);
  hwloc_const_bitmap_t node = inst->pinned && inst->numa_node >= 0 ? node_cpus(w->in->topo, inst->numa_node) : NULL;
  if (node) {
    fprintf(f,
            "# osd_numa_node %d: at start the OSD sets every thread's affinity to node %d's CPUs %s "
            "(OSD::set_numa_affinity); in a cgroup cpuset of its CPUs %s that stays %s, without one it widens to the "
            "whole node: set only with --osds-in-cpusets\n",
            inst->numa_node, inst->numa_node, export_cpus(w, node), export_cpus(w, inst->cpus),
            export_cpus(w, inst->cpus));
    config_set(f, "in_cpuset", "osd", id, "osd_numa_node");
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
    config_set(f, "ceph config set", "osd", id, "osd_memory_target");
    fprintf(f, "%llu\n", (unsigned long long)target);
  }
  if (is_crimson(w->in, inst)) {
    crimson_sets(w->in->topo, inst->cpus, reactors, bluestore);
    write_crimson(w, f, id, reactors, bluestore);
  }
}

static void write_mds(struct placer_export_writer *w, FILE *f, const struct placer_instance *inst, const char *id) {
  fprintf(f, "\n# %s (role %s): CPUs %s", inst->name, inst->role, inst->pinned ? export_cpus(w, inst->cpus) : "any");
  if (!inst->has_memory_limit) {
    fputs("; no memory limit, mds_cache_memory_limit left as it is\n", f);
    return;
  }
  /* the plan's own figure: an MDS takes about twice its cache (plan.h) */
  _Static_assert(PLACER_MDS_MEMORY_PER_CACHE == 2, "the script says the cache gets half");
  fprintf(f, ", memory limit %llu bytes: the cache gets half\n", (unsigned long long)inst->memory_bytes);
  config_set(f, "ceph config set", "mds", id, "mds_cache_memory_limit");
  fprintf(f, "%llu\n", (unsigned long long)placer_mds_cache_limit(inst->memory_bytes));
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

/* Every Crimson OSD's sets, before any output: one that cannot have them
 * (a single PU, a release without the options) fails the format. */
static int check_crimson(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  hwloc_bitmap_t reactors = hwloc_bitmap_alloc(), bluestore = hwloc_bitmap_alloc();
  int ret = 0;
  for (size_t i = 0; i < in->plan->n_instances && ret == 0; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    const struct placer_role_spec *role = export_role(in, inst);
    if (role && role->crimson && !inst->pinned)
      export_note(w, "%s: Crimson CPU sets not written: the profile pins nothing", inst->name);
    if (!is_crimson(in, inst))
      continue;
    if (crimson_names(w) == NULL)
      ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                             "%s: Ceph %s has no option for a Crimson OSD's CPU sets (Squid, 19, is the first): "
                             "--target 19 or later",
                             inst->name, w->target);
    else if (crimson_sets(in->topo, inst->cpus, reactors, bluestore) < 0)
      ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                             "%s: a Crimson OSD needs at least 2 PUs (its reactors and BlueStore's threads apart), "
                             "the plan gives it %s",
                             inst->name, export_cpus(w, inst->cpus));
  }
  hwloc_bitmap_free(reactors);
  hwloc_bitmap_free(bluestore);
  return ret;
}

/* The options the script sets, for `known`: each once, in the order they come. */
static void write_known(struct placer_export_writer *w, FILE *f) {
  const struct placer_plan *plan = w->in->plan;
  bool osd = false, node = false, target = false, crimson = false, mds = false;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    osd |= inst->kind == PLACER_KIND_CEPH_OSD;
    node |= inst->kind == PLACER_KIND_CEPH_OSD && inst->pinned && inst->numa_node >= 0;
    target |= inst->kind == PLACER_KIND_CEPH_OSD && inst->has_memory_limit;
    crimson |= is_crimson(w->in, inst);
    mds |= inst->kind == PLACER_KIND_CEPH_MDS && inst->has_memory_limit;
  }
  fputs("known", f);
  if (osd)
    fputs(" osd_numa_auto_affinity", f);
  if (node)
    fputs(" osd_numa_node", f);
  if (target)
    fputs(" osd_memory_target", f);
  const struct crimson_names *names = crimson_names(w);
  if (crimson && names)
    fprintf(f, "%s%s %s %s %s", names->reactor_num ? " " : "", names->reactor_num ? names->reactor_num : "",
            names->reactor_set, names->bluestore_set, names->bluestore_num);
  if (mds)
    fputs(" mds_cache_memory_limit", f);
  fputs("\n", f);
}

/* The OSDs that read what the script set at start only (osd_numa_* and
 * Crimson's sets are "Can update at runtime: false" in `ceph config help`). */
static void write_restart(struct placer_export_writer *w, FILE *f) {
  bool node = false, crimson = false, any = false;
  fputs("echo 'ceph-config.sh: set.", f);
  for (size_t i = 0; i < w->in->plan->n_instances; i++) {
    const struct placer_instance *inst = &w->in->plan->instances[i];
    if (inst->kind != PLACER_KIND_CEPH_OSD)
      continue;
    node |= inst->pinned && inst->numa_node >= 0;
    crimson |= is_crimson(w->in, inst);
    fprintf(f, "%s osd.%s", any ? "" : " Restart", export_ceph_id(w->in, inst));
    any = true;
  }
  if (any)
    fprintf(f, ": an OSD reads osd_numa_auto_affinity%s%s when it starts only.", node ? ", osd_numa_node" : "",
            crimson ? " and its Crimson CPU sets" : "");
  fputs("'\n", f);
}

static void write_script(struct placer_export_writer *w, FILE *f) {
  const struct placer_export_input *in = w->in;
  fputs("# sh ceph-config.sh [--osds-in-cpusets], where the ceph command reaches the cluster. --osds-in-cpusets: "
        "the OSDs run in a cgroup cpuset of their CPUs (placer apply, the systemd format's AllowedCPUs= on cgroup v2, "
        "the cephadm specs beside this). Every option is checked first (ceph config help): a cluster of another "
        "release stops there, with nothing set.\n",
        f);
  char *code = NULL;
  if (asprintf(&code,
               "in_cpusets=no\n"
               "case ${1:-} in\n"
               "  --osds-in-cpusets) in_cpusets=yes ;;\n"
               "  '') ;;\n"
               "  *) echo 'usage: sh ceph-config.sh [--osds-in-cpusets]' >&2; exit 2 ;;\n"
               "esac\n"
               "# known OPTION...: every option this script sets is one the cluster knows, or it stops\n"
               "known() {\n"
               "  for option in \"$@\"; do\n"
               "    if ! ceph config help \"$option\" >/dev/null 2>&1; then\n"
               "      echo \"ceph-config.sh: this cluster does not know option $option (the script is for Ceph %s: "
               "placer export --target RELEASE); nothing was set\" >&2\n"
               "      exit 1\n"
               "    fi\n"
               "  done\n"
               "}\n"
               "# in_cpuset WHO OPTION VALUE: ceph config set, with --osds-in-cpusets only\n"
               "in_cpuset() {\n"
               "  if [ \"$in_cpusets\" = yes ]; then ceph config set \"$1\" \"$2\" \"$3\"; fi\n"
               "}\n",
               w->target) < 0) {
    w->failed = true;
    return;
  }
  export_sh_code(f, code);
  free(code);
  write_known(w, f);
  hwloc_bitmap_t reactors = hwloc_bitmap_alloc(), bluestore = hwloc_bitmap_alloc();
  for (size_t i = 0; i < in->plan->n_instances; i++) {
    const struct placer_instance *inst = &in->plan->instances[i];
    const char *id = export_ceph_id(in, inst);
    if (inst->kind == PLACER_KIND_CEPH_OSD)
      write_osd(w, f, inst, id, reactors, bluestore);
    else if (inst->kind == PLACER_KIND_CEPH_MDS)
      write_mds(w, f, inst, id);
  }
  hwloc_bitmap_free(reactors);
  hwloc_bitmap_free(bluestore);
  fputs("\n", f);
  write_restart(w, f);
}

/* ---- cephadm */

/* OSDs of one group share a cephadm spec: same role, same CPUs and nodes. */
static bool same_group(const struct placer_instance *a, const struct placer_instance *b) {
  return strcmp(a->role, b->role) == 0 && hwloc_bitmap_isequal(a->cpus, b->cpus) &&
         hwloc_bitmap_isequal(a->mems, b->mems);
}

static void write_spec(struct placer_export_writer *w, size_t first) {
  const struct placer_plan *plan = w->in->plan;
  const struct placer_instance *lead = &plan->instances[first];
  FILE *f = export_unit_in(w, PLACER_EXPORT_YAML, "cephadm-%s.yaml", lead->name);
  if (f == NULL)
    return;
  for (size_t i = first; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_CEPH_OSD && same_group(lead, &plan->instances[i]))
      fprintf(f, "# %s (role %s): /dev/%s, CPUs %s, NUMA node(s) %s\n", plan->instances[i].name, lead->role,
              plan->instances[i].device, export_cpus(w, lead->cpus), export_cpus(w, lead->mems));
  fputs("# ceph orch apply -i FILE, for the hosts labelled placer-", f);
  export_comment_text(f, plan->profile_name, PLACER_EXPORT_YAML);
  fputs(" (ceph orch host label add HOST placer-", f);
  export_comment_text(f, plan->profile_name, PLACER_EXPORT_YAML);
  fputs("): cephadm runs these OSDs' containers in this cpuset (--cpuset-cpus, --cpuset-mems), which classic "
        "OSDs have no option for.\n",
        f);
  char service[128];
  snprintf(service, sizeof(service), "placer-%s", lead->name);
  for (char *c = service; *c; c++)
    *c = *c == '.' ? '-' : *c;
  fprintf(f, "service_type: osd\nservice_id: %s\nplacement:\n  label: placer-%s\nspec:\n  data_devices:\n", service,
          plan->profile_name);
  fputs("    paths:\n", f);
  for (size_t i = first; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_CEPH_OSD && same_group(lead, &plan->instances[i]))
      fprintf(f, "      - /dev/%s\n", plan->instances[i].device);
  fprintf(f, "extra_container_args:\n  - \"--cpuset-cpus=%s\"\n  - \"--cpuset-mems=%s\"\n", export_cpus(w, lead->cpus),
          export_cpus(w, lead->mems));
}

static void write_specs(struct placer_export_writer *w) {
  const struct placer_plan *plan = w->in->plan;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_CEPH_OSD || !inst->pinned)
      continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = plan->instances[j].kind == PLACER_KIND_CEPH_OSD && same_group(&plan->instances[j], inst);
    if (seen)
      continue;
    if (!export_target_at_least(w, "17"))
      export_note(w, "%s: no cephadm spec: extra_container_args needs cephadm of Ceph 17 or later", inst->name);
    else if (inst->device == NULL)
      export_note(w,
                  "%s: no cephadm spec: the plan names no device of it (a spec picks an OSD by its device; "
                  "per_device roles have one)",
                  inst->name);
    else
      write_spec(w, i);
  }
}

static int write_ceph(const struct placer_export_input *in, struct placer_export_writer *w, struct placer_error **err) {
  if (check_ids(in, err) < 0 || check_crimson(in, w, err) < 0)
    return -1;
  FILE *f = export_unit(w, "ceph-config.sh");
  if (f == NULL)
    return 0;
  write_script(w, f);
  write_specs(w);
  return 0;
}

const struct placer_export_format placer_export_ceph = {
  .name = "ceph",
  .summary = "ceph config set per OSD and MDS (NUMA affinity, memory targets, Crimson's CPU sets), each option "
             "checked first; a cephadm spec per OSD group with its cpuset",
  .syntax = PLACER_EXPORT_SCRIPT,
  .needs = PLACER_EXPORT_NEEDS_CEPH,
  .consumer = "Ceph",
  .targets = ceph_targets,
  .write = write_ceph,
};
