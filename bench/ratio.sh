#!/bin/sh
# Shared by the speed benchmarks: time two commands interleaved RUNS times
# and print the median of each, their ratio and whether it meets TARGET.
# Noise on a shared machine hits both equally, so only the ratio is
# meaningful; the CPU time (user + system, the command's and its children's)
# is printed beside it, less moved by other processes than wall time.
# The commands run without a shell (split into words as the shell would):
# on these VMs a shell's own fork and exec cost ~8 ms a run, as much as the
# work measured, and pushed every ratio towards 1.
# CANDIDATE EXIT: the exit code the candidate must end with (default 0; a
# refusal measured, as bench/map-speed.sh does); the reference must exit 0.
# usage: ratio.sh LABEL RUNS TARGET "CANDIDATE CMD" "REFERENCE CMD" [CANDIDATE NAME] [CANDIDATE EXIT]
set -eu
label=$1 runs=$2 target=$3 candidate=$4 reference=$5 name=${6:-placer} want_rc=${7:-0}
python3 - "$label" "$runs" "$target" "$candidate" "$reference" "$name" "$want_rc" <<'PY'
import resource, shlex, statistics, subprocess, sys, time
label, runs, target, cand, ref, name = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
want = {cand: int(sys.argv[7]), ref: 0}
def once(cmd):
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    rc = subprocess.run(shlex.split(cmd), stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL if want[cmd] else None).returncode
    wall = time.perf_counter() - t
    if rc != want[cmd]:
        sys.exit(f"{label}: '{cmd}' exited {rc}, expected {want[cmd]}")
    s = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (s.ru_utime - r.ru_utime) + (s.ru_stime - r.ru_stime)
once(cand); once(ref)  # warm the page cache
c, r = [], []
for _ in range(runs):
    c.append(once(cand)); r.append(once(ref))
mc, mr = statistics.median(x[0] for x in c), statistics.median(x[0] for x in r)
cc, cr = statistics.median(x[1] for x in c), statistics.median(x[1] for x in r)
ratio = mc / mr
print(f"{label}: {name} {mc*1000:.1f} ms, reference {mr*1000:.1f} ms (median of {runs}), ratio {ratio:.2f}x"
      f" (target <= {target:g}x: {'met' if ratio <= target else 'NOT met'});"
      f" CPU time {cc*1000:.1f} / {cr*1000:.1f} ms, {cc/cr:.2f}x")
PY
