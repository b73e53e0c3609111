/* Ceph's own perf counters around a run: the counters placer keeps from an
 * OSD's and an MDS's `perf dump` (Ceph 16), their delta over the run (after -
 * before), "where the time went" from the deltas, and their forms in
 * summary.json and ceph-counters.csv (ceph-counters-io.c).  Pure: reading a
 * daemon's admin socket is bench's (bench/ceph-counters-read.c). */
#ifndef PLACER_CEPH_COUNTERS_H
#define PLACER_CEPH_COUNTERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

/* "osd.12", "mds.a": TYPE.ID as Ceph names the daemon. */
#define PLACER_CEPH_DAEMON_NAME_MAX 64
/* "mds_server.req_getattr_latency": SECTION.KEY as perf dump nests it. */
#define PLACER_CEPH_COUNTER_NAME_MAX 64
/* A perf dump of Ceph 16 is about 32 KiB (OSD) or 17 KiB (MDS). */
#define PLACER_CEPH_DUMP_MAX_BYTES ((size_t)4 << 20)

enum placer_ceph_daemon_type { PLACER_CEPH_OSD, PLACER_CEPH_MDS };

enum placer_ceph_counter_kind {
  PLACER_CEPH_COUNT,   /* a running count: osd.op_w, mds.request */
  PLACER_CEPH_LATENCY, /* {avgcount, sum}: how many, and their time summed */
};

struct placer_ceph_counter {
  char name[PLACER_CEPH_COUNTER_NAME_MAX];
  enum placer_ceph_counter_kind kind;
  uint64_t count;  /* the count, or a latency's avgcount */
  uint64_t sum_ns; /* a latency's sum (Ceph prints seconds to the ns); 0 for a count */
};

/* One daemon's counters: those of placer_ceph_counters_kept() that its dump
 * had, in name order.  A counter the dump lacks is not here (missing, never 0). */
struct placer_ceph_counters {
  char daemon[PLACER_CEPH_DAEMON_NAME_MAX];
  enum placer_ceph_daemon_type type;
  size_t n;
  struct placer_ceph_counter *counters;
};

/* The type of DAEMON ("osd.N", "mds.ID": an id of [A-Za-z0-9_-], at most
 * PLACER_CEPH_DAEMON_NAME_MAX - 1 bytes in all); -1 when it names neither. */
int placer_ceph_daemon_type_of(const char *daemon, enum placer_ceph_daemon_type *type);

/* The fixed counters kept for TYPE, in name order, as "section.key" with
 * their kind; the MDS's per-operation latencies (mds_server.req_OP_latency)
 * are kept too, whichever operations its dump lists.  N is set. */
struct placer_ceph_counter_spec {
  const char *name;
  enum placer_ceph_counter_kind kind;
};
const struct placer_ceph_counter_spec *placer_ceph_counters_kept(enum placer_ceph_daemon_type type, size_t *n);

/* TEXT (LEN bytes: `ceph daemon DAEMON perf dump`) into *OUT.  A counter
 * that is there but not a count (a whole number >= 0) or a latency
 * ({"avgcount": whole number, "sum": seconds >= 0}) is an error, as are
 * text that is not a JSON object, a dump without the daemon's own section
 * ("osd", "mds": another daemon's) and text over PLACER_CEPH_DUMP_MAX_BYTES;
 * errors are bad input (PLACER_EXIT_USAGE) naming DAEMON and the counter. */
int placer_ceph_counters_parse(const char *daemon, const char *text, size_t len, struct placer_ceph_counters *out,
                               struct placer_error **err);
void placer_ceph_counters_free(struct placer_ceph_counters *c);
/* Is NAME a counter placer keeps for TYPE?  0 and its *KIND, or -1. */
int placer_ceph_counter_kind_of(enum placer_ceph_daemon_type type, const char *name,
                                enum placer_ceph_counter_kind *kind);
/* C[0..N) in name order, as placer_ceph_counter_find() wants them. */
void placer_ceph_counters_sort(struct placer_ceph_counter *c, size_t n);
/* NAME's counter in C, or NULL (missing). */
const struct placer_ceph_counter *placer_ceph_counter_find(const struct placer_ceph_counter *counters, size_t n,
                                                           const char *name);

/* ---- one daemon over one run: after - before ------------------------------ */

enum placer_ceph_delta_state {
  PLACER_CEPH_DELTA_OK,
  PLACER_CEPH_DELTA_MISSING,   /* no dump before or after (its socket did not answer) */
  PLACER_CEPH_DELTA_RESTARTED, /* a counter went backwards: the daemon restarted mid-run */
};
extern const char *const placer_ceph_delta_state_names[3]; /* "ok", "missing", "restarted" */

struct placer_ceph_delta {
  char daemon[PLACER_CEPH_DAEMON_NAME_MAX];
  enum placer_ceph_daemon_type type;
  enum placer_ceph_delta_state state;
  char why[192]; /* missing or restarted: why, one line ("osd.op_w went from 18678 to 6186"); else "" */
  size_t n;      /* counters: OK only (a restarted daemon's are never averaged) */
  struct placer_ceph_counter *counters; /* what the run added: counts and sums */
};

/* The delta of one daemon.  BEFORE or AFTER NULL: missing, WHY (NULL: "no
 * perf dump before the run" / "... after the run") says why.  A counter in
 * only one of the two is left out (missing); one whose count or sum is
 * lower after than before makes the whole delta RESTARTED.  Only running
 * out of memory fails. */
int placer_ceph_delta(const char *daemon, const struct placer_ceph_counters *before,
                      const struct placer_ceph_counters *after, const char *why, struct placer_ceph_delta *out,
                      struct placer_error **err);
void placer_ceph_delta_free(struct placer_ceph_delta *d);
/* A latency's mean in ns over the run (sum / count); NAN when C is NULL,
 * not a latency or counted nothing. */
double placer_ceph_counter_avg_ns(const struct placer_ceph_counter *c);

/* ---- where the time went ---------------------------------------------------- */

/* Over the OSDs of one run, each a mean per operation in ns (count-weighted
 * over the OSDs: their sums over their counts), each rate in operations per
 * second of the run.  A figure is NAN when no OSD counted, or when one of
 * the counted OSDs lacks a counter it needs (never a sum over some). */
struct placer_ceph_osd_time {
  size_t osds;                 /* OSDs whose delta counted */
  size_t left_out;             /* OSDs missing or restarted */
  double write_ops_per_s;      /* osd.op_w: client writes (on their primary) */
  double write_ns;             /* osd.op_w_latency: received to committed, queue included */
  double write_queue_ns;       /* op_w_latency - op_w_process_latency: waiting in the op queue */
  double write_process_ns;     /* osd.op_w_process_latency: dequeued to committed (replication included) */
  double replication_ns;       /* osd.subop_w_latency: a replica's write, as the replica serves it */
  double replica_writes_per_s; /* osd.subop_w */
  double read_ops_per_s;       /* osd.op_r */
  double read_ns, read_queue_ns, read_process_ns; /* op_r_latency, its queue part, op_r_process_latency */
  double bluestore_commit_ns;                     /* bluestore.commit_lat: a transaction submitted to committed */
  double kv_sync_ns;                              /* bluestore.kv_sync_lat: one RocksDB sync (flush + commit) */
  double kv_flush_ns, kv_commit_ns;               /* its parts: bluestore.kv_flush_lat, kv_commit_lat */
};

struct placer_ceph_mds_op {
  char op[32]; /* "create" from mds_server.req_create_latency */
  uint64_t count;
  double per_s, latency_ns;
};

/* The MDSs of one run (one, on a local cluster): the same rules. */
struct placer_ceph_mds_time {
  size_t mdss, left_out;
  double requests_per_s;   /* mds.request: client requests received */
  double reply_latency_ns; /* mds.reply_latency: request to reply, per reply */
  size_t n_ops;            /* the operations that ran (count > 0), by name */
  struct placer_ceph_mds_op *ops;
};

/* From the deltas D[0..N) of one run that lasted DURATION_S seconds (its
 * measured window; NAN: rates NAN).  Only running out of memory fails. */
void placer_ceph_osd_time(const struct placer_ceph_delta *d, size_t n, double duration_s,
                          struct placer_ceph_osd_time *out);
int placer_ceph_mds_time(const struct placer_ceph_delta *d, size_t n, double duration_s,
                         struct placer_ceph_mds_time *out, struct placer_error **err);
void placer_ceph_mds_time_free(struct placer_ceph_mds_time *t);

/* ---- forms: summary.json and ceph-counters.csv (ceph-counters-io.c) -------- */

/* A run's counters: every daemon's delta, in the order they were read. */
struct placer_ceph_run_counters {
  size_t n;
  struct placer_ceph_delta *daemons;
};
void placer_ceph_run_counters_free(struct placer_ceph_run_counters *r);

/* The run's "ceph_counters" object of summary.json (docs/bench.md): the
 * daemons' deltas and, derived from them (never read back), "where".  NULL
 * when out of memory. */
json_t *placer_ceph_run_counters_to_json(const struct placer_ceph_run_counters *r, double duration_s);
/* J (a "ceph_counters" object) checked and read: names, states, counts and
 * sums whole numbers >= 0, at most PLACER_CEPH_MAX_DAEMONS daemons and
 * PLACER_CEPH_MAX_COUNTERS counters each, no counters for a daemon that is
 * not ok.  Errors are bad input naming the key's path under PATH. */
#define PLACER_CEPH_MAX_DAEMONS 1024
#define PLACER_CEPH_MAX_COUNTERS 256
int placer_ceph_run_counters_from_json(const json_t *j, const char *path, struct placer_ceph_run_counters *out,
                                       struct placer_error **err);

/* ceph-counters.csv: one row per run x daemon x counter, a daemon that is
 * not ok as one row without a counter (docs/bench.md). */
#define PLACER_CEPH_CSV_HEADER "variant,repeat,condition,workload,daemon,state,counter,count,sum_ns,avg_ns,why"
struct placer_ceph_csv_run {
  char *variant, *condition, *workload;
  unsigned repeat;
  struct placer_ceph_run_counters counters;
};
/* The header line. */
void placer_ceph_csv_write_header(FILE *f);
/* RUN's rows. */
void placer_ceph_csv_write_run(FILE *f, const char *variant, unsigned repeat, const char *condition,
                               const char *workload, const struct placer_ceph_run_counters *run);
/* A whole ceph-counters.csv (TEXT, LEN bytes, named PATH in messages) read
 * back and checked: the header, 11 fields a row, names, states, numbers
 * (whole counts and sums >= 0, avg_ns = sum_ns / count), each run's rows
 * together and each daemon's once, the last row ended.  The first fault is
 * the error, bad input: "PATH:LINE: message". */
#define PLACER_CEPH_CSV_MAX_BYTES ((size_t)64 << 20)
#define PLACER_CEPH_CSV_MAX_ROWS ((size_t)1 << 20)
int placer_ceph_csv_parse(const char *path, const char *text, size_t len, struct placer_ceph_csv_run **out,
                          size_t *n_out, struct placer_error **err);
/* PATH read (a regular file, at most PLACER_CEPH_CSV_MAX_BYTES) and parsed. */
int placer_ceph_csv_load(const char *path, struct placer_ceph_csv_run **out, size_t *n_out, struct placer_error **err);
void placer_ceph_csv_runs_free(struct placer_ceph_csv_run *runs, size_t n);

#endif
