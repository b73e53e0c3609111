#!/bin/sh
# `placer watch` pins the vCPU threads of a qemu that starts after it, one per PU, as apply pins
# them (a `vm` role with `pin_vcpus`; real qemu, TCG, paused with -S: its vCPU threads exist and
# burn no CPU; -name guest=NAME,debug-threads=on names them "CPU k/TCG"; no NIC):
# - through the proc connector (the checks' interval an hour, so that only the comm event of
#   each vCPU thread can pin it): every thread of the qemu in the group, "CPU k/TCG" on the k-th
#   PU of the instance's cpus, the other threads on all of them, within 5 s; the log line of each
#   pin; status clean, its JSON marking both vCPU threads;
# - with the scan (no comm events): a second qemu pinned all the same (at its move, or by the
#   check of its vCPU threads), and a vCPU thread moved by hand (taskset) put back by the check,
#   logged and counted (drift_fixed_total{kind="vcpu"});
# - --on-drift report: the moved vCPU thread reported and left where it was, status exit 1;
# - reset: every thread of both qemus back in the groups and on the cpus the shell that started
#   them has, no group or state left.
set -eu
T=watch_vcpu
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd qemu-system-x86_64 taskset
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
apply_setup watch_vcpu
. "$LIB/watch.sh"
WPID=""
t_defer '[ -z "$WPID" ] || { kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }'
G=$TAG/vm/vm.0

profile=$WORK/vm.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: vm
    kind: vm
    count: 1
    cpu: { threads: 2, pin_vcpus: true, pool: all }
    memory: 256MiB
    match: { qemu_name: "$TAG-vm" }
EOF
set -- $(planned "$profile" vm.0)
CPUS=$1 MEMS=$2
PU0=$(cpulist_nth "$CPUS" 0) PU1=$(cpulist_nth "$CPUS" 1)
[ "$PU0" != "$PU1" ] || fail "the plan's cpus $CPUS give one PU"

qemu() { # KEY: a paused TCG guest of vm.0 with 2 vCPUs; $LAST_PID
    bg_start qemu-system-x86_64 -accel tcg -smp 2 -m 64 -S -display none -nodefaults -no-user-config \
        -nic none -name "guest=$TAG-vm,debug-threads=on" -pidfile "$WORK/$1.pid"
    wait_file "$WORK/$1.pid"
    [ "$(cat "$WORK/$1.pid")" = "$LAST_PID" ] || fail "qemu $1: pid file $(cat "$WORK/$1.pid"), started $LAST_PID"
}
vcpu_tid() { # PID INDEX
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = "CPU $2/TCG" ] && { basename "$t"; return 0; }
    done
    return 1
}
# Every thread of PID in the group, its vCPU threads each on its PU, the others on $CPUS.
pinned() {
    _t0=$(vcpu_tid "$1" 0) && _t1=$(vcpu_tid "$1" 1) &&
        "$PY" "$LIB/check_placement.py" "$1" "$G" "$CPUS" "$MEMS" "$_t0=$PU0" "$_t1=$PU1" >"$WORK/check.out" 2>&1
}
allowed() { sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$1/task/$2/status"; }
prom() { "$PY" "$LIB/promcheck.py" "$WORK/m.prom" "$1"; }
stop_watcher() {
    kill -TERM "$WPID"
    _rc=0
    wait "$WPID" || _rc=$?
    WPID=""
    [ "$_rc" = 0 ] || fail "the watcher: exit $_rc after SIGTERM: $(cat "$1.err")"
    [ ! -s "$1.err" ] || fail "the watcher's stderr: $(cat "$1.err")"
}

# ---------------------------------------------------------------- the comm events
placer_watch_start "$WORK/w.log" --interval 3600000 "$profile"
WPID=$WATCH_PID
has_line "$WORK/w.log" "^process events from the kernel's proc connector" || skip "no proc connector here"
qemu a
A=$LAST_PID
wait_for 5 pinned "$A" || fail "qemu $A not placed with its vCPUs pinned within 5 s: $(cat "$WORK/check.out"); $(cat "$WORK/w.log")"
# One line per vCPU pinned: the one whose rename was read, and any other qemu had named by then.
for k in 0 1; do
    eval "pu=\$PU$k"
    tid=$(vcpu_tid "$A" $k)
    wait_for 5 has_line "$WORK/w.log" "^vm.0: vCPU $k (thread $tid) of pid $A pinned to cpu $pu, " ||
        fail "no log line for vCPU $k: $(cat "$WORK/w.log")"
done
[ "$(grep -c "^vm.0: vCPU . (thread [0-9]*) of pid $A pinned to cpu " "$WORK/w.log")" = 2 ] ||
    fail "not one line per vCPU: $(cat "$WORK/w.log")"
grep -q "^vm.0: vCPU . (thread [0-9]*) of pid $A pinned to cpu [0-9]*, .* ms after qemu named it$" "$WORK/w.log" ||
    fail "no pin by a rename: $(cat "$WORK/w.log")"
say "vCPUs pinned: $(sed -n "s/^vm.0: \(vCPU .\) (thread [0-9]*) of pid $A pinned to cpu [0-9]*, \(.*\)$/\1 \2;/p" "$WORK/w.log" | tr '\n' ' ')"
"$PLACER" status >"$WORK/status.txt" || fail "status while watched: $(cat "$WORK/status.txt")"
"$PLACER" status --json | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
[i] = [i for i in s["instances"] if i["name"] == "vm.0"]
[p] = [p for p in i["processes"] if p["pid"] == int(sys.argv[1])]
vcpus = sorted(t["tid"] for t in p["threads"] if t.get("vcpu"))
assert vcpus == sorted(int(t) for t in sys.argv[2:]), vcpus
assert all(t["ok"] for t in p["threads"]), p["threads"]
' "$A" "$(vcpu_tid "$A" 0)" "$(vcpu_tid "$A" 1)" || fail "status --json does not mark the two vCPU threads pinned"
stop_watcher "$WORK/w.log"

# ---------------------------------------------------------------- the scan: the check's pins
placer_watch_start "$WORK/s.log" --scan --interval 200 --metrics-file "$WORK/m.prom" "$profile"
WPID=$WATCH_PID
has_line "$WORK/s.log" "^applied profile $TAG: 1 instance, 0 changes" || fail "not continued: $(cat "$WORK/s.log")"
qemu b
B=$LAST_PID
wait_for 5 pinned "$B" || fail "qemu $B (the scan) not pinned within 5 s: $(cat "$WORK/check.out"); $(cat "$WORK/s.log")"
pinned "$A" || fail "qemu $A off its pins after the restart: $(cat "$WORK/check.out")"
if has_line "$WORK/s.log" "^vm.0: 2 vCPU threads of pid $B pinned one per PU (found by the check)$"; then
    say "the scan: qemu $B's vCPU threads pinned by the check"
else
    say "the scan: qemu $B's vCPU threads pinned as it was moved"
fi

# A vCPU thread moved by hand onto the other's PU: put back.
T1=$(vcpu_tid "$A" 1)
taskset -p -c "$PU0" "$T1" >/dev/null
wait_for 5 sh -c "[ \"\$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/$A/task/$T1/status)\" = $PU1 ]" ||
    fail "vCPU 1 of $A not put back: $(allowed "$A" "$T1"); $(tail -3 "$WORK/s.log")"
wait_for 5 has_line "$WORK/s.log" "^vm.0: vCPU 1 (thread $T1) of pid $A is on cpus $PU0, planned $PU1: put back$" ||
    fail "not logged: $(tail -3 "$WORK/s.log")"
wait_for 5 sh -c "[ \"\$($PY '$LIB/promcheck.py' '$WORK/m.prom' 'placer_watch_drift_fixed_total{kind=\"vcpu\"}')\" = 1 ]" ||
    fail "drift_fixed_total{vcpu} not 1: $(grep vcpu "$WORK/m.prom")"
pinned "$A" || fail "qemu $A after the put back: $(cat "$WORK/check.out")"
stop_watcher "$WORK/s.log"

# ---------------------------------------------------------------- --on-drift report
placer_watch_start "$WORK/r.log" --interval 200 --on-drift report "$profile"
WPID=$WATCH_PID
taskset -p -c "$PU0" "$T1" >/dev/null
wait_for 5 has_line "$WORK/r.log" "^vm.0: vCPU 1 (thread $T1) of pid $A is on cpus $PU0, planned $PU1: reported, left as it is$" ||
    fail "not reported: $(tail -3 "$WORK/r.log")"
sleep 0.5
[ "$(allowed "$A" "$T1")" = "$PU0" ] || fail "report mode moved vCPU 1 of $A: $(allowed "$A" "$T1")"
rc=0
"$PLACER" status >"$WORK/status.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "DRIFT thread $T1 (CPU 1/TCG) of pid $A: Cpus_allowed_list $PU0, planned $PU1" "$WORK/status.txt" ||
    fail "status: exit $rc: $(cat "$WORK/status.txt")"
stop_watcher "$WORK/r.log"

# ---------------------------------------------------------------- reset: as the shell that started them
reset_clean "after the watchers"
shell_groups=$(grep -E ':(cpuset|memory|cpu,cpuacct|cpu):' /proc/$$/cgroup)
shell_allowed=$(grep -E '^(Cpus|Mems)_allowed_list' /proc/$$/status)
for pid in "$A" "$B"; do
    [ "$(grep -E ':(cpuset|memory|cpu,cpuacct|cpu):' "/proc/$pid/cgroup")" = "$shell_groups" ] ||
        fail "reset: qemu $pid in $(grep cpuset "/proc/$pid/cgroup"), not the shell's groups"
    for t in /proc/"$pid"/task/*; do
        [ "$(grep -E '^(Cpus|Mems)_allowed_list' "$t/status")" = "$shell_allowed" ] ||
            fail "reset: thread $(basename "$t") ($(cat "$t/comm")) of $pid: $(grep -E '^Cpus_allowed_list' "$t/status")"
    done
done
say "reset: every thread of both qemus back in the shell's groups and cpus"
say "ok"
