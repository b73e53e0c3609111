/* Ceph's perf counters read from the daemons' admin sockets around a run
 * (what results/ceph-counters.h parses and subtracts): one daemon, or a
 * snapshot of several.  A daemon that does not answer in time is missing,
 * never waited for. */
#ifndef PLACER_BENCH_CEPH_COUNTERS_READ_H
#define PLACER_BENCH_CEPH_COUNTERS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "results/ceph-counters.h"

/* How long one daemon may take to answer `perf dump` (connect, request and
 * reply together): an OSD answers in about a millisecond here, 20 ms under load. */
#define PLACER_BENCH_CEPH_READ_TIMEOUT_MS 2000u

/* DAEMON's perf dump through its admin socket SOCKET_PATH, within TIMEOUT_MS
 * for the whole exchange (Ceph's protocol, src/common/admin_socket.cc: the
 * JSON command ended by a NUL; the reply's length as 4 bytes, big-endian,
 * then the reply).  0 and *OUT; 1 when the daemon is missing: no socket,
 * no listener, no whole reply in time, an error or a reply that is not a
 * perf dump (WHY, one line, says which); -1 only when out of memory. */
int placer_bench_ceph_counters_read(const char *daemon, const char *socket_path, unsigned timeout_ms,
                                    struct placer_ceph_counters *out, char *why, size_t why_len,
                                    struct placer_error **err);

/* The daemons to read, each with its admin socket. */
struct placer_bench_ceph_daemon {
  const char *daemon; /* "osd.0", "mds.a" */
  const char *socket; /* "DIR/run/ceph-osd.0.asok" on a local cluster */
};

/* Every daemon's dump at one moment (before or after a run). */
struct placer_bench_ceph_snapshot {
  size_t n;
  struct placer_ceph_counters *dumps; /* [i] with answered[i] */
  bool *answered;
  char (*why)[160]; /* [i] without */
};

/* Read each of D[0..N) in turn; a daemon that does not answer is recorded
 * missing.  -1 only when out of memory. */
int placer_bench_ceph_snapshot_take(const struct placer_bench_ceph_daemon *d, size_t n, unsigned timeout_ms,
                                    struct placer_bench_ceph_snapshot *out, struct placer_error **err);
void placer_bench_ceph_snapshot_free(struct placer_bench_ceph_snapshot *s);
/* The run's counters from the snapshots before and after it (the same
 * daemons, in the same order): each daemon's delta, missing ("after the
 * run: WHY") when it did not answer either time. */
int placer_bench_ceph_snapshot_delta(const struct placer_bench_ceph_daemon *d,
                                     const struct placer_bench_ceph_snapshot *before,
                                     const struct placer_bench_ceph_snapshot *after,
                                     struct placer_ceph_run_counters *out, struct placer_error **err);

#endif
