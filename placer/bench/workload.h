/* What a study measures: its workload kinds.  One ops table per kind, one
 * file each (workload-block.c: fio's block I/O, the study's cells;
 * workload-metadata.c: files created, stat'ed and deleted on CephFS, cells
 * too; workload-recovery.c: an OSD failed and back during a run), as fio
 * keeps its engines and bench its targets; bench_workloads[] in workload.c
 * lists them.
 * A kind says which study keys it takes (checked where the study is read:
 * FILE:LINE:COL, exit 2), which workloads it makes and how their runs are
 * judged, fio's job for a run (and for the prepare before the first one),
 * the parser of fio's output into the generic result
 * (results/workload-result.h), and what it needs of the target.  Adding a
 * kind: its file and its line in the table; test_bench_workload checks
 * every table is whole (bench_workload_ops_check, fio's check_engine_ops). */
#ifndef PLACER_BENCH_WORKLOAD_H
#define PLACER_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/fio-run.h"
#include "bench/study.h"
#include "profile/profile-yaml.h"
#include "results/workload-result.h"
#include "role.h"

enum bench_workload_flag {
  /* Its runs are the study's cells (variants x conditions x workloads x
   * repeats): workloads.kind names it (block, the default), and its keys
   * go in the workloads mapping. */
  BENCH_WORKLOAD_CELLS = 1u << 0,
  /* One run per variant in every measured pass, after the cells, on one of
   * the cells' workloads: its own mapping (SECTION) turns it on. */
  BENCH_WORKLOAD_PASS = 1u << 1,
  /* It fails and restarts daemons: a cluster placer built (type local). */
  BENCH_WORKLOAD_LOCAL_CLUSTER = 1u << 2,
};

struct bench_workload_ops {
  const char *name; /* "block", "recovery": as workloads.kind (or the section) names it */
  unsigned flags;   /* enum bench_workload_flag */
  /* A pass kind's mapping in the study ("recovery"), where its struct is
   * (offsetof(struct placer_study, ...)) and the keys it takes there; a
   * cells kind's keys go in the workloads mapping (offsets into struct
   * placer_study_workloads). */
  const char *section;
  size_t study_offset;
  const struct pyaml_field *keys;
  size_t n_keys;
  /* What it needs of the target: every one of these enum bench_target_flag
   * (a target without them is refused at workloads.target). */
  unsigned target_needs;
  /* The Ceph daemons whose work it is (block: the OSDs; metadata: the MDS):
   * the storage role whose CPU per operation the report gives (a study
   * without Ceph: fio's). */
  enum placer_role_kind storage;
  /* Its defaults and the checks across its keys once the study is read
   * (SECTION: the node of its mapping, NULL when the study has none; a pass
   * kind that is not there does nothing): 0, or -1 with the walker's error
   * (FILE:LINE:COL). */
  int (*settle)(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root, yaml_node_t *section);
  /* A cells kind: how many workloads it makes, and the I-th (its name, fio's
   * pattern and block size, its operations and how its runs are judged),
   * the caller clearing it (placer_bench_workload_clear). */
  size_t (*count)(const struct placer_study *s);
  int (*workload)(const struct placer_study *s, size_t i, struct placer_bench_workload *out, struct placer_error **err);
  /* fio's job for a run of workload W (a pass kind: on the cells' workload
   * W): fills RUN's job fields. */
  void (*job)(const struct placer_study *s, const struct placer_bench_workload *w, struct bench_fio_run *run);
  /* The job that readies the target before the first run, when the study
   * asks for it (workloads.prefill): block writes the region once.  May be
   * NULL: nothing to ready. */
  void (*prepare)(const struct placer_study *s, struct bench_fio_run *run);
  /* fio's output (TEXT, LEN bytes, NUL-terminated) into OUT: the operations
   * (a cells kind) or the timeline (a pass kind); errors name what is wrong
   * in it. */
  int (*parse)(const char *text, size_t len, struct placer_bench_result *out, struct placer_error **err);
};

/* The kinds, NULL after the last. */
extern const struct bench_workload_ops *const bench_workloads[];
/* The kind NAME, or NULL. */
const struct bench_workload_ops *bench_workload_find(const char *name);
/* NULL when OPS is whole and consistent, else what is wrong with it. */
const char *bench_workload_ops_check(const struct bench_workload_ops *ops);
/* Why TARGET cannot serve OPS (its target_needs), or NULL. */
const char *bench_workload_target_refusal(const struct bench_workload_ops *ops, const struct bench_target_ops *target);
/* The kinds' names with FLAG, ", " between them ("block"): for messages. */
void bench_workload_names(unsigned flag, char *buf, size_t len);

extern const struct bench_workload_ops bench_workload_block, bench_workload_metadata, bench_workload_recovery;

#endif
