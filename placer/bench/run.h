/* The orchestration of `placer bench`: run a study (study.h) on real Ceph and
 * fio, variant after variant and repeat after repeat, and fill the results
 * (results.h).  run.c holds the loop (pass.c what its runs and the
 * recovery runs share), cluster.c the cluster (local / existing / none),
 * neighbour*.c the colocated load (one file per kind, neighbour.h), fio-run.c fio's runs, spawn.c
 * child processes that a Ctrl-C can stop.  The pure parts (fio argv, stress-ng and guest output
 * parsers) are unit-tested; the rest is exercised by the integration tests. */
#ifndef PLACER_BENCH_RUN_H
#define PLACER_BENCH_RUN_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "results/results.h"
#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "lib/stop.h"
#include "launch.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "bench/study.h"

#define PLACER_BENCH_DEFAULT_PREFIX "placer-bench"
#define PLACER_BENCH_EXIT_INTERRUPTED PLACER_EXIT_INTERRUPTED

/* Raised by SIGINT/SIGTERM/SIGHUP (placer_bench_catch_signals): the loop
 * stops after the current fio run, tears everything down and keeps what it
 * has. */
#define placer_bench_stop placer_stop_requested /* lib/stop.h: one flag for every wait of placer */
void placer_bench_catch_signals(void);

/* What bench has to say while it runs.  The library never prints: it hands
 * each message to the caller's notify (the CLI prints them on stderr). */
enum placer_bench_event {
  PLACER_BENCH_PROGRESS,      /* "[3/12] what runs now | 1m02s elapsed, ~4m left" */
  PLACER_BENCH_PROGRESS_DONE, /* no more progress: a line left open can be cleared (text "") */
  PLACER_BENCH_WARNING,       /* a failure that does not stop the study ("teardown of x-r0: ...") */
};

struct placer_bench_options {
  const char *out_dir;      /* created; must not exist or be empty (unless resume) */
  bool resume;              /* out_dir holds an unfinished study: run what it lacks */
  const char *topology_xml; /* NULL: this machine */
  const char *prefix;       /* cgroup prefix, NULL: "placer-bench" */
  bool progress;            /* send PLACER_BENCH_PROGRESS events */
  /* May be NULL: nothing is told. */
  void (*notify)(void *ctx, enum placer_bench_event event, const char *text);
  void *notify_ctx;
};

/* Run STUDY.  On return (also after an error or a Ctrl-C) the results
 * directory holds what was measured: fio JSON, CSV samples, summary.json,
 * report.txt; *report (may be NULL) gets the text of report.txt, the report
 * of the directory (placer_bench_report_dir), for the caller to print: NULL
 * when the study was refused before the directory was made, "" when no
 * report could be made of it (a warning says why); *results (may be NULL) the results
 * so far and *extra the parts of summary.json the results struct does not
 * hold (hardware baseline, study).  Returns 0, -1 with err, or
 * PLACER_BENCH_EXIT_INTERRUPTED. */
int placer_bench_run_study(const struct placer_study *study, const struct placer_bench_options *opt, char **report,
                           struct placer_bench_results **results, json_t **extra, struct placer_error **err);

/* The study of results directory DIR (for --resume), with the repeats,
 * warm-up and runtime it was run with. */
int placer_bench_resume_study(const char *dir, struct placer_study **out, struct placer_error **err);

/* What would run, in order, with the time it should take (--dry-run). */
int placer_bench_describe(const struct placer_study *study, const struct placer_bench_options *opt, FILE *out,
                          struct placer_error **err);

/* ------------------------------------------------------------ child processes */

/* Start ARGV in a session of its own (a Ctrl-C on the terminal reaches only
 * placer, which then stops it), stdin /dev/null, stdout and stderr appended
 * to LOG (NULL: /dev/null), ENV ("K=V") on top of placer's environment. */
int placer_bench_spawn(char *const *argv, char *const *env, const char *log, pid_t *pid, struct placer_error **err);
/* Wait for a child started by placer_bench_spawn or the exec backend.
 * TIMEOUT_MS 0: none.  With HONOUR_STOP, a raised stop flag (or the timeout)
 * sends SIGTERM to its process group, SIGKILL 10 s later; *stopped says so.
 * *status: the exit code, or 128 + signal. */
int placer_bench_wait(pid_t pid, unsigned timeout_ms, bool honour_stop, int *status, bool *stopped);
/* Spawn and wait; fails (naming ARGV[0] and LOG) when the exit code is not 0. */
int placer_bench_run_command(char *const *argv, char *const *env, const char *log, unsigned timeout_s, bool honour_stop,
                             struct placer_error **err);
/* Sleep, unless the stop flag rises: false when it did. */
bool placer_bench_sleep_ms(unsigned ms);

/* ------------------------------------------------------------ neighbours: parsers */

/* stress-ng --metrics-brief output: the sum over stressors of "bogo ops/s
 * (real time)".  -1 when there is no metrics line. */
int placer_bench_parse_stress_ng(const char *text, double *rate);
/* The guest's console (libexec/vm/init work mode): the last
 * "PLACER-WORK units=N elapsed_ms=M" line; *started when
 * PLACER-WORK-START was seen.  -1 when there is no progress line yet. */
int placer_bench_parse_guest_progress(const char *text, bool *started, double *units, double *elapsed_ms);

/* ------------------------------------------------------------ neighbours: processes */

struct bench_neighbour_ops;

/* One running neighbour process (stress-ng, its container, or a guest) in
 * one instance of the neighbour's role. */
struct placer_bench_neighbour_proc {
  const struct placer_study_neighbour *spec;
  const struct placer_instance *inst;
  const struct bench_neighbour_ops *kind; /* how it runs (bench/neighbour.h) */
  char *group, *log, *console, *container, *conf;
  char **argv;
  struct placer_launch_record rec;
  bool running;
  double units0, ms0; /* vm: progress at the start of the window */
};

struct placer_bench_neighbours {
  struct placer_bench_neighbour_proc *procs;
  size_t n;
};

/* Where the neighbours run and log. */
struct placer_bench_neighbour_env {
  struct placer_cgroup *cg;
  const char *prefix; /* cgroup prefix */
  const struct placer_plan *plan;
  const char *log_dir;
  const char *tag; /* in log names: "pinned-r0-4k-randwrite" */
  const char *vm_kernel, *vm_initrd;
  unsigned max_seconds;                          /* a safety bound: stress-ng --timeout, the guest's seconds */
  const char *exe, *topology_xml, *profile_path; /* for `placer exec` */
  char *const *sets;                             /* its --set changes of the profile */
};

/* Start every neighbour of STUDY at INTENSITY (stress-ng workers or guest
 * vCPUs per instance) and return once each is working (a guest: booted and
 * reporting progress).  On failure what started is stopped again. */
int placer_bench_neighbours_start(const struct placer_study *study, const struct placer_bench_neighbour_env *env,
                                  unsigned intensity, struct placer_bench_neighbours *out, struct placer_error **err);
/* The start of the measured window (guests: their progress now). */
int placer_bench_neighbours_mark(struct placer_bench_neighbours *nb, struct placer_error **err);
/* Stop them all; *rate: the sum of their work rates (NAN when one has
 * none).  Always stops everything, even after an error. */
int placer_bench_neighbours_stop(struct placer_bench_neighbours *nb, struct placer_cgroup *cg, double *rate,
                                 struct placer_error **err);

/* ------------------------------------------------------------ the cluster */

struct placer_bench_daemon {
  char *name;                         /* "osd.0" (Ceph's name) */
  const struct placer_instance *inst; /* the plan instance that places it */
  char *group;
  pid_t pid;
};

/* A cluster in force for one variant and repeat. */
struct placer_bench_cluster {
  enum placer_study_cluster_type type;
  char *dir;      /* local: the cluster's directory */
  char *conf;     /* ceph.conf for fio */
  char **fio_env; /* CEPH_CONF=..., CEPH_ARGS=--keyring=... */
  char *mount;    /* cephfs: the ceph-fuse mount point */
  struct placer_launch_record fuse;
  bool fuse_running;
  struct placer_bench_daemon *daemons;
  size_t n_daemons;
  char **devices;    /* diskstats names of the OSDs' (or the file's) devices; NULL: unknown */
  char *apply_state; /* existing: the state directory of placer apply */
  bool applied;
};

struct placer_bench_cluster_env {
  struct placer_cgroup *cg;
  const char *prefix;
  const char *exe; /* this placer, for the launcher prefix */
  const char *topology_xml;
  const char *profile_path;
  char *const *sets; /* --set changes of the profile for `placer exec` */
  const struct placer_plan *plan;
  const struct placer_study_variant *variant;
  const char *work_dir;                   /* local: the cluster goes in WORK_DIR/cluster */
  const char *log;                        /* the cluster script's output */
  const struct placer_instance *fio_inst; /* ceph-fuse runs in its group */
  const char *target_path;                /* target file: the file or device, absolute */
};

/* The Ceph daemons a local cluster of STUDY has, each with the instance of
 * PLAN that places it; fails naming the daemons the profile does not place. */
int placer_bench_local_daemons(const struct placer_study *study, const struct placer_plan *plan, const char *variant,
                               char ***names, struct placer_error **err);
int placer_bench_cluster_up(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                            struct placer_bench_cluster *c, struct placer_error **err);
/* Stop the cluster (local), undo the placement (existing); always clears C. */
int placer_bench_cluster_down(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                              struct placer_bench_cluster *c, struct placer_error **err);

/* Faults in a local cluster (recovery runs), through libexec/ceph-cluster.sh:
 * daemon NAME killed (SIGKILL, as a crash; its record's pid becomes 0),
 * started again through ENV's launcher (`placer exec` with ENV's profile and
 * changes: placed before its first instruction; *PID, also in C's record,
 * checked to be in its group), an OSD marked out or in; and the PG states
 * followed by a child process (*PID) writing LOG until they have left
 * active+clean and come back (exit 0) or TIMEOUT_S has passed (exit 4). */
int placer_bench_cluster_kill(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                              const char *name, struct placer_error **err);
int placer_bench_cluster_start(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                               const char *name, pid_t *pid, struct placer_error **err);
int placer_bench_cluster_osd_inout(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                                   unsigned id, bool in, struct placer_error **err);
int placer_bench_cluster_watch_recovery(const struct placer_bench_cluster *c, unsigned timeout_s, const char *log,
                                        pid_t *pid, struct placer_error **err);

/* ------------------------------------------------------------ starting placed processes */

/* `EXE exec --prefix PREFIX [--topology T] PROFILE INSTANCE -- COMMAND...`:
 * how bench starts a process that forks (fio, stress-ng) so that it and its
 * children are accounted from the first instruction. */
int placer_bench_exec_argv(const char *exe, const char *prefix, const char *topology, const char *profile,
                           char *const *sets, const char *instance, char *const *command, char ***out);

/* How bench starts its own processes placed. */
struct placer_bench_exec {
  const char *exe, *prefix, *topology_xml, *profile_path;
  char *const *sets; /* --set ROLE.KEY=VALUE for the profile (NULL: none) */
};
/* Start COMMAND as `placer exec ... INSTANCE -- COMMAND` from placer itself
 * (so that placer exec plans on the same CPUs as bench, not inside a group),
 * in a session of its own, stdout and stderr to LOG, ENV added; REC is what
 * the exec backend's is_running and stop understand. */
int placer_bench_start_placed(const struct placer_bench_exec *x, const char *instance, const char *group,
                              char *const *command, char *const *env, const char *log, struct placer_launch_record *rec,
                              struct placer_error **err);

/* ------------------------------------------------------------ Ceph daemons */

/* libexec/ceph-cluster.sh: $PLACER_CEPH_CLUSTER_SCRIPT, next to the executable
 * (../libexec, PREFIX/libexec/placer), else the source tree's
 * (placer_data_file).  Caller frees; NULL when none exists. */
char *placer_bench_cluster_script(void);
/* libexec/vm/build-initramfs.sh, the same way ($PLACER_VM_BUILD_SCRIPT). */
char *placer_bench_vm_build_script(void);

/* The block device (a /proc/diskstats name) holding PATH: the device itself
 * for a block device, else the one its filesystem is on. */
int placer_bench_device_of(const char *path, char **name, struct placer_error **err);

#endif
