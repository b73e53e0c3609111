/* The workload kinds' table and its check, and a study's workloads through
 * its kind. */
#include "bench/workload.h"

#include <stdio.h>
#include <string.h>

#include "bench/target.h"

const struct bench_workload_ops *const bench_workloads[] = {
  &bench_workload_block,
  &bench_workload_metadata,
  &bench_workload_recovery,
  NULL,
};

const struct bench_workload_ops *bench_workload_find(const char *name) {
  for (size_t i = 0; bench_workloads[i]; i++)
    if (strcmp(bench_workloads[i]->name, name) == 0)
      return bench_workloads[i];
  return NULL;
}

const char *bench_workload_ops_check(const struct bench_workload_ops *ops) {
  if (ops->name == NULL || ops->name[0] == '\0')
    return "no name";
  bool cells = ops->flags & BENCH_WORKLOAD_CELLS, pass = ops->flags & BENCH_WORKLOAD_PASS;
  if (cells == pass)
    return "neither the cells nor a pass kind, or both";
  if (ops->job == NULL || ops->parse == NULL || ops->settle == NULL)
    return "no job, parse or settle";
  if (ops->n_keys && ops->keys == NULL)
    return "n_keys without keys";
  if (cells && (ops->count == NULL || ops->workload == NULL))
    return "a cells kind without count or workload";
  if (cells && !placer_role_kind_is_ceph(ops->storage))
    return "a cells kind's storage is a kind of Ceph daemon";
  if (cells && (ops->section == NULL || strcmp(ops->section, "workloads") != 0))
    return "a cells kind's keys go in the workloads mapping";
  if (pass && (ops->section == NULL || ops->study_offset == 0 || ops->count || ops->workload))
    return "a pass kind has a section of its own and runs on the cells' workloads";
  size_t i = 0;
  while (bench_workloads[i] && bench_workloads[i] != ops)
    i++;
  if (bench_workloads[i] == NULL)
    return "not in bench_workloads[]";
  for (size_t k = 0; bench_workloads[k]; k++)
    if (k != i && (strcmp(bench_workloads[k]->name, ops->name) == 0 ||
                   (pass && bench_workloads[k]->section && strcmp(bench_workloads[k]->section, ops->section) == 0)))
      return "its name or section is another kind's";
  return NULL;
}

const char *bench_workload_target_refusal(const struct bench_workload_ops *ops, const struct bench_target_ops *target) {
  unsigned missing = ops->target_needs & ~target->flags;
  if (missing & BENCH_TARGET_CEPH)
    return "needs a target in Ceph (rbd, rados, cephfs)";
  if (missing & BENCH_TARGET_MOUNT_PATH)
    return "needs a target with a file system mounted (cephfs)";
  if (missing & BENCH_TARGET_LOCAL_PATH)
    return "needs a local file or block device (target file)";
  if (missing)
    return "needs what the target does not have";
  return NULL;
}

void bench_workload_names(unsigned flag, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; bench_workloads[i] && used < len; i++)
    if (bench_workloads[i]->flags & flag)
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", bench_workloads[i]->name);
}

size_t placer_study_n_workloads(const struct placer_study *s) {
  return s->workloads.kind->count(s);
}

int placer_study_workload(const struct placer_study *s, size_t i, struct placer_bench_workload *out,
                          struct placer_error **err) {
  if (i >= placer_study_n_workloads(s))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "workload %zu of %zu", i, placer_study_n_workloads(s));
  return s->workloads.kind->workload(s, i, out, err);
}
