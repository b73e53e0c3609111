#!/bin/sh
# placer apply / status / reset on pure cgroup v2, which this host (v1 hybrid)
# cannot offer: boots a 2-NUMA-node qemu guest (libexec/vm/, ci/vm/, TCG, cgroup2 mounted
# at /sys/fs/cgroup) and, inside it, with a live plan (no --topology):
#   - applies a profile placing one instance near NUMA node 1 and binding a
#     running `sleep`: cpuset.cpus 1, cpuset.mems 1, memory.max, cpu.weight in
#     the group; the process's /proc/PID/cgroup, Cpus_allowed_list 1 and
#     Mems_allowed_list 1 (a real second node);
#   - a second apply changes nothing; status exits 0; a memory.max changed by
#     hand is DRIFT (exit 1);
#   - a failure injected before each step (PLACER_FAULT_AFTER_STEPS) is rolled
#     back to exactly the state before (no group, the process back in the root
#     with Cpus_allowed_list 0-1);
#   - reset removes the groups and puts the process back.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default
# /var/cache/placer).  Exit 77 (skip) without qemu, a kernel or busybox.
set -eu
T=apply_v2_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
bin=${PLACER_BIN:?PLACER_BIN not set}
guest_begin

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: apply-v2
reserve: { cores: 0, memory: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: 1, weight: 300 }
    memory: 64MiB
    locality: { near: numa, numa: 1 }
    match: { cmdline: "sleep 1000" }
EOF

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/apply-v2.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/tmp/state PLACER_CGROUP_PREFIX=placer-t
G=/sys/fs/cgroup/placer-t/app/app.0
echo "GUEST nodes=$(cat /sys/devices/system/node/online) cpus=$(cat /sys/devices/system/cpu/online) controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
need_v2
sleep 1000 &
S=$!
sleep 0.2
before="$(cat /proc/$S/cgroup) $(field $S Cpus_allowed_list) $(field $S Mems_allowed_list)"
echo "GUEST before: $before"

$P plan /t/p.yaml | sed 's/^/GUEST plan: /'
must apply $P apply /t/p.yaml
show apply
grep -q "bound pid $S sleep" /tmp/out || fail "sleep not bound"
[ "$(cat $G/cpuset.cpus)" = 1 ] || fail "cpuset.cpus '$(cat $G/cpuset.cpus)'"
[ "$(cat $G/cpuset.mems)" = 1 ] || fail "cpuset.mems '$(cat $G/cpuset.mems)'"
[ "$(cat $G/memory.max)" = 67108864 ] || fail "memory.max $(cat $G/memory.max)"
[ "$(cat $G/cpu.weight)" = 300 ] || fail "cpu.weight $(cat $G/cpu.weight)"
[ "$(cat /proc/$S/cgroup)" = "0::/placer-t/app/app.0" ] || fail "cgroup $(cat /proc/$S/cgroup)"
[ "$(field $S Cpus_allowed_list)" = 1 ] || fail "Cpus_allowed_list $(field $S Cpus_allowed_list)"
[ "$(field $S Mems_allowed_list)" = 1 ] || fail "Mems_allowed_list $(field $S Mems_allowed_list)"
echo "GUEST applied: $(cat /proc/$S/cgroup) cpus $(field $S Cpus_allowed_list) mems $(field $S Mems_allowed_list), memory.max $(cat $G/memory.max), cpu.weight $(cat $G/cpu.weight)"

must "second apply" $P apply /t/p.yaml
grep -q "^nothing to change" /tmp/out || fail "second apply: $(tail -n 1 /tmp/out)"
must status $P status
echo 33554432 >$G/memory.max
exits 1 "status after changing memory.max" $P status
grep -q "DRIFT placer-t/app/app.0 memory limit 32.0 MiB, planned 64.0 MiB" /tmp/out || { cat /tmp/out; fail "drift not reported"; }
echo "GUEST status: second apply changes nothing; a changed memory.max is DRIFT (exit 1)"

must reset $P reset
[ ! -e /sys/fs/cgroup/placer-t ] || fail "groups left after reset: $(find /sys/fs/cgroup/placer-t -type d)"
after="$(cat /proc/$S/cgroup) $(field $S Cpus_allowed_list) $(field $S Mems_allowed_list)"
[ "$after" = "$before" ] || fail "after reset: $after, before: $before"
echo "GUEST reset: groups removed, $after"

steps=$($P apply --dry-run /t/p.yaml | sed -n 's/^dry run: \([0-9]*\) change.*/\1/p')
[ -n "$steps" ] && [ "$steps" -ge 5 ] || fail "dry run steps '$steps'"
[ ! -e /sys/fs/cgroup/placer-t ] || fail "dry run created groups"
k=0
while [ $k -lt "$steps" ]; do
    exits 4 "apply with a fault before step $((k + 1))" env PLACER_FAULT_AFTER_STEPS=$k $P apply /t/p.yaml
    [ ! -e /sys/fs/cgroup/placer-t ] || fail "fault before step $((k + 1)): groups left"
    after="$(cat /proc/$S/cgroup) $(field $S Cpus_allowed_list) $(field $S Mems_allowed_list)"
    [ "$after" = "$before" ] || fail "fault before step $((k + 1)): $after"
    [ ! -e /tmp/state/state.json ] || fail "fault before step $((k + 1)): state left"
    k=$((k + 1))
done
echo "GUEST rollback: a failure before each of the $steps steps leaves exactly the state before"
kill $S
echo "GUEST OK: cgroup v2 apply, status, drift, rollback and reset"
EOF

guest_run_test apply-v2 240 '^GUEST' "$tmp/apply-v2.sh" "$tmp/p.yaml:/t/p.yaml" || exit 1
