/* Target rados: fio's rados engine on the cluster's POOL (librados objects). */
#include "bench/target.h"

#include "lib/substitute.h"

static int rados_fio_args(char ***argv, const struct placer_study *s, const struct bench_fio_run *run,
                          const char **why) {
  const struct placer_study_cluster *c = &s->cluster;
  *why = NULL;
  int rc = placer_argv_push(argv, "--ioengine=rados") | placer_argv_pushf(argv, "--clientname=%s", c->client) |
           placer_argv_pushf(argv, "--pool=%s", c->pool) |
           /* The object names come from the file name: the same for the
            * prefill and every cell, so that reads find what was written. */
           placer_argv_push(argv, "--filename=placer-bench");
  if (run->ceph_conf) /* fio's engine reads no CEPH_CONF */
    rc |= placer_argv_pushf(argv, "--conf=%s", run->ceph_conf);
  return rc;
}

const struct bench_target_ops bench_target_rados = {
  .name = "rados",
  .flags = BENCH_TARGET_CEPH,
  .fio_args = rados_fio_args,
};
