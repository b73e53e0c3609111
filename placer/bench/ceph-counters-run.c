/* Ceph's counters around each measured run (docs/bench.md, "Ceph's
 * counters"): the pass's OSDs and MDS, read over their admin sockets
 * (ceph-counters-read.c) when the run starts and when fio has exited; the
 * deltas kept with the run and written to ceph-counters.csv.  A daemon that
 * does not answer is recorded missing, and the run goes on. */
#include "bench/internal.h"

#include <stdlib.h>
#include <string.h>

#include "bench/ceph-counters-read.h"

/* A daemon whose counters placer keeps (osd.N, mds.ID), by its Ceph name. */
static bool counted(const char *name) {
  enum placer_ceph_daemon_type type;
  return placer_ceph_daemon_type_of(name, &type) == 0;
}

void bench_ceph_watch_free(struct bench_ceph_watch *w) {
  placer_bench_ceph_snapshot_free(&w->before);
  for (size_t i = 0; i < w->n; i++)
    free((char *)w->daemons[i].socket);
  free(w->daemons);
  *w = (struct bench_ceph_watch){ 0 };
}

int bench_ceph_watch_start(const struct pass *p, struct bench_ceph_watch *w, struct placer_error **err) {
  *w = (struct bench_ceph_watch){ 0 };
  const struct placer_bench_cluster *c = &p->cluster;
  /* a local cluster's daemons keep their sockets in its run directory
   * (libexec/ceph-cluster.sh: Ceph's default $run_dir/$cluster-$name.asok) */
  if (c->type != PLACER_STUDY_CLUSTER_LOCAL || c->dir == NULL)
    return 0;
  w->daemons = calloc(c->n_daemons ? c->n_daemons : 1, sizeof(*w->daemons));
  if (w->daemons == NULL)
    return placer_error_oom(err, "perf counters");
  for (size_t i = 0; i < c->n_daemons; i++) {
    const char *name = c->daemons[i].name;
    if (!counted(name))
      continue;
    char *socket = NULL;
    if (asprintf(&socket, "%s/run/ceph-%s.asok", c->dir, name) < 0) {
      bench_ceph_watch_free(w);
      return placer_error_oom(err, "perf counters");
    }
    w->daemons[w->n++] = (struct placer_bench_ceph_daemon){ name, socket };
  }
  w->watching = w->n > 0;
  if (w->watching &&
      placer_bench_ceph_snapshot_take(w->daemons, w->n, PLACER_BENCH_CEPH_READ_TIMEOUT_MS, &w->before, err) < 0) {
    bench_ceph_watch_free(w);
    return -1;
  }
  return 0;
}

int bench_ceph_watch_finish(struct bench_ceph_watch *w, struct placer_bench_run *run, struct placer_error **err) {
  if (!w->watching)
    return 0;
  struct placer_bench_ceph_snapshot after;
  struct placer_ceph_run_counters counters;
  if (placer_bench_ceph_snapshot_take(w->daemons, w->n, PLACER_BENCH_CEPH_READ_TIMEOUT_MS, &after, err) < 0)
    return -1;
  int rc = placer_bench_ceph_snapshot_delta(w->daemons, &w->before, &after, &counters, err);
  placer_bench_ceph_snapshot_free(&after);
  if (rc == 0) {
    rc = placer_bench_run_take_ceph(run, &counters, err);
    placer_ceph_run_counters_free(&counters);
  }
  return rc;
}
