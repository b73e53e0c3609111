/* What fio runs on: a study's workloads.target.  One ops table per target,
 * one file each (target-rbd.c, target-rados.c, target-cephfs.c,
 * target-file.c), as fio keeps its engines; bench_targets[] in target.c
 * lists them, and a study names one by the name in its table.  Adding a
 * target: its file, its line in the table and its extern below;
 * test_bench_target checks every table of bench_targets[] is whole
 * (bench_target_ops_check, fio's check_engine_ops). */
#ifndef PLACER_BENCH_TARGET_H
#define PLACER_BENCH_TARGET_H

#include <stdbool.h>

#include "bench/fio-run.h"
#include "bench/run.h"
#include "bench/study.h"

enum bench_target_flag {
  BENCH_TARGET_CEPH = 1u << 0,       /* needs a Ceph cluster: refused with cluster type none */
  BENCH_TARGET_LOCAL_PATH = 1u << 1, /* workloads.path (required): a local file or block device, the write
                                        rule (write:, files.c) applies, fio may use another built-in ioengine */
  BENCH_TARGET_MOUNT_PATH = 1u << 2, /* workloads.path: a file name in the target's mount (prepare makes it) */
  BENCH_TARGET_DIRECT = 1u << 3,     /* O_DIRECT: the page cache must not answer for the device or Ceph */
  BENCH_TARGET_IMAGE = 1u << 4,      /* the cluster's rbd image: a local cluster's cluster.image_size bounds size */
};

struct bench_target_ops {
  const char *name; /* as a study spells it */
  unsigned flags;   /* enum bench_target_flag */
  /* What a local cluster needs installed for it ("ceph-fuse"), or NULL. */
  const char *program;
  /* The study's checks of this target beyond its flags', and its defaults
   * filled in (cephfs: the file's name): 0, or -1 with *KEY the workloads key
   * at fault and *WHY the reason (*WHY NULL: out of memory).  May be NULL. */
  int (*settle)(struct placer_study *s, const char **key, const char **why);
  /* fio's engine arguments for RUN (--ioengine and where it runs); -1 with
   * *WHY (NULL: out of memory). */
  int (*fio_args)(char ***argv, const struct placer_study *s, const struct bench_fio_run *run, const char **why);
  /* After a local cluster's daemons are up: what the target needs there
   * (cephfs: ceph-fuse mounts it at C->mount).  May be NULL. */
  int (*prepare)(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c, struct placer_error **err);
};

/* The targets, NULL after the last; the one named NAME, or NULL. */
extern const struct bench_target_ops *const bench_targets[];
const struct bench_target_ops *bench_target_find(const char *name);
/* NULL when OPS is whole and consistent, else what is wrong with it. */
const char *bench_target_ops_check(const struct bench_target_ops *ops);

/* fio on RUN's file with libaio (O_DIRECT as RUN says): the targets on a
 * file (file, cephfs) and the hardware baseline.  target-file.c. */
int bench_target_fio_on_file(char ***argv, const struct bench_fio_run *run, const char **why);

extern const struct bench_target_ops bench_target_rbd, bench_target_rados, bench_target_cephfs, bench_target_file;

#endif
