#!/bin/sh
# CI job: a short pinned-vs-unpinned `placer bench` study on a real throwaway Ceph
# cluster (unpinned.yaml vs demo-local.yaml, 4K randwrite on rbd, alone and next to a
# stress-ng neighbour, 2 interleaved repeats, 4 s runs, one cluster whose placement is
# switched between variants; about 1.5 minutes on 2 cores),
# then checks that the result is well-formed and complete with ci/bench-check.py:
# every cell measured, every repeat present, raw fio JSON for each run, CPU of every
# Ceph role and fio sampled, the neighbours' rates (with and without storage), and every
# daemon, fio and neighbour process on exactly the CPUs its plan gives it.  It never
# asserts which variant wins (this machine is small and noisy); it fails when the study
# could not run, when anything is missing, or when it leaves a process or a cgroup behind.
#
# usage: ci/bench-ab.sh            (root; PLACER_BIN defaults to build/placer)
# Env: BENCH_AB_KEEP=1 keeps the results directory (its path is printed); BENCH_AB_PREFIX: the
# cgroup prefix (default placer-ci-bench-PID); TMPDIR: where the work directory goes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
PLACER=${PLACER_BIN:-$root/build/placer}
me=bench-ab
[ "$(id -u)" = 0 ] || { echo "$me: run as root (cgroups, a Ceph cluster)" >&2; exit 2; }
[ -x "$PLACER" ] || { echo "$me: $PLACER is not built (run ci/build.sh)" >&2; exit 1; }
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/placer-bench-ab.XXXXXX")
prefix=${BENCH_AB_PREFIX:-placer-ci-bench-$$}
cleanup() {
  rc=$?
  trap - EXIT INT TERM HUP
  # Nothing may be left: a cluster of ours, a group of ours.
  if [ -d "$work/results/cluster" ]; then
    echo "$me: a cluster was left in $work/results/cluster" >&2
    sh "$root/libexec/ceph-cluster.sh" down "$work/results/cluster" >/dev/null 2>&1 || true
    rc=1
  fi
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" != $$ ] || continue
    case "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" in
      *"$work/"*) echo "$me: process ${d#/proc/} was left behind: $(tr '\0' ' ' <"$d/cmdline")" >&2; rc=1 ;;
    esac
  done
  for d in /sys/fs/cgroup/*/"$prefix" /sys/fs/cgroup/"$prefix"; do
    if [ -d "$d" ]; then
      echo "$me: cgroup $d was left behind" >&2
      rc=1
    fi
  done
  if [ "${BENCH_AB_KEEP:-0}" = 1 ] || [ "$rc" != 0 ]; then
    echo "$me: results kept in $work/results" >&2
  else
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

cat >"$work/study.yaml" <<'YAML'
version: 1
title: CI pinned vs unpinned, 2 OSDs, fio rbd 4K randwrite
cluster: { type: local, osds: 2 }
variants:
  - { name: unpinned, profile: unpinned }
  - { name: pinned, profile: demo-local }
workloads:
  target: rbd
  size: 128MiB
  block_sizes: [4K]
  patterns: [randwrite]
  iodepth: 16
  runtime: 4
  ramp: 1
neighbours:
  - { name: cpu-hog, role: neighbour, kind: stress-ng, stressor: cpu, method: matrixprod, intensity: 1 }
repeats: 2
warmup: 0
YAML

t0=$(date +%s)
status=0
# --allow-inconclusive: 2 repeats cannot give a p below 0.05 (Wilcoxon 0.5, Mann-Whitney
# 0.33), and this job asserts that the results are complete and placed, not which variant
# wins: short runs on purpose (placer bench refuses such a design without it).
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/results" "$work/study.yaml" >"$work/report.txt" || status=$?
cat "$work/report.txt"
[ "$status" = 0 ] || { echo "$me: FAIL: placer bench exited $status" >&2; exit 1; }
"$PY" "$root/ci/bench-check.py" "$work/results" --roles osd,mon,mgr,fio --placer "$PLACER" ||
  { echo "$me: FAIL: the results are not complete" >&2; exit 1; }
# Live re-placement (cluster.rebuild: never, the default here): one cluster for
# the study, its placement switched before every variant's pass.
[ -f "$work/results/logs/cluster-live.log" ] || { echo "$me: FAIL: no live cluster log" >&2; exit 1; }
if ls "$work/results/logs/" | grep -q '^cluster-.*-r[0-9]*\.log$'; then
  echo "$me: FAIL: a cluster was built per pass" >&2; exit 1
fi
echo "$me: OK in $(($(date +%s) - t0)) s"
