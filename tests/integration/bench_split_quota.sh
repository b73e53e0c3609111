#!/bin/sh
# The quota sweep of placer bench (sweep.parameter quota) puts its knob in force for real: a
# study without Ceph (cluster none) whose storage role is fio's (CPU-bound: fio's null engine),
# alone: fio uses about a core unconstrained and <= 0.36 cores at quota-0.3 (cpu.max /
# cpu.cfs_quota_us on fio's role group).  Its bound is in cores of the machine, which a second
# test beside it would skew: it runs alone (serial), and short (four runs of 3 s).  The weight
# and cores sweeps are bench_split_sweeps.sh.
# ctest: serial cost=20
set -u
T=bench_split_quota
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio stress-ng /usr/bin/python3
bench_setup /var/tmp
# the quota sweep (its runs beside the hog are not judged here)
bench_study_split unpinned "{ parameter: quota, values: [0.3] }" >"$work/quota.yaml"
bench_run_quiet quota
$PY - "$work/quota/summary.json" <<'PY' || fail "quota sweep"
import json, sys
s = json.load(open(sys.argv[1]))
def cores(variant):
    for r in s["runs"]:
        if r["variant"] == variant and r["condition"] == "alone":
            return sum(u["cpu_ns"] for u in r["roles"] if u["role"] == "fio") / 1e9 / r["duration_s"]
    raise SystemExit(f"no run {variant} alone")
assert len(s["runs"]) == 4, [(r["variant"], r["condition"]) for r in s["runs"]]
base, step = cores("base"), cores("quota-0.3")
print(f"quota: fio alone {base:.2f} cores unconstrained, {step:.2f} at quota-0.3")
# unconstrained, fio on the null engine takes what it can (about a core when the machine is
# quiet; on a loaded one less, but clearly more than the quota's bound)
assert base >= 0.42, base
assert step <= 0.36, step
PY
say "OK"
