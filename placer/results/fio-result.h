/* Reading fio's --output-format=json: per job and summed over the jobs. */
#ifndef PLACER_FIO_RESULT_H
#define PLACER_FIO_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* One direction (read or write) of a job, or of the sum over jobs. */
struct placer_fio_io {
  double iops;
  uint64_t bw_bytes;   /* bytes per second */
  uint64_t io_bytes;   /* bytes transferred */
  uint64_t total_ios;  /* completed I/Os */
  uint64_t runtime_ms; /* sum: the longest job's */
  double clat_mean_ns; /* NAN when no I/O; sum: weighted by total_ios */
  /* Completion latency percentiles (clat_ns "percentile" keys "50.000000",
   * "99.000000", "99.900000"; lat_ns when fio ran with lat_percentiles=1).
   * NAN when fio did not report them (no I/O, or percentiles turned off).
   * The sum over jobs cannot merge histograms: it holds the worst job's
   * percentile, an upper bound. Run fio with group_reporting for exact ones. */
  double clat_p50_ns, clat_p99_ns, clat_p999_ns;
};

struct placer_fio_job {
  char *name; /* "jobname" */
  char *rw;   /* job (else global) option "rw", or NULL */
  char *bs;   /* job (else global) option "bs", or NULL */
  int error;  /* errno-style code fio reports for the job; 0 = none */
  uint64_t job_runtime_ms;
  double usr_cpu, sys_cpu; /* percent of one CPU used by the job's own thread */
  struct placer_fio_io read, write;
};

struct placer_fio_result {
  char *fio_version; /* "fio-3.33" */
  int64_t timestamp; /* seconds since the epoch, when fio finished */
  size_t n_jobs;
  struct placer_fio_job *jobs;
  /* Summed over the jobs: iops, bandwidth, bytes, I/Os and CPU add up; runtime
   * and latency percentiles take the maximum; name is "total". */
  struct placer_fio_job total;
  unsigned n_failed_jobs; /* jobs with error != 0; total.error is the first such code */
};

/* Parse fio's JSON output. Text before the first line starting with '{' (fio
 * sometimes writes notes on stdout) is skipped. Errors name the key. */
int placer_fio_result_parse(const char *text, struct placer_fio_result **out, struct placer_error **err);
/* Read and parse a file; errors are prefixed with the path. */
int placer_fio_result_load(const char *path, struct placer_fio_result **out, struct placer_error **err);
void placer_fio_result_free(struct placer_fio_result *r);

#endif
