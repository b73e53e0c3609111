/* The targets' table and its check. */
#include "bench/target.h"

#include <string.h>

#include "lib/array.h"

static const struct bench_target_ops *const bench_targets[] = {
  [PLACER_STUDY_TARGET_RBD] = &bench_target_rbd,
  [PLACER_STUDY_TARGET_RADOS] = &bench_target_rados,
  [PLACER_STUDY_TARGET_CEPHFS] = &bench_target_cephfs,
  [PLACER_STUDY_TARGET_FILE] = &bench_target_file,
};

const char *const bench_target_names[] = {
  [PLACER_STUDY_TARGET_RBD] = "rbd",
  [PLACER_STUDY_TARGET_RADOS] = "rados",
  [PLACER_STUDY_TARGET_CEPHFS] = "cephfs",
  [PLACER_STUDY_TARGET_FILE] = "file",
  NULL,
};

const struct bench_target_ops *bench_target(enum placer_study_target t) {
  return (unsigned)t < N_OF(bench_targets) ? bench_targets[t] : &bench_target_file;
}

const char *bench_target_ops_check(const struct bench_target_ops *ops) {
  if (ops->name == NULL || ops->name[0] == '\0')
    return "no name";
  if (ops->fio_args == NULL)
    return "no fio_args";
  if ((ops->flags & BENCH_TARGET_LOCAL_PATH) && (ops->flags & (BENCH_TARGET_CEPH | BENCH_TARGET_MOUNT_PATH)))
    return "a local path is neither in Ceph nor in a mount";
  if ((ops->flags & BENCH_TARGET_MOUNT_PATH) && ops->prepare == NULL)
    return "a path in a mount needs prepare to make the mount";
  size_t i = 0;
  while (i < N_OF(bench_targets) && bench_targets[i] != ops)
    i++;
  if (i == N_OF(bench_targets))
    return "not in bench_targets[]";
  if (bench_target_names[i] == NULL || strcmp(bench_target_names[i], ops->name) != 0)
    return "its name differs from bench_target_names[]";
  return NULL;
}
