#!/bin/sh
# placer apply on a real Ceph cluster (libexec/ceph-cluster.sh: mon, mgr, 2 OSDs)
# with the shipped profile profiles/demo-local.yaml, while fio writes to an
# rbd image and stress-ng plays the noisy neighbour: every daemon is found by
# its --id / -i (fio and stress-ng by cmdline), every one of an OSD's ~60
# threads ends up in its group with the planned Cpus_allowed_list, the OSDs
# keep serving I/O (the running fio finishes without error, a rados bench
# after apply succeeds), status says all is in force, and reset puts every
# daemon back where it was.
# ctest: cost=36
set -eu
T=apply_ceph
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
for b in ceph-mon ceph-osd ceph-mgr rados fio stress-ng; do
    need_cmd "$b"
done
apply_setup apply_ceph
CLUSTER=$WORK/ceph
profile=$SRC/profiles/demo-local.yaml

cluster_down() { sh "$SRC/libexec/ceph-cluster.sh" down "$CLUSTER" >/dev/null 2>&1 || true; }
# The cluster goes before the rest of the cleanup removes $WORK.
t_defer cluster_down

sh "$SRC/libexec/ceph-cluster.sh" up "$CLUSTER" --osds 2 || fail "libexec/ceph-cluster.sh up failed"
eval "$(sh "$SRC/libexec/ceph-cluster.sh" env "$CLUSTER")"
daemons="mon.a mgr.x osd.0 osd.1"
for d in $daemons; do
    eval "pid_$(echo "$d" | tr . _)=$(cat "$CLUSTER/run/$d.pid")"
done
snapshot_daemons() {
    for d in $daemons; do
        eval "p=\$pid_$(echo "$d" | tr . _)"
        grep -E ':(cpuset|memory|cpu):' "/proc/$p/cgroup" | sed "s/^/$d /"
        # threads come and go in a daemon: the set of allowed lists is what must match
        cat /proc/"$p"/task/*/status | grep -E '^(Cpus|Mems)_allowed_list' | sort -u | sed "s/^/$d /"
    done
}
snapshot_daemons >"$WORK/before"

bg_start fio --name=apply-ceph --ioengine=rbd --clientname=admin --pool="$CEPH_CLUSTER_POOL" \
    --rbdname="$CEPH_CLUSTER_IMAGE" --rw=randwrite --bs=4k --iodepth=8 --size=256M --runtime=15 --time_based \
    --output="$WORK/fio.out"
FIO=$LAST_PID
bg_start stress-ng --cpu 1 --timeout 60 --quiet
sleep 3 # fio connected and writing

"$PLACER" apply "$profile" >"$WORK/out" || fail "apply: $(cat "$WORK/out")"
cat "$WORK/out"
for d in mon.0:mon.a mgr.0:mgr.x osd.0:osd.0 osd.1:osd.1; do
    inst=${d%%:*} daemon=${d#*:}
    eval "p=\$pid_$(echo "$daemon" | tr . _)"
    grep -Eq "^$(echo "$inst" | sed 's/\./\\./') .* bound pid $p ceph-" "$WORK/out" || fail "$inst ($daemon, pid $p) not bound"
    role=${inst%%.*}
    set -- $(planned "$profile" "$inst"); cpus=$1 mems=$2
    "$PY" "$LIB/check_placement.py" "$p" "$TAG/$role/$inst" "$cpus" "$mems" || fail "$inst placement"
done
grep -Eq "^fio\.0 .* bound pid $FIO fio" "$WORK/out" || fail "fio not bound"
grep -Eq "^neighbour\.0 .* bound pid [0-9]+ stress-ng" "$WORK/out" || fail "stress-ng not bound"
set -- $(planned "$profile" fio.0)
"$PY" "$LIB/check_placement.py" "$FIO" "$TAG/fio/fio.0" "$1" "$2" || fail "fio placement"
osd_threads=$(ls "/proc/$pid_osd_0/task" | wc -l)
[ "$(cat "$CG/memory/$TAG/osd/osd.0/memory.limit_in_bytes")" = $((1536 << 20)) ] || fail "osd.0 memory limit"

rc=0; wait "$FIO" || rc=$?
[ $rc = 0 ] || fail "fio failed while the OSDs moved (exit $rc): $(tail -5 "$WORK/fio.out")"
grep -q "err= 0" "$WORK/fio.out" || fail "fio reported errors: $(grep err= "$WORK/fio.out")"
iops=$(sed -n 's/.*IOPS=\([0-9.k]*\).*/\1/p' "$WORK/fio.out" | head -1)
timeout 60 rados -p "$CEPH_CLUSTER_POOL" bench 3 write --no-cleanup -t 4 >"$WORK/bench.out" 2>&1 ||
    fail "rados bench after apply: $(tail -5 "$WORK/bench.out")"
timeout 60 rados -p "$CEPH_CLUSTER_POOL" cleanup >/dev/null 2>&1 || true
say "OSDs kept serving: fio rbd ran through the apply ($iops IOPS), rados bench after apply: $(sed -n 's/^Bandwidth (MB\/sec): *//p' "$WORK/bench.out") MB/s"

# fio has finished by now: its instance has no process any more, which is drift.
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status: exit $rc, want 1 (fio gone): $(cat "$WORK/out")"
! grep '^    DRIFT' "$WORK/out" | grep -v "DRIFT no process runs in $TAG/fio/fio.0 any more" || fail "unexpected drift (above)"
grep -q "^osd.0 .* ok .* pid $pid_osd_0 ceph-osd" "$WORK/out" || fail "status osd.0: $(cat "$WORK/out")"
say "status: the daemons in force; only the finished fio is reported (exit 1)"

"$PLACER" reset >"$WORK/out" || fail "reset: $(cat "$WORK/out")"
snapshot_daemons >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "reset did not put the daemons back (diff above)"
for c in cpuset memory cpu; do [ ! -d "$CG/$c/$TAG" ] || fail "$CG/$c/$TAG left behind"; done
timeout 60 ceph -s >/dev/null 2>&1 || fail "cluster unhealthy after reset"
say "reset: mon, mgr and both OSDs ($osd_threads threads in osd.0) back where they were; cluster answers"
say "ok"
