/* The targets' table and its check. */
#include "bench/target.h"

#include <string.h>

const struct bench_target_ops *const bench_targets[] = {
  &bench_target_rbd, &bench_target_rados, &bench_target_cephfs, &bench_target_file, NULL,
};

const struct bench_target_ops *bench_target_find(const char *name) {
  for (size_t i = 0; name && bench_targets[i]; i++)
    if (strcmp(bench_targets[i]->name, name) == 0)
      return bench_targets[i];
  return NULL;
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
  while (bench_targets[i] && bench_targets[i] != ops)
    i++;
  if (bench_targets[i] == NULL)
    return "not in bench_targets[]";
  if (bench_target_find(ops->name) != ops)
    return "its name is another target's";
  return NULL;
}
