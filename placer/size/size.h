/* Sizing from measured costs (`placer size`): the OSD CPU per client I/O and
 * the OSDs' peak RSS measured by bench, turned into an answer for a target
 * node and profile: per OSD the CPU a target IOPS needs (or the IOPS its
 * planned CPU gives), its memory budget, and how many VMs of a given size
 * fit in what is left, per NUMA node, through the planner itself.  Beside
 * it, TripleO's HCI formula.  Model and assumptions: docs/size.md. */
#ifndef PLACER_BENCH_SIZE_H
#define PLACER_BENCH_SIZE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "results/results.h"
#include "lib/error.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "topology/topology.h"

/* What one workload costs the storage role, from the runs with no
 * neighbours (level 0) of every variant of every results directory. */
struct placer_size_workload {
  char *name;    /* "4k-randwrite" */
  char *pattern; /* "randwrite" */
  uint64_t block_size_bytes;
  size_t n_runs;               /* runs the figures come from (0: given by hand) */
  double cpu_ms_per_io;        /* storage CPU ms per client I/O, median over the runs */
  double cpu_ms_per_io_target; /* the same scaled to the target's replicas (writes) */
  double measured_iops;        /* median */
  double measured_cores;       /* storage role CPU in cores, median */
  double iops_per_osd;         /* what the planned CPU of one OSD gives on the target */
  unsigned threads_needed;     /* for the target IOPS (0: no target) */
  /* At the SLO (size-slo.c): a response curve's SLO point sizes, its cost
   * the storage CPU the variant is given per client I/O there
   * (cpu_ms_per_io = 1000 x allocated_cores / slo_iops), not the CPU used
   * flat out; the variant and condition it comes from, its sentence. */
  bool at_slo;
  char *slo_variant, *slo_condition;
  char slo_text[256];
  double slo_iops, allocated_cores, per_core_allocated, per_core_used; /* per core: in the main metric's unit */
};

struct placer_size_node {
  unsigned os;
  unsigned pus, host_pus, osd_pus, other_pus, vm_pus, free_pus;
  uint64_t memory_bytes, host_memory, osd_memory, other_memory, vm_memory;
  unsigned osds, vms;
};

struct placer_size_options {
  double target_iops;       /* per OSD; 0: report the IOPS of the planned CPU instead */
  const char *workload;     /* the workload that sizes the OSDs; NULL: the costliest */
  unsigned vm_vcpus;        /* >= 1 */
  uint64_t vm_memory_bytes; /* > 0 */
  uint64_t vm_overhead_bytes;
  uint64_t osd_memory_target_bytes; /* Ceph's osd_memory_target on the target node */
  double memory_headroom;           /* 0.2: 20% over max(RSS, target) */
  unsigned replicas;                /* of the target's pool */
  unsigned measured_replicas;       /* of the measured pool */
  double given_cpu_ms_per_io;       /* > 0: figures by hand instead of results */
  uint64_t given_rss_bytes;
  /* TripleO's constants (RHOSP 13 NFV guide; RHOSP 16.0 HCI guide, A.1) */
  uint64_t tripleo_osd_bytes, tripleo_guest_overhead_bytes, tripleo_host_bytes;
  unsigned tripleo_cores_per_osd;
};
void placer_size_options_default(struct placer_size_options *o);

struct placer_size_result {
  char *topology_source, *profile_name, *storage_role;
  size_t n_results;       /* results directories read */
  unsigned measured_osds; /* storage instances in the measured cluster */
  double measured_peak_rss;
  struct placer_size_workload *workloads;
  size_t n_workloads;
  size_t sizing; /* the workload that sized the OSDs */
  struct placer_size_options opt;
  unsigned osds, osd_threads; /* on the target: count, hardware threads of one OSD */
  uint64_t osd_memory_bytes;  /* budget per OSD */
  struct placer_size_node *nodes;
  size_t n_nodes;
  unsigned vms; /* placer's answer */
  unsigned tripleo_vms_by_memory, tripleo_vms_by_cpu, tripleo_vms;
  struct placer_plan *plan;
};

/* Size: results (n may be 0 with given figures), the target topology and the
 * profile (its storage role of kind ceph-osd and its count: fill role of kind
 * vm are adjusted in place to the model's CPU and memory). */
int placer_size_compute(struct placer_bench_results *const *results, size_t n_results,
                        const struct placer_topology *topo, struct placer_profile *profile,
                        const struct placer_size_options *opt, struct placer_size_result **out,
                        struct placer_error **err);
void placer_size_result_free(struct placer_size_result *r);
/* The SLO rows of RESULTS (size-slo.c): a workload per results directory
 * whose curves meet a storage SLO somewhere, appended to RES's. */
int placer_size_slo_rows(struct placer_bench_results *const *results, size_t n_results,
                         const struct placer_size_options *opt, struct placer_size_result *res,
                         struct placer_error **err);

json_t *placer_size_to_json(const struct placer_size_result *r);
int placer_size_print_text(const struct placer_size_result *r, FILE *out);

/* ---- the model and its check (size/size-model.c) ---- */

/* One measurement: CPU allotted to the OSDs (cores; a quota or a cpuset),
 * the IOPS they served and the CPU they used. */
struct placer_size_point {
  double allotted_cores, iops, used_cores;
};
/* IOPS = min(allotted, demand) x 1000 / ms_per_io: the cost per I/O is a
 * constant of the workload, and the OSDs use at most what they would use
 * unconstrained (demand: the CPU used at an allotment it did not reach). */
struct placer_size_model {
  double ms_per_io;    /* median of used x 1000 / IOPS over the fit points */
  double demand_cores; /* INFINITY when every fit point used its whole allotment */
};
/* Fit from N points (>= 1 with IOPS > 0); -1 when none is usable. */
int placer_size_model_fit(const struct placer_size_point *points, size_t n, struct placer_size_model *out);
double placer_size_model_iops(const struct placer_size_model *m, double allotted_cores);

/* bench/size-validate.sh's JSON: per workload, fit on the FIT allotments
 * (median of the repeats per allotment), predict the others, and the error. */
struct placer_size_check_row {
  char *workload;
  double allotted_cores;
  bool fitted; /* one of the fit allotments */
  size_t n;    /* repeats */
  double iops; /* measured median */
  double used; /* OSD cores used, median */
  double predicted;
  double error; /* predicted / measured - 1 */
};
struct placer_size_check {
  struct placer_size_check_row *rows;
  size_t n_rows;
  double max_abs_error; /* over the predicted (not fitted) rows */
};
int placer_size_check_file(const char *path, const double *fit, size_t n_fit, struct placer_size_check **out,
                           struct placer_error **err);
/* The same from a bench results directory with a quota sweep: the variants
 * quota-CORES (allotment CORES) and the first variant (no quota: allotment
 * the machine's CPUs), storage alone, IOPS and the storage role's cores. */
int placer_size_check_results(const struct placer_bench_results *r, const double *fit, size_t n_fit,
                              struct placer_size_check **out, struct placer_error **err);
void placer_size_check_free(struct placer_size_check *c);
int placer_size_check_print(const struct placer_size_check *c, const double *fit, size_t n_fit, FILE *out);

#endif
