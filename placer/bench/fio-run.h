/* One fio run of a study, whatever it is for: the prefill, a measured cell,
 * the hardware baseline's prefill and runs, a recovery run.  The only place
 * fio's command line is made (bench_fio_run_argv, pure), its output and log
 * named, fio started (placed in the pass's fio group, or for the hardware
 * baseline not placed), waited for within its limit, and its output read
 * back through the workload kind's parser.  What fio does (the job) comes
 * from a workload kind (bench/workload.h), where it does it from the target
 * (bench/target.h). */
#ifndef PLACER_BENCH_FIO_RUN_H
#define PLACER_BENCH_FIO_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/study.h"
#include "lib/error.h"
#include "results/workload-result.h"

struct bench_target_ops;
struct bench_workload_ops;

struct bench_fio_run {
  /* the job: what fio does (a workload kind's job or prepare) */
  const char *name; /* --name: the workload's ("4k-randwrite"), "prefill" */
  char rw[24];      /* --rw */
  char bs[24];      /* --bs: "4096", "4M" */
  unsigned iodepth, numjobs;
  unsigned rate_iops;  /* --rate_iops= per job (0: none): a response curve's load step */
  unsigned runtime_s;  /* --time_based --runtime=; 0: not time based (the region written once) */
  unsigned ramp_s;     /* --ramp_time= (0: none: its reset of the figures would break a timeline) */
  unsigned status_s;   /* --status-interval=: a JSON document every STATUS_S seconds (0: none) */
  uint64_t size_bytes; /* --size=: the region */
  bool study_options;  /* the study's workloads.fio_options at the end (not for a prefill) */
  char **args;         /* more of the kind's own options ("--nrfiles=1000"), before the study's; owned */
  /* A kind whose run is several fio jobs (metadata: creates, then stats,
   * then deletes): their options, each job begun by its own "--name=",
   * after everything else; owned.  Then every option before them is
   * global: fio's command line opens with "--name=global" (a job file's
   * [global] section), and NAME only names the run in messages. */
  char **jobs;
  /* On a target on a file (file, cephfs: BENCH_TARGET_LOCAL_PATH or
   * MOUNT_PATH in the kind's target_needs): the kind's own engine
   * (filecreate; NULL: the target's, libaio), and its work in a directory
   * (--directory) rather than on a file: the file's path (target file), or
   * the mount itself (cephfs: the kind names its files below
   * workloads.path there, and fio makes the directories on its way). */
  const char *engine;
  bool in_directory;
  /* where: the study's target, or for the hardware baseline target file on its file */
  const struct bench_target_ops *target;
  char *filename;        /* targets on a file (file, cephfs, the baseline): the file or device; owned */
  bool direct;           /* O_DIRECT */
  const char *ceph_conf; /* rados: fio's engine reads no CEPH_CONF, it wants --conf */
  /* its files (bench_fio_run_files): --output, the same relative to the results directory, fio's own output */
  char *output, *rel, *log;
  /* in messages: "fio 4k-randwrite", "prefill" */
  char what[96];
  /* while it runs */
  pid_t pid;
  bool hung; /* it ran past its limit and was killed */
};

/* fio's argv for RUN, with STUDY's fio_options when the run takes them.
 * Pure: tests compare it. */
int bench_fio_run_argv(const struct placer_study *study, const struct bench_fio_run *run, char ***argv,
                       struct placer_error **err);
/* RUN's files in results directory OUT: DIR/STEM.json ("fio" or "logs") for
 * its output, and logs/STEM.log (logs/fio-STEM.log for one in fio/) for
 * what fio prints. */
int bench_fio_run_files(struct bench_fio_run *run, const char *out, const char *dir, const char *stem,
                        struct placer_error **err);
void bench_fio_run_clear(struct bench_fio_run *run);
#define cleanup_fio_run __attribute__((cleanup(bench_fio_run_clear)))

/* The groups whose peak RSS (the largest over their processes, which fork:
 * fio one per job, stress-ng one per worker) and memory locality are
 * sampled while fio runs. */
struct bench_hwm_watch {
  const char *instance;
  const char *group;
  uint64_t peak;
  double local_mem_share; /* the last sample while it ran (numa_maps), NAN: none */
};

#endif
