/* fio's command line for one cell of a study (or its prefill, or the
 * hardware baseline).  Pure: tests compare the argv. */
#include "bench/run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/substitute.h"

static int pushf(char ***argv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pushf(char ***argv, const char *fmt, ...) {
  char *s = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  int rc = placer_argv_push(argv, s);
  free(s);
  return rc;
}

int placer_bench_fio_argv(const struct placer_study *study, enum placer_study_target target,
                          const struct placer_bench_fio_cell *cell, char ***out, struct placer_error **err) {
  const struct placer_study_workloads *wl = &study->workloads;
  const struct placer_study_cluster *c = &study->cluster;
  bool prefill = cell->kind == PLACER_BENCH_FIO_PREFILL;
  char **argv = NULL;
  int rc = 0;
  rc |= placer_argv_push(&argv, "fio");
  rc |= pushf(&argv, "--name=%s", cell->name);
  switch (target) {
  case PLACER_STUDY_TARGET_RBD:
    rc |= placer_argv_push(&argv, "--ioengine=rbd");
    rc |= pushf(&argv, "--clientname=%s", c->client);
    rc |= pushf(&argv, "--pool=%s", c->pool);
    rc |= pushf(&argv, "--rbdname=%s", c->image);
    break;
  case PLACER_STUDY_TARGET_RADOS:
    rc |= placer_argv_push(&argv, "--ioengine=rados");
    rc |= pushf(&argv, "--clientname=%s", c->client);
    rc |= pushf(&argv, "--pool=%s", c->pool);
    /* The object names come from the file name: the same for the prefill and
     * every cell, so that reads find what was written. */
    rc |= placer_argv_push(&argv, "--filename=placer-bench");
    if (cell->ceph_conf)
      rc |= pushf(&argv, "--conf=%s", cell->ceph_conf);
    break;
  case PLACER_STUDY_TARGET_CEPHFS:
  case PLACER_STUDY_TARGET_FILE:
    if (cell->filename == NULL) {
      placer_argv_free(argv);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "fio %s: no file to run on", cell->name);
    }
    rc |= placer_argv_push(&argv, "--ioengine=libaio");
    rc |= pushf(&argv, "--direct=%d", cell->direct ? 1 : 0);
    rc |= pushf(&argv, "--filename=%s", cell->filename);
    break;
  }
  if (prefill) {
    rc |= placer_argv_push(&argv, "--rw=write");
    rc |= placer_argv_push(&argv, "--bs=4M");
    rc |= placer_argv_push(&argv, "--iodepth=4");
    rc |= placer_argv_push(&argv, "--numjobs=1");
  } else {
    rc |= pushf(&argv, "--rw=%s", cell->pattern);
    rc |= pushf(&argv, "--bs=%" PRIu64, cell->block_size);
    rc |= pushf(&argv, "--iodepth=%u", wl->iodepth);
    rc |= pushf(&argv, "--numjobs=%u", wl->numjobs);
    rc |= placer_argv_push(&argv, "--time_based");
    rc |= pushf(&argv, "--runtime=%u", cell->runtime_s ? cell->runtime_s : wl->runtime_s);
    if (wl->ramp_s && !cell->no_ramp)
      rc |= pushf(&argv, "--ramp_time=%u", wl->ramp_s);
    if (cell->status_s)
      rc |= pushf(&argv, "--status-interval=%u", cell->status_s);
  }
  rc |= pushf(&argv, "--size=%" PRIu64, cell->size_bytes ? cell->size_bytes : wl->size_bytes);
  rc |= placer_argv_push(&argv, "--group_reporting");
  rc |= placer_argv_push(&argv, "--output-format=json");
  rc |= pushf(&argv, "--output=%s", cell->output);
  for (size_t i = 0; !prefill && i < wl->fio_options.n; i++)
    rc |= placer_argv_push(&argv, wl->fio_options.items[i]);
  if (rc != 0) {
    placer_argv_free(argv);
    return placer_error_oom(err, "fio argv");
  }
  *out = argv;
  return 0;
}
