/* Recovery as a workload: what one run measured while an OSD failed and came
 * back (times to detection and to active+clean, the client's IOPS before and
 * during recovery, each instance's RSS before and at its peak), kept per
 * variant and repeat, written to and read from summary.json, and reported.
 * Pure: the measuring is in recovery-run.c. */
#ifndef PLACER_BENCH_RECOVERY_H
#define PLACER_BENCH_RECOVERY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

struct placer_bench_recovery_role {
  char *instance;            /* "osd.1" */
  char *role;                /* "osd" */
  uint64_t rss_before_bytes; /* VmRSS summed over the instance's processes when the fault hit */
  uint64_t rss_peak_bytes;   /* the highest such sum from the fault to active+clean */
};

struct placer_bench_recovery_run {
  bool done;
  char *fio_json;       /* fio's status stream (one JSON document a second), relative to the results */
  char *watch_log;      /* the PG states followed (ceph-cluster.sh watch-recovery), relative */
  double detect_s;      /* the fault -> the PGs left active+clean */
  double down_s;        /* the fault -> the OSD started again (kill) or marked in (out) */
  double recovery_s;    /* the OSD back -> every PG active+clean */
  double total_s;       /* the fault -> every PG active+clean */
  double iops_before;   /* the client's, over the `at` seconds before the fault */
  double iops_during;   /* from the fault to active+clean */
  double iops_min;      /* the lowest one-second interval in it */
  double degraded_peak; /* objects degraded, at most */
  size_t n_roles;
  struct placer_bench_recovery_role *roles;
};

struct placer_bench_recovery {
  char *action;   /* "kill" | "out" */
  char *daemon;   /* "osd.1" */
  char *workload; /* "4k-randwrite" */
  double at_s, down_s;
  size_t n_variants, repeats;
  struct placer_bench_recovery_run *runs; /* [variant][repeat] */
};

int placer_bench_recovery_new(const char *action, const char *daemon, const char *workload, double at_s, double down_s,
                              size_t n_variants, size_t repeats, struct placer_bench_recovery **out,
                              struct placer_error **err);
void placer_bench_recovery_free(struct placer_bench_recovery *r);
/* The run slot, or NULL when out of range. */
struct placer_bench_recovery_run *placer_bench_recovery_run(struct placer_bench_recovery *r, size_t variant,
                                                            size_t repeat);
const struct placer_bench_recovery_run *placer_bench_recovery_run_const(const struct placer_bench_recovery *r,
                                                                        size_t variant, size_t repeat);
/* Sets every figure to NAN (none measured yet). */
void placer_bench_recovery_run_init(struct placer_bench_recovery_run *run);
int placer_bench_recovery_run_add_role(struct placer_bench_recovery_run *run, const char *instance, const char *role,
                                       uint64_t rss_before_bytes, uint64_t rss_peak_bytes, struct placer_error **err);

/* "recovery" of summary.json, VARIANTS naming the variant indexes; and back. */
json_t *placer_bench_recovery_to_json(const struct placer_bench_recovery *r, char *const *variants);
int placer_bench_recovery_from_json(const json_t *j, char *const *variants, size_t n_variants, size_t repeats,
                                    struct placer_bench_recovery **out, struct placer_error **err);

/* The report's section: per variant, medians (min-max) over the repeats. */
void placer_bench_recovery_report(const struct placer_bench_recovery *r, char *const *variants, FILE *out);

/* ---- what the measuring reads (pure, unit-tested) ---- */

/* fio's output with --status-interval: one JSON document per interval (and
 * at the end; a line such as "fio: terminating on signal 2" may come
 * between).  Each point: the document's timestamp_ms and the I/Os done so
 * far over all jobs (reads + writes + trims). */
struct placer_bench_io_point {
  double t_ms;
  double ios;
};
int placer_bench_fio_status_points(const char *text, size_t len, struct placer_bench_io_point **out, size_t *n,
                                   struct placer_error **err);
/* The mean IOPS over [from_ms, to_ms] from the points inside it (the first
 * and the last point in it bound the interval); *min_iops (may be NULL): the
 * lowest rate between two consecutive points in it.  NAN when fewer than two
 * points fall inside. */
double placer_bench_io_rate(const struct placer_bench_io_point *p, size_t n, double from_ms, double to_ms,
                            double *min_iops);

/* The lines of ceph-cluster.sh watch-recovery: the UNCLEAN and CLEAN times
 * (unix seconds; NAN when missing) and the most degraded objects seen. */
void placer_bench_parse_watch(const char *text, double *unclean_s, double *clean_s, double *degraded_peak);

#endif
