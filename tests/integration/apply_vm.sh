#!/bin/sh
# VMs under placer apply, for real: three qemu guests (TCG, paused with -S:
# their vCPU threads exist, they burn no CPU) matched by -name guest=NAME.
# vm.0 has "-qmp unix:SOCK" (found on its command line), vm.1 has no QMP
# (vCPU threads found by their names, "CPU n/TCG"), vm.2 has a -chardev/-mon
# QMP given explicitly with --qmp.  After apply, every qemu thread is in its
# group, each vCPU thread pinned to its own PU; a vCPU thread re-pinned with
# taskset is DRIFT (exit 1), a new apply repairs it, reset gives every
# thread its old affinity back.
set -eu
T=apply_vm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd qemu-system-x86_64
apply_setup apply_vm
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

profile=$WORK/vm.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: vm
    kind: vm
    count: 3
    cpu: { threads: 2, pin_vcpus: true, pool: all }
    memory: 512MiB
    match: { qemu_name: "$TAG-vm{index}" }
EOF

qemu() { # NAME EXTRA...
    name=$1; shift
    bg_start qemu-system-x86_64 -accel tcg -smp 2 -m 64 -S -display none -nodefaults -no-user-config \
        -name "guest=$name,debug-threads=on" -pidfile "$WORK/$name.pid" "$@"
    wait_file "$WORK/$name.pid"
    [ "$(cat "$WORK/$name.pid")" = "$LAST_PID" ] || fail "qemu $name: pid file $(cat "$WORK/$name.pid"), started $LAST_PID"
}
qemu "$TAG-vm0" -qmp "unix:$WORK/vm0.qmp,server=on,wait=off"
qemu "$TAG-vm1"
qemu "$TAG-vm2" -chardev "socket,id=mon0,path=$WORK/vm2.qmp,server=on,wait=off" -mon chardev=mon0,mode=control
V0=$(cat "$WORK/$TAG-vm0.pid") V1=$(cat "$WORK/$TAG-vm1.pid") V2=$(cat "$WORK/$TAG-vm2.pid")
snapshot "$V0" "$V1" "$V2" >"$WORK/before"

vcpu_tid() { # PID INDEX
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm")" = "CPU $2/TCG" ] && { basename "$t"; return; }
    done
    fail "pid $1 has no thread 'CPU $2/TCG'"
}

"$PLACER" apply --qmp "vm.2=$WORK/vm2.qmp" "$profile" >"$WORK/out" || fail "apply: $(cat "$WORK/out")"
cat "$WORK/out"
grep -q "^vm.0 .*bound pid $V0 .*; 2 vCPUs pinned one per PU (found by qmp)" "$WORK/out" || fail "vm.0 line"
grep -q "^vm.1 .*bound pid $V1 .*; 2 vCPUs pinned one per PU (found by thread names)" "$WORK/out" || fail "vm.1 line"
grep -q "^vm.2 .*bound pid $V2 .*; 2 vCPUs pinned one per PU (found by qmp)" "$WORK/out" || fail "vm.2 line"
for i in 0 1 2; do
    eval "pid=\$V$i"
    set -- $(planned "$profile" "vm.$i"); cpus=$1 mems=$2
    pu0=$(cpulist_nth "$cpus" 0) pu1=$(cpulist_nth "$cpus" 1)
    "$PY" "$LIB/check_placement.py" "$pid" "$TAG/vm/vm.$i" "$cpus" "$mems" \
        "$(vcpu_tid "$pid" 0)=$pu0" "$(vcpu_tid "$pid" 1)=$pu1" || fail "vm.$i placement"
done
[ "$(cat "$CG/memory/$TAG/vm/vm.1/memory.limit_in_bytes")" = $((512 << 20)) ] || fail "vm.1 memory limit"
"$PLACER" status >"$WORK/out" || fail "status after apply: $(cat "$WORK/out")"

# Drift: vCPU 1 of vm.1 moved onto vCPU 0's PU.
t1=$(vcpu_tid "$V1" 1)
taskset -p -c "$pu0" "$t1" >/dev/null
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status after taskset: exit $rc"
grep -q "DRIFT thread $t1 (CPU 1/TCG) of pid $V1: Cpus_allowed_list $pu0, planned $pu1" "$WORK/out" || fail "drift: $(cat "$WORK/out")"
"$PLACER" status --json | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
bad = [(i["name"], t["tid"]) for i in s["instances"] for p in i["processes"] for t in p["threads"] if not t["ok"]]
assert bad == [("vm.1", int(sys.argv[1]))], bad
' "$t1" || fail "status --json does not flag exactly that thread"
say "drift: taskset of a vCPU thread reported (exit 1)"
"$PLACER" apply "$profile" >"$WORK/out" || fail "repairing apply"
grep -q "applied profile .* 1 changes" "$WORK/out" || fail "repair: $(tail -1 "$WORK/out")"
"$PLACER" status >/dev/null || fail "status after repair"
say "a new apply re-pins it (1 change)"

"$PLACER" reset >"$WORK/out" || fail "reset: $(cat "$WORK/out")"
snapshot "$V0" "$V1" "$V2" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "reset did not restore every qemu thread (diff above)"
say "reset: every qemu thread back in its groups with its old affinity"
say "ok"
