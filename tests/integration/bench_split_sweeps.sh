#!/bin/sh
# The split sweeps of placer bench (sweep.parameter quota, weight, cores) put their knob in
# force for real: two small studies without Ceph (cluster none), where the storage role is
# fio's (CPU-bound here: fio's null engine) beside a stress-ng neighbour (the quota sweep, judged
# in cores and so run alone, is bench_split_quota.sh):
#   - weight 8, on demo-local (fio and the neighbour share one CPU): fio's share of what the
#     two used is ~1/2 at equal weights and >= 0.75 at 8 : 1 (the role groups' cpu.weight /
#     cpu.shares);
#   - cores 1, with unpinned as the baseline A and the steps made from demo-local (sweep.from's
#     default for cores: the first variant that pins; summary.json's split.from says so): fio's
#     pool gets one CPU and the neighbour's the other (placement.csv: disjoint
#     Cpus_allowed_list), while demo-local shares one CPU and unpinned has them all (1 s runs:
#     placement, not rates, is judged); summary.json records each variant's changes of its
#     profile (the step's cpu.cores), so that ci/bench-check.py plans it without the study.
# The weight's shares are judged between fio and the neighbour only, so another test beside it
# does not skew them.  About 1 minute.
# ctest: cost=60
set -u
T=bench_split_sweeps
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio stress-ng /usr/bin/python3
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
bench_setup /var/tmp

# cores per role in one cell, from summary.json
cat >"$work/cores.py" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
def cores(variant, condition, role):
    for r in s["runs"]:
        if r["variant"] == variant and r["condition"] == condition:
            return sum(u["cpu_ns"] for u in r["roles"] if u["role"] == role) / 1e9 / r["duration_s"]
    raise SystemExit(f"no run {variant} {condition}")
PY

bench_study_split demo-local "{ parameter: weight, values: [8] }" >"$work/weight.yaml"
bench_run_quiet weight
$PY - "$work/weight/summary.json" <<PY || fail "weight sweep"
exec(open("$work/cores.py").read())
def share(v):
    f, n = cores(v, "hog", "fio"), cores(v, "hog", "neighbour")
    return f / (f + n)
a, b = share("base"), share("weight-8")
print(f"weight: fio's share of one CPU beside the hog {a:.2f} at 1 : 1, {b:.2f} at 8 : 1")
assert 0.3 <= a <= 0.7, a
assert b >= 0.75, b
PY

bench_study_split demo-local "{ parameter: cores, values: [1] }" |
  sed -e 's/^  - { name: base, profile: demo-local }$/  - { name: unpinned, profile: unpinned }\n  - { name: pinned, profile: demo-local }/' \
    -e 's/^  runtime: 3$/  runtime: 1/' >"$work/cores.yaml"
grep -q "name: pinned" "$work/cores.yaml" && grep -q "runtime: 1" "$work/cores.yaml" || fail "cores.yaml: $(cat "$work/cores.yaml")"
bench_run_quiet cores
$PY - "$work/cores/placement.csv" "$work/cores/summary.json" <<'PY' || fail "cores sweep"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
s = json.load(open(sys.argv[2]))
assert s["variants"] == ["unpinned", "pinned", "cores-1"], s["variants"]  # unpinned stays A
assert s["split"]["from"] == "pinned", s["split"]
def cpus(v, role):
    got = {r["cpus_allowed"] for r in rows if r["variant"] == v and r["role"] == role}
    assert len(got) == 1, (v, role, got)
    return got.pop()
fu, fb, nb = cpus("unpinned", "fio"), cpus("pinned", "fio"), cpus("pinned", "neighbour")
fc, nc = cpus("cores-1", "fio"), cpus("cores-1", "neighbour")
print(f"cores: unpinned fio {fu}; pinned fio {fb} neighbour {nb}; cores-1 fio {fc} neighbour {nc}")
assert "-" in fu or "," in fu, fu  # unpinned: every CPU
assert fb == nb, (fb, nb)  # demo-local: one clients CPU for both
assert fc != nc and "," not in fc + nc and "-" not in fc + nc, (fc, nc)  # one CPU each, not the same
# the step's changes of demo-local, recorded as placer exec got them
sets = {v["name"]: v["set"] for v in s["study"]["variants"]}
assert sets["unpinned"] == [] and sets["pinned"] == [], sets
assert any(kv.endswith("cpu.cores=1") for kv in sets["cores-1"]), sets
PY
# ... so that bench-check plans each variant from summary.json alone: cores-1 with its set
# (planned as demo-local, its fio and neighbour would be on the wrong CPUs)
$PY "$SRC/ci/bench-check.py" "$work/cores" --roles fio --placer "$PLACER" >"$work/check" 2>&1 ||
  { cat "$work/check" >&2; fail "bench-check.py without --study"; }
say "OK"
