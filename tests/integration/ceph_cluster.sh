#!/bin/sh
# Integration test of libexec/ceph-cluster.sh: a real Ceph cluster (1 mon, 1 mgr, 2 bluestore
# OSDs on sparse files) on 127.0.0.1 in a temporary directory, 5 s of fio 4K randwrite
# through librbd, then teardown.
#   - every daemon in DIR/run/NAME.pid is alive and is the right program (/proc/PID/comm)
#   - `status` exits 0 and `env` gives a CEPH_CONF that ceph and fio use
#   - fio --ioengine=rbd reports non-zero write IOPS and no error
#   - `down` leaves no process that mentions DIR, removes DIR, and is safe to run twice
# Needs root and the Ceph packages and fio (ci/install-deps.sh); exits 77 (skipped) without
# them. The fio JSON is read with /usr/bin/python3, which is always there where Ceph is:
# the `ceph` CLI is a Python 3 program and ceph-common depends on python3.
# Env: PLACER_SOURCE_DIR (repo root; default: two levels above this script),
#      (a failed run keeps its directory, named on stderr, after tearing the cluster down).
set -u

SRC=${PLACER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CC="$SRC/libexec/ceph-cluster.sh"
T=ceph_cluster
. "$SRC/tests/integration/lib/common.sh"
note() { say "$@"; }

need_root
need_cmd ceph-mon ceph-mgr ceph-osd ceph fio /usr/bin/python3
need_fio_engine rbd
[ -r "$CC" ] || fail "$CC not found (PLACER_SOURCE_DIR=$SRC)"

t_begin
BASE=$T_WORK
DIR="$BASE/cluster"
t_defer 'sh "$CC" down "$DIR" || echo "$T: warning: down failed in cleanup" >&2'

# procs_in_dir: PIDs of live processes whose command line mentions DIR.
procs_in_dir() {
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" != $$ ] || continue
    st=$(sed 's/^.*) //' "$d/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ] || continue
    case "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" in
      *"$DIR/"*) printf '%s ' "${d#/proc/}" ;;
    esac
  done
}

# --- up -------------------------------------------------------------------------------
t0=$(date +%s)
sh "$CC" up "$DIR" || fail "ceph-cluster.sh up failed"
note "cluster up in $(($(date +%s) - t0)) s"

# --- every daemon alive and the right program -------------------------------------------
n=0
for name in mon.a mgr.x osd.0 osd.1; do
  f="$DIR/run/$name.pid"
  [ -r "$f" ] || fail "no pidfile $f"
  pid=$(cat "$f")
  case "$pid" in ''|*[!0-9]*) fail "$f holds '$pid', not a PID" ;; esac
  [ -d "/proc/$pid" ] || fail "$name (pid $pid) is not running"
  comm=$(cat "/proc/$pid/comm")
  [ "$comm" = "ceph-${name%%.*}" ] || fail "$name pid $pid is '$comm', expected ceph-${name%%.*}"
  n=$((n + 1))
done
[ "$(ls "$DIR"/run/*.pid | wc -l)" -eq 4 ] || fail "expected 4 pidfiles, got: $(ls "$DIR"/run/*.pid)"
note "$n daemons alive: $(for f in "$DIR"/run/*.pid; do printf '%s=%s ' "$(basename "$f" .pid)" "$(cat "$f")"; done)"

sh "$CC" status "$DIR" >"$BASE/status.out" 2>&1 || { cat "$BASE/status.out" >&2; fail "status exited non-zero"; }
grep -q 'HEALTH_OK\|HEALTH_WARN' "$BASE/status.out" || { cat "$BASE/status.out" >&2; fail "status shows no ceph -s"; }

eval "$(sh "$CC" env "$DIR")" || fail "env failed"
[ "$CEPH_CONF" = "$DIR/ceph.conf" ] || fail "env: CEPH_CONF=$CEPH_CONF"
timeout 30 rbd info "$CEPH_CLUSTER_POOL/$CEPH_CLUSTER_IMAGE" >/dev/null || fail "rbd info $CEPH_CLUSTER_POOL/$CEPH_CLUSTER_IMAGE"

# --- 5 s of 4K random writes through librbd ------------------------------------------------
timeout -k 10 90 fio --name=placer-ceph-test --ioengine=rbd --clientname=admin \
  --pool="$CEPH_CLUSTER_POOL" --rbdname="$CEPH_CLUSTER_IMAGE" --rw=randwrite --bs=4k \
  --iodepth=16 --time_based --runtime=5 --output-format=json \
  --output="$BASE/fio.json" >"$BASE/fio.err" 2>&1 ||
  { cat "$BASE/fio.err" >&2; fail "fio exited non-zero (or hung)"; }
res=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("%d %.0f %d %.2f" % (j["error"], j["write"]["iops"], j["write"]["total_ios"],
                          j["write"]["clat_ns"]["percentile"]["99.000000"] / 1e6))
' "$BASE/fio.json") || { cat "$BASE/fio.json" "$BASE/fio.err" >&2; fail "cannot parse fio JSON"; }
set -- $res
[ "$1" = 0 ] || fail "fio job error $1"
[ "$2" -gt 0 ] && [ "$3" -gt 0 ] || fail "fio: zero write IOPS ($res)"
note "fio rbd 4K randwrite iodepth 16, 5 s: $2 IOPS, $3 writes, p99 $4 ms"

# --- down ---------------------------------------------------------------------------------
pids=$(cat "$DIR"/run/*.pid)
t0=$(date +%s)
sh "$CC" down "$DIR" || fail "down failed"
note "cluster down in $(($(date +%s) - t0)) s"
[ ! -e "$DIR" ] || fail "$DIR still exists after down"
for p in $pids; do
  if [ -d "/proc/$p" ] && ! grep -q ') Z' "/proc/$p/stat" 2>/dev/null &&
     tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q "$DIR/"; then
    fail "daemon pid $p survived down"
  fi
done
left=$(procs_in_dir)
[ -z "$left" ] || fail "processes mentioning $DIR remain: $left"
sh "$CC" down "$DIR" || fail "a second down failed"
note "PASS"
