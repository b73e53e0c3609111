/* fio's command line for one cell of a study (or its prefill, or the
 * hardware baseline).  Pure: tests compare the argv. */
#include "bench/run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/target.h"
#include "lib/substitute.h"

int placer_bench_fio_argv(const struct placer_study *study, enum placer_study_target target,
                          const struct placer_bench_fio_cell *cell, char ***out, struct placer_error **err) {
  const struct placer_study_workloads *wl = &study->workloads;
  bool prefill = cell->kind == PLACER_BENCH_FIO_PREFILL;
  char **argv = NULL;
  int rc = 0;
  rc |= placer_argv_push(&argv, "fio");
  rc |= placer_argv_pushf(&argv, "--name=%s", cell->name);
  const char *why = NULL;
  if (bench_target(target)->fio_args(&argv, study, cell, &why) < 0) {
    if (why == NULL)
      rc = -1; /* out of memory: below */
    else {
      placer_argv_free(argv);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "fio %s: %s", cell->name, why);
    }
  }
  if (prefill) {
    rc |= placer_argv_push(&argv, "--rw=write");
    rc |= placer_argv_push(&argv, "--bs=4M");
    rc |= placer_argv_push(&argv, "--iodepth=4");
    rc |= placer_argv_push(&argv, "--numjobs=1");
  } else {
    rc |= placer_argv_pushf(&argv, "--rw=%s", cell->pattern);
    rc |= placer_argv_pushf(&argv, "--bs=%" PRIu64, cell->block_size);
    rc |= placer_argv_pushf(&argv, "--iodepth=%u", wl->iodepth);
    rc |= placer_argv_pushf(&argv, "--numjobs=%u", wl->numjobs);
    rc |= placer_argv_push(&argv, "--time_based");
    rc |= placer_argv_pushf(&argv, "--runtime=%u", cell->runtime_s ? cell->runtime_s : wl->runtime_s);
    if (wl->ramp_s && !cell->no_ramp)
      rc |= placer_argv_pushf(&argv, "--ramp_time=%u", wl->ramp_s);
    if (cell->status_s)
      rc |= placer_argv_pushf(&argv, "--status-interval=%u", cell->status_s);
  }
  rc |= placer_argv_pushf(&argv, "--size=%" PRIu64, cell->size_bytes ? cell->size_bytes : wl->size_bytes);
  rc |= placer_argv_push(&argv, "--group_reporting");
  rc |= placer_argv_push(&argv, "--output-format=json");
  rc |= placer_argv_pushf(&argv, "--output=%s", cell->output);
  for (size_t i = 0; !prefill && i < wl->fio_options.n; i++)
    rc |= placer_argv_push(&argv, wl->fio_options.items[i]);
  if (rc != 0) {
    placer_argv_free(argv);
    return placer_error_oom(err, "fio argv");
  }
  *out = argv;
  return 0;
}
