# Shared by the bench_*.sh integration tests (sourced, POSIX sh, after T is set): lib/common.sh
# (skip, fail, say, the teardown), a work directory and a cgroup prefix of the test's own, and a
# teardown step that tears down any local cluster left under the work directory and kills what of
# the study still runs before common.sh's teardown fails the test for a cgroup left behind.
#   bench_setup [DIR_BASE]   $work (under DIR_BASE, default ${TMPDIR:-/tmp}) and $prefix
#   bench_ours               PIDs of the test still running (t_ours)
#   bench_nothing_left WHAT  fail unless no cluster, process or group of the test is left
#   bench_progress_whole ERR WHAT  fail unless the last progress line in ERR counts as many
#                            runs done as it said there were ("[N/N]")
#   bench_study_ab TITLE PATH PATTERNS RUNTIME
#                            the head of a study without Ceph (cluster none) that compares
#                            unpinned with pinned (demo-local), up to its workloads: fio on PATH
#                            (32 MiB, 4K, iodepth 4, no ramp), PATTERNS ("randwrite, randread")
#                            for RUNTIME s; the test appends the rest (repeats, neighbours, ...)
#   bench_study_split BASE_PROFILE SWEEP
#                            a one-variant study (BASE_PROFILE) whose storage role is CPU-bound
#                            (fio's null engine, 3 s runs) beside a stress-ng cpu hog, with the
#                            sweep SWEEP ("{ parameter: quota, values: [0.3] }")
#   bench_run_quiet NAME     placer bench --quiet of $work/NAME.yaml into $work/NAME (output in
#                            $work/NAME.out and .err); fail unless it exits 0 and leaves nothing
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}

bench_setup() {
  t_begin "$@"
  work=$T_WORK
  prefix=$T_TAG
  t_defer bench_cleanup
}

bench_ours() { t_ours; }

bench_nothing_left() {
  for r in "$work"/cluster "$work"/*/cluster; do [ ! -d "$r" ] || fail "$1: cluster directory $r left"; done
  t_nothing_left "$1"
}

bench_progress_whole() {
  # names of its own: sourced functions share the test's variables
  _bpw_last=$(grep -o '\[[0-9]*/[0-9]*\]' "$1" | tail -1)
  _bpw_done=${_bpw_last#[} _bpw_total=${_bpw_last#*/}
  [ -n "$_bpw_last" ] && [ "${_bpw_done%%/*}" = "${_bpw_total%]}" ] ||
    fail "$2: the last progress line counts '$_bpw_last', not every run: $(grep '\[[0-9]*/' "$1" | tail -1)"
}

# Deferred by bench_setup: a study's cluster and processes are expected to be gone by the end of a
# test that passed (bench_nothing_left checks it); after a failure they go here.
bench_cleanup() {
  for r in "$work"/cluster "$work"/*/cluster; do
    [ -d "$r" ] && sh "$SRC/libexec/ceph-cluster.sh" down "$r" >/dev/null 2>&1
  done
  for p in $(bench_ours); do kill -9 "$p" 2>/dev/null; done
  sleep 0.5
}

bench_study_ab() {
  cat <<YAML
version: 1
title: $1
cluster: { type: none }
variants:
  - { name: unpinned, profile: unpinned }
  - { name: pinned, profile: demo-local }
workloads:
  path: $2
  size: 32MiB
  block_sizes: [4K]
  patterns: [$3]
  iodepth: 4
  runtime: $4
  ramp: 0
YAML
}

bench_study_split() {
  cat <<YAML
version: 1
cluster: { type: none }
variants:
  - { name: base, profile: $1 }
workloads:
  path: $work/target.img
  size: 16MiB
  block_sizes: [4K]
  patterns: [randwrite]
  iodepth: 1
  runtime: 3
  ramp: 1
  prefill: false
  fio_options: [--ioengine=null]
neighbours: # a sweep needs them
  - { name: hog, kind: stress-ng, stressor: cpu, intensity: 1 }
sweep: $2
repeats: 1
warmup: 0
YAML
}

bench_run_quiet() {
  "$PLACER" bench --quiet --allow-inconclusive --prefix "$prefix" --out "$work/$1" "$work/$1.yaml" >"$work/$1.out" 2>"$work/$1.err" ||
    { _brq_rc=$?; cat "$work/$1.err" >&2; fail "$1 study exited $_brq_rc"; }
  bench_nothing_left "$1"
}
