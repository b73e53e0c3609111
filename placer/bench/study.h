/* A bench study: what `placer bench` runs (cluster, variants, fio workload
 * matrix, neighbours, repeats, sweep), as read from YAML with the schema
 * walker of profile-yaml.h.  Pure: parsing checks everything that can be
 * checked without the system; the schema is documented in docs/bench.md. */
#ifndef PLACER_STUDY_H
#define PLACER_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "profile/profile.h" /* struct placer_string_list */
#include "results/slo.h"
#include "results/workload-result.h"

struct bench_workload_ops; /* bench/workload.h */
struct bench_target_ops;   /* bench/target.h */

#define PLACER_STUDY_VERSION 1

enum placer_study_cluster_type {
  PLACER_STUDY_CLUSTER_LOCAL,    /* a throwaway cluster on 127.0.0.1, rebuilt for every variant and repeat */
  PLACER_STUDY_CLUSTER_EXISTING, /* ceph.conf + keyring of a running cluster; local daemons placed with apply */
  PLACER_STUDY_CLUSTER_NONE,     /* no Ceph: fio on a local file or block device */
};

enum placer_study_backend {
  PLACER_STUDY_BACKEND_EXEC,   /* a plain process in the role's group */
  PLACER_STUDY_BACKEND_PODMAN, /* a container under the role's group */
};

/* Whether a local cluster is built for every variant and repeat, or once for
 * the study with placement switched between runs (live re-placement). */
enum placer_study_rebuild {
  PLACER_STUDY_REBUILD_AUTO,        /* never when valid (variants differ only in placement), else per-variant */
  PLACER_STUDY_REBUILD_PER_VARIANT, /* a new cluster for every variant and repeat (CBT style) */
  PLACER_STUDY_REBUILD_NEVER,       /* one cluster; placement switched with placer's own group placement */
};

struct placer_study_cluster {
  enum placer_study_cluster_type type;
  int rebuild;                       /* enum placer_study_rebuild */
  unsigned osds;                     /* local: 0 = as many as the profiles' ceph-osd instances */
  bool mds;                          /* local: an MDS and a CephFS (target cephfs needs it) */
  uint64_t osd_size_bytes;           /* local: sparse bluestore file per OSD (whole GiB) */
  uint64_t image_size_bytes;         /* local: the rbd image (whole GiB) */
  char *extra_conf;                  /* local: appended to ceph.conf; NULL when none */
  unsigned timeout_s;                /* local: for the cluster to be active+clean */
  char *conf;                        /* existing: ceph.conf */
  char *keyring;                     /* existing: NULL = what ceph.conf says */
  char *client;                      /* cephx user fio connects as, without "client." ("admin") */
  char *pool;                        /* rbd and rados targets ("rbd") */
  char *image;                       /* rbd target ("placer-bench") */
  struct placer_string_list devices; /* diskstats names backing the OSDs (existing; local: found) */
};

struct placer_study_variant {
  char *name;
  char *profile;                  /* as written: a shipped profile's name or a path */
  struct placer_string_list env;  /* "KEY=VALUE" for the storage daemons of this variant */
  bool fio_env;                   /* the env goes to fio too */
  struct placer_string_list sets; /* "ROLE.KEY=VALUE" changes of the profile (placer_profile_set); a placement
                                     sweep's steps use "@storage." / "@clients." for its role classes */
  double knob;                    /* a placement sweep's step value (NAN: the unconstrained base, or no sweep) */
  unsigned line;
  size_t from;                     /* a placement sweep's step: the index of the variant it is made from */
  unsigned knob_line, knob_column; /* a step: where its value is in sweep.values */
};

struct placer_study_workloads {
  const struct bench_workload_ops *kind; /* workloads.kind: what its cells run (block, the default) */
  const struct bench_target_ops *target; /* workloads.target: what fio runs on (rbd, the default with Ceph) */
  char *path;            /* file: the file or device (relative: inside the results directory, normalised,
                            without ".."); cephfs: the file's name in the mount */
  uint64_t size_bytes;   /* the region every job uses (and prefill writes) */
  uint64_t *block_sizes; /* in file order */
  size_t n_block_sizes;
  struct placer_string_list patterns; /* fio rw= values */
  unsigned iodepth, numjobs;
  unsigned files;                        /* metadata: files a run creates, stats and deletes, in all */
  unsigned directories;                  /* metadata: the tree's directories, at most numjobs */
  unsigned runtime_s;                    /* the measured window (metadata: the neighbours' solo window) */
  unsigned ramp_s;                       /* before the window (fio ramp_time; not measured) */
  bool prefill;                          /* write the whole region once per cluster, before the cells */
  unsigned grace_s;                      /* a fio still running this long past its runtime is hung: killed */
  struct placer_string_list fio_options; /* more "--key=value" for every fio run: only what the allowlist
                                            of bench/fio-options.c lets through */
  bool write;                            /* target file: an existing file or device may be written */
  unsigned path_line, path_column;       /* where path is in the study file */
  /* workloads.load: a response curve's steps (bench/study-curves.c), what
   * each sets (PLACER_STUDY_LOAD_NONE: no steps, the workloads run at
   * iodepth and numjobs) and where each is in the file */
  int load;            /* enum placer_study_load */
  double *load_steps;  /* strictly increasing, whole numbers */
  size_t n_load_steps; /* 0 without steps */
  unsigned *load_line, *load_column;
};

/* What a load step sets (workloads.load's key). */
enum placer_study_load {
  PLACER_STUDY_LOAD_NONE,
  PLACER_STUDY_LOAD_IODEPTH,   /* fio --iodepth */
  PLACER_STUDY_LOAD_NUMJOBS,   /* fio --numjobs */
  PLACER_STUDY_LOAD_RATE_IOPS, /* fio --rate_iops: the step is the total over the jobs */
};
/* "iodepth", "numjobs", "rate_iops" ("" for NONE): as the study and the results name it. */
const char *placer_study_load_name(int load);

struct placer_study_neighbour {
  char *name;
  char *role;       /* the profile role whose instances run it ("neighbour") */
  const char *kind; /* a kind of bench_neighbours[] (bench/neighbour.h), its name there: "stress-ng", "vm" */
  enum placer_study_backend backend; /* stress-ng only */
  char *image;                       /* podman image ("localhost/placer/stress-ng:latest") */
  char *stressor;                    /* stress-ng --STRESSOR N ("cpu") */
  char *method;                      /* --cpu-method etc.; NULL: stress-ng's default */
  unsigned intensity;                /* stress-ng workers, or the guest's vCPUs, per instance */
  unsigned load_percent;             /* stress-ng cpu: each worker busy this share of the time (--cpu-load); 0: 100 */
  char *kernel, *initrd;             /* vm: NULL = $PLACER_VM_KERNEL / $PLACER_VM_INITRD, else built */
  uint64_t memory_bytes;             /* vm: guest RAM */
  uint64_t work_memory_bytes;        /* vm: the load's working set */
  unsigned line;
};

struct placer_study_baseline {
  bool enabled;
  char *path; /* relative: inside the results directory (normalised, without "..") */
  uint64_t size_bytes;
  bool write;                      /* an existing file or block device is only written when this is true */
  unsigned path_line, path_column; /* where path is in the study file */
};

enum placer_study_sweep_parameter {
  PLACER_STUDY_SWEEP_INTENSITY, /* the neighbours' intensity: conditions */
  PLACER_STUDY_SWEEP_QUOTA,     /* the storage roles' CPU quota in cores: variants */
  PLACER_STUDY_SWEEP_CORES,     /* whole cores to the storage pool, the rest to the clients' pool: variants */
  PLACER_STUDY_SWEEP_WEIGHT,    /* storage : neighbours CPU weight ratio in a shared pool: variants */
};

struct placer_study_sweep {
  bool enabled;
  int parameter;    /* enum placer_study_sweep_parameter */
  unsigned *values; /* intensity: neighbour intensity per step, ascending, distinct */
  size_t n_values;
  double *steps; /* every parameter: the values as written, ascending, distinct */
  size_t n_steps;
  struct placer_string_list roles; /* placement sweeps: the storage roles (default: every ceph-osd role) */
  char *workload;                  /* "4k-randwrite": judged on it; NULL = the first workload */
  double storage_min_fraction;
  double neighbour_min_fraction;
  char *from;        /* placement sweeps: the variant the steps are made from; NULL: the default (see from_index) */
  size_t from_index; /* resolved: sweep.from, else the first pinned variant (cores), else the first variant */
  unsigned *step_line, *step_column; /* where each value is in the file */
};

enum placer_study_recovery_action {
  PLACER_STUDY_RECOVERY_KILL, /* SIGKILL the OSD (a crash), start it again after `down` s */
  PLACER_STUDY_RECOVERY_OUT,  /* `ceph osd out`, `in` again after `down` s */
};

/* Recovery as a workload: in every measured pass, each variant gets one more
 * fio run during which an OSD fails and comes back; the time to active+clean,
 * the client's IOPS before and during recovery and each role's peak RSS are
 * recorded.  Local clusters only. */
struct placer_study_recovery {
  bool enabled;
  int action;         /* enum placer_study_recovery_action */
  unsigned osd;       /* the OSD's id */
  unsigned at_s;      /* seconds of client I/O (after the ramp) before the fault */
  unsigned down_s;    /* seconds the OSD stays down (kill) or out */
  unsigned timeout_s; /* for active+clean after it is back */
  char *workload;     /* "4k-randwrite"; NULL = the first */
};

struct placer_study {
  char *path;      /* as given (the default: its path under studies/) */
  char *generated; /* a study made in memory (the default sized to the node): its YAML, which bench
                      writes into the results directory as study.yaml and names as the study file */
  char *dir;       /* where relative paths start; NULL: the current directory */
  char *title;
  struct placer_study_cluster cluster;
  struct placer_study_variant *variants;
  size_t n_variants;
  struct placer_study_workloads workloads;
  struct placer_study_neighbour *neighbours;
  size_t n_neighbours;
  struct placer_study_baseline baseline;
  double alpha;         /* the significance level of the verdicts (default 0.05) */
  unsigned repeats;     /* fixed, or dynamic: the least number of passes */
  unsigned repeats_max; /* dynamic: at most this many passes; = repeats when fixed */
  double ci_width;      /* dynamic: stop when every main-metric CI of a change is narrower (0.05 = 5 points) */
  unsigned warmup;      /* discarded passes per variant (each workload alone) */
  unsigned repeats_line, repeats_column; /* where repeats (or repeats.min) is in the file; 0: not given */
  /* slo: storage's latency targets, the load to hold them at, the
   * neighbours' share (placer_slo_init: none); where slo.storage.at is */
  struct placer_slo slo;
  unsigned slo_at_line, slo_at_column;
  /* max_time: the most a study may take by its estimate (the design check
   * refuses one that would take longer); 0: no limit */
  double max_time_s;
  unsigned max_time_line, max_time_column;
  struct placer_study_sweep sweep;
  struct placer_study_recovery recovery;
};

/* Read and check a study.  Every error is "FILE:LINE:COL: PATH: message"
 * with PLACER_EXIT_USAGE. */
int placer_study_load(const char *path, struct placer_study **out, struct placer_error **err);
int placer_study_parse(const char *file, const char *text, size_t len, struct placer_study **out,
                       struct placer_error **err);
void placer_study_free(struct placer_study *study);

/* The default study: studies/default.yaml, shipped with placer and found
 * like its profiles ($PLACER_DEFAULT_STUDY, else placer_data_file()).
 * Its path (caller frees; a PLACER_EXIT_USAGE error when it is missing),
 * its YAML text (caller frees) and the study. */
int placer_study_default_path(char **out, struct placer_error **err);
int placer_study_default_text(char **out, struct placer_error **err);
int placer_study_load_default(struct placer_study **out, struct placer_error **err);

/* The workloads of the study's cells, in its kind's order (block: block
 * size major, "4k-randwrite"), and the I-th, for the caller to clear
 * (placer_bench_workload_clear).  bench/workload.c. */
size_t placer_study_n_workloads(const struct placer_study *s);
int placer_study_workload(const struct placer_study *s, size_t i, struct placer_bench_workload *out,
                          struct placer_error **err);

/* A profile reference resolved to a file: a bare name ("demo-local", no '/'
 * and no .yaml) is a shipped profile ($PLACER_PROFILES_DIR, the profiles/
 * directory next to the executable or in share/placer, else the source
 * tree's); anything else is a path relative to the study's directory.
 * Caller frees. */
int placer_study_profile_path(const struct placer_study *s, const struct placer_study_variant *v, char **out,
                              struct placer_error **err);

/* What a study will run and how long it should take (study-estimate.c),
 * from the study alone, with REPEATS measured passes: what --dry-run
 * prints, what the progress line starts from, and what the design check
 * holds against max_time (with the most passes the study may take). */
struct placer_study_estimate {
  size_t variants, workloads, steps, conditions;
  unsigned repeats, warmup;
  size_t cell_runs;  /* variants x workloads x conditions x repeats */
  size_t other_runs; /* warm-up runs, the neighbours' solo rates, the hardware baseline */
  size_t passes;     /* one variant's pass each */
  bool live;         /* one local cluster (rebuild: never): its build and prefill once */
  double seconds;
};
/* SOLO_SHARED: how many variants take the first one's solo rates (they
 * place the neighbours as it does: bench's plans say; 0 when they are not
 * made yet, an estimate at most). */
void placer_study_estimate(const struct placer_study *s, unsigned repeats, size_t solo_shared,
                           struct placer_study_estimate *out);
/* "136 runs of 1+2 s: 128 cells (...) x 4 repeats, and 8 more (...): about 9m34s" */
void placer_study_estimate_describe(const struct placer_study *s, const struct placer_study_estimate *e, char *buf,
                                    size_t len);
/* A fio run's nominal seconds (ramp, window, a second to start and read
 * it), and a pass's (a switch of placement, or a cluster's build). */
double placer_study_nominal_run_s(const struct placer_study *s);
double placer_study_pass_overhead_s(const struct placer_study *s);

/* A placement sweep (quota, cores, weight): its variants are generated. */
bool placer_study_sweeps_placement(const struct placer_study *s);
const char *placer_study_sweep_parameter_name(int parameter);

const char *placer_study_cluster_name(enum placer_study_cluster_type t);
const char *placer_study_recovery_action_name(int action);

#endif
