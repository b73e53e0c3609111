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
cat >"$work/quota.yaml" <<YAML
version: 1
cluster: { type: none }
variants:
  - { name: base, profile: unpinned }
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
neighbours: # a sweep needs them (its runs beside the hog are not judged here)
  - { name: hog, kind: stress-ng, stressor: cpu, intensity: 1 }
sweep: { parameter: quota, values: [0.3] }
repeats: 1
warmup: 0
YAML
"$PLACER" bench --quiet --allow-inconclusive --prefix "$prefix" --out "$work/quota" "$work/quota.yaml" >"$work/quota.out" 2>"$work/quota.err" ||
  { rc=$?; cat "$work/quota.err" >&2; fail "quota study exited $rc"; }
bench_nothing_left "quota"
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
