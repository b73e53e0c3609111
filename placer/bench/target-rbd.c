/* Target rbd: fio's rbd engine on the cluster's POOL/IMAGE (librbd). */
#include "bench/target.h"

#include "lib/substitute.h"

static int rbd_fio_args(char ***argv, const struct placer_study *s, const struct bench_fio_run *run, const char **why) {
  (void)run;
  const struct placer_study_cluster *c = &s->cluster;
  *why = NULL;
  return placer_argv_push(argv, "--ioengine=rbd") | placer_argv_pushf(argv, "--clientname=%s", c->client) |
         placer_argv_pushf(argv, "--pool=%s", c->pool) | placer_argv_pushf(argv, "--rbdname=%s", c->image);
}

const struct bench_target_ops bench_target_rbd = {
  .name = "rbd",
  .flags = BENCH_TARGET_CEPH | BENCH_TARGET_IMAGE,
  .fio_args = rbd_fio_args,
};
