/* The results of a placer bench study: variants x conditions x workloads x
 * repeats of fio runs, with what was sampled around each run, and the neighbours'
 * solo rates. The orchestrator creates it empty from the study's shape and fills
 * runs one by one; the report and the summary JSON work on whatever is filled
 * (an interrupted study keeps its results so far; missing cells show "-"). */
#ifndef PLACER_BENCH_RESULTS_H
#define PLACER_BENCH_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/ceph-counters.h"
#include "results/metrics.h"
#include "results/recovery.h"
#include "lib/error.h"
#include "results/slo.h"
#include "results/stats.h"
#include "results/workload-result.h"

struct placer_bench_condition {
  char *name;             /* unique: "alone", "vms", "vms-4" */
  double neighbour_level; /* 0: storage alone; else what a sweep varies (neighbour cores) */
};

/* CPU and memory of one instance of a role during one run. */
struct placer_bench_role_usage {
  char *instance;          /* "osd.0" */
  char *role;              /* "osd" */
  uint64_t cpu_ns;         /* CPU used during the measured window (cgroup delta) */
  uint64_t peak_rss_bytes; /* VmHWM (or the highest VmRSS sampled) */
  double local_mem_share;  /* share of its resident memory on its group's NUMA nodes at the end
                              of the run (numa-locality.h), in [0, 1]; NAN: unknown */
};

/* One thread of an instance: the orchestrator adds the busiest few per daemon. */
struct placer_bench_thread_usage {
  char *instance; /* "osd.0" */
  char *thread;   /* its comm: "bstore_kv_sync", "msgr-worker-1" */
  uint64_t cpu_ns;
};

struct placer_bench_run {
  bool done;                   /* set by the orchestrator once the run is complete and valid;
                                       false: not run, failed (fio errors) or interrupted: shown as "-" */
  char *fio_json;              /* raw fio JSON, relative to the results directory; may be NULL */
  double duration_s;           /* the measured window (CPU shares divide by it); NAN if unknown */
  struct placer_bench_op *ops; /* its workload's operations (workload-result.h), in the kind's order */
  size_t n_ops;
  unsigned fio_failed_jobs;
  bool has_device_bytes;
  uint64_t device_bytes_written; /* /proc/diskstats delta over the OSDs' devices */
  double neighbour_rate;         /* neighbours' work rate during the run; NAN: none/unknown */
  size_t n_roles;
  struct placer_bench_role_usage *roles;
  size_t n_threads;
  struct placer_bench_thread_usage *threads;
  size_t n_cpus;
  double *cpu_busy; /* per core, indexed by OS CPU number: fraction busy in [0, 1] */
  /* Ceph's perf counters over the run: every OSD's and MDS's delta (a
   * daemon that did not answer is there, missing); NULL when none were read
   * (no Ceph cluster of placer's, or results written before them). */
  struct placer_ceph_run_counters *ceph;
};

/* The shape of a study; strings and arrays are copied. */
struct placer_bench_spec {
  const char *title;           /* "pinned vs unpinned, 2 OSDs" */
  const char *storage_role;    /* whose CPU per client I/O is reported: "osd" */
  const char *neighbour_name;  /* "the VMs" (used in sentences) */
  const char *neighbour_unit;  /* "bogo ops/s" */
  const char *level_unit;      /* "neighbour cores" */
  const char *neighbour_role;  /* the neighbours' role in the profiles (their CPU is not storage's); may be NULL */
  const char *const *variants; /* [0] is the baseline A that the others are compared with */
  size_t n_variants;
  const struct placer_bench_workload *workloads;
  size_t n_workloads;
  const struct placer_bench_condition *conditions;
  size_t n_conditions;
  size_t repeats;
  /* A sweep: conditions with level > 0 are its steps, the level-0 condition its
   * baseline; judged on sweep_workload's main metric (IOPS or MB/s). */
  bool sweep;
  size_t sweep_workload;
  double storage_min_fraction;   /* e.g. 0.90 */
  double neighbour_min_fraction; /* e.g. 0.85 */
  /* A placement sweep (the split of CPU between storage and neighbours):
   * the knob ("quota", "cores", "weight"; NULL: none) and each variant's
   * step value (NAN: the unconstrained baseline).  Judged on sweep_workload
   * too, with storage_min_fraction. */
  const char *split_parameter;
  const double *knobs;
  const char *split_from; /* the variant the steps are made from (sweep.from); NULL: unknown */
  double node_cpus;       /* CPUs of the node (the CPU model's bound spreads them); NAN: unknown */
  double alpha;           /* the verdicts' significance level; 0: the default, 0.05 */
  /* Response curves (results/curves.c): the study's SLO (NULL: none) and
   * the CPU each variant gives its storage roles (NULL: unknown; NAN:
   * unconstrained), the x of its curve in a CPU split. */
  const struct placer_slo *slo;
  const double *storage_cpus;
  /* Recovery as a workload (NULL action: none): what fails, during which
   * workload, after how many seconds of it, for how long. */
  const char *recovery_action; /* "kill" | "out" */
  const char *recovery_daemon; /* "osd.1" */
  const char *recovery_workload;
  double recovery_at_s, recovery_down_s;
};

struct placer_bench_results {
  char *title, *storage_role, *neighbour_name, *neighbour_unit, *level_unit, *neighbour_role;
  size_t n_variants;
  char **variants;
  size_t n_workloads;
  struct placer_bench_workload *workloads;
  size_t n_conditions;
  struct placer_bench_condition *conditions;
  size_t repeats;
  bool sweep;
  size_t sweep_workload;
  double storage_min_fraction, neighbour_min_fraction;
  char *split_parameter; /* "" when no placement sweep */
  double *knobs;         /* [variant] */
  char *split_from;      /* "" when unknown (results written before sweep.from) */
  double node_cpus;
  double alpha;                  /* a change is significant when p < alpha */
  struct placer_slo slo;         /* the study's SLO (placer_slo_init: none) */
  double *storage_cpus;          /* [variant]: CPUs (cores) given to storage; NAN: unconstrained or unknown */
  size_t repeats_run;            /* passes measured (dynamic repeats: fewer than repeats, the cap); 0: repeats */
  char *stop_reason;             /* dynamic repeats: why the study stopped adding passes; NULL: fixed repeats */
  bool interrupted;              /* stopped early (Ctrl-C): the report says so */
  struct placer_bench_run *runs; /* [variant][condition][workload][repeat] */
  double *solo_rates;            /* [variant][condition][repeat]; NAN: not measured */
  struct placer_bench_recovery *recovery; /* NULL: the study has no recovery runs */
};

/* Empty results of this shape (every run not done). Fails on duplicate or empty
 * names, no variant/workload/condition, zero repeats, more than PLACER_BENCH_MAX
 * of any or PLACER_BENCH_MAX_RUNS runs in all, a bad sweep workload. */
/* What a sweep steps, as a study and summary.json name it: the first is the
 * neighbours' intensity (a condition each), the others split the CPU
 * between storage and the neighbours (a variant each: summary.json's
 * split.parameter); NULL after the last. */
extern const char *const placer_bench_sweep_parameter_names[];

#define PLACER_BENCH_MAX 64
#define PLACER_BENCH_MAX_RUNS 65536
/* A study's counts, as a study file, the command line and summary.json's
 * "study" (what --resume takes over) may give them. */
#define PLACER_BENCH_MAX_REPEATS 100
#define PLACER_BENCH_MAX_WARMUP 10
#define PLACER_BENCH_MAX_RUNTIME_S 86400
#define PLACER_BENCH_MAX_RAMP_S 3600
/* A metadata workload's files per run and its fio jobs (clients); its
 * directories are at most its jobs. */
#define PLACER_BENCH_MAX_FILES 1000000
#define PLACER_BENCH_MAX_JOBS 64
int placer_bench_results_new(const struct placer_bench_spec *spec, struct placer_bench_results **out,
                             struct placer_error **err);
void placer_bench_results_free(struct placer_bench_results *r);

/* The run slot of a cell and repeat, or NULL when out of range. */
struct placer_bench_run *placer_bench_results_run(struct placer_bench_results *r, size_t variant, size_t condition,
                                                  size_t workload, size_t repeat);
const struct placer_bench_run *placer_bench_results_run_const(const struct placer_bench_results *r, size_t variant,
                                                              size_t condition, size_t workload, size_t repeat);
/* Index of a name, or -1. */
int placer_bench_results_variant_index(const struct placer_bench_results *r, const char *name);
int placer_bench_results_condition_index(const struct placer_bench_results *r, const char *name);
int placer_bench_results_workload_index(const struct placer_bench_results *r, const char *name);

/* Filling a run. set_result copies what the workload's parser measured (and
 * the path of fio's output, may be NULL); the caller sets done = true once
 * everything for the run is in. */
int placer_bench_run_set_result(struct placer_bench_run *run, const struct placer_bench_result *result,
                                const char *fio_json_path, struct placer_error **err);
/* The run's operation NAME ("write"), or NULL. */
const struct placer_bench_op *placer_bench_run_op(const struct placer_bench_run *run, const char *name);
int placer_bench_run_add_role(struct placer_bench_run *run, const char *instance, const char *role, uint64_t cpu_ns,
                              uint64_t peak_rss_bytes, struct placer_error **err);
int placer_bench_run_add_thread(struct placer_bench_run *run, const char *instance, const char *thread, uint64_t cpu_ns,
                                struct placer_error **err);
int placer_bench_run_set_cpu_busy(struct placer_bench_run *run, const double *busy, size_t n_cpus,
                                  struct placer_error **err);
/* The run's Ceph counters: *COUNTERS's daemons handed over to the run
 * (*COUNTERS is left empty); 0, or -1 out of memory. */
int placer_bench_run_take_ceph(struct placer_bench_run *run, struct placer_ceph_run_counters *counters,
                               struct placer_error **err);
/* The neighbours' rate without storage, for a variant and condition. Returns -1
 * when out of range. */
int placer_bench_results_set_solo(struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat,
                                  double rate);
double placer_bench_results_solo(const struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat);

/* --- analysis (analysis.c) ---------------------------------------------- */

/* Per-run figures; NAN when the run lacks what they need. */
double placer_bench_run_main_metric(const struct placer_bench_run *run, const struct placer_bench_workload *w);
double placer_bench_run_p99_ns(const struct placer_bench_run *run, const struct placer_bench_workload *w);
double placer_bench_run_write_amplification(const struct placer_bench_run *run);
double placer_bench_run_role_cpu_ms_per_io(const struct placer_bench_run *run, const char *role);
double placer_bench_run_role_cores(const struct placer_bench_run *run, const char *role);
double placer_bench_run_role_peak_rss(const struct placer_bench_run *run, const char *role); /* largest instance */
/* The lowest local_mem_share over the role's instances (the one with the most
 * remote memory); NAN when none is known. */
double placer_bench_run_role_local_mem(const struct placer_bench_run *run, const char *role);

/* Everything over the done repeats of one cell. */
struct placer_bench_cell_stats {
  size_t n_done;
  struct placer_stats_summary main; /* IOPS or bytes/s */
  struct placer_stats_summary p99_ns;
  struct placer_stats_summary write_amplification;
  struct placer_stats_summary storage_cpu_ms_per_io;
  struct placer_stats_summary neighbour_rate;
};
void placer_bench_cell_stats(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                             struct placer_bench_cell_stats *out);
/* Variant `variant` against variant 0 in the same condition and workload: on
 * the main metric and on p99 latency. */
void placer_bench_compare(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                          struct placer_stats_comparison *main_metric, struct placer_stats_comparison *p99);
/* The same, paired: run k of VARIANT against run k of variant 0 (the same
 * pass, adjacent in time), for the main metric and p99. */
void placer_bench_compare_paired(const struct placer_bench_results *r, size_t variant, size_t condition,
                                 size_t workload, struct placer_stats_paired *main_metric,
                                 struct placer_stats_paired *p99);
/* Both sides' "kept" against the unconstrained baseline, variant 0: storage
 * against its alone rate, the neighbours against their solo rate there (the
 * whole machine when A is unpinned, as in the default study and the split
 * sweeps).  NEIGHBOUR_OWN is the same rate against the solo rate on the
 * variant's own CPUs: a figure of its own (what colocating cost them there),
 * never a fraction of what they could have had.  NAN parts when unknown. */
void placer_bench_kept(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                       double *storage, double *neighbour, double *neighbour_own);

/* Efficiency against the CPU model's bound, for a variant in a neighbour
 * condition.  Each side's CPU per operation is measured: storage's in
 * variant 0 alone (c_alone cores, every role but the neighbours', at its
 * alone rate), the neighbours' in the cell (their cores / their rate).
 * Storage keeping s of its alone rate needs s * c_alone cores; what is left
 * of the node's CPUs lets the neighbours keep at most
 * n_max = (cpus - s * c_alone) / d, clamped to [0, 1], of their
 * unconstrained solo rate, d being the cores they would need for that rate
 * at their CPU per op.  bound = s + n_max, efficiency = (s + n) / bound,
 * with a bootstrap 95% CI (the runs of the cell, of A alone and A's solo
 * rates resampled, 2000 times, fixed seed).  Above 1 beyond that CI, the
 * model's assumption failed (storage needed less CPU per I/O than alone,
 * or the neighbours less per op than in the cell): bound_exceeded. */
struct placer_bench_efficiency {
  double storage_kept, neighbour_kept, sum, bound, efficiency;
  double neighbour_kept_own; /* against the variant's own solo rate (not in the sum) */
  double efficiency_ci_low, efficiency_ci_high;
  bool bound_exceeded;           /* efficiency_ci_low > 1 */
  double storage_cores_alone;    /* c_alone */
  double storage_cores;          /* every role but the neighbours', in this cell */
  double storage_role_cores;     /* the storage role (osd) alone, in this cell */
  double storage_cpu_s_per_op;   /* c_alone / variant 0's alone rate: CPU seconds per I/O (or per byte/s) */
  double neighbour_cores;        /* the neighbours' role, in this cell */
  double neighbour_demand_cores; /* d: their cores at the unconstrained solo rate */
  double neighbour_max;          /* n_max */
};
void placer_bench_efficiency(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                             struct placer_bench_efficiency *out);

/* What the statistics conclude about one change: storage's main metric
 * (or, neighbours, the neighbours' rate) of VARIANT against variant 0 in
 * one cell, by the decisive test -- the smaller p of the paired and the
 * unpaired one, with that test's change and 95% CI (the two changes differ:
 * median of pair ratios vs ratio of medians). */
struct placer_bench_verdict {
  bool neighbours;
  size_t variant, condition, workload;
  bool paired;
  double change, ci_low, ci_high, p_value;
  bool significant; /* p < alpha */
};
/* Every change cell that has a change: storage's, variant by variant,
 * condition by condition, workload by workload, then the neighbours' in the
 * conditions with neighbours.  *OUT is malloc'ed (NULL when none); returns
 * how many, or (size_t)-1 on allocation failure. */
size_t placer_bench_verdicts(const struct placer_bench_results *r, struct placer_bench_verdict **out);
/* The repeats a verdict was given on: the passes run (dynamic repeats), else the plan. */
size_t placer_bench_planned_repeats(const struct placer_bench_results *r);

/* The first condition with neighbours (level > 0), or -1. */
int placer_bench_neighbour_condition(const struct placer_bench_results *r);
/* Median over a cell's done runs of the CPU (cores) of every role but the
 * neighbours' (ROLE NULL), or of ROLE. */
double placer_bench_cell_cores(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                               const char *role);

/* A placement sweep's steps (split_parameter set): every variant in the
 * order of its knob, the unconstrained base (NAN knob) first, on
 * sweep_workload in the first neighbour condition.  Storage kept is against
 * the base alone ("unconstrained"). */
struct placer_bench_split_step {
  size_t variant;
  double knob;
  double alone, with_neighbours; /* main metric medians */
  double p99_ns;                 /* with neighbours */
  double neighbour_rate;
  struct placer_bench_efficiency eff;
};
size_t placer_bench_split_steps(const struct placer_bench_results *r, struct placer_bench_split_step *steps);
/* The balance point of a placement sweep: the step with the least CPU for
 * storage (the smallest knob) whose storage keeps >= storage_min_fraction of
 * the unconstrained rate; what the neighbours keep there. */
struct placer_bench_split_balance {
  bool found;
  size_t step; /* index into the steps */
};
void placer_bench_split_balance(const struct placer_bench_results *r, const struct placer_bench_split_step *steps,
                                size_t n, struct placer_bench_split_balance *out);

/* The neighbours' rate (with storage) of VARIANT against variant 0's in one
 * cell: the neighbour-protection effect, unpaired and paired. */
void placer_bench_compare_neighbours(const struct placer_bench_results *r, size_t variant, size_t condition,
                                     size_t workload, struct placer_stats_comparison *cmp,
                                     struct placer_stats_paired *paired);
/* Dynamic repeats: with DONE passes measured, stop?  True when every
 * change's main-metric 95% CI (the narrower of the paired and the unpaired)
 * is at most CI_WIDTH wide (0.05 = 5 points), or DONE >= MAX; REASON says
 * which, naming the widest cell. */
bool placer_bench_repeats_decide(const struct placer_bench_results *r, size_t done, unsigned max, double ci_width,
                                 char *reason, size_t len);
/* --- the neighbours' share of their solo rate (neighbour-share.c) ------ */

/* Median of the neighbours' solo rates of a variant and condition; NAN if none. */
double placer_bench_solo_median(const struct placer_bench_results *r, size_t variant, size_t condition);

/* A share's median over the passes and its 95% CI (bootstrap of that median). */
struct placer_bench_share {
  double median, ci_low, ci_high; /* NAN: unknown */
  size_t n;                       /* passes with a share */
  bool pooled; /* some pass had no solo run of its own (results written before every pass measured one): the
                  median of the solo runs there are divided it, and the CI leaves their noise out */
};
/* The denominator of pass REPEAT: VARIANT's solo rate at CONDITION measured in
 * that pass; results written before it was measured in every pass (the first
 * pass only) give the median of the solo rates they hold.  NAN: none. */
double placer_bench_pass_solo(const struct placer_bench_results *r, size_t variant, size_t condition, size_t repeat);
/* One run's share: its neighbours' rate over SOLO_VARIANT's solo rate of the
 * same pass (placer_bench_pass_solo); NAN alone, for a run not done or
 * without a rate or a solo rate. */
double placer_bench_run_neighbour_share(const struct placer_bench_results *r, size_t variant, size_t condition,
                                        size_t workload, size_t repeat, size_t solo_variant);
/* The cell's shares over its passes: their median and its 95% CI (NAN where
 * no run has one).  -1 only out of memory. */
int placer_bench_neighbour_share(const struct placer_bench_results *r, size_t variant, size_t condition,
                                 size_t workload, size_t solo_variant, struct placer_bench_share *out);
/* Interference: storage with neighbours / storage alone (same variant and
 * workload; "alone" = the condition with level 0), and neighbours with storage
 * / neighbours solo. Medians over repeats; NAN when a side is missing. */
void placer_bench_interference(const struct placer_bench_results *r, size_t variant, size_t condition, size_t workload,
                               double *storage_ratio, double *neighbour_ratio);
/* The condition with neighbour level 0, or -1. */
int placer_bench_alone_condition(const struct placer_bench_results *r);
/* The sweep's balance point for a variant (see placer_bench_balance_point):
 * its steps are the conditions with level > 0, judged against the
 * unconstrained baseline (placer_bench_kept): storage against variant 0's
 * median alone, each step's neighbours against variant 0's solo rate at that
 * step; out->index is the condition. Not found when there is no sweep or
 * no baseline. */
void placer_bench_sweep_balance(const struct placer_bench_results *r, size_t variant, struct placer_bench_balance *out);

/* --- summary JSON (results-json.c; schema in docs/bench.md) ------------ */

#define PLACER_BENCH_RESULTS_FORMAT "placer-bench-results"
#define PLACER_BENCH_RESULTS_VERSION 1
json_t *placer_bench_results_to_json(const struct placer_bench_results *r);
/* J checked (placer_bench_results_check), then read into *out. */
int placer_bench_results_from_json(const json_t *j, struct placer_bench_results **out, struct placer_error **err);
/* J against the schema of summary.json (results-check.c): every key the
 * reader uses of the right type, numbers in their range (rates, sizes, times
 * and CPU >= 0, shares in [0, 1]), names without control bytes, arrays no
 * longer than the study's shape allows.  The error names the key's path:
 * "runs[3].write.iops: -1000 is negative". */
int placer_bench_results_check(const json_t *j, struct placer_error **err);

/* What a summary.json may be, so that reading one takes well under 256 MiB
 * of memory whatever it holds: its bytes, its longest string, and what
 * jansson would spend on it (placer_json_cost; a study of 2000 runs on 2
 * CPUs is about 50 MiB of it). */
#define PLACER_BENCH_SUMMARY_MAX_BYTES ((size_t)32 << 20)
#define PLACER_BENCH_SUMMARY_MAX_STRING (64 << 10)
#define PLACER_BENCH_SUMMARY_MAX_COST ((uint64_t)96 << 20)
/* TEXT (LEN bytes of PATH) parsed within the cost and string limits above:
 * bad input (PLACER_EXIT_USAGE) past them or when not JSON. */
int placer_bench_json_parse(const char *path, const char *text, size_t len, json_t **out, struct placer_error **err);
/* DIR/summary.json parsed, within those limits: a regular file only, every
 * failure bad input (PLACER_EXIT_USAGE) naming the file; *path (may be NULL)
 * gets its path. */
int placer_bench_summary_load(const char *dir, json_t **out, char **path, struct placer_error **err);
/* Read DIR/summary.json into *out (exit code USAGE when it is missing, not
 * JSON or not a summary of placer bench; the error names the file), and
 * (HARDWARE_BASELINE may be NULL) its hardware_baseline, checked with it
 * (NULL when the study had none). */
int placer_bench_results_load_dir(const char *dir, struct placer_bench_results **out, struct placer_error **err);
/* DIR/ceph-counters.csv (results-ceph-csv.c) read back against SUMMARY
 * (summary.json, checked) and R (read from it): the rows summary.json's
 * csv_bytes recorded, parsed (placer_ceph_csv_parse), every run of them a run
 * of R with the same counters, and no run of R with counters left out; a
 * file that is missing while R has counters is refused too.  Every refusal
 * is bad input (PLACER_EXIT_USAGE) naming the file.  The dir loaders above
 * call it. */
int placer_bench_results_check_ceph_csv(const char *dir, const json_t *summary, const struct placer_bench_results *r,
                                        struct placer_error **err);
int placer_bench_results_dir_load(const char *dir, struct placer_bench_results **out, json_t **hardware_baseline,
                                  struct placer_error **err);

#endif
