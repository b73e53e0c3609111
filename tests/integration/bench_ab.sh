#!/bin/sh
# placer bench on a real local Ceph cluster: runs the CI job ci/bench-ab.sh (a short
# pinned-vs-unpinned study, checked complete and well-formed by ci/bench-check.py, every
# process on the CPUs of its plan, nothing left behind).  Skipped (77) without root,
# Ceph, fio or stress-ng; any other failure to run the study fails the test.
# ctest: cost=80
set -u
T=bench_ab
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
export PLACER_BIN=${PLACER_BIN:?PLACER_BIN not set}
need_root
need_cmd ceph-mon ceph-mgr ceph-osd fio stress-ng /usr/bin/python3
need_fio_engine rbd
t_begin
# the job's work directory and groups are the test's own: the teardown finds what it leaves
TMPDIR=$T_WORK BENCH_AB_PREFIX=$T_TAG sh "$SRC/ci/bench-ab.sh"
