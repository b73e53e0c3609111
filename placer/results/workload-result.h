/* What a workload's run measured, whatever the workload: its operations'
 * figures (a block workload's reads and writes, a metadata workload's creates,
 * stats and deletes), the figure its cells are judged on and which way is
 * better.  A workload kind's parser (bench/workload-*.c) fills a result; the
 * results, the reports and summary.json read nothing else of a run's I/O. */
#ifndef PLACER_BENCH_WORKLOAD_RESULT_H
#define PLACER_BENCH_WORKLOAD_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/string-list.h"
#include "results/recovery.h" /* struct placer_bench_io_point */

/* One operation of a run, summed over its jobs.  summary.json holds it under
 * its name ("read": { "iops": ..., ... }): the keys are these fields'. */
struct placer_bench_op {
  char name[24];       /* "read", "write"; "create", "stat", "delete" */
  double iops;         /* operations per second; NAN: unknown */
  uint64_t bw_bytes;   /* bytes per second (0: the operation moves no data) */
  uint64_t io_bytes;   /* bytes moved */
  uint64_t total_ios;  /* operations completed */
  uint64_t runtime_ms; /* the longest job's */
  double clat_mean_ns; /* NAN when none completed */
  /* Completion latency percentiles; NAN when not reported.  Summed over
   * jobs they are the worst job's (fio cannot merge histograms). */
  double clat_p50_ns, clat_p99_ns, clat_p999_ns;
};

/* What a kind's parser gives for one run: the operations (in the kind's
 * order), the jobs that failed, and for a run that follows the I/O over time
 * (recovery: fio's status every second) the I/Os done by each moment. */
struct placer_bench_result {
  struct placer_bench_op *ops;
  size_t n_ops;
  unsigned failed_jobs;
  struct placer_bench_io_point *timeline;
  size_t n_timeline;
};

/* OP appended (copied): 0, or -1 out of memory (the result unchanged). */
int placer_bench_result_add_op(struct placer_bench_result *r, const struct placer_bench_op *op,
                               struct placer_error **err);
/* An operation NAME with nothing measured (every figure NAN or 0). */
struct placer_bench_op placer_bench_op_none(const char *name);
/* The operations' completed I/Os together. */
uint64_t placer_bench_result_total_ios(const struct placer_bench_op *ops, size_t n);
/* OPS[i] named NAME, or NULL. */
const struct placer_bench_op *placer_bench_op_find(const struct placer_bench_op *ops, size_t n, const char *name);
void placer_bench_result_free(struct placer_bench_result *r);

/* The figure a workload's cells are judged on: operations per second or bytes
 * per second, summed over its main operations.  The names are a cell's
 * main_metric in summary.json. */
enum placer_bench_metric {
  PLACER_BENCH_METRIC_IOPS,
  PLACER_BENCH_METRIC_BW_BYTES,
  /* The main operations one after another (a metadata run's creates, then
   * stats, then deletes): all their operations over all their time, sum of
   * total_ios / sum of total_ios / iops. */
  PLACER_BENCH_METRIC_OPS_PER_S,
};
extern const char *const placer_bench_metric_names[];

#define PLACER_BENCH_MAX_OPS 8

/* What a workload is, as summary.json's "kind" names it (bench/workload.h's
 * cells kinds); its rule makes its operations (placer_bench_workload_rule). */
enum placer_bench_workload_kind {
  PLACER_BENCH_WORKLOAD_BLOCK,    /* fio's block I/O: reads and writes */
  PLACER_BENCH_WORKLOAD_METADATA, /* files created, stat'ed and deleted on CephFS */
};
extern const char *const placer_bench_workload_kind_names[]; /* "block", "metadata", NULL */

struct placer_bench_workload {
  char *name;                /* unique: "4k-randwrite" */
  int kind;                  /* enum placer_bench_workload_kind */
  char *pattern;             /* fio rw=: read, write, randread, randwrite, rw, randrw, ...; metadata: "" */
  uint64_t block_size_bytes; /* a block workload's block size */
  /* A metadata workload's tree: files per run in all, directories, fio jobs
   * (clients) at once; 0 for a block workload. */
  uint64_t files;
  unsigned directories, jobs;
  /* How its runs are judged, from its kind.  A workload with no ops (as
   * summary.json has them: every workload there is a block workload) gets
   * the block workload's (placer_bench_workload_block). */
  struct placer_string_list ops; /* every operation a run of it has, in order (at most PLACER_BENCH_MAX_OPS) */
  unsigned main_ops;             /* bit i: ops[i] counts in the main metric, and its p99 in the latency */
  int metric;                    /* enum placer_bench_metric */
  bool lower_is_better;          /* the main metric is a cost (a latency): a rise is the regression */
  /* A step of a response curve (the study's workloads.load): the curve it
   * belongs to (the workload without its step, "4k-randwrite"; NULL: no
   * load steps), what the step sets ("iodepth", "numjobs", "rate_iops") and
   * to what.  Its name is the curve's with the step: "4k-randwrite@iodepth16". */
  char *curve;
  char load_name[16];
  double load;
};

/* The block workload's (fio's rw= and bs=): operations read and write; the
 * main ones those of its pattern's direction (reads for read and randread,
 * writes for write, randwrite and trimwrite, both for a mix); bytes per
 * second for blocks of 64 KiB and more, else operations per second; higher is
 * better.  Fills W's ops, main_ops, metric and direction: 0, or -1 out of
 * memory. */
extern const char *const placer_bench_block_ops[]; /* "read", "write", NULL */
int placer_bench_workload_block(struct placer_bench_workload *w, struct placer_error **err);
/* The metadata workload's: operations create, stat and delete, one after
 * another, all of them main; its metric their operations per second over
 * their time together (PLACER_BENCH_METRIC_OPS_PER_S); higher is better. */
extern const char *const placer_bench_metadata_ops[]; /* "create", "stat", "delete", NULL */
int placer_bench_workload_metadata(struct placer_bench_workload *w, struct placer_error **err);
/* W's kind's rule (block or metadata): 0, or -1 out of memory. */
int placer_bench_workload_rule(struct placer_bench_workload *w, struct placer_error **err);
/* A copy of W (its strings and lists): 0, or -1 out of memory. */
int placer_bench_workload_copy(struct placer_bench_workload *out, const struct placer_bench_workload *w,
                               struct placer_error **err);
void placer_bench_workload_clear(struct placer_bench_workload *w);

enum placer_bench_direction { PLACER_BENCH_READ, PLACER_BENCH_WRITE, PLACER_BENCH_MIXED };
/* read/randread -> READ; write/randwrite/trimwrite -> WRITE; anything else MIXED. */
enum placer_bench_direction placer_bench_pattern_direction(const char *pattern);
/* The main metric is bytes per second (shown in MB/s), not operations per second. */
bool placer_bench_workload_uses_bandwidth(const struct placer_bench_workload *w);
/* The main metric's unit as reports show it: "IOPS", "MB/s" (10^6 bytes/s),
 * "ops/s" (a metadata run's operations one after another). */
const char *placer_bench_metric_unit(const struct placer_bench_workload *w);

/* A run's main metric over OPS (NAN when a main operation is missing, or,
 * for operations one after another, one that has no rate), its
 * latency (the worst p99 of the main operations) and the operation whose
 * percentiles a latency plot shows (the last main one: writes for a mix). */
double placer_bench_ops_main_metric(const struct placer_bench_workload *w, const struct placer_bench_op *ops, size_t n);
double placer_bench_ops_p99_ns(const struct placer_bench_workload *w, const struct placer_bench_op *ops, size_t n);
const struct placer_bench_op *placer_bench_ops_latency_op(const struct placer_bench_workload *w,
                                                          const struct placer_bench_op *ops, size_t n);

#endif
