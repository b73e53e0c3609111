/* placer size: measured costs -> CPU and memory per OSD -> the planner on
 * the target node -> VMs that fit per NUMA node; TripleO's formula beside. */
#include "size/size.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/stats.h"
#include "lib/text-table.h"
#include "lib/textfile.h"
#include "lib/units.h"

void placer_size_options_default(struct placer_size_options *o) {
  memset(o, 0, sizeof(*o));
  o->vm_vcpus = 2;
  o->vm_memory_bytes = 4ull << 30;
  o->vm_overhead_bytes = 512ull << 20;
  o->osd_memory_target_bytes = 4ull << 30; /* Ceph's default osd_memory_target */
  o->memory_headroom = 0.2;
  o->replicas = 3;          /* Ceph's default pool size */
  o->measured_replicas = 2; /* libexec/ceph-cluster.sh: osd pool default size = 2 */
  o->tripleo_osd_bytes = 5ull << 30;
  o->tripleo_guest_overhead_bytes = 512ull << 20;
  o->tripleo_host_bytes = 4ull << 30;
  o->tripleo_cores_per_osd = 1;
}

void placer_size_result_free(struct placer_size_result *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_workloads; i++) {
    free(r->workloads[i].name);
    free(r->workloads[i].pattern);
    free(r->workloads[i].slo_variant);
    free(r->workloads[i].slo_condition);
  }
  free(r->workloads);
  free(r->nodes);
  free(r->topology_source);
  free(r->profile_name);
  free(r->storage_role);
  placer_plan_free(r->plan);
  free(r);
}

/* ---- figures from results ---- */

struct samples {
  double *v;
  size_t n, cap;
};

static int push(struct samples *s, double x) {
  if (!isfinite(x))
    return 0;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    double *bigger = realloc(s->v, cap * sizeof(*bigger));
    if (bigger == NULL)
      return -1;
    s->v = bigger;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  return 0;
}

static double median(const struct samples *s) {
  struct placer_stats_summary sum;
  placer_stats_summarize(s->v, s->n, &sum);
  return sum.median;
}

/* The share of a run's I/Os that were writes (its "write" operation's). */
static double write_share(const struct placer_bench_run *run) {
  uint64_t total = placer_bench_result_total_ios(run->ops, run->n_ops);
  const struct placer_bench_op *wr = placer_bench_run_op(run, "write");
  return total ? (double)(wr ? wr->total_ios : 0) / (double)total : NAN;
}

/* Every operation's rate together: what the OSDs served, whatever was judged. */
static double all_iops(const struct placer_bench_run *run) {
  double sum = 0;
  for (size_t i = 0; i < run->n_ops; i++)
    sum += run->ops[i].iops;
  return sum;
}

/* One workload's figures over every results set (matched by name). */
static int workload_figures(struct placer_bench_results *const *results, size_t n_results,
                            const struct placer_bench_workload *w, struct placer_size_workload *out, double *peak_rss,
                            double *write_frac) {
  struct samples ms = { 0 }, iops = { 0 }, cores = { 0 }, wf = { 0 };
  int rc = -1;
  for (size_t k = 0; k < n_results; k++) {
    const struct placer_bench_results *r = results[k];
    int wi = placer_bench_results_workload_index(r, w->name);
    int alone = placer_bench_alone_condition(r);
    if (wi < 0 || alone < 0)
      continue;
    for (size_t v = 0; v < r->n_variants; v++)
      for (size_t rep = 0; rep < r->repeats; rep++) {
        const struct placer_bench_run *run = placer_bench_results_run_const(r, v, (size_t)alone, (size_t)wi, rep);
        if (run == NULL || !run->done)
          continue;
        double m = placer_bench_run_role_cpu_ms_per_io(run, r->storage_role);
        if (!isfinite(m) || m <= 0)
          continue;
        if (push(&ms, m) < 0 || push(&iops, all_iops(run)) < 0 ||
            push(&cores, placer_bench_run_role_cores(run, r->storage_role)) < 0 || push(&wf, write_share(run)) < 0)
          goto out;
        double rss = placer_bench_run_role_peak_rss(run, r->storage_role);
        if (isfinite(rss) && (!isfinite(*peak_rss) || rss > *peak_rss))
          *peak_rss = rss;
      }
  }
  out->n_runs = ms.n;
  out->cpu_ms_per_io = ms.n ? median(&ms) : NAN;
  out->measured_iops = iops.n ? median(&iops) : NAN;
  out->measured_cores = cores.n ? median(&cores) : NAN;
  *write_frac = wf.n ? median(&wf) : NAN;
  rc = 0;
out:
  free(ms.v);
  free(iops.v);
  free(cores.v);
  free(wf.v);
  return rc;
}

static unsigned measured_instances(struct placer_bench_results *const *results, size_t n_results) {
  unsigned best = 0;
  for (size_t k = 0; k < n_results; k++) {
    const struct placer_bench_results *r = results[k];
    size_t total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
    for (size_t i = 0; i < total; i++) {
      unsigned n = 0;
      for (size_t j = 0; r->runs[i].done && j < r->runs[i].n_roles; j++)
        n += strcmp(r->runs[i].roles[j].role, r->storage_role) == 0;
      if (n > best)
        best = n;
    }
  }
  return best;
}

static int collect(struct placer_bench_results *const *results, size_t n_results, const struct placer_size_options *opt,
                   struct placer_size_result *res, struct placer_error **err) {
  res->measured_peak_rss = NAN;
  if (n_results == 0) {
    res->workloads = calloc(1, sizeof(*res->workloads));
    if (res->workloads == NULL || (res->workloads[0].name = strdup("given")) == NULL ||
        (res->workloads[0].pattern = strdup("given")) == NULL || (res->storage_role = strdup("osd")) == NULL)
      return placer_error_oom(err, "size");
    res->n_workloads = 1;
    res->workloads[0].cpu_ms_per_io = opt->given_cpu_ms_per_io;
    res->workloads[0].cpu_ms_per_io_target = opt->given_cpu_ms_per_io;
    res->workloads[0].measured_iops = NAN;
    res->workloads[0].measured_cores = NAN;
    if (opt->given_rss_bytes)
      res->measured_peak_rss = (double)opt->given_rss_bytes;
    return 0;
  }
  if ((res->storage_role = strdup(results[0]->storage_role)) == NULL)
    return placer_error_oom(err, "size");
  res->measured_osds = measured_instances(results, n_results);
  /* the workloads of every results set, first seen first */
  for (size_t k = 0; k < n_results; k++)
    for (size_t i = 0; i < results[k]->n_workloads; i++) {
      const struct placer_bench_workload *w = &results[k]->workloads[i];
      bool seen = false;
      for (size_t j = 0; j < res->n_workloads; j++)
        seen |= strcmp(res->workloads[j].name, w->name) == 0;
      if (seen)
        continue;
      struct placer_size_workload *bigger = realloc(res->workloads, (res->n_workloads + 1) * sizeof(*bigger));
      if (bigger == NULL)
        return placer_error_oom(err, "size");
      res->workloads = bigger;
      struct placer_size_workload *sw = &res->workloads[res->n_workloads++];
      memset(sw, 0, sizeof(*sw));
      sw->name = strdup(w->name);
      sw->pattern = strdup(w->pattern);
      sw->block_size_bytes = w->block_size_bytes;
      double wf = NAN;
      if (sw->name == NULL || sw->pattern == NULL ||
          workload_figures(results, n_results, w, sw, &res->measured_peak_rss, &wf) < 0)
        return placer_error_oom(err, "size");
      /* each client write costs every replica its own write: scale the
       * write share by target / measured replicas */
      double f = isfinite(wf) ? wf : 0;
      double scale = (1 - f) + f * (double)opt->replicas / (double)opt->measured_replicas;
      sw->cpu_ms_per_io_target = sw->cpu_ms_per_io * scale;
    }
  if (opt->given_cpu_ms_per_io > 0)
    for (size_t j = 0; j < res->n_workloads; j++)
      res->workloads[j].cpu_ms_per_io_target = opt->given_cpu_ms_per_io;
  if (opt->given_rss_bytes)
    res->measured_peak_rss = (double)opt->given_rss_bytes;
  return 0;
}

/* ---- the target node ---- */

static struct placer_role_spec *role_of_kind(struct placer_profile *profile, enum placer_role_kind kind, bool fill) {
  for (size_t i = 0; i < profile->n_roles; i++)
    if (profile->roles[i].kind == kind && (!fill || profile->roles[i].count_mode == PLACER_COUNT_FILL))
      return &profile->roles[i];
  return NULL;
}

static unsigned weight_and(hwloc_const_bitmap_t a, hwloc_const_bitmap_t b) {
  hwloc_bitmap_t x = hwloc_bitmap_alloc();
  if (x == NULL)
    return 0;
  hwloc_bitmap_and(x, a, b);
  int w = hwloc_bitmap_weight(x);
  hwloc_bitmap_free(x);
  return w > 0 ? (unsigned)w : 0;
}

static int account_nodes(const struct placer_topology *topo, const struct placer_profile *profile,
                         struct placer_size_result *res, struct placer_error **err) {
  const struct placer_plan *plan = res->plan;
  res->n_nodes = topo->n_numa_nodes;
  res->nodes = calloc(res->n_nodes ? res->n_nodes : 1, sizeof(*res->nodes));
  hwloc_bitmap_t osd = hwloc_bitmap_alloc(), vm = hwloc_bitmap_alloc(), other = hwloc_bitmap_alloc();
  int rc = -1;
  if (res->nodes == NULL || osd == NULL || vm == NULL || other == NULL) {
    placer_error_oom(err, "size");
    goto out;
  }
  res->osd_threads = UINT32_MAX;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind == PLACER_KIND_CEPH_OSD) {
      hwloc_bitmap_or(osd, osd, inst->cpus);
      unsigned t = (unsigned)hwloc_bitmap_weight(inst->cpus);
      if (t < res->osd_threads)
        res->osd_threads = t;
      res->osds++;
    } else if (inst->kind == PLACER_KIND_VM) {
      hwloc_bitmap_or(vm, vm, inst->cpus);
      res->vms++;
    } else {
      hwloc_bitmap_or(other, other, inst->cpus);
    }
  }
  if (res->osds == 0)
    res->osd_threads = 0;
  for (size_t n = 0; n < res->n_nodes; n++) {
    const struct placer_numa_node *tn = &topo->numa_nodes[n];
    struct placer_size_node *sn = &res->nodes[n];
    sn->os = tn->os_index;
    hwloc_bitmap_t usable = hwloc_bitmap_dup(tn->cpus);
    if (usable == NULL) {
      placer_error_oom(err, "size");
      goto out;
    }
    if (topo->allowed_cpus && !hwloc_bitmap_iszero(topo->allowed_cpus))
      hwloc_bitmap_and(usable, usable, topo->allowed_cpus);
    sn->pus = (unsigned)hwloc_bitmap_weight(usable);
    sn->host_pus = weight_and(plan->reserved_cpus, usable);
    sn->osd_pus = weight_and(osd, usable);
    sn->vm_pus = weight_and(vm, usable);
    sn->other_pus = weight_and(other, usable);
    sn->free_pus = weight_and(plan->free_cpus, usable);
    hwloc_bitmap_free(usable);
    sn->memory_bytes = tn->memory_bytes;
    const struct placer_reserve_spec *r = &profile->reserve;
    sn->host_memory = r->memory_per_numa_bytes;
    if (r->memory_bytes)
      sn->host_memory = r->memory_bytes / res->n_nodes + (n < r->memory_bytes % res->n_nodes ? 1 : 0);
  }
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    unsigned k = (unsigned)hwloc_bitmap_weight(inst->mems);
    for (size_t n = 0; n < res->n_nodes; n++) {
      struct placer_size_node *sn = &res->nodes[n];
      if (inst->numa_node == (int)sn->os) {
        sn->osds += inst->kind == PLACER_KIND_CEPH_OSD;
        sn->vms += inst->kind == PLACER_KIND_VM;
      }
      if (!inst->has_memory_limit || k == 0 || !hwloc_bitmap_isset(inst->mems, sn->os))
        continue;
      uint64_t share = inst->memory_bytes / k;
      if (inst->kind == PLACER_KIND_CEPH_OSD)
        sn->osd_memory += share;
      else if (inst->kind == PLACER_KIND_VM)
        sn->vm_memory += share;
      else
        sn->other_memory += share;
    }
  }
  rc = 0;
out:
  hwloc_bitmap_free(osd);
  hwloc_bitmap_free(vm);
  hwloc_bitmap_free(other);
  return rc;
}

static void tripleo(const struct placer_topology *topo, struct placer_size_result *res) {
  const struct placer_size_options *o = &res->opt;
  uint64_t mem = 0;
  unsigned pus = 0;
  for (size_t n = 0; n < res->n_nodes; n++) {
    mem += res->nodes[n].memory_bytes;
    pus += res->nodes[n].pus;
  }
  /* RHOSP 16.0 HCI guide, A.1.1: left_over_mem = mem - GB_per_OSD * osds;
   * number_of_guests = int(left_over_mem / (average_guest_size +
   * GB_overhead_per_guest)); the 4 GB for the host from the RHOSP 13 NFV guide */
  uint64_t taken = o->tripleo_host_bytes + (uint64_t)res->osds * o->tripleo_osd_bytes;
  uint64_t per_guest = o->vm_memory_bytes + o->tripleo_guest_overhead_bytes;
  res->tripleo_vms_by_memory = mem > taken ? (unsigned)((mem - taken) / per_guest) : 0;
  /* A.1.2: "assume each Ceph OSD uses at least one core"; guests 1:1 on the rest */
  unsigned threads_per_core = topo->n_cores ? (pus + (unsigned)topo->n_cores - 1) / (unsigned)topo->n_cores : 1;
  unsigned osd_pus = res->osds * o->tripleo_cores_per_osd * threads_per_core;
  res->tripleo_vms_by_cpu = pus > osd_pus ? (pus - osd_pus) / o->vm_vcpus : 0;
  res->tripleo_vms =
      res->tripleo_vms_by_memory < res->tripleo_vms_by_cpu ? res->tripleo_vms_by_memory : res->tripleo_vms_by_cpu;
}

int placer_size_compute(struct placer_bench_results *const *results, size_t n_results,
                        const struct placer_topology *topo, struct placer_profile *profile,
                        const struct placer_size_options *opt, struct placer_size_result **out,
                        struct placer_error **err) {
  if (n_results == 0 && !(opt->given_cpu_ms_per_io > 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "size: give a results directory or the figures (--cpu-ms-per-io)");
  if (opt->vm_vcpus == 0 || opt->vm_memory_bytes == 0 || opt->replicas == 0 || opt->measured_replicas == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "size: VM vCPUs, VM memory and replicas must be > 0");
  struct placer_role_spec *osd = role_of_kind(profile, PLACER_KIND_CEPH_OSD, false);
  struct placer_role_spec *vm = role_of_kind(profile, PLACER_KIND_VM, true);
  if (osd == NULL || vm == NULL || !profile->pin)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "size: profile '%s' needs a role of kind ceph-osd and a role of kind vm with count: fill, "
                            "and must pin",
                            profile->name);
  struct placer_size_result *res = calloc(1, sizeof(*res));
  if (res == NULL)
    return placer_error_oom(err, "size");
  res->opt = *opt;
  res->opt.workload = NULL;
  res->n_results = n_results;
  res->topology_source = strdup(topo->source);
  res->profile_name = strdup(profile->name);
  if (res->topology_source == NULL || res->profile_name == NULL) {
    placer_error_oom(err, "size");
    goto fail;
  }
  if (collect(results, n_results, opt, res, err) < 0 || placer_size_slo_rows(results, n_results, opt, res, err) < 0)
    goto fail;

  /* the workload that sizes the OSDs: the one asked, else the costliest,
   * at the SLO where the results have one (docs/size.md) */
  bool any_slo = false;
  for (size_t i = 0; i < res->n_workloads; i++)
    any_slo |= res->workloads[i].at_slo;
  res->sizing = SIZE_MAX;
  for (size_t i = 0; i < res->n_workloads; i++) {
    double c = res->workloads[i].cpu_ms_per_io_target;
    if (opt->workload ? strcmp(res->workloads[i].name, opt->workload) == 0
                      : isfinite(c) && res->workloads[i].at_slo == any_slo &&
                            (res->sizing == SIZE_MAX || c > res->workloads[res->sizing].cpu_ms_per_io_target))
      res->sizing = i;
  }
  if (res->sizing == SIZE_MAX || !isfinite(res->workloads[res->sizing].cpu_ms_per_io_target)) {
    if (opt->workload)
      placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "size: no measured workload '%s'", opt->workload);
    else
      placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                       "size: the results hold no run with the storage role's CPU per I/O (storage alone)");
    goto fail;
  }
  double cost = res->workloads[res->sizing].cpu_ms_per_io_target;
  if (opt->target_iops > 0) {
    double threads = ceil(opt->target_iops * cost / 1000.0);
    /* past what any profile can ask (and any node has): does not fit, as
     * a target a little above what the node has does not (the planner's 3) */
    if (threads > 65536) {
      placer_error_set(err, PLACER_EXIT_INFEASIBLE, 0,
                       "size: %.6g IOPS per OSD needs %.6g threads at %.3g ms of CPU per I/O (%s): more than %s has "
                       "(%d CPUs)",
                       opt->target_iops, threads, cost, res->workloads[res->sizing].name, topo->source,
                       hwloc_bitmap_weight(topo->online_cpus));
      goto fail;
    }
    if (osd->cpu.cores)
      osd->cpu.whole_cores = true;
    osd->cpu.cores = 0;
    osd->cpu.threads = threads < 1 ? 1 : (unsigned)threads;
    for (size_t i = 0; i < res->n_workloads; i++)
      res->workloads[i].threads_needed =
          (unsigned)fmax(1, ceil(opt->target_iops * res->workloads[i].cpu_ms_per_io_target / 1000.0));
  }
  double rss = isfinite(res->measured_peak_rss) ? res->measured_peak_rss : 0;
  double base = fmax(rss, (double)opt->osd_memory_target_bytes);
  res->osd_memory_bytes = (uint64_t)(base * (1 + opt->memory_headroom));
  osd->has_memory = true;
  osd->memory_bytes = res->osd_memory_bytes;
  osd->memory_overhead_bytes = 0;
  vm->cpu.cores = 0;
  vm->cpu.threads = opt->vm_vcpus;
  vm->has_memory = true;
  vm->memory_bytes = opt->vm_memory_bytes;
  vm->memory_overhead_bytes = opt->vm_overhead_bytes;

  if (placer_plan_compute(topo, profile, &res->plan, err) < 0) {
    placer_error_prefix(err, "size: %u %s per OSD on %s", osd->cpu.cores ? osd->cpu.cores : osd->cpu.threads,
                        osd->cpu.cores ? "cores" : "threads", topo->source);
    goto fail;
  }
  if (account_nodes(topo, profile, res, err) < 0)
    goto fail;
  for (size_t i = 0; i < res->n_workloads; i++) {
    double c = res->workloads[i].cpu_ms_per_io_target;
    res->workloads[i].iops_per_osd = c > 0 ? res->osd_threads * 1000.0 / c : NAN;
  }
  tripleo(topo, res);
  *out = res;
  return 0;
fail:
  placer_size_result_free(res);
  return -1;
}

/* ---- output ---- */

static json_t *num(double x) {
  return isfinite(x) ? json_real(round(x * 1000) / 1000) : json_null();
}

json_t *placer_size_to_json(const struct placer_size_result *r) {
  const struct placer_size_options *o = &r->opt;
  json_t *ws = json_array();
  for (size_t i = 0; i < r->n_workloads; i++) {
    const struct placer_size_workload *w = &r->workloads[i];
    json_t *row = json_pack(
        "{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "name", w->name, "pattern", w->pattern,
        "block_size_bytes", (json_int_t)w->block_size_bytes, "runs", (json_int_t)w->n_runs, "cpu_ms_per_io_measured",
        num(w->cpu_ms_per_io), "cpu_ms_per_io", num(w->cpu_ms_per_io_target), "measured_iops", num(w->measured_iops),
        "measured_storage_cores", num(w->measured_cores), "iops_per_osd", num(w->iops_per_osd), "threads_needed",
        w->threads_needed ? json_integer(w->threads_needed) : json_null(), "sizing", i == r->sizing);
    json_object_set_new(row, "at_slo",
                        w->at_slo
                            ? json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "variant", w->slo_variant, "condition",
                                        w->slo_condition, "slo_point", w->slo_text, "iops", num(w->slo_iops),
                                        "allocated_cores", num(w->allocated_cores), "per_core_allocated",
                                        num(w->per_core_allocated), "per_core_used", num(w->per_core_used))
                            : json_null());
    json_array_append_new(ws, row);
  }
  json_t *nodes = json_array();
  for (size_t n = 0; n < r->n_nodes; n++) {
    const struct placer_size_node *s = &r->nodes[n];
    json_array_append_new(
        nodes,
        json_pack("{s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I, s:I}, s:I, s:I}", "numa_node",
                  (json_int_t)s->os, "threads", "total", (json_int_t)s->pus, "host", (json_int_t)s->host_pus, "osds",
                  (json_int_t)s->osd_pus, "other", (json_int_t)s->other_pus, "vms", (json_int_t)s->vm_pus, "free",
                  (json_int_t)s->free_pus, "memory_bytes", "total", (json_int_t)s->memory_bytes, "host",
                  (json_int_t)s->host_memory, "osds", (json_int_t)s->osd_memory, "other", (json_int_t)s->other_memory,
                  "vms", (json_int_t)s->vm_memory, "osds", (json_int_t)s->osds, "vms", (json_int_t)s->vms));
  }
  json_t *root = json_object();
  json_object_set_new(root, "format", json_string("placer-size"));
  json_object_set_new(root, "version", json_integer(1));
  json_object_set_new(root, "topology", json_string(r->topology_source));
  json_object_set_new(root, "profile", json_string(r->profile_name));
  json_object_set_new(
      root, "measured",
      json_pack("{s:I, s:s, s:I, s:I, s:o}", "results", (json_int_t)r->n_results, "storage_role", r->storage_role,
                "osds", (json_int_t)r->measured_osds, "replicas", (json_int_t)o->measured_replicas, "peak_rss_bytes",
                isfinite(r->measured_peak_rss) ? json_integer((json_int_t)r->measured_peak_rss) : json_null()));
  json_object_set_new(root, "workloads", ws);
  json_object_set_new(root, "osd",
                      json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:o}", "count", (json_int_t)r->osds, "threads",
                                (json_int_t)r->osd_threads, "memory_bytes", (json_int_t)r->osd_memory_bytes,
                                "target_iops", o->target_iops > 0 ? json_real(o->target_iops) : json_null(), "replicas",
                                (json_int_t)o->replicas, "osd_memory_target_bytes",
                                (json_int_t)o->osd_memory_target_bytes, "memory_headroom",
                                json_real(o->memory_headroom)));
  json_object_set_new(root, "vm",
                      json_pack("{s:I, s:I, s:I}", "vcpus", (json_int_t)o->vm_vcpus, "memory_bytes",
                                (json_int_t)o->vm_memory_bytes, "overhead_bytes", (json_int_t)o->vm_overhead_bytes));
  json_object_set_new(root, "numa_nodes", nodes);
  json_object_set_new(root, "vms", json_integer(r->vms));
  json_object_set_new(root, "tripleo",
                      json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "vms", (json_int_t)r->tripleo_vms,
                                "vms_by_memory", (json_int_t)r->tripleo_vms_by_memory, "vms_by_cpu",
                                (json_int_t)r->tripleo_vms_by_cpu, "osd_bytes", (json_int_t)o->tripleo_osd_bytes,
                                "guest_overhead_bytes", (json_int_t)o->tripleo_guest_overhead_bytes, "host_bytes",
                                (json_int_t)o->tripleo_host_bytes, "cores_per_osd",
                                (json_int_t)o->tripleo_cores_per_osd));
  json_t *warnings = json_array();
  for (size_t i = 0; r->plan && i < r->plan->n_warnings; i++)
    json_array_append_new(warnings, json_string(r->plan->warnings[i]));
  json_object_set_new(root, "warnings", warnings);
  return root;
}

static const char *fmt_bytes(uint64_t b, char *buf, size_t len) {
  placer_format_bytes(b, buf, len);
  return buf;
}

int placer_size_print_text(const struct placer_size_result *r, FILE *out) {
  const struct placer_size_options *o = &r->opt;
  char a[32], b[32], c[32], d[32], e[32];
  fprintf(out, "placer size: profile %s on %s\n", r->profile_name, r->topology_source);
  if (r->n_results)
    fprintf(out, "measured: %zu results director%s, storage role '%s' (%u OSDs, %u replicas); sized for %u replicas\n",
            r->n_results, r->n_results == 1 ? "y" : "ies", r->storage_role, r->measured_osds, o->measured_replicas,
            o->replicas);
  else
    fprintf(out, "given: %.3f ms of OSD CPU per client I/O\n", o->given_cpu_ms_per_io);
  fputc('\n', out);
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "workload");
  placer_table_cell_r(&t, "runs");
  placer_table_cell_r(&t, "ms CPU/IO measured");
  placer_table_cell_r(&t, "ms CPU/IO here");
  placer_table_cell_r(&t, "IOPS measured");
  placer_table_cell_r(&t, "OSD cores used");
  placer_table_cell_r(&t, "IOPS per OSD (%u threads)", r->osd_threads);
  if (o->target_iops > 0)
    placer_table_cell_r(&t, "threads for %.0f IOPS", o->target_iops);
  for (size_t i = 0; i < r->n_workloads; i++) {
    const struct placer_size_workload *w = &r->workloads[i];
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s%s", w->name, i == r->sizing ? " *" : "");
    placer_table_cell_r(&t, "%zu", w->n_runs);
    placer_table_cell_r(&t, isfinite(w->cpu_ms_per_io) ? "%.3f" : "-", w->cpu_ms_per_io);
    placer_table_cell_r(&t, "%.3f", w->cpu_ms_per_io_target);
    placer_table_cell_r(&t, isfinite(w->measured_iops) ? "%.0f" : "-", w->measured_iops);
    placer_table_cell_r(&t, isfinite(w->measured_cores) ? "%.2f" : "-", w->measured_cores);
    placer_table_cell_r(&t, "%.0f", w->iops_per_osd);
    if (o->target_iops > 0)
      placer_table_cell_r(&t, "%u", w->threads_needed);
  }
  if (placer_table_print(&t, out) < 0)
    return -1;
  fprintf(out, "(* sizes the OSDs%s)\n", o->target_iops > 0 ? "" : "; IOPS per OSD: what its planned CPU gives");
  for (size_t i = 0; i < r->n_workloads; i++) {
    const struct placer_size_workload *w = &r->workloads[i];
    if (w->at_slo)
      fprintf(
          out,
          "%s: %s next to %s, storage given %g core%s: %s; %.0f IOPS per core given, %.3f ms of given CPU per I/O\n",
          w->name, w->slo_variant, w->slo_condition, w->allocated_cores, w->allocated_cores == 1 ? "" : "s",
          w->slo_text, w->slo_iops / w->allocated_cores, w->cpu_ms_per_io);
  }
  fputc('\n', out);
  fprintf(out, "per OSD: %u threads; memory %s = max(peak RSS %s, osd_memory_target %s) + %.0f%%\n", r->osd_threads,
          fmt_bytes(r->osd_memory_bytes, a, sizeof(a)),
          isfinite(r->measured_peak_rss) ? fmt_bytes((uint64_t)r->measured_peak_rss, b, sizeof(b)) : "-",
          fmt_bytes(o->osd_memory_target_bytes, c, sizeof(c)), o->memory_headroom * 100);
  fprintf(out, "per VM: %u vCPUs, %s + %s overhead\n\n", o->vm_vcpus, fmt_bytes(o->vm_memory_bytes, a, sizeof(a)),
          fmt_bytes(o->vm_overhead_bytes, b, sizeof(b)));
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "NUMA node");
  placer_table_cell_r(&t, "threads");
  placer_table_cell_r(&t, "host");
  placer_table_cell_r(&t, "OSDs (threads)");
  placer_table_cell_r(&t, "other");
  placer_table_cell_r(&t, "VMs (threads)");
  placer_table_cell_r(&t, "free");
  placer_table_cell_r(&t, "memory");
  placer_table_cell_r(&t, "host");
  placer_table_cell_r(&t, "OSDs");
  placer_table_cell_r(&t, "other");
  placer_table_cell_r(&t, "VMs");
  struct placer_size_node sum = { 0 };
  for (size_t n = 0; n <= r->n_nodes; n++) {
    const struct placer_size_node *s = n < r->n_nodes ? &r->nodes[n] : &sum;
    placer_table_row(&t, false);
    if (n < r->n_nodes)
      placer_table_cell_l(&t, "%u", s->os);
    else
      placer_table_cell_l(&t, "total");
    placer_table_cell_r(&t, "%u", s->pus);
    placer_table_cell_r(&t, "%u", s->host_pus);
    placer_table_cell_r(&t, "%u (%u)", s->osds, s->osd_pus);
    placer_table_cell_r(&t, "%u", s->other_pus);
    placer_table_cell_r(&t, "%u (%u)", s->vms, s->vm_pus);
    placer_table_cell_r(&t, "%u", s->free_pus);
    placer_table_cell_r(&t, "%s", fmt_bytes(s->memory_bytes, a, sizeof(a)));
    placer_table_cell_r(&t, "%s", fmt_bytes(s->host_memory, b, sizeof(b)));
    placer_table_cell_r(&t, "%s", fmt_bytes(s->osd_memory, c, sizeof(c)));
    placer_table_cell_r(&t, "%s", fmt_bytes(s->other_memory, d, sizeof(d)));
    placer_table_cell_r(&t, "%s", fmt_bytes(s->vm_memory, e, sizeof(e)));
    if (n < r->n_nodes) {
      sum.pus += s->pus, sum.host_pus += s->host_pus, sum.osd_pus += s->osd_pus, sum.osds += s->osds;
      sum.other_pus += s->other_pus, sum.vms += s->vms, sum.vm_pus += s->vm_pus, sum.free_pus += s->free_pus;
      sum.memory_bytes += s->memory_bytes, sum.host_memory += s->host_memory, sum.osd_memory += s->osd_memory;
      sum.other_memory += s->other_memory, sum.vm_memory += s->vm_memory;
    }
  }
  if (placer_table_print(&t, out) < 0)
    return -1;
  fputc('\n', out);
  fprintf(out, "placer: %u VMs of %u vCPUs / %s fit beside %u OSDs (", r->vms, o->vm_vcpus,
          fmt_bytes(o->vm_memory_bytes, a, sizeof(a)), r->osds);
  for (size_t n = 0; n < r->n_nodes; n++)
    fprintf(out, "%snode %u: %u", n ? ", " : "", r->nodes[n].os, r->nodes[n].vms);
  fprintf(out, "), each on one NUMA node, vCPUs 1:1\n");
  fprintf(out,
          "TripleO HCI formula: %u VMs (%u by memory: %s per OSD, %s per guest, %s host; %u at 1:1 vCPUs with %u "
          "core%s per OSD), no NUMA\n",
          r->tripleo_vms, r->tripleo_vms_by_memory, fmt_bytes(o->tripleo_osd_bytes, a, sizeof(a)),
          fmt_bytes(o->tripleo_guest_overhead_bytes, b, sizeof(b)), fmt_bytes(o->tripleo_host_bytes, c, sizeof(c)),
          r->tripleo_vms_by_cpu, o->tripleo_cores_per_osd, o->tripleo_cores_per_osd == 1 ? "" : "s");
  for (size_t i = 0; r->plan && i < r->plan->n_warnings; i++)
    fprintf(out, "warning: %s\n", r->plan->warnings[i]);
  return ferror(out) ? -1 : 0;
}
