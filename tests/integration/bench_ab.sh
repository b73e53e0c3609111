#!/bin/sh
# placer bench on a real local Ceph cluster: runs the CI job ci/bench-ab.sh (a short
# pinned-vs-unpinned study, checked complete and well-formed by ci/bench-check.py, every
# process on the CPUs of its plan, nothing left behind).  Skipped (77) without root,
# Ceph, fio or stress-ng; any other failure to run the study fails the test.
set -u
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
export PLACER_BIN=${PLACER_BIN:?PLACER_BIN not set}
[ "$(id -u)" = 0 ] || { echo "bench_ab: SKIP: needs root"; exit 77; }
for b in ceph-mon ceph-mgr ceph-osd fio stress-ng /usr/bin/python3; do
  command -v "$b" >/dev/null 2>&1 || { echo "bench_ab: SKIP: $b not installed"; exit 77; }
done
fio --enghelp=rbd >/dev/null 2>&1 || { echo "bench_ab: SKIP: this fio has no rbd engine"; exit 77; }
exec sh "$SRC/ci/bench-ab.sh"
