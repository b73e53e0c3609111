#!/bin/sh
# Faults during a study on a real local Ceph cluster:
#   - an OSD killed (SIGKILL) in the middle of the first fio run: the study
#     stops with one line naming the OSD and the run (exit 4), summary.json
#     records it (stopped_by) and keeps nothing false (the run is not
#     counted), the cluster is torn down (no daemon, no cluster directory, no
#     cgroup left);
#   - `placer bench --resume DIR` on a fresh cluster measures the first
#     repeat; the mon killed in the middle of the second one stops it the
#     same way, naming mon.a, the first repeat kept as it was;
#   - a second --resume completes the study (ci/bench-check.py), every run's Ceph
#     counters in ceph-counters.csv once, as summary.json has them (placer report
#     reads it back).
# About 1.5 minutes.  Skipped (77) without root, Ceph, fio with rbd.
# ctest: cost=90
set -u
T=bench_faults_ceph
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd ceph-mon ceph-mgr ceph-osd fio /usr/bin/python3
need_fio_engine rbd

bench_setup
bg=""

cat >"$work/study.yaml" <<'YAML'
version: 1
title: faults test, 2 OSDs, fio rbd 4K randwrite
cluster: { type: local, osds: 2 }
variants:
  - { name: unpinned, profile: unpinned }
workloads:
  target: rbd
  size: 128MiB
  block_sizes: [4K]
  patterns: [randwrite]
  iodepth: 16
  runtime: 10
  ramp: 1
  grace: 30     # a fio that a dead mon would hang is killed soon (then the mon is named all the same)
repeats: 2
warmup: 0
YAML

"$PLACER" bench --prefix "$prefix" --out "$work/r" "$work/study.yaml" >"$work/r.out" 2>"$work/r.err" &
bg=$!
i=0
until grep -q "] unpinned-r0: 4k-randwrite alone" "$work/r.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1800 ] || { cat "$work/r.err" >&2; fail "the study never reached its first run"; }
  kill -0 "$bg" 2>/dev/null || { cat "$work/r.err" >&2; fail "placer bench ended before its first run"; }
  sleep 0.1
done
sleep 4
osd=""
for p in $(bench_ours); do
  [ "$(cat /proc/"$p"/comm 2>/dev/null)" = ceph-osd ] && { osd=$p; break; }
done
[ -n "$osd" ] || fail "no ceph-osd of the study running"
kill -KILL "$osd"
t0=$(date +%s)
wait "$bg"; rc=$?
bg=""
[ "$rc" = 4 ] || { cat "$work/r.err" >&2; fail "after the OSD was killed: exit $rc, expected 4"; }
line=$(tail -1 "$work/r.err")
echo "$line" | grep -Eq "unpinned-r0: osd\.[0-9] \(pid $osd\) exited during 4k-randwrite alone" ||
  fail "the error does not name the OSD and the run: $line"
$PY - "$work/r/summary.json" "$osd" <<'PY' || fail "summary.json after the OSD died"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True, s["interrupted"]
assert f"(pid {sys.argv[2]}) exited" in (s["stopped_by"] or ""), s["stopped_by"]
assert not s["runs"], s["runs"]  # the broken run is not counted
PY
[ ! -d "$work/r/cluster" ] || fail "the cluster directory was left"
[ -z "$(bench_ours)" ] || fail "processes left after the OSD died: $(bench_ours)"
for d in /sys/fs/cgroup/*/"$prefix" /sys/fs/cgroup/"$prefix"; do
  [ ! -d "$d" ] || fail "cgroup $d left behind"
done
say "OSD $osd killed: exit 4 after $(($(date +%s) - t0)) s, '$(echo "$line" | cut -c1-110)', torn down"

# --- --resume; the mon killed in its second run ------------------------------------------
"$PLACER" bench --prefix "$prefix" --resume "$work/r" >"$work/r2.out" 2>"$work/r2.err" &
bg=$!
i=0
until grep -q "] unpinned-r1: 4k-randwrite alone" "$work/r2.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1800 ] || { cat "$work/r2.err" >&2; fail "--resume never reached its second run"; }
  kill -0 "$bg" 2>/dev/null || { cat "$work/r2.err" >&2; fail "--resume ended before its second run"; }
  sleep 0.1
done
sleep 4
mon=""
for p in $(bench_ours); do
  [ "$(cat /proc/"$p"/comm 2>/dev/null)" = ceph-mon ] && { mon=$p; break; }
done
[ -n "$mon" ] || fail "no ceph-mon of the resumed study running"
$PY - "$work/r/summary.json" >"$work/r2.before" <<'PY' || fail "summary.json before the mon was killed"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [(r["repeat"], r["condition"]) for r in runs] == [(0, "alone")], runs
print(json.dumps(runs[0], sort_keys=True))
PY
kill -KILL "$mon"
t0=$(date +%s)
wait "$bg"; rc=$?
bg=""
[ "$rc" = 4 ] || { cat "$work/r2.err" >&2; fail "after the mon was killed: exit $rc, expected 4"; }
line=$(tail -1 "$work/r2.err")
echo "$line" | grep -Eq "unpinned-r1: mon\.a \(pid $mon\) exited during 4k-randwrite alone; see $work/r/logs/cluster-" ||
  fail "the error does not name the mon and the run: $line"
$PY - "$work/r/summary.json" "$mon" "$work/r2.before" <<'PY' || fail "summary.json after the mon died"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True, s["interrupted"]
assert f"mon.a (pid {sys.argv[2]}) exited" in (s["stopped_by"] or ""), s["stopped_by"]
# the first repeat as it was measured, the broken run not counted
assert [json.dumps(r, sort_keys=True) for r in s["runs"]] == [open(sys.argv[3]).read().strip()], s["runs"]
PY
[ ! -d "$work/r/cluster" ] || fail "the cluster directory was left after the mon died"
[ -z "$(bench_ours)" ] || fail "processes left after the mon died: $(bench_ours)"
for d in /sys/fs/cgroup/*/"$prefix" /sys/fs/cgroup/"$prefix"; do
  [ ! -d "$d" ] || fail "cgroup $d left behind after the mon died"
done
say "mon $mon killed: exit 4 after $(($(date +%s) - t0)) s, '$(echo "$line" | cut -c1-110)', r0 kept, torn down"

"$PLACER" bench --prefix "$prefix" --resume "$work/r" >"$work/r3.out" 2>"$work/r3.err" ||
  { rc=$?; cat "$work/r3.err" >&2; fail "the second placer bench --resume exited $rc"; }
grep -q "unpinned-r0: 4k-randwrite" "$work/r3.err" && fail "the second --resume ran r0 again"
$PY "$SRC/ci/bench-check.py" "$work/r" --roles osd,mon,mgr,fio --placer "$PLACER" || fail "results incomplete after --resume"
$PY - "$work/r/summary.json" "$work/r2.before" <<'PY' || fail "the first repeat changed in the last --resume"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert json.dumps(runs[0], sort_keys=True) == open(sys.argv[2]).read().strip()
PY
# Ceph's counters kept across both stops: ceph-counters.csv holds every counter of every run of
# summary.json once (the first repeat's rows from before the mon died, the second's appended; the
# broken runs' cut away), and placer report reads it back against summary.json
$PY - "$work/r" <<'PY' || fail "ceph-counters.csv after --resume"
import csv, json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
want = {}
for r in s["runs"]:
    for x in r["ceph_counters"]["daemons"]:
        assert x["state"] == "ok", (r["repeat"], r["condition"], x)
        for name, c in x["counters"].items():
            want[(r["variant"], str(r["repeat"]), r["condition"], r["workload"], x["daemon"], name)] = str(c["count"])
assert {k[1] for k in want} == {"0", "1"} and {k[4] for k in want} == {"osd.0", "osd.1"}, sorted(set(k[:5] for k in want))
have = {}
for x in csv.DictReader(open(os.path.join(d, "ceph-counters.csv"))):
    k = (x["variant"], x["repeat"], x["condition"], x["workload"], x["daemon"], x["counter"])
    assert k not in have, ("twice", k)
    have[k] = x["count"]
assert have == want, sorted(set(have.items()) ^ set(want.items()))[:5]
PY
"$PLACER" report "$work/r" >/dev/null 2>"$work/report.err" ||
  fail "placer report after --resume: $(cat "$work/report.err")"
[ ! -d "$work/r/cluster" ] || fail "the cluster directory was left after --resume"
[ -z "$(bench_ours)" ] || fail "processes left after --resume: $(bench_ours)"
say "--resume completed the study on a fresh cluster, Ceph's counters of every run kept once; OK"
