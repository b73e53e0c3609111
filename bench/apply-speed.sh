#!/bin/sh
# Speed of 'placer apply' on many busy processes against a reference measured
# in the same run: a shell loop doing the bare cgroup writes apply does (make
# each instance's groups in cpuset, memory, cpu and cpuacct, write its cpus,
# mems and memory limit, write its PID into each cgroup.procs), without
# apply's planning, matching, journal, per-thread verification and status
# file.  INSTANCES processes of THREADS threads each
# (tests/integration/lib/churn.c: threads are born and end all the time).
# Each run: apply (timed), reset (not timed), the shell loop (timed), its
# undo (not timed); the two alternate, so noise hits both.  Only the ratio
# is meaningful.  Needs root and cgroup v1 (this machine's layout).
# usage: bench/apply-speed.sh [PLACER_BIN] [RUNS] [INSTANCES] [THREADS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
placer=${1:-$here/../build/placer}
runs=${2:-5}
n=${3:-60}
threads=${4:-60}
cg=/sys/fs/cgroup
[ "$(id -u)" = 0 ] || { echo "apply-speed: needs root" >&2; exit 2; }
for c in cpuset memory cpu cpuacct; do
  [ -f "$cg/$c/cgroup.procs" ] || { echo "apply-speed: needs cgroup v1 $c at $cg/$c" >&2; exit 2; }
done
tag=placer-bench-apply-$$
work=$(mktemp -d "/tmp/$tag.XXXXXX")
pids=""
cleanup() {
  set +e
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  for p in $pids; do wait "$p" 2>/dev/null; done
  PLACER_STATE_DIR=$work/state "$placer" reset >/dev/null 2>&1
  for c in cpuset memory cpu cpuacct; do
    for d in "$cg/$c/$tag" "$cg/$c/$tag-ref"; do
      [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
    done
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O2 -pthread -o "$work/churn" "$here/../tests/integration/lib/churn.c"
cat >"$work/p.yaml" <<EOF
version: 1
name: $tag
reserve: { cores: 0 }
roles:
  - name: w
    kind: generic
    count: $n
    cpu: { threads: 1, pool: one }
    memory: 64MiB
    match: { cmdline: "*churn $tag-{index} *" }
EOF
i=0
while [ $i -lt "$n" ]; do
  "$work/churn" "$tag-$i" "$threads" &
  pids="$pids $!"
  echo "w.$i $!" >>"$work/pids"
  i=$((i + 1))
done
sleep 1
"$placer" plan --json "$work/p.yaml" >"$work/plan.json"

PLACER_STATE_DIR=$work/state PLACER_CGROUP_PREFIX=$tag python3 - "$placer" "$work" "$tag" "$runs" "$n" "$threads" <<'PY'
import json, os, statistics, subprocess, sys, time
placer, work, tag, runs, n, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
plan = json.load(open(f"{work}/plan.json"))
pids = dict(line.split() for line in open(f"{work}/pids"))
cg = "/sys/fs/cgroup"
ctrls = ("cpuset", "memory", "cpu", "cpuacct")

def origin(pid):
    out = {}
    for line in open(f"/proc/{pid}/cgroup"):
        _, names, path = line.rstrip("\n").split(":", 2)
        for c in names.split(","):
            out[c] = path
    return out
before = {p: origin(p) for p in pids.values()}

# The reference, written as a shell script once: what apply writes, bare.
ref = [f"set -e", f"cg={cg}", f"t={tag}-ref"]
for c in ctrls:
    ref.append(f"mkdir -p $cg/{c}/$t/w")
ref.append("cat $cg/cpuset/cpuset.cpus >$cg/cpuset/$t/cpuset.cpus; cat $cg/cpuset/cpuset.mems >$cg/cpuset/$t/cpuset.mems")
ref.append("cat $cg/cpuset/cpuset.cpus >$cg/cpuset/$t/w/cpuset.cpus; cat $cg/cpuset/cpuset.mems >$cg/cpuset/$t/w/cpuset.mems")
for inst in plan["instances"]:
    name, pid = inst["name"], pids[inst["name"]]
    for c in ctrls:
        ref.append(f"mkdir $cg/{c}/$t/w/{name}")
    ref.append(f"echo {inst['cpus']} >$cg/cpuset/$t/w/{name}/cpuset.cpus")
    ref.append(f"echo {inst['mems']} >$cg/cpuset/$t/w/{name}/cpuset.mems")
    ref.append(f"echo {64 << 20} >$cg/memory/$t/w/{name}/memory.limit_in_bytes")
    for c in ctrls:
        ref.append(f"echo {pid} >$cg/{c}/$t/w/{name}/cgroup.procs")
open(f"{work}/ref.sh", "w").write("\n".join(ref) + "\n")

def undo_ref():
    for pid, groups in before.items():
        for c in ctrls:
            with open(f"{cg}/{c}{groups.get(c, '/')}/cgroup.procs".replace("//", "/"), "w") as f:
                f.write(pid)
    subprocess.run(f"find {cg}/cpuset/{tag}-ref {cg}/memory/{tag}-ref {cg}/cpu/{tag}-ref {cg}/cpuacct/{tag}-ref "
                   "-depth -type d -exec rmdir {} \\;", shell=True, check=True)

def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"apply-speed: {' '.join(cmd)} exit {r.returncode}: {r.stdout[-400:]}{r.stderr[-400:]}")
    return time.perf_counter() - t

a, s = [], []
for _ in range(runs):
    a.append(timed([placer, "apply", f"{work}/p.yaml"]))
    timed([placer, "reset"])
    s.append(timed(["sh", f"{work}/ref.sh"]))
    undo_ref()
ma, ms = statistics.median(a), statistics.median(s)
n_threads = sum(len(os.listdir(f"/proc/{p}/task")) for p in pids.values())
print(f"apply {n} instances, ~{n_threads} threads (born and ending): placer {ma*1000:.0f} ms, "
      f"shell loop of the bare cgroup writes {ms*1000:.0f} ms (median of {runs}), ratio {ma/ms:.1f}x")
PY
