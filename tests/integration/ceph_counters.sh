#!/bin/sh
# Integration test of Ceph's perf counters as placer reads them: its own admin-socket reader
# (bench/ceph-counters-read.c) and the deltas, "where the time went" and ceph-counters.csv
# (results/ceph-counters*.c), through tests/integration/lib/ceph_counters.c, on a real local
# cluster of libexec/ceph-cluster.sh (mon, mgr, 2 OSDs, an MDS; CephFS mounted with ceph-fuse):
#   - one read: each OSD and the MDS answer with their counters; a socket that is not there and
#     another daemon's socket are missing at once; an OSD stopped (SIGSTOP) is missing after the
#     timeout (1 s), not waited for
#   - 3 s of rados bench 4K writes: every OSD and the MDS ok; osd.op_w summed over the OSDs is the
#     writes rados made (+ at most 4: its metadata object, 1 to 2 in all here), each replicated
#     once (osd.subop_w), and the write latency is at least its processing part, which is > 0
#   - 300 files created on the CephFS mount: the MDS counted exactly 300 creates, and at least as
#     many client requests (mds.request), the MDS's where-the-time-went says so
#   - osd.1 stopped while the run's "after" is read: missing ("after the run: ... no answer"),
#     osd.0 still counted, where.osd 1 counted and 1 left out
#   - osd.0 killed and started again during a run: restarted, its counters never averaged
#   - each run's ceph-counters.csv read back by placer: every OSD and the MDS; a copy cut in the
#     middle of a row is refused with one line, exit 2
# Needs root, the Ceph packages with ceph-fuse (ci/install-deps.sh); exits 77 (skipped) without.
# ctest: cost=40
set -u

SRC=${PLACER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CC="$SRC/libexec/ceph-cluster.sh"
T=ceph_counters
. "$SRC/tests/integration/lib/common.sh"
H=${PLACER_TEST_CEPH_COUNTERS:-}

need_root
need_cmd ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph rados
[ -n "$H" ] && [ -x "$H" ] || fail "PLACER_TEST_CEPH_COUNTERS (the built placer_test_ceph_counters) is not set"
[ -e /dev/fuse ] || skip "no /dev/fuse for ceph-fuse"

t_begin
DIR="$T_WORK/cluster"
t_defer 'sh "$CC" down "$DIR" >/dev/null || echo "$T: warning: down failed in cleanup" >&2'
sh "$CC" up "$DIR" --osds 2 --mds || fail "ceph-cluster.sh up failed"
eval "$(sh "$CC" env "$DIR")"
asok() { echo "$DIR/run/ceph-$1.asok"; }

# stop.sh PID: SIGSTOP, then wait until every thread of PID is stopped: kill returns before they
# all are, and a thread of a busy OSD answered its admin socket after kill -STOP had returned
cat >"$T_WORK/stop.sh" <<'EOF'
kill -STOP "$1" || exit 1
n=0
while grep -qv '^[0-9]* ([^)]*) [tT] ' /proc/"$1"/task/*/stat 2>/dev/null; do
  n=$((n + 1))
  [ $n -lt 100 ] || { echo "pid $1 is not stopped 10 s after SIGSTOP" >&2; exit 1; }
  sleep 0.1
done
EOF

# py EXPR FILE: EXPR of the JSON document in FILE (j), printed
py() { $PY -c "import json, sys; j = json.load(open(sys.argv[1])); print($1)" "$2"; }

# --- one read ------------------------------------------------------------------------------
for d in osd.0 osd.1 mds.a; do
  out=$("$H" read "$d" "$(asok "$d")" 2000) || fail "read $d: $out"
  case $d in osd.*) want=14 ;; *) want=35 ;; esac # the counters placer keeps of a Ceph 16 dump
  [ "$(echo "$out" | cut -d' ' -f1-2)" = "ok $want" ] || fail "read $d: '$out', expected ok with $want counters"
done
out=$("$H" read osd.9 "$(asok osd.9)" 1000)
case $out in "missing "*"ceph-osd.9.asok: No such file or directory") ;; *) fail "a socket that is not there: $out" ;; esac
out=$("$H" read osd.0 "$(asok mds.a)" 1000)
case $out in "missing "*"no 'osd' section: not an OSD's perf dump") ;; *) fail "the MDS's socket as osd.0's: $out" ;; esac
pid1=$(cat "$DIR/run/osd.1.pid")
sh "$T_WORK/stop.sh" "$pid1" || fail "osd.1 (pid $pid1) could not be stopped"
out=$("$H" read osd.1 "$(asok osd.1)" 1000)
kill -CONT "$pid1"
ms=$(echo "$out" | cut -d' ' -f2)
case $out in "missing "*"ceph-osd.1.asok: no answer in 1000 ms") ;; *) fail "osd.1 stopped: $out" ;; esac
[ "$ms" -ge 1000 ] && [ "$ms" -lt 2500 ] || fail "osd.1 stopped: gave up after $ms ms, expected 1000 to 2500"
say "one read: osd.0, osd.1, mds.a answer; a stopped osd.1 is missing after $ms ms"

# check_csv RUN N WANT...: the run's CSV, read back by placer, lists WANT ("osd.0 ok") and no other daemon
check_csv() {
  _csv=$T_WORK/$1.csv
  shift
  "$H" csv-check "$_csv" >"$_csv.read" 2>&1 || { cat "$_csv.read" >&2; fail "$_csv was not read back"; }
  got=$(cut -d' ' -f2,3 "$_csv.read" | tr '\n' ';')
  [ "$got" = "$1" ] || fail "$_csv: daemons '$got', expected '$1'"
}

# --- 3 s of 4K writes ------------------------------------------------------------------------
"$H" run "$DIR" 2000 "$T_WORK/writes.csv" -- rados -p rbd bench 3 write -b 4096 -t 16 --no-cleanup \
  >"$T_WORK/writes.json" 2>"$T_WORK/writes.err" || { cat "$T_WORK/writes.err" >&2; fail "rados bench (run 1)"; }
made=$(sed -n 's/^Total writes made: *\([0-9]*\)$/\1/p' "$T_WORK/writes.err")
[ -n "$made" ] && [ "$made" -gt 0 ] || fail "rados bench made no writes: $(tail -5 "$T_WORK/writes.err")"
states=$(py '" ".join(d["daemon"] + "=" + d["state"] for d in j["daemons"])' "$T_WORK/writes.json")
[ "$states" = "osd.0=ok osd.1=ok mds.a=ok" ] || fail "run 1: $states"
op_w=$(py 'sum(d["counters"]["osd.op_w"]["count"] for d in j["daemons"] if d["daemon"].startswith("osd."))' "$T_WORK/writes.json")
subop_w=$(py 'sum(d["counters"]["osd.subop_w"]["count"] for d in j["daemons"] if d["daemon"].startswith("osd."))' "$T_WORK/writes.json")
[ "$op_w" -ge "$made" ] && [ "$op_w" -le $((made + 4)) ] || fail "osd.op_w $op_w over the OSDs for $made writes"
[ "$subop_w" = "$op_w" ] || fail "osd.subop_w $subop_w, expected one replica write per write ($op_w)"
where=$(py 'j["where"]["osd"]' "$T_WORK/writes.json")
py 'all(j["where"]["osd"][k] is not None for k in ("write_ns", "write_process_ns", "replication_ns", "bluestore_commit_ns", "kv_sync_ns"))' \
  "$T_WORK/writes.json" | grep -qx True || fail "where.osd misses a figure: $where"
py 'j["where"]["osd"]["write_ns"] >= j["where"]["osd"]["write_process_ns"] > 0 and j["where"]["osd"]["osds"] == 2' \
  "$T_WORK/writes.json" | grep -qx True || fail "where.osd: $where"
check_csv writes "osd.0 ok;osd.1 ok;mds.a ok;"
say "3 s of writes: $made made, osd.op_w $op_w, subop_w $subop_w; $(py '"write %.2f ms (queue %.2f, processing %.2f), replica %.2f, commit %.2f, kv sync %.2f" % tuple(j["where"]["osd"][k] / 1e6 for k in ("write_ns", "write_queue_ns", "write_process_ns", "replication_ns", "bluestore_commit_ns", "kv_sync_ns"))' "$T_WORK/writes.json")"

# --- 300 creates on CephFS -------------------------------------------------------------------
mkdir "$DIR/mnt"
ceph-fuse -c "$CEPH_CONF" "$DIR/mnt" >"$T_WORK/fuse.out" 2>&1 || { cat "$T_WORK/fuse.out" >&2; fail "ceph-fuse"; }
t_defer 'umount "$DIR/mnt" 2>/dev/null'
mkdir "$DIR/mnt/tree"
"$H" run "$DIR" 2000 "$T_WORK/creates.csv" -- sh -c 'i=0; while [ $i -lt 300 ]; do : >"$1/f$i"; i=$((i + 1)); done' \
  sh "$DIR/mnt/tree" >"$T_WORK/creates.json" 2>"$T_WORK/creates.err" || { cat "$T_WORK/creates.err" >&2; fail "creates"; }
[ "$(ls "$DIR/mnt/tree" | wc -l)" = 300 ] || fail "300 files were not created"
mds=$(py '[d for d in j["daemons"] if d["daemon"] == "mds.a"][0]' "$T_WORK/creates.json")
creates=$(py '[d for d in j["daemons"] if d["daemon"] == "mds.a"][0]["counters"]["mds_server.req_create_latency"]["count"]' "$T_WORK/creates.json")
requests=$(py '[d for d in j["daemons"] if d["daemon"] == "mds.a"][0]["counters"]["mds.request"]["count"]' "$T_WORK/creates.json")
[ "$creates" = 300 ] || fail "the MDS counted $creates creates, expected 300: $mds"
[ "$requests" -ge 300 ] && [ "$requests" -le 450 ] || fail "the MDS counted $requests requests for 300 creates"
py '[o for o in j["where"]["mds"]["ops"] if o["op"] == "create"][0]["count"] == 300 and j["where"]["mds"]["reply_latency_ns"] > 0 and j["where"]["mds"]["requests_per_s"] > 0' \
  "$T_WORK/creates.json" | grep -qx True || fail "where.mds: $(py 'j["where"]["mds"]' "$T_WORK/creates.json")"
check_csv creates "osd.0 ok;osd.1 ok;mds.a ok;"
say "300 creates: the MDS counted $creates creates, $requests requests; $(py '"reply %.3f ms, %.0f requests/s" % (j["where"]["mds"]["reply_latency_ns"] / 1e6, j["where"]["mds"]["requests_per_s"])' "$T_WORK/creates.json")"

# --- osd.1 does not answer after the run --------------------------------------------------------
"$H" run "$DIR" 1000 "$T_WORK/stopped.csv" -- sh "$T_WORK/stop.sh" "$pid1" >"$T_WORK/stopped.json" 2>"$T_WORK/stopped.err"
rc=$?
kill -CONT "$pid1"
[ $rc = 0 ] || { cat "$T_WORK/stopped.err" >&2; fail "run with osd.1 stopped"; }
states=$(py '" ".join(d["daemon"] + "=" + d["state"] for d in j["daemons"])' "$T_WORK/stopped.json")
[ "$states" = "osd.0=ok osd.1=missing mds.a=ok" ] || fail "osd.1 stopped: $states"
why=$(py '[d for d in j["daemons"] if d["daemon"] == "osd.1"][0]["why"]' "$T_WORK/stopped.json")
[ "$why" = "after the run: admin socket $(asok osd.1): no answer in 1000 ms" ] || fail "osd.1 stopped: why '$why'"
py 'j["where"]["osd"]["osds"] == 1 and j["where"]["osd"]["left_out"] == 1' "$T_WORK/stopped.json" | grep -qx True ||
  fail "osd.1 stopped: where.osd $(py 'j["where"]["osd"]' "$T_WORK/stopped.json")"
check_csv stopped "osd.0 ok;osd.1 missing;mds.a ok;"
say "osd.1 stopped: missing ($why), left out of where.osd"

# --- osd.0 restarted during a run ------------------------------------------------------------
pid0=$(cat "$DIR/run/osd.0.pid")
cat >"$T_WORK/restart.sh" <<EOF
set -e
sh "$CC" kill "$DIR" osd.0
# kill returns when the main thread is gone; the others may hold the OSD's pid file a moment longer
while [ -e /proc/$pid0 ]; do sleep 0.1; done
sh "$CC" start "$DIR" osd.0 >/dev/null
n=0
until "$H" read osd.0 "$(asok osd.0)" 1000 | grep -q '^ok '; do
  n=\$((n + 1)); [ \$n -lt 100 ] || { echo "osd.0 did not answer after its restart" >&2; exit 1; }; sleep 0.2
done
EOF
"$H" run "$DIR" 2000 "$T_WORK/restart.csv" -- sh "$T_WORK/restart.sh" >"$T_WORK/restart.json" 2>"$T_WORK/restart.err" ||
  { cat "$T_WORK/restart.err" >&2; fail "restart of osd.0"; }
[ "$(cat "$DIR/run/osd.0.pid")" != "$pid0" ] || fail "osd.0 was not started again"
states=$(py '" ".join(d["daemon"] + "=" + d["state"] for d in j["daemons"])' "$T_WORK/restart.json")
[ "$states" = "osd.0=restarted osd.1=ok mds.a=ok" ] || fail "osd.0 restarted: $states"
why=$(py '[d for d in j["daemons"] if d["daemon"] == "osd.0"][0]["why"]' "$T_WORK/restart.json")
case $why in *" went from "*" to "*) ;; *) fail "osd.0 restarted: why '$why'" ;; esac
py 'len([d for d in j["daemons"] if d["daemon"] == "osd.0"][0]["counters"]) == 0 and j["where"]["osd"]["osds"] == 1 and j["where"]["osd"]["left_out"] == 1' \
  "$T_WORK/restart.json" | grep -qx True || fail "osd.0 restarted: $(py 'j' "$T_WORK/restart.json")"
check_csv restart "osd.0 restarted;osd.1 ok;mds.a ok;"
say "osd.0 restarted: $why"

# --- a counters file cut short is refused -------------------------------------------------------
size=$(wc -c <"$T_WORK/writes.csv")
head -c $((size / 2)) "$T_WORK/writes.csv" >"$T_WORK/cut.csv"
"$H" csv-check "$T_WORK/cut.csv" >"$T_WORK/cut.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "a cut counters file: exit $rc, expected 2: $(cat "$T_WORK/cut.out")"
[ "$(wc -l <"$T_WORK/cut.out")" = 1 ] && grep -q "cut.csv:[0-9]*: " "$T_WORK/cut.out" ||
  fail "a cut counters file: $(cat "$T_WORK/cut.out")"
say "a cut counters file: $(cat "$T_WORK/cut.out")"

umount "$DIR/mnt" || fail "umount $DIR/mnt"
sh "$CC" down "$DIR" >/dev/null || fail "ceph-cluster.sh down"
t_nothing_left "after down"
say "PASS"
