/* The built-in default study: what `placer bench` runs without a study
 * file.  `placer bench --print-default` prints this text to start your own. */
#include "bench/study.h"

#include <string.h>

static const char default_study[] =
    "# placer's default study (`placer bench --print-default`): an A/B of Ceph placement\n"
    "# that fits a 2-core machine in about five minutes.  A throwaway Ceph cluster\n"
    "# (mon, mgr, 2 OSDs on 127.0.0.1) is built afresh for every variant and repeat;\n"
    "# fio drives 4K random writes and reads through librbd, alone and next to a\n"
    "# CPU-hungry neighbour (stress-ng matrixprod); A is unpinned, B is demo-local\n"
    "# (Ceph on one CPU, fio and the neighbour on the other).  Schema: docs/bench.md.\n"
    "version: 1\n"
    "title: demo-local pinning vs unpinned, 2 OSDs, fio rbd 4K iodepth 16\n"
    "\n"
    "cluster:\n"
    "  type: local          # built by placer (ci/ceph-cluster.sh), daemons placed by `placer exec`\n"
    "  osds: 2\n"
    "  image_size: 1GiB\n"
    "\n"
    "variants:             # the first is the baseline A\n"
    "  - name: unpinned\n"
    "    profile: unpinned  # a shipped profile (profiles/unpinned.yaml), or a path\n"
    "  - name: pinned\n"
    "    profile: demo-local\n"
    "\n"
    "workloads:\n"
    "  target: rbd          # fio's rbd engine on pool rbd, image placer-bench\n"
    "  size: 256MiB         # the part of the image every run uses (prefilled once per cluster)\n"
    "  block_sizes: [4K]\n"
    "  patterns: [randwrite, randread]\n"
    "  iodepth: 16\n"
    "  numjobs: 1\n"
    "  runtime: 6           # seconds measured\n"
    "  ramp: 1              # seconds before the window\n"
    "  prefill: true\n"
    "\n"
    "neighbours:\n"
    "  - name: cpu-hog\n"
    "    role: neighbour    # runs in the profiles' 'neighbour' instances\n"
    "    kind: stress-ng\n"
    "    stressor: cpu\n"
    "    method: matrixprod\n"
    "    intensity: 1       # stress-ng workers\n"
    "\n"
    "hardware_baseline:    # the same fio jobs on a local file, no Ceph\n"
    "  path: hw-baseline.img  # in the results directory, removed afterwards\n"
    "  size: 256MiB\n"
    "\n"
    "repeats: 3            # interleaved: unpinned pinned unpinned pinned ...\n"
    "warmup: 1             # one discarded pass per variant first\n";

const char *placer_study_default_text(void) {
  return default_study;
}

int placer_study_load_default(struct placer_study **out, struct placer_error **err) {
  return placer_study_parse("(built-in default study)", default_study, strlen(default_study), out, err);
}
