#!/bin/sh
# Recovery as a workload (a study's `recovery`) on a real local Ceph cluster of 2 OSDs:
#   - action kill, unpinned and pinned (demo-local), one repeat: each variant's recovery run
#     SIGKILLs osd.1 during fio 4K randwrite and starts it again 4 s later through the
#     variant's launcher; summary.json records per variant the times (detected, down ~4 s,
#     back -> active+clean, total = down + recovery), the client's IOPS before and during
#     recovery, the degraded objects, and every daemon's and fio's RSS before and at its peak;
#     the watcher's log shows the PGs leave and regain active+clean; osd.1 came back with a
#     new PID in its group, every thread of it on the CPUs the variant's plan gives it
#     (placement.csv); recovery.csv and the report's section hold the same figures, and
#     report.html plots the client's IOPS through each variant's recovery;
#   - action out (ceph osd out, then in): the OSD keeps its PID, the PGs leave and regain
#     active+clean, the run is recorded;
#   - nothing is left: no daemon, no cluster directory, no cgroup.
# About 1.7 minutes alone: a restarted OSD takes ~5 s to boot and peer, then pushes every rbd
# object written while it was away, whole, beside the client's writes: fio writes the first
# 32 MiB of the image (8 objects of 4 MiB, 2 copies), ~15-18 s per kill on this VM's disk (with
# 128 MiB, ~30 s: the figures checked do not depend on it); `out` and `in`, no boot, about 6 s.
# Skipped (77) without root, Ceph, fio with rbd.
# ctest: cost=105
set -u
T=bench_recovery_ceph
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd ceph-mon ceph-mgr ceph-osd fio /usr/bin/python3
need_fio_engine rbd
bench_setup

study() { # VARIANTS ACTION
  cat <<YAML
version: 1
title: recovery test, 2 OSDs, fio rbd 4K randwrite
cluster: { type: local, osds: 2 }
variants:
$1
workloads: { target: rbd, size: 32MiB, block_sizes: [4K], patterns: [randwrite], iodepth: 16, runtime: 2, ramp: 1 }
recovery: { action: $2, osd: 1, at: 4, down: 4, timeout: 240 }
repeats: 1
warmup: 0
YAML
}

# --- kill, two variants ----------------------------------------------------------------
study "  - { name: unpinned, profile: unpinned }
  - { name: pinned, profile: demo-local }" kill >"$work/kill.yaml"
t0=$(date +%s)
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/k" "$work/kill.yaml" >"$work/k.out" 2>"$work/k.err" ||
  { rc=$?; cat "$work/k.err" >&2; fail "placer bench (kill) exited $rc"; }
say "kill study done in $(($(date +%s) - t0)) s"
bench_nothing_left "after the kill study"
pinned_osd1=$("$PLACER" plan --json "$SRC/profiles/demo-local.yaml" |
  $PY -c 'import json,sys; print([i["cpus"] for i in json.load(sys.stdin)["instances"] if i["name"]=="osd.1"][0])')
$PY - "$work/k" "$pinned_osd1" "$(nproc)" <<'PY' || fail "the kill study's results"
import csv, json, os, sys
d, pinned_cpus, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(os.path.join(d, "summary.json")))
rec = s["recovery"]
assert rec["action"] == "kill" and rec["daemon"] == "osd.1" and rec["at_s"] == 4 and rec["down_s"] == 4, rec
runs = {r["variant"]: r for r in rec["runs"]}
assert sorted(runs) == ["pinned", "unpinned"], runs.keys()
for v, r in runs.items():
    assert 0 < r["detect_s"] < 30, (v, r["detect_s"])
    assert 3.5 < r["down_s"] < 10, (v, r["down_s"])
    assert 0 < r["recovery_s"] < 240, (v, r["recovery_s"])
    assert abs(r["total_s"] - (r["down_s"] + r["recovery_s"])) < 0.01, (v, r)
    assert r["iops_before"] > 0 and r["iops_during"] >= 0 and r["iops_min"] >= 0, (v, r)
    assert r["degraded_peak"] > 0, (v, r["degraded_peak"])  # writes while osd.1 was away
    roles = {x["instance"]: x for x in r["roles"]}
    for inst in ("mon.0", "mgr.0", "osd.0", "osd.1", "fio.0"):
        x = roles[inst]
        assert 0 < x["rss_before_bytes"] <= x["rss_peak_bytes"], (v, x)
    for f in (r["fio_json"], r["watch_log"]):
        assert os.path.getsize(os.path.join(d, f)) > 0, f
    w = open(os.path.join(d, r["watch_log"])).read()
    assert "UNCLEAN " in w and "\nCLEAN " in w, w[-300:]
# osd.1 came back with a new PID, every thread on its plan's CPUs (placement.csv rows of
# osd.1 in order: the switch of each pass, then the restart)
rows = [x for x in csv.DictReader(open(os.path.join(d, "placement.csv"))) if x["instance"] == "osd.1"]
pids = [x["pid"] for x in rows]
assert len(set(pids)) >= 3, pids  # the first, after the unpinned restart, after the pinned restart
last = {x["variant"]: x for x in rows}
assert last["pinned"]["cpus_allowed"] == pinned_cpus, (last["pinned"], pinned_cpus)
assert last["unpinned"]["cpus_allowed"] == (f"0-{ncpu - 1}" if ncpu > 1 else "0"), last["unpinned"]
lines = list(csv.DictReader(open(os.path.join(d, "recovery.csv"))))
assert len(lines) == 2 * 5 and {x["variant"] for x in lines} == {"unpinned", "pinned"}, len(lines)
assert all(float(x["recovery_s"]) > 0 for x in lines)
rep = open(os.path.join(d, "report.txt")).read()
assert "Recovery: osd.1 killed after 4 s of 4k-randwrite, started again 4 s later" in rep, rep
print("kill: " + "; ".join(f"{v} back->clean {r['recovery_s']:.1f} s, IOPS {r['iops_before']:.0f} -> "
                           f"{r['iops_during']:.0f}" for v, r in sorted(runs.items())))
PY

if command -v gnuplot >/dev/null 2>&1; then
  grep -q 'report/recovery.svg' "$work/k/report.html" && [ -s "$work/k/report/recovery.svg" ] ||
    fail "report.html has no recovery plot"
  [ "$(grep -c '^# \(unpinned\|pinned\)$' "$work/k/report/recovery.dat")" = 2 ] ||
    fail "recovery.dat: not one block per variant"
fi

# --- out and in -------------------------------------------------------------------------
study "  - { name: unpinned, profile: unpinned }" out >"$work/out.yaml"
t0=$(date +%s)
"$PLACER" bench --prefix "$prefix" --out "$work/o" "$work/out.yaml" >"$work/o.out" 2>"$work/o.err" ||
  { rc=$?; cat "$work/o.err" >&2; fail "placer bench (out) exited $rc"; }
say "out study done in $(($(date +%s) - t0)) s"
bench_nothing_left "after the out study"
$PY - "$work/o" <<'PY' || fail "the out study's results"
import csv, json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
rec = s["recovery"]
assert rec["action"] == "out" and len(rec["runs"]) == 1, rec
r = rec["runs"][0]
assert r["detect_s"] > 0 and r["recovery_s"] > 0 and 3.5 < r["down_s"] < 10, r
w = open(os.path.join(d, r["watch_log"])).read()
assert "UNCLEAN " in w and "\nCLEAN " in w, w[-300:]
pids = {x["pid"] for x in csv.DictReader(open(os.path.join(d, "placement.csv"))) if x["instance"] == "osd.1"}
assert len(pids) == 1, pids  # marked out and in: the same process
print(f"out: back->clean {r['recovery_s']:.1f} s, IOPS {r['iops_before']:.0f} -> {r['iops_during']:.0f}")
PY
say "OK"
