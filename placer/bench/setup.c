/* Everything placer bench checks and prepares before it runs anything:
 * every variant's profile and plan, the workload matrix and the conditions,
 * the tools, a guest for VM neighbours, the results directory and its files;
 * and the --dry-run description of a study. */
#include "bench/internal.h"
#include "results/design.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/neighbour.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/array.h"
#include "apply/apply.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "topology/topology.h"

static int mkdir_p(const char *path, struct placer_error **err) {
  cleanup_free char *p = strdup(path);
  if (p == NULL)
    return placer_error_oom(err, "bench setup");
  for (char *s = p + 1;; s++) {
    char *slash = strchr(s, '/');
    if (slash)
      *slash = '\0';
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir '%s'", p);
    if (slash == NULL)
      break;
    *slash = '/';
    s = slash;
  }
  return 0;
}

static bool has_blank(const char *s) {
  return s && strpbrk(s, " \t\n") != NULL;
}

static bool in_path(const char *prog) {
  const char *path = getenv("PATH");
  if (path == NULL)
    path = "/usr/local/bin:/usr/bin:/bin";
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return false;
  for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
    cleanup_free char *p = bench_path_join(dir, prog);
    if (p && access(p, X_OK) == 0)
      return true;
  }
  return false;
}

static int check_tools(const struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const char *need[8];
  size_t n = 0;
  need[n++] = "fio";
  for (size_t i = 0; i < s->n_neighbours; i++) {
    const struct bench_neighbour_ops *ops = bench_neighbour(s->neighbours[i].kind, s->neighbours[i].backend);
    if (ops)
      need[n++] = ops->program;
    if (n >= 6)
      break;
  }
  const char *target_needs = s->workloads.target->program;
  if (s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && target_needs)
    need[n++] = target_needs;
  for (size_t i = 0; i < n; i++)
    if (!in_path(need[i]))
      return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT, "'%s' is not installed (run ci/install-deps.sh)",
                              need[i]);
  if (s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL) {
    cleanup_free char *script = placer_bench_cluster_script();
    if (script == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                              "libexec/ceph-cluster.sh not found (set PLACER_CEPH_CLUSTER_SCRIPT)");
    if (!in_path("ceph-osd") || !in_path("ceph-mon"))
      return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                              "Ceph is not installed (ceph-mon, ceph-osd: run ci/install-deps.sh)");
  }
  return 0;
}

static int push_set(char ***sets, const char *role, const char *key, const char *value) {
  char *a = NULL;
  if (asprintf(&a, "%s.%s=%s", role, key, value) < 0)
    return -1;
  int rc = placer_argv_push(sets, a);
  free(a);
  return rc;
}

/* The variant's sets as "ROLE.KEY=VALUE": "@CLASS.KEY=VALUE" for every role
 * of the class; "@storage.cpu.cores=N" is the split: Ceph and the storage
 * roles in pool "storage" with N cores, every other role in pool "clients"
 * with the node's other cores. */
static int resolve_sets(const struct bench *b, struct variant *v, const struct placer_topology *topo,
                        struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct placer_profile *prof = v->profile;
  for (size_t i = 0; i < v->spec->sets.n; i++) {
    const char *a = v->spec->sets.items[i];
    if (a[0] != '@') {
      if (placer_argv_push(&v->sets, a) < 0)
        return placer_error_oom(err, "bench setup");
      continue;
    }
    const char *dot = strchr(a, '.'), *eq = strchr(a, '=');
    if (dot == NULL || eq == NULL || eq < dot)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "variant '%s': set '%s': expected @CLASS.KEY=VALUE",
                              v->spec->name, a);
    char cls[32], key[32];
    snprintf(cls, sizeof(cls), "%.*s", (int)(dot - a - 1), a + 1);
    snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
    const char *value = eq + 1;
    bool split = strcmp(cls, "storage") == 0 && strcmp(key, "cpu.cores") == 0;
    unsigned total = (unsigned)topo->n_cores, n = (unsigned)atoi(value);
    if (split && !prof->pin)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "variant '%s': a cores sweep pins: profile '%s' has pin: false", v->spec->name,
                              prof->name);
    if (split && n + prof->reserve.cores >= total) {
      /* the step's value in the study file: sweep.values[i] */
      const struct placer_study_variant *first = &s->variants[s->n_variants - s->sweep.n_steps];
      size_t step = (size_t)(v->spec - first);
      if (v->spec->knob_line)
        return placer_error_set(err, PLACER_EXIT_INFEASIBLE, 0,
                                "%s:%u:%u: sweep.values[%zu]: cores %u: the node has %u cores (reserve %u) and the "
                                "neighbours need at least one: at most %d",
                                s->path, v->spec->knob_line, v->spec->knob_column, step, n, total, prof->reserve.cores,
                                (int)total - (int)prof->reserve.cores - 1);
      return placer_error_set(err, PLACER_EXIT_INFEASIBLE, 0,
                              "variant '%s': %u storage cores leave none of the node's %u (reserve %u) to the "
                              "neighbours",
                              v->spec->name, n, total, prof->reserve.cores);
    }
    size_t hits = 0;
    for (size_t r = 0; r < prof->n_roles; r++) {
      const struct placer_role_spec *role = &prof->roles[r];
      int rc = 0;
      if (split) {
        bool st = bench_role_in_class(s, role, "storage") || placer_role_kind_is_ceph(role->kind);
        char rest[16];
        snprintf(rest, sizeof(rest), "%u", total - prof->reserve.cores - n);
        rc = push_set(&v->sets, role->name, "cpu.cores", st ? value : rest) |
             push_set(&v->sets, role->name, "cpu.pool", st ? "storage" : "clients");
        hits += st;
      } else if (bench_role_in_class(s, role, cls)) {
        rc = push_set(&v->sets, role->name, key, value);
        hits++;
      }
      if (rc != 0)
        return placer_error_oom(err, "bench setup");
    }
    if (hits == 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "variant '%s': profile '%s' has no %s role for '%s' (name them in sweep.roles)",
                              v->spec->name, prof->name, cls, a);
  }
  for (size_t i = 0; v->sets && v->sets[i]; i++)
    if (placer_profile_set(v->profile, v->sets[i], err) < 0)
      return placer_error_prefix(err, "variant '%s'", v->spec->name);
  return 0;
}

static bool is_neighbour_role(const struct bench *b, const char *role) {
  for (size_t i = 0; i < b->study->n_neighbours; i++)
    if (strcmp(b->study->neighbours[i].role, role) == 0)
      return true;
  return false;
}

/* V places the neighbours exactly as variant 0 does (a quota or weight
 * sweep of storage): their solo rate, measured with storage idle, is
 * variant 0's, taken over in each pass (run.c), not measured again. */
static bool solo_of_first(const struct bench *b, const struct variant *v) {
  const struct placer_plan *a = b->vars[0].plan, *p = v->plan;
  for (size_t i = 0; i < p->n_instances; i++) {
    const struct placer_instance *x = &p->instances[i];
    if (!is_neighbour_role(b, x->role))
      continue;
    const struct placer_instance *y = placer_plan_find(a, x->name);
    if (y == NULL || !hwloc_bitmap_isequal(x->cpus, y->cpus) || !hwloc_bitmap_isequal(x->mems, y->mems) ||
        x->cpu_weight != y->cpu_weight || x->cpu_quota != y->cpu_quota || x->memory_bytes != y->memory_bytes)
      return false;
  }
  return true;
}

static int load_variants(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  struct placer_topology *topo = NULL;
  if (placer_topology_load(b->topology_xml, &topo, err) < 0)
    return -1;
  b->vars = calloc(s->n_variants, sizeof(*b->vars));
  if (b->vars == NULL) {
    placer_topology_free(topo);
    return placer_error_oom(err, "bench setup");
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < s->n_variants; i++) {
    struct variant *v = &b->vars[i];
    v->spec = &s->variants[i];
    b->n_vars = i + 1;
    char *rel = NULL;
    if (placer_study_profile_path(s, v->spec, &rel, err) < 0) {
      rc = -1;
      break;
    }
    v->profile_path = realpath(rel, NULL);
    if (v->profile_path == NULL) {
      rc = placer_error_errno(err, PLACER_EXIT_USAGE, errno, "variant '%s': profile '%s'", v->spec->name, rel);
      free(rel);
      break;
    }
    free(rel);
    if (has_blank(v->profile_path)) {
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "variant '%s': the profile's path '%s' has a blank",
                            v->spec->name, v->profile_path);
      break;
    }
    if (placer_profile_load(v->profile_path, &v->profile, err) < 0) {
      rc = placer_error_prefix(err, "variant '%s'", v->spec->name);
      break;
    }
    if (resolve_sets(b, v, topo, err) < 0) { /* its errors name the variant, or the step's place in the study */
      rc = -1;
      break;
    }
    if (placer_plan_compute(topo, v->profile, &v->plan, err) < 0) {
      rc = placer_error_prefix(err, "variant '%s'", v->spec->name);
      break;
    }
    for (size_t k = 0; k < v->plan->n_instances && v->fio == NULL; k++)
      if (v->plan->instances[k].kind == PLACER_KIND_FIO)
        v->fio = &v->plan->instances[k];
    if (v->fio == NULL) {
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "variant '%s': profile '%s' has no role of kind fio (fio runs in its group)", v->spec->name,
                            v->profile->name);
      break;
    }
    if (placer_instance_group(b->prefix, v->fio->role, v->fio->name, &v->fio_group, err) < 0) {
      rc = -1;
      break;
    }
    v->fio_cpus = placer_cpulist_format(v->fio->cpus);
    v->fio_mems = placer_cpulist_format(v->fio->mems);
    if (v->fio_cpus == NULL || v->fio_mems == NULL) {
      rc = placer_error_oom(err, "bench setup");
      break;
    }
    for (size_t k = 0; k < s->n_neighbours; k++) {
      const struct placer_role_spec *role = placer_profile_role(v->profile, s->neighbours[k].role);
      if (role == NULL) {
        rc = placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "variant '%s': profile '%s' has no role '%s' for neighbour '%s' (the neighbour runs in "
                              "that role's instances)",
                              v->spec->name, v->profile->name, s->neighbours[k].role, s->neighbours[k].name);
        break;
      }
    }
    if (rc == 0 && s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL) {
      char **names = NULL;
      rc = placer_bench_local_daemons(s, v->plan, v->spec->name, &names, err);
      if (rc == 0 && s->recovery.enabled) {
        char want[32];
        snprintf(want, sizeof(want), "osd.%u", s->recovery.osd);
        size_t n_osds = 0;
        bool found = false;
        for (size_t k = 0; names[k]; k++) {
          n_osds += strncmp(names[k], "osd.", 4) == 0;
          found |= strcmp(names[k], want) == 0;
        }
        if (!found)
          rc = placer_error_set(err, PLACER_EXIT_USAGE, 0,
                                "recovery: %s is not one of the cluster's OSDs (%zu: osd.0..)", want, n_osds);
        else if (n_osds < 2)
          rc =
              placer_error_set(err, PLACER_EXIT_USAGE, 0,
                               "recovery: the cluster has one OSD; a second must keep the data while %s is down", want);
      }
      placer_argv_free(names);
    }
  }
  placer_topology_free(topo);
  for (size_t i = 1; rc == 0 && i < b->n_vars; i++)
    b->vars[i].solo_of_first = solo_of_first(b, &b->vars[i]);
  return rc;
}

static void variants_free(struct bench *b) {
  for (size_t i = 0; i < b->n_vars; i++) {
    struct variant *v = &b->vars[i];
    free(v->profile_path);
    placer_argv_free(v->sets);
    free(v->fio_group);
    free(v->fio_cpus);
    free(v->fio_mems);
    placer_plan_free(v->plan);
    placer_profile_free(v->profile);
  }
  free(b->vars);
  b->vars = NULL;
  b->n_vars = 0;
}

static size_t neighbour_instances(const struct bench *b, const struct variant *v) {
  size_t n = 0;
  for (size_t k = 0; k < b->study->n_neighbours; k++)
    for (size_t i = 0; i < v->plan->n_instances; i++)
      n += strcmp(v->plan->instances[i].role, b->study->neighbours[k].role) == 0;
  return n;
}

static int make_matrix(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  size_t n = placer_study_n_workloads(s);
  if ((b->wls = calloc(n + 1, sizeof(*b->wls))) == NULL)
    return placer_error_oom(err, "bench setup");
  for (; b->n_workloads < n; b->n_workloads++)
    if (placer_study_workload(s, b->n_workloads, &b->wls[b->n_workloads], err) < 0)
      return -1;
  bool by_intensity = s->sweep.enabled && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY;
  size_t steps = s->n_neighbours == 0 ? 0 : by_intensity ? s->sweep.n_values : 1;
  b->conds = calloc(steps + 1, sizeof(*b->conds));
  if (b->conds == NULL)
    return placer_error_oom(err, "bench setup");
  b->n_conds = steps + 1;
  if ((b->conds[0].name = strdup("alone")) == NULL)
    return placer_error_oom(err, "bench setup");
  const char *who = s->n_neighbours == 1 ? s->neighbours[0].name : "neighbours";
  /* The level is the total intensity of one variant's neighbours (every
   * variant places the same number, or the level would mean two things). */
  size_t per = b->n_vars ? neighbour_instances(b, &b->vars[0]) : 1;
  for (size_t i = 0; i < b->n_vars; i++)
    if (neighbour_instances(b, &b->vars[i]) != per)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "variants '%s' and '%s' run different numbers of neighbour instances (%zu and %zu)",
                              b->vars[0].spec->name, b->vars[i].spec->name, per, neighbour_instances(b, &b->vars[i]));
  if (steps > 0 && per == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "the profiles give the neighbours' role no instance");
  for (size_t i = 0; i < steps; i++) {
    struct condition *c = &b->conds[i + 1];
    c->intensity = by_intensity ? s->sweep.values[i] : s->neighbours[0].intensity;
    c->level = 0;
    for (size_t k = 0; k < s->n_neighbours; k++)
      c->level += (double)(by_intensity ? c->intensity : s->neighbours[k].intensity);
    c->level *= (double)per / (double)s->n_neighbours;
    int r = by_intensity ? asprintf(&c->name, "%s-%u", who, c->intensity) : ((c->name = strdup(who)) ? 0 : -1);
    if (r < 0 || c->name == NULL)
      return placer_error_oom(err, "bench setup");
  }
  return 0;
}

static int make_results(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const char **vnames = calloc(b->n_vars, sizeof(char *));
  double *knobs = calloc(b->n_vars ? b->n_vars : 1, sizeof(*knobs));
  double *storage_cpus = calloc(b->n_vars ? b->n_vars : 1, sizeof(*storage_cpus));
  struct placer_bench_condition *conds = calloc(b->n_conds, sizeof(*conds));
  int rc = 0;
  if (vnames == NULL || conds == NULL || knobs == NULL || storage_cpus == NULL) {
    rc = placer_error_oom(err, "bench setup");
    goto out;
  }
  for (size_t i = 0; i < b->n_vars; i++) {
    vnames[i] = b->vars[i].spec->name;
    knobs[i] = b->vars[i].spec->knob;
  }
  for (size_t i = 0; i < b->n_conds; i++)
    conds[i] = (struct placer_bench_condition){ b->conds[i].name, b->conds[i].level };
  /* Whose CPU per client I/O: the role of the daemons whose work the
   * workload is (the OSDs, the MDS), else (no Ceph) fio's. */
  const char *storage_role = b->vars[0].fio->role;
  for (size_t i = 0; i < b->vars[0].plan->n_instances; i++)
    if (s->cluster.type != PLACER_STUDY_CLUSTER_NONE &&
        b->vars[0].plan->instances[i].kind == s->workloads.kind->storage) {
      storage_role = b->vars[0].plan->instances[i].role;
      break;
    }
  char title[256], who[128] = "";
  if (s->title)
    snprintf(title, sizeof(title), "%s", s->title);
  else if (b->n_vars >= 2)
    snprintf(title, sizeof(title), "%s vs %s, cluster %s, fio %s iodepth %u", b->vars[1].spec->name,
             b->vars[0].spec->name, placer_study_cluster_name(s->cluster.type), s->workloads.target->name,
             s->workloads.iodepth);
  else
    snprintf(title, sizeof(title), "%s, cluster %s, fio %s iodepth %u", b->vars[0].spec->name,
             placer_study_cluster_name(s->cluster.type), s->workloads.target->name, s->workloads.iodepth);
  for (size_t i = 0; i < s->n_neighbours; i++) {
    size_t len = strlen(who);
    snprintf(who + len, sizeof(who) - len, "%s%s", i ? "+" : "", s->neighbours[i].name);
  }
  /* every neighbour is of one kind (study.c): the first says what intensity counts */
  const struct bench_neighbour_ops *first =
      s->n_neighbours ? bench_neighbour(s->neighbours[0].kind, s->neighbours[0].backend) : NULL;
  char level_unit[64];
  snprintf(level_unit, sizeof(level_unit), "%s", first ? first->unit : bench_neighbour_stress_ng.unit);
  if (first && s->neighbours[0].load_percent && s->neighbours[0].load_percent < 100) /* stress-ng --cpu-load */
    snprintf(level_unit, sizeof(level_unit), "%s at %u%% load", first->unit, s->neighbours[0].load_percent);
  /* the judged workload: sweep.workload, or the last step (the most load) of
   * the curve it names */
  size_t sweep_wl = 0;
  for (size_t i = 0; s->sweep.workload && i < b->n_workloads; i++)
    if (strcmp(b->wls[i].name, s->sweep.workload) == 0 ||
        (b->wls[i].curve && strcmp(b->wls[i].curve, s->sweep.workload) == 0))
      sweep_wl = i;
  for (size_t i = 0; i < b->n_vars; i++)
    storage_cpus[i] = bench_storage_cpus(b, &b->vars[i]);
  struct placer_bench_spec spec = {
    .title = title,
    .storage_role = storage_role,
    .neighbour_name = s->n_neighbours ? who : "the neighbours",
    .neighbour_unit = first ? first->rate_unit : bench_neighbour_stress_ng.rate_unit,
    .level_unit = level_unit,
    .neighbour_role = s->n_neighbours ? s->neighbours[0].role : NULL,
    .variants = vnames,
    .n_variants = b->n_vars,
    .workloads = b->wls,
    .n_workloads = b->n_workloads,
    .conditions = conds,
    .n_conditions = b->n_conds,
    .repeats = s->repeats_max,
    .split_parameter = placer_study_sweeps_placement(s) ? placer_study_sweep_parameter_name(s->sweep.parameter) : NULL,
    .knobs = knobs,
    .split_from = placer_study_sweeps_placement(s) ? s->variants[s->sweep.from_index].name : NULL,
    .alpha = s->alpha,
    .node_cpus = (double)b->vars[0].plan->topo_pus,
    .sweep = s->sweep.enabled && !placer_study_sweeps_placement(s),
    .sweep_workload = sweep_wl,
    .storage_min_fraction = s->sweep.storage_min_fraction,
    .neighbour_min_fraction = s->sweep.neighbour_min_fraction,
    .slo = &s->slo,
    .storage_cpus = storage_cpus,
  };
  char recovery_daemon[32];
  if (s->recovery.enabled) {
    snprintf(recovery_daemon, sizeof(recovery_daemon), "osd.%u", s->recovery.osd);
    spec.recovery_action = placer_study_recovery_action_name(s->recovery.action);
    spec.recovery_daemon = recovery_daemon;
    spec.recovery_workload = s->recovery.workload ? s->recovery.workload : b->wls[0].name;
    spec.recovery_at_s = s->recovery.at_s;
    spec.recovery_down_s = s->recovery.down_s;
  }
  rc = placer_bench_results_new(&spec, &b->results, err);
  if (rc == 0) /* until the study has run to its end: a killed placer leaves it so */
    b->results->interrupted = true;
out:
  free(vnames);
  free(knobs);
  free(storage_cpus);
  free(conds);
  return rc;
}

/* A guest kernel and initramfs for VM neighbours: the study's, the
 * environment's, else built (and cached) by libexec/vm/build-initramfs.sh. */
static int find_guest(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct placer_study_neighbour *vm = NULL;
  for (size_t i = 0; i < s->n_neighbours && vm == NULL; i++) {
    const struct bench_neighbour_ops *ops = bench_neighbour(s->neighbours[i].kind, s->neighbours[i].backend);
    if (ops && (ops->flags & BENCH_NEIGHBOUR_GUEST))
      vm = &s->neighbours[i];
  }
  if (vm == NULL)
    return 0;
  const char *k = vm->kernel ? vm->kernel : getenv("PLACER_VM_KERNEL");
  const char *i = vm->initrd ? vm->initrd : getenv("PLACER_VM_INITRD");
  if (k && i && *k && *i) {
    b->vm_kernel = strdup(k);
    b->vm_initrd = strdup(i);
    return b->vm_kernel && b->vm_initrd ? 0 : placer_error_oom(err, "bench setup");
  }
  cleanup_free char *script = placer_bench_vm_build_script();
  if (script == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "no guest for the VM neighbours: set PLACER_VM_KERNEL and PLACER_VM_INITRD, or give "
                            "kernel and initrd in the study");
  const char *cache = getenv("PLACER_CACHE_DIR");
  cleanup_free char *dir = NULL;
  if (asprintf(&dir, "%s/vm", cache && *cache ? cache : "/var/cache/placer") < 0)
    dir = NULL;
  cleanup_free char *log = bench_path_join(b->out, "logs/vm-build.log");
  if (dir == NULL || log == NULL)
    return placer_error_oom(err, "bench setup");
  char *argv[] = { "sh", script, dir, NULL };
  bench_progress(b, "building the guest kernel and initramfs (%s)", dir);
  if (placer_bench_run_command(argv, NULL, log, 600, true, err) < 0)
    return placer_error_prefix(err, "build the guest for the VM neighbours");
  cleanup_free char *text = NULL;
  if (placer_textfile_read(log, &text, err) < 0)
    return -1;
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (strncmp(line, "PLACER_VM_KERNEL=", 17) == 0) {
      free(b->vm_kernel);
      b->vm_kernel = strdup(line + 17);
    } else if (strncmp(line, "PLACER_VM_INITRD=", 17) == 0) {
      free(b->vm_initrd);
      b->vm_initrd = strdup(line + 17);
    }
    line = nl ? nl + 1 : NULL;
  }
  if (b->vm_kernel == NULL || b->vm_initrd == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s printed no PLACER_VM_KERNEL/PLACER_VM_INITRD; see %s",
                            script, log);
  return 0;
}

/* The prefix group must be ours to create and remove: refuse one that holds
 * processes (another bench?), remove an empty leftover. */
static int check_prefix(struct bench *b, struct placer_error **err) {
  if (!placer_cgroup_exists(b->cg, b->prefix))
    return 0;
  struct placer_error *e = NULL;
  if (b->opt->resume) {
    /* What a killed placer bench left running (daemons, fio, neighbours in
     * its groups) goes before the study goes on. */
    size_t n_live = 0;
    for (int i = 0; i < 100; i++) {
      if (placer_cgroup_signal_subtree(b->cg, b->prefix, SIGKILL, &n_live, &e) < 0) {
        placer_error_free(e);
        e = NULL;
        break;
      }
      if (n_live == 0)
        break;
      if (i == 0)
        bench_warn(b, "--resume: killing %zu processes left in cgroup '%s' by the run that stopped", n_live, b->prefix);
      placer_bench_sleep_ms(100);
    }
  }
  if (placer_launch_remove_group(b->cg, b->prefix, false, &e) < 0) {
    int rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY,
                              "cgroup '%s' exists and holds processes (another placer bench?): %s; stop them or give "
                              "--prefix",
                              b->prefix, e->msg);
    placer_error_free(e);
    return rc;
  }
  return 0;
}

static int open_csv(struct bench *b, const char *name, const char *header, FILE **out, struct placer_error **err) {
  /* --resume: the rows so far stay, new ones follow */
  bool append = false;
  if (b->opt->resume) {
    cleanup_free char *p = bench_path_join(b->out, name);
    append = p && access(p, F_OK) == 0;
  }
  cleanup_free char *path = bench_path_join(b->out, name);
  if (path == NULL)
    return placer_error_oom(err, "bench setup");
  /* O_CLOEXEC: fio, stress-ng and the Ceph daemons must not hold them open. */
  FILE *f = bench_file_open(path, append, err);
  if (f == NULL)
    return -1;
  /* A run's rows are flushed together (bench_csv_flush): a buffer that
   * fills on the way would write part of them. */
  setvbuf(f, NULL, _IOFBF, 256 * 1024);
  /* Rows a stopped study wrote after its last summary.json (a run it did
   * not record, a row cut by a full disk) go: they are written again. */
  json_t *committed = append ? json_object_get(b->resume_csv_bytes, name) : NULL;
  struct stat st;
  if (json_is_integer(committed) && fstat(fileno(f), &st) == 0 && st.st_size > json_integer_value(committed) &&
      json_integer_value(committed) > 0 && ftruncate(fileno(f), (off_t)json_integer_value(committed)) < 0) {
    int e = errno;
    fclose(f);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "--resume: cut '%s' to the rows summary.json holds", path);
  }
  if (!append)
    fprintf(f, "%s\n", header);
  if (fflush(f) != 0 || fstat(fileno(f), &st) < 0) {
    int e = errno;
    fclose(f);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "write '%s'", path);
  }
  *out = f;
  for (size_t i = 0; i < BENCH_N_CSV; i++) {
    const char *slot_name;
    if (bench_csv_file(b, i, &slot_name) == out)
      b->csv_committed[i] = st.st_size;
  }
  return 0;
}

int bench_setup(struct bench *b, struct placer_error **err) {
  const struct placer_bench_options *opt = b->opt;
  if (opt->topology_xml && (b->topology_xml = realpath(opt->topology_xml, NULL)) == NULL)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "topology '%s'", opt->topology_xml);
  if (has_blank(b->topology_xml))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "the topology's path '%s' has a blank", b->topology_xml);
  b->exe = realpath("/proc/self/exe", NULL);
  if (b->exe == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "readlink /proc/self/exe");
  if (has_blank(b->exe) && b->study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "placer's path '%s' has a blank (the launcher prefix of the "
                            "cluster script is split on blanks)",
                            b->exe);
  if (load_variants(b, err) < 0 || make_matrix(b, err) < 0 || check_tools(b, err) < 0 || bench_irqs_check(b, err) < 0)
    return -1;
  /* The results directory: new or empty; or (--resume) one whose study is
   * this one, checked before anything is written there; then what the study
   * would write outside Ceph, before anything is made. */
  struct stat st;
  if (opt->resume) {
    if (stat(opt->out_dir, &st) < 0 || !S_ISDIR(st.st_mode))
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno ? errno : ENOTDIR, "--resume '%s'", opt->out_dir);
    if ((b->out = realpath(opt->out_dir, NULL)) == NULL)
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "--resume '%s'", opt->out_dir);
    if (make_results(b, err) < 0 || bench_resume_results(b, err) < 0)
      return -1;
  }
  if (bench_files_check(b, opt->out_dir, opt->resume, err) < 0)
    return -1;
  if (!opt->resume) {
    if (stat(opt->out_dir, &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return placer_error_set(err, PLACER_EXIT_USAGE, ENOTDIR, "--out '%s' is not a directory", opt->out_dir);
      if (rmdir(opt->out_dir) < 0 && errno != ENOENT)
        return placer_error_set(err, PLACER_EXIT_USAGE, EEXIST, "--out '%s' exists and is not empty", opt->out_dir);
    }
    if (mkdir_p(opt->out_dir, err) < 0)
      return -1;
    if ((b->out = realpath(opt->out_dir, NULL)) == NULL)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "results directory '%s'", opt->out_dir);
  }
  if (has_blank(b->out) && b->study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "the results directory '%s' has a blank", b->out);
  const char *subdirs[] = { "fio", "logs", "plans" };
  for (size_t i = 0; i < 3; i++) {
    cleanup_free char *d = bench_path_join(b->out, subdirs[i]);
    if (d == NULL)
      return placer_error_oom(err, "bench setup");
    if (mkdir(d, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir '%s'", d);
    if (lstat(d, &st) < 0 || !S_ISDIR(st.st_mode)) /* its files are written one by one: not through a link */
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOTDIR, "'%s' is not a directory placer made", d);
  }
  if (b->study->generated && !opt->resume) { /* --resume reads it again: the same study */
    if ((b->study_file = bench_path_join(b->out, "study.yaml")) == NULL)
      return placer_error_oom(err, "bench setup");
    FILE *f = fopen(b->study_file, "wex");
    if (f == NULL)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "create '%s'", b->study_file);
    fputs(b->study->generated, f);
    if ((ferror(f) | fclose(f)) != 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno ? errno : EIO, "write '%s'", b->study_file);
  }
  if (bench_files_place(b, err) < 0)
    return -1;
  for (size_t i = 0; i < b->n_vars; i++) {
    cleanup_free char *path = NULL;
    if (asprintf(&path, "%s/plans/%s.txt", b->out, b->vars[i].spec->name) < 0)
      return placer_error_oom(err, "bench setup");
    FILE *f = bench_file_open(path, false, err);
    if (f == NULL)
      return -1;
    placer_plan_print_text(b->vars[i].plan, f);
    if (fclose(f) != 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write '%s'", path);
  }
  if (!opt->resume && make_results(b, err) < 0)
    return -1;
  b->resumed = opt->resume;
  static const char *const keys = "variant,repeat,condition,workload";
  char header[512];
  struct {
    const char *name, *cols;
    FILE **f;
  } csvs[] = {
    { "runs.csv",
      "neighbour_level,duration_s,read_iops,write_iops,read_bw_bytes,write_bw_bytes,read_clat_p50_ns,"
      "read_clat_p99_ns,read_clat_p999_ns,write_clat_p50_ns,write_clat_p99_ns,write_clat_p999_ns,neighbour_rate,"
      "device_bytes_written,fio_json",
      &b->runs_csv },
    { "roles.csv", "instance,role,cpu_ns,cores,peak_rss_bytes,local_mem_share", &b->roles_csv },
    { "threads.csv", "instance,thread,cpu_ns", &b->threads_csv },
    { "cores.csv", "cpu,busy", &b->cores_csv },
  };
  for (size_t i = 0; i < N_OF(csvs); i++) {
    snprintf(header, sizeof(header), "%s,%s", keys, csvs[i].cols);
    if (open_csv(b, csvs[i].name, header, csvs[i].f, err) < 0)
      return -1;
  }
  if (open_csv(b, "placement.csv", "variant,repeat,instance,role,process,pid,group,cpus_allowed,mems_allowed",
               &b->placement_csv, err) < 0 ||
      open_csv(b, "solo.csv", "variant,condition,repeat,neighbour_level,neighbour_rate,duration_s", &b->solo_csv, err) <
          0)
    return -1;
  if (b->study->recovery.enabled &&
      open_csv(b, "recovery.csv",
               "variant,repeat,action,daemon,detect_s,down_s,recovery_s,total_s,iops_before,iops_during,iops_min,"
               "degraded_peak,instance,role,rss_before_bytes,rss_peak_bytes",
               &b->recovery_csv, err) < 0)
    return -1;
  if (b->study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL &&
      open_csv(b, "ceph-counters.csv", PLACER_CEPH_CSV_HEADER, &b->ceph_csv, err) < 0)
    return -1;
  if (placer_cgroup_open(NULL, &b->cg, err) < 0 || check_prefix(b, err) < 0 || find_guest(b, err) < 0)
    return -1;
  /* What will run, for the progress line (dynamic repeats add passes as they go). */
  b->runs_total = b->study->baseline.enabled ? b->n_workloads : 0;
  for (int repeat = -(int)b->study->warmup; repeat < (int)b->study->repeats; repeat++)
    for (size_t v = 0; v < b->n_vars; v++)
      b->runs_total += bench_pass_runs(b, v, repeat);
  b->passes_total = b->n_vars * (b->study->repeats + b->study->warmup);
  return bench_write_summary(b, err);
}

void bench_free(struct bench *b) {
  FILE *files[] = { b->runs_csv,      b->roles_csv, b->threads_csv,  b->cores_csv,
                    b->placement_csv, b->solo_csv,  b->recovery_csv, b->ceph_csv };
  for (size_t i = 0; i < N_OF(files); i++)
    if (files[i])
      fclose(files[i]);
  variants_free(b);
  bench_files_remove(b);
  for (size_t i = 0; i < b->n_workloads; i++)
    placer_bench_workload_clear(&b->wls[i]);
  free(b->wls);
  for (size_t i = 0; i < b->n_conds; i++)
    free(b->conds[i].name);
  free(b->conds);
  free(b->out);
  free(b->exe);
  free(b->study_file);
  free(b->stopped_by);
  free(b->topology_xml);
  free(b->vm_kernel);
  free(b->vm_initrd);
  json_decref(b->resume_csv_bytes);
  placer_cgroup_close(b->cg);
}

int placer_bench_describe(const struct placer_study *study, const struct placer_bench_options *opt, FILE *out,
                          struct placer_error **err) {
  struct bench b = { .study = study, .opt = opt };
  b.prefix = opt->prefix ? opt->prefix : PLACER_BENCH_DEFAULT_PREFIX;
  int rc = 0;
  if (opt->topology_xml && (b.topology_xml = realpath(opt->topology_xml, NULL)) == NULL)
    rc = placer_error_errno(err, PLACER_EXIT_USAGE, errno, "topology '%s'", opt->topology_xml);
  if (rc == 0)
    rc = load_variants(&b, err);
  if (rc == 0)
    rc = make_matrix(&b, err);
  if (rc == 0)
    rc = bench_irqs_check(&b, err);
  if (rc == 0)
    rc = bench_files_check(&b, opt->out_dir, false, err); /* a new results directory has nothing yet */
  if (rc == 0) {
    fprintf(out,
            "study %s: cluster %s, fio %s, %zu variant(s), %zu workload(s), %zu condition(s), %u repeat(s) + "
            "%u warm-up pass(es)\n",
            study->generated ? "default, sized to the node (placer bench --print-default)" : study->path,
            placer_study_cluster_name(study->cluster.type), study->workloads.target->name, b.n_vars, b.n_workloads,
            b.n_conds, study->repeats, study->warmup);
    for (size_t v = 0; v < b.n_vars; v++) {
      fprintf(out, "variant %s: profile %s\n", b.vars[v].spec->name, b.vars[v].profile_path);
      for (size_t i = 0; b.vars[v].sets && b.vars[v].sets[i]; i++)
        fprintf(out, "  --set %s\n", b.vars[v].sets[i]);
      for (size_t i = 0; i < b.vars[v].plan->n_instances; i++) {
        const struct placer_instance *inst = &b.vars[v].plan->instances[i];
        cleanup_free char *cpus = placer_cpulist_format(inst->cpus);
        cleanup_free char *group = NULL;
        struct placer_error *e = NULL;
        if (placer_instance_group(b.prefix, inst->role, inst->name, &group, &e) < 0)
          placer_error_free(e);
        fprintf(out, "  %-14s cpus %-8s group %s\n", inst->name, inst->pinned && cpus ? cpus : "all",
                group ? group : "?");
      }
      for (size_t i = 0; i < b.vars[v].plan->n_irqs; i++) { /* switched with the variant (irqs.c) */
        const struct placer_plan_irq *q = &b.vars[v].plan->irqs[i];
        fprintf(out, "  irq %-10u %s (%s): %s%s\n", q->irq, q->name, q->device,
                q->managed ? "managed, on cpu " : "cpus ", q->managed ? (q->effective ? q->effective : "?") : q->to);
      }
    }
    unsigned passes = study->warmup + study->repeats;
    for (unsigned k = 0; k < passes; k++)
      for (size_t v = 0; v < b.n_vars; v++) {
        int repeat = (int)k - (int)study->warmup;
        fprintf(out, "pass %s %s%d:", b.vars[v].spec->name, repeat < 0 ? "warm-up " : "repeat ",
                repeat < 0 ? (int)k : repeat);
        if (repeat >= 0 && b.vars[v].solo_of_first && b.n_conds > 1)
          fprintf(out, " (the solo rates of %s)", b.vars[0].spec->name);
        else if (repeat >= 0) /* the neighbours' solo rates: every measured pass (run.c) */
          for (size_t c = 1; c < b.n_conds; c++)
            fprintf(out, " solo:%s", b.conds[c].name);
        for (size_t w = 0; w < b.n_workloads; w++)
          for (size_t c = 0; c < b.n_conds; c++)
            if (repeat >= 0 || c == 0)
              fprintf(out, " %s/%s", b.wls[w].name, b.conds[c].name);
        if (repeat >= 0 && study->recovery.enabled)
          fprintf(out, " recovery:osd.%u-%s", study->recovery.osd,
                  placer_study_recovery_action_name(study->recovery.action));
        fputc('\n', out);
      }
    struct placer_study_estimate est;
    char line[512];
    size_t solo_shared = 0;
    for (size_t v = 1; v < b.n_vars; v++)
      solo_shared += b.vars[v].solo_of_first;
    placer_study_estimate(study, study->repeats, solo_shared, &est);
    placer_study_estimate_describe(study, &est, line, sizeof(line));
    if (est.live)
      fprintf(out, "%s; one cluster (rebuild: never; placement switched %zu times)\n", line, est.passes);
    else
      fprintf(out, "%s; %zu %s\n", line, est.passes,
              study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL ? "cluster builds" : "passes");
    if (study->repeats_max > study->repeats)
      fprintf(out, "dynamic repeats: %u to %u passes, until every change's 95%% CI is narrower than %.1f points\n",
              study->repeats, study->repeats_max, 100 * study->ci_width);
    struct placer_bench_design design;
    placer_bench_design_of(study->repeats, b.n_vars, study->alpha, &design);
    placer_bench_design_describe(&design, line, sizeof(line));
    fprintf(out, "design: %s\n", line);
    if (study->recovery.enabled)
      fprintf(out,
              "recovery runs: %zu, each %u+%u s of %s, osd.%u %s for %u s, then until active+clean (at most %u s): "
              "not in the estimate\n",
              (size_t)study->repeats * b.n_vars, study->workloads.ramp_s, study->recovery.at_s,
              study->recovery.workload ? study->recovery.workload : b.wls[0].name, study->recovery.osd,
              study->recovery.action == PLACER_STUDY_RECOVERY_KILL ? "killed" : "out", study->recovery.down_s,
              study->recovery.timeout_s);
  }
  variants_free(&b);
  free(b.target.path); /* checked only: nothing is made or removed */
  free(b.hw.path);
  for (size_t i = 0; i < b.n_workloads; i++)
    placer_bench_workload_clear(&b.wls[i]);
  free(b.wls);
  for (size_t i = 0; i < b.n_conds; i++)
    free(b.conds[i].name);
  free(b.conds);
  free(b.topology_xml);
  return rc;
}
