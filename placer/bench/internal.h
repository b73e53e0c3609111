/* Internal to placer bench's orchestration (run.c, pass.c, setup.c,
 * baseline.c, output.c, resume.c, recovery-run.c, files.c): the state of a study being run. */
#ifndef PLACER_BENCH_INTERNAL_H
#define PLACER_BENCH_INTERNAL_H

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "bench/ceph-counters-read.h"
#include "bench/fio-run.h"
#include "bench/run.h"

#define TOP_THREADS 3
#define BENCH_N_CSV 8 /* runs, roles, threads, cores, placement, solo, recovery, ceph-counters */

struct condition {
  char *name;
  unsigned intensity; /* per neighbour instance; 0: storage alone */
  double level;       /* total intensity: what the report and a sweep show */
};

struct variant {
  const struct placer_study_variant *spec;
  char *profile_path;
  char **sets; /* the study's changes of the profile, resolved to "ROLE.KEY=VALUE" (NULL: none) */
  struct placer_profile *profile;
  struct placer_plan *plan;
  const struct placer_instance *fio;
  char *fio_group;
  char *fio_cpus, *fio_mems;
  bool solo_of_first; /* it takes over the first variant's solo rates (setup.c) */
};

/* A file the study writes outside Ceph (files.c). */
struct bench_file {
  char *path;   /* absolute; NULL: none (or, before the results directory is made, one inside it) */
  bool created; /* placer's: absent when the study started, or in the results directory; removed at its end */
};

struct bench {
  const struct placer_study *study;
  const struct placer_bench_options *opt;
  const char *prefix;
  char *out;
  char *exe;
  char *study_file; /* a study made in memory (the sized default): OUT/study.yaml, what --resume reads */
  char *topology_xml;
  struct placer_cgroup *cg;
  struct variant *vars;
  size_t n_vars;
  size_t n_workloads;
  struct placer_bench_workload *wls; /* the cells' workloads, from the study's kind (bench/workload.h) */
  struct condition *conds;
  size_t n_conds;
  struct placer_bench_results *results;
  json_t *baseline;
  struct bench_file target, hw; /* workloads.path (target file), hardware_baseline.path */
  char *vm_kernel, *vm_initrd;
  FILE *runs_csv, *roles_csv, *threads_csv, *cores_csv, *placement_csv, *solo_csv;
  FILE *recovery_csv; /* NULL: the study has no recovery runs */
  FILE *ceph_csv;     /* ceph-counters.csv; NULL: the study has no cluster of placer's */
  /* The CSV files hold whole rows of what summary.json holds: their sizes
   * when it was last written (rows after that are cut when it cannot be,
   * and by --resume), and the first row that could not be written since. */
  off_t csv_committed[BENCH_N_CSV];
  const char *csv_failed; /* its file's name ("runs.csv"), or NULL */
  int csv_errno;
  json_t *resume_csv_bytes; /* --resume: summary.json's csv_bytes */
  /* progress */
  long long t0_ms;
  size_t runs_total, runs_started;
  size_t passes_total, passes_done;
  double run_wall_sum;
  size_t run_wall_n;
  double overhead_sum;
  size_t overhead_n;
  double pass_run_wall;
  bool line_open;   /* a progress event was sent and not yet closed */
  bool resumed;     /* --resume: the results so far came from summary.json */
  char *stopped_by; /* why the study stopped early (an error's message), or NULL */
  /* live re-placement */
  size_t switches;        /* placement switches done */
  size_t threads_checked; /* daemon threads found where the plan says, over all switches */
  /* the variant whose IRQs are in place (irqs.c); NULL: none */
  const struct variant *irqs_of;
};

/* One variant in one pass (a warm-up pass, or a repeat). */
struct pass {
  struct variant *v;
  size_t vi;
  int repeat; /* < 0: a warm-up pass */
  char tag[160];
  struct placer_bench_cluster cluster;
  bool cluster_up;
  struct placer_bench_cluster_env cenv;
  char *cluster_log;
  bool fio_placement_recorded, neighbour_placement_recorded;
  size_t threads_checked; /* live: daemon threads checked after the switch */
};

static inline long long bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* analysis of the repeats so far (dynamic repeats): true when every main
 * metric CI of a change against the baseline is narrower than the study's
 * ci_width, or DONE has reached repeats_max; sets the results' stop reason. */
bool bench_repeats_enough(struct bench *b, size_t done);

/* setup.c: check and load everything, create the results directory
 * and its files; free it all again; the --dry-run description.  Whether
 * role R is of CLASS ("storage": the sweep's roles, else every ceph-osd
 * role, no Ceph: fio's; "neighbours"; "clients": neither Ceph nor storage). */
bool bench_role_in_class(const struct placer_study *s, const struct placer_role_spec *r, const char *cls);
int bench_setup(struct bench *b, struct placer_error **err);
void bench_free(struct bench *b);

/* storage-cpus.c: the CPUs variant V's plan gives its storage roles (the
 * x of its response curve in a CPU split): its storage instances' CPUs
 * when every one is pinned, their roles' quotas together when every one
 * has one, the less of the two; NAN when neither (unconstrained) or when
 * it is the whole node. */
double bench_storage_cpus(const struct bench *b, const struct variant *v);

/* files.c: the target file and the baseline's file, checked against the
 * write rules before anything runs (OUT_DIR: the results directory, NULL
 * when not known (--dry-run); EXISTS: it holds a study already, --resume),
 * never one of the results directory's own files, then placed in the
 * results directory once it is made, and removed at the end when placer
 * made them. */
int bench_files_check(struct bench *b, const char *out_dir, bool exists, struct placer_error **err);
int bench_files_place(struct bench *b, struct placer_error **err);
void bench_files_remove(struct bench *b);
/* A results directory (--resume) holds no symbolic link at its top or in
 * the directories whose files placer writes (fio/, logs/, plans/,
 * report/), and its own files and directories are of their types: else
 * one line, exit 2, before anything is written. */
int bench_results_dir_check(const char *dir, struct placer_error **err);
/* PATH in a results directory, created (or emptied) as a regular file
 * without following a link, for a program that writes it (fio --output). */
int bench_file_fresh(const char *path, struct placer_error **err);
/* PATH in a results directory opened for writing (APPEND: at its end,
 * else emptied) without following a link; NULL with ERR. */
FILE *bench_file_open(const char *path, bool append, struct placer_error **err);

/* resume.c: the runs a resumed study already has (summary.json), and what
 * is left to do. */
int bench_resume_results(struct bench *b, struct placer_error **err);
bool bench_run_done(const struct bench *b, size_t v, size_t c, size_t w, size_t repeat);
bool bench_pass_done(const struct bench *b, size_t v, int repeat);

/* pass.c, for run.c and recovery-run.c: fio started placed in the pass's fio
 * group; every thread of daemon D runs on the CPUs and nodes of its plan
 * instance. */
int bench_start_fio(struct bench *b, struct pass *p, char **argv, const char *output, const char *log, pid_t *pid,
                    struct placer_error **err);
int bench_check_daemon_threads(struct pass *p, const struct placer_bench_daemon *d, const char *what,
                               struct placer_error **err);

/* fio-run.c: where RUN runs (the study's target; P NULL: before a cluster
 * is up), its start placed in P's fio group (P NULL: not placed, the
 * hardware baseline), the wait for it within LIMIT_S (sampling WATCH; a
 * stop, its failure or a hang is the error, WHO first: "pinned-r1"), and
 * its output through KIND's parser (a job's error or no I/O refused). */
void bench_fio_run_target(const struct bench *b, const struct pass *p, struct bench_fio_run *run);
int bench_fio_run_start(struct bench *b, struct pass *p, struct bench_fio_run *run, struct placer_error **err);
int bench_fio_run_wait(struct bench *b, struct bench_fio_run *run, const char *who, unsigned limit_s,
                       struct bench_hwm_watch *watch, size_t n_watch, struct placer_error **err);
struct bench_workload_ops;
int bench_fio_run_result(const struct bench *b, const struct bench_fio_run *run, const char *who,
                         const struct bench_workload_ops *kind, struct placer_bench_result *out,
                         struct placer_error **err);

/* recovery-run.c: the pass's recovery run (the study's `recovery`), and
 * whether a resumed study has it already. */
int bench_recovery_run(struct bench *b, struct pass *p, struct placer_error **err);
bool bench_recovery_done(const struct bench *b, size_t v, size_t repeat);

/* ceph-counters-run.c: Ceph's counters around a measured run: START reads
 * the pass's OSDs and MDS (a local cluster's; nothing elsewhere), FINISH
 * reads them again and gives RUN the deltas (a daemon that did not answer,
 * missing).  -1 only when out of memory. */
struct bench_ceph_watch {
  bool watching;
  size_t n;
  struct placer_bench_ceph_daemon *daemons;
  struct placer_bench_ceph_snapshot before;
};
int bench_ceph_watch_start(const struct pass *p, struct bench_ceph_watch *w, struct placer_error **err);
int bench_ceph_watch_finish(struct bench_ceph_watch *w, struct placer_bench_run *run, struct placer_error **err);
void bench_ceph_watch_free(struct bench_ceph_watch *w);

/* baseline.c: the hardware baseline's runs. */
int bench_hardware_baseline(struct bench *b, struct placer_error **err);

/* output.c: the progress line, the CSV files, summary.json. */
void bench_progress(struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bench_progress_done(struct bench *b);
/* The runs of variant V's pass REPEAT (-1: a warm-up pass), as the progress line counts them:
 * no solo runs for one that takes over the first variant's. */
size_t bench_pass_runs(const struct bench *b, size_t v, int repeat);
/* N runs of the total will not run here (measured before --resume, or a solo rate taken over
 * from the first variant): the progress line's total shrinks by N. */
void bench_runs_skipped(struct bench *b, size_t n);
/* A failure that does not stop the study, to the caller's notify. */
void bench_warn(struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A run took from START until now: for the estimate of what is left. */
void bench_note_run_wall(struct bench *b, long long start);
char *bench_path_join(const char *a, const char *b);
void bench_csv_field(FILE *f, const char *s, bool last);
void bench_csv_num(FILE *f, double x, bool last);
/* The end of a group of rows in CSV file F: flushed; a write that failed
 * (a full disk) is remembered, and bench_write_summary then fails with it. */
void bench_csv_flush(struct bench *b, FILE *f);
/* The CSV file I of BENCH_N_CSV (NULL when it is not open) and its name. */
FILE **bench_csv_file(struct bench *b, size_t i, const char **name);
/* summary.json rewritten atomically (after every run) with the CSV rows
 * written since the last time: both, or neither (the rows are cut again
 * and summary.json stays as it was; the error names the file that could
 * not be written). */
int bench_write_summary(struct bench *b, struct placer_error **err);
/* *ERR from reading fio's output PATH in the results directory: when the
 * file system there is full, it says that fio could not write it (fio
 * exits 0 with an empty or cut file). */
void bench_explain_unwritten(const struct bench *b, const char *path, struct placer_error **err);
/* report.txt, atomically. */
int bench_write_report_txt(struct bench *b, const char *text, struct placer_error **err);
/* placement.csv: where a process runs now (/proc/PID/status). */
void bench_placement_row(struct bench *b, const struct pass *p, const char *instance, const char *role,
                         const char *what, pid_t pid, const char *group);
/* runs.csv, roles.csv, threads.csv and cores.csv rows of a finished run. */
void bench_csv_run_rows(struct bench *b, const struct pass *p, size_t c, size_t w, const struct placer_bench_run *run);

/* irqs.c: before anything runs, no variant steers IRQs while irqbalance
 * runs (apply refuses then); V's IRQs in place (the previous variant's set
 * back first); all of them set back. */
int bench_irqs_check(const struct bench *b, struct placer_error **err);
int bench_irqs_place(struct bench *b, struct variant *v, struct placer_error **err);
int bench_irqs_reset(struct bench *b, struct placer_error **err);

#endif
