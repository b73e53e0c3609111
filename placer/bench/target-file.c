/* Target file: a local file or block device, libaio with O_DIRECT.  What
 * placer may write there is files.c's rule (write:, prefill); fio_options may
 * name another built-in ioengine (io_uring, psync).  The hardware baseline
 * runs on this target too. */
#include "bench/target.h"

#include "lib/substitute.h"

/* fio on RUN's file: target file, cephfs (a file in the mount), the
 * baseline; with the kind's engine and in its directory when the job says
 * so (a metadata load's filecreate in a directory of the mount). */
int bench_target_fio_on_file(char ***argv, const struct bench_fio_run *run, const char **why) {
  if (run->filename == NULL) {
    *why = "no file to run on";
    return -1;
  }
  *why = NULL;
  return placer_argv_pushf(argv, "--ioengine=%s", run->engine ? run->engine : "libaio") |
         placer_argv_pushf(argv, "--direct=%d", run->direct ? 1 : 0) |
         placer_argv_pushf(argv, run->in_directory ? "--directory=%s" : "--filename=%s", run->filename);
}

static int file_fio_args(char ***argv, const struct placer_study *s, const struct bench_fio_run *run,
                         const char **why) {
  (void)s;
  return bench_target_fio_on_file(argv, run, why);
}

const struct bench_target_ops bench_target_file = {
  .name = "file",
  .flags = BENCH_TARGET_LOCAL_PATH | BENCH_TARGET_DIRECT,
  .fio_args = file_fio_args,
};
