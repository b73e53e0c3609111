#!/bin/sh
# Shared by the speed benchmarks: time two commands interleaved RUNS times
# and print the median of each and their ratio.  Noise on a shared machine
# hits both equally, so only the ratio is meaningful.
# usage: ratio.sh LABEL RUNS "CANDIDATE CMD" "REFERENCE CMD"
set -eu
label=$1 runs=$2 candidate=$3 reference=$4
python3 - "$label" "$runs" "$candidate" "$reference" <<'PY'
import statistics, subprocess, sys, time
label, runs, cand, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def once(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t
once(cand); once(ref)  # warm the page cache
c, r = [], []
for _ in range(runs):
    c.append(once(cand)); r.append(once(ref))
mc, mr = statistics.median(c), statistics.median(r)
print(f"{label}: placer {mc*1000:.1f} ms, reference {mr*1000:.1f} ms (median of {runs}), ratio {mc/mr:.2f}x")
PY
