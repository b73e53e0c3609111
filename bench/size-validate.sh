#!/bin/sh
# bench/size-validate.sh [OUT.json] [RUNTIME_S] [REPEATS] [QUOTAS]
#
# Does "IOPS follow the OSDs' CPU" (the model of `placer size`, docs/size.md) predict the
# IOPS at one CPU allotment from the measurements at others?  On one throwaway cluster
# (libexec/ceph-cluster.sh: 1 mon, 1 mgr, 2 OSDs, pool size 2), the OSDs go into one cgroup
# whose CPU quota (cgroup v1 cpu.cfs_quota_us, v2 cpu.max; period 100 ms) is set to each
# of QUOTAS cores in turn (default "2.0 1.5 1.0 0.5", the order rotated every repeat so
# that a drift of the machine spreads over all steps); at each, fio (rbd engine, 4K, iodepth
# 16, RUNTIME_S seconds, default 6) runs randwrite and randread, and the OSDs' CPU
# (utime + stime of their processes, /proc/PID/stat) is sampled every 0.2 s; IOPS and CPU
# are taken over the same window, between fio's status reports (--status-interval=1;
# bench/size-validate-window.py).  Writes OUT.json
# (default size-validation.json):
#   {"format": "placer-size-validation", "version": 1, "osds": 2, "replicas": 2,   (osd_cpu_s: in fio's window)
#    "runs": [{"workload": "4k-randwrite", "quota_cores": 1.0, "repeat": 0, "iops": ...,
#              "total_ios": ..., "osd_cpu_s": ..., "runtime_s": ...}, ...]}
# and then `placer size --validate OUT.json` prints the prediction error (fit on 2.0 and
# 1.0 cores, predict the rest).  Needs root, Ceph, fio, python3.  Run it under the lock on
# a shared machine:  flock -o /tmp/placer-system.lock sh bench/size-validate.sh OUT.json
# About (2 + 2 x quotas x repeats x (RUNTIME_S + 2)) s: 3 repeats of 4 quotas ~ 3.5 min.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-size-validation.json}
RUNTIME=${2:-6}
REPEATS=${3:-3}
QUOTAS=${4:-"2.0 1.5 1.0 0.5"}
PLACER=${PLACER_BIN:-$SRC/build/placer}
PY=/usr/bin/python3
name=placer-size-validate-$$
dir=/var/tmp/$name # not tmpfs: bluestore uses O_DIRECT
work=$(mktemp -d "/tmp/$name.XXXXXX")
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  mode=v2
  cg=/sys/fs/cgroup/$name
  root_procs=/sys/fs/cgroup/cgroup.procs
else
  mode=v1
  cg=/sys/fs/cgroup/cpu/$name
  root_procs=/sys/fs/cgroup/cpu/cgroup.procs
fi
fio_pid=""

cleanup() {
  rc=$?
  trap - EXIT INT TERM HUP
  [ -n "$fio_pid" ] && kill -9 "$fio_pid" 2>/dev/null
  if [ -d "$cg" ]; then
    for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do echo "$p" >"$root_procs" 2>/dev/null || true; done
    rmdir "$cg" 2>/dev/null || echo "size-validate: could not remove $cg" >&2
  fi
  sh "$SRC/libexec/ceph-cluster.sh" down "$dir" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for b in fio "$PY" ceph-osd; do command -v "$b" >/dev/null || { echo "size-validate: $b not installed" >&2; exit 2; }; done
[ "$(id -u)" = 0 ] || { echo "size-validate: needs root (cgroups)" >&2; exit 2; }

sh "$SRC/libexec/ceph-cluster.sh" up "$dir" --osds 2 --osd-size 16 --image-size 1 >&2
eval "$(sh "$SRC/libexec/ceph-cluster.sh" env "$dir")"
mkdir "$cg"
[ "$mode" = v2 ] && echo "+cpu" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
osd_pids=$(cat "$dir"/run/osd.*.pid)
for p in $osd_pids; do echo "$p" >"$cg/cgroup.procs"; done

set_quota() { # cores
  us=$("$PY" -c "print(int(round(float('$1') * 100000)))")
  if [ "$mode" = v2 ]; then echo "$us 100000" >"$cg/cpu.max"; else
    echo 100000 >"$cg/cpu.cfs_period_us"
    echo "$us" >"$cg/cpu.cfs_quota_us"
  fi
}
osd_ticks() { # utime + stime of every OSD process (all its threads, live and gone)
  t=0
  for p in $osd_pids; do
    s=$(sed 's/^.*) //' "/proc/$p/stat") || { echo "size-validate: OSD $p is gone" >&2; exit 1; }
    set -- $s
    t=$((t + ${12} + ${13}))
  done
  echo "$t"
}
fio_rbd() { # rw runtime out samples: fio, with the OSDs' CPU sampled every 0.2 s while it runs
  fio --name=v --ioengine=rbd --clientname=admin --pool="$CEPH_CLUSTER_POOL" --rbdname="$CEPH_CLUSTER_IMAGE" \
    --rw="$1" --bs=4k --iodepth=16 --numjobs=1 --size=256M --time_based --runtime="$2" --ramp_time=0 \
    --status-interval=1 --output-format=json --output="$3" >/dev/null 2>"$work/fio.err" &
  fio_pid=$!
  : >"$4"
  while kill -0 "$fio_pid" 2>/dev/null; do
    echo "$(date +%s%3N) $(osd_ticks)" >>"$4"
    sleep 0.2
  done
  wait "$fio_pid" || { echo "size-validate: fio failed: $(tail -3 "$work/fio.err")" >&2; exit 1; }
  fio_pid=""
  echo "$(date +%s%3N) $(osd_ticks)" >>"$4"
}

echo "size-validate: prefill" >&2
fio --name=prefill --ioengine=rbd --clientname=admin --pool="$CEPH_CLUSTER_POOL" --rbdname="$CEPH_CLUSTER_IMAGE" \
  --rw=write --bs=4M --iodepth=4 --size=256M --output-format=json --output="$work/prefill.json" >/dev/null
hz=$(getconf CLK_TCK)
: >"$work/runs"
rep=0
while [ "$rep" -lt "$REPEATS" ]; do
  # rotate the order of the quotas every repeat
  order=$(echo $QUOTAS | tr ' ' '\n' | awk -v r="$rep" '{a[NR]=$0} END {for (i=0;i<NR;i++) print a[(i+r)%NR+1]}')
  for q in $order; do
    set_quota "$q"
    for rw in randwrite randread; do
      sleep 1
      fio_rbd "$rw" "$RUNTIME" "$work/fio.json" "$work/samples"
      "$PY" "$SRC/bench/size-validate-window.py" "$work/fio.json" "$rw" "$q" "$rep" "$hz" "$work/samples" \
        >>"$work/runs"
      echo "size-validate: repeat $rep quota $q $rw: $(tail -1 "$work/runs")" >&2
    done
  done
  rep=$((rep + 1))
done
"$PY" - "$work/runs" "$OUT" <<'EOF'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
doc = {"format": "placer-size-validation", "version": 1, "osds": 2, "replicas": 2, "runs": runs}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
EOF
echo "size-validate: wrote $OUT" >&2
[ -x "$PLACER" ] && "$PLACER" size --validate "$OUT" || true
