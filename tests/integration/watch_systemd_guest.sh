#!/bin/sh
# placer watch where PID 1 is systemd (issue #40, the systemd backend): in apply_systemd_guest.sh's
# guest (ci/vm/build-systemd-guest.sh: Debian 12's systemd on pure cgroup v2, 2 NUMA nodes, TCG),
# a watcher started with the backend chosen automatically (systemd), then, after it:
#   - a process of an instance in init.scope: refused as apply refuses it, one line in the log,
#     init.scope untouched, the watcher goes on;
#   - a transient service (systemd-run --unit) running a threaded load that matches the role app
#     and a transient scope (systemd-run --scope, as libvirt runs a VM in machine-qemu-N.scope)
#     that matches the role vm: each unit gets its instance's AllowedCPUs (and the app's weight
#     and memory limit), its group's cpuset.cpus.effective as planned, every thread of every
#     process in it Cpus_allowed_list / Mems_allowed_list as planned, and every process is still
#     in its unit's own group (/proc/PID/cgroup): nothing moved, no group of placer's own;
#   - AllowedCPUs changed by hand on the service: put back at the next check, the log says so;
#   - the service restarted: the new processes on its CPUs from the runtime properties, the
#     watcher placing nothing again;
#   - systemctl stop of the placed service ends every process of it (systemd still owns them);
#     the watcher goes on;
#   - the watcher killed -9 and started again: "0 changes", the scope's record untouched (the
#     first record wins); SIGTERM: exit 0, the scope still placed;
#   - reset sets the scope's properties back as they were before the first watcher (AllowedCPUs
#     empty: every thread on 0-1), removes every runtime drop-in placer caused (the stopped
#     service's too) and leaves no state.
# On main (watch always through cgroupfs) the processes leave their units: the test fails there.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer).
# Exit 77 (skip) without qemu, a kernel or debootstrap.
# ctest: needs=shared cost=90
set -eu
T=watch_systemd_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
need_cmd debootstrap
guest_begin
name=watch-systemd-$$

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: watch-systemd
reserve: { cores: 0, memory: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: 1, weight: 300 }
    memory: 256MiB
    locality: { near: numa, numa: 1 }
    match: { cmdline: "/usr/bin/stress-ng --cpu 1 --sleep 1 *" }
  - name: vm
    kind: generic
    count: 1
    cpu: { threads: 1 }
    locality: { near: numa, numa: 0 }
    match: { cmdline: "/usr/bin/stress-ng --cpu 1 --timeout 0 *" }
EOF

# Runs in the guest (dash) as a oneshot service; the guest's exit code is this script's.
cat >"$tmp/test.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/run/placer-w
S=placer-w-app.service SG=/sys/fs/cgroup/system.slice/placer-w-app.service
V=placer-w-vm.scope VG=/sys/fs/cgroup/system.slice/placer-w-vm.scope
C=/run/systemd/system.control
guest_on_fail() { echo "--- watch log"; cat /tmp/watch*.log 2>/dev/null; systemctl status $S $V --no-pager 2>&1 | head -n 30; }
procs() { cat "$1/cgroup.procs" 2>/dev/null; }
# every thread of every process in GROUP on CPUS and MEMS, at least MIN processes
threads_on() {  # GROUP CPUS MEMS MIN
    threads_in "$1" "$2" "$3" && [ $np -ge "$4" ]
}
# every process of group $1 still in it (not moved by placer): its v2 line names the unit's group
in_unit() {  # GROUP
    for p in $(procs "$1"); do
        l=$(cat /proc/$p/cgroup 2>/dev/null) || continue
        [ "$l" = "0::${1#/sys/fs/cgroup}" ] || fail "pid $p left its unit: $l"
    done
}
wait_for() {  # WHAT TENTHS CMD...: CMD until it succeeds
    _w=$1 _n=$2; shift 2; _i=0
    until "$@"; do _i=$((_i + 1)); [ $_i -lt "$_n" ] || fail "$_w (after $_n tenths of a second)"; sleep 0.1; done
}
shows() { [ "$(systemctl show -p "$2" --value "$1")" = "$3" ]; }
echo "GUEST pid1=$(cat /proc/1/comm) nodes=$(cat /sys/devices/system/node/online)"
[ -d /run/systemd/system ] || fail "PID 1 is not systemd"

$P watch --interval 500 /t/p.yaml >/tmp/watch1.log 2>&1 &
W=$!
wait_for "the watcher started" 300 grep -q "^watching 2 instances" /tmp/watch1.log
grep -q "(systemd units, state /run/placer-w)" /tmp/watch1.log || fail "the watcher did not choose the systemd backend"

# ---- refused as apply refuses, logged, and the watcher goes on: a process of vm.0 in init.scope
INIT_SCOPE=/sys/fs/cgroup/init.scope # the throwaway guest's, never the host's
sh -c "echo \$\$ >$INIT_SCOPE/cgroup.procs && exec /usr/bin/stress-ng --cpu 1 --timeout 0 --cpu-load 5 --quiet" &
R=$!
wait_for "the refusal of pid $R in init.scope" 100 grep -q "^vm.0: could not place pid $R: .*init.scope" /tmp/watch1.log
[ "$(systemctl show -p AllowedCPUs --value init.scope)" = "" ] || fail "init.scope was given properties"
kill $R
wait $R 2>/dev/null
kill -0 $W 2>/dev/null || fail "the watcher ended after the refusal"
echo "GUEST refused: $(grep "^vm.0: could not place pid $R" /tmp/watch1.log | head -n 1)"

# ---- started after the watcher: a transient service and a transient scope
systemd-run --quiet --unit=$S /usr/bin/stress-ng --cpu 1 --sleep 1 --sleep-max 4 --cpu-load 5 --timeout 0 --quiet ||
    fail "systemd-run $S"
systemd-run --quiet --scope --unit=$V /usr/bin/stress-ng --cpu 1 --timeout 0 --cpu-load 5 --quiet >/dev/null 2>&1 &
wait_for "$S placed" 100 shows $S AllowedCPUs 1
wait_for "$V placed" 100 shows $V AllowedCPUs 0
wait_for "$S's workers" 100 threads_on $SG 1 1 3
wait_for "$V's threads" 100 threads_on $VG 0 0 1
in_unit $SG
in_unit $VG
[ "$(cat $SG/cpuset.cpus.effective)" = 1 ] || fail "$S cpuset.cpus.effective $(cat $SG/cpuset.cpus.effective)"
[ "$(cat $SG/cpuset.mems.effective)" = 1 ] || fail "$S cpuset.mems.effective $(cat $SG/cpuset.mems.effective)"
[ "$(cat $SG/cpu.weight)" = 300 ] || fail "$S cpu.weight $(cat $SG/cpu.weight)"
[ "$(cat $SG/memory.max)" = 268435456 ] || fail "$S memory.max $(cat $SG/memory.max)"
[ "$(cat $VG/cpuset.cpus.effective)" = 0 ] || fail "$V cpuset.cpus.effective $(cat $VG/cpuset.cpus.effective)"
[ -z "$(ls -d /sys/fs/cgroup/placer* 2>/dev/null)" ] || fail "placer made groups of its own"
grep -q "^app.0: placed pid [0-9]* in system.slice/$S" /tmp/watch1.log || fail "the log does not name $S"
grep -q "^vm.0: placed pid [0-9]* in system.slice/$V" /tmp/watch1.log || fail "the log does not name $V"
show watch /tmp/watch1.log
echo "GUEST placed: $S on cpu 1 (weight 300, 256 MiB), $V on cpu 0, every process still in its unit"

# ---- a property changed by hand: put back
systemctl set-property --runtime $S AllowedCPUs=0-1
wait_for "AllowedCPUs put back" 50 shows $S AllowedCPUs 1
wait_for "the log of the fix" 30 grep -q "^app.0: $S cpus is 0-1, planned 1: put back" /tmp/watch1.log
wait_for "$S's threads back" 50 threads_on $SG 1 1 3
echo "GUEST drift: AllowedCPUs=0-1 by hand on $S put back"

# ---- restarted: its runtime properties hold; the watcher has nothing to set
old=$(systemctl show -p MainPID --value $S)
systemctl restart $S || fail "restart $S"
new=$(systemctl show -p MainPID --value $S)
[ "$new" != "$old" ] && [ "$new" != 0 ] || fail "$S not restarted (MainPID $old -> $new)"
wait_for "$S's workers after the restart" 100 threads_on $SG 1 1 3
in_unit $SG
sleep 0.6 # the exec seen and a check of the watcher made
[ "$(grep -c "^app.0: placed pid" /tmp/watch1.log)" = 1 ] || fail "the restarted unit was placed again"
echo "GUEST restart of $S: MainPID $old -> $new, every thread on cpu 1 from its runtime properties"

# ---- systemd still owns what the watcher placed
systemctl stop $S || fail "stop $S"
[ -z "$(procs $SG)" ] || fail "processes left in $S after stop: $(procs $SG)"
for p in /proc/[0-9]*; do
    case "$(cat $p/cmdline 2>/dev/null | tr '\0' ' ')" in "/usr/bin/stress-ng --cpu 1 --sleep"*) fail "stress-ng of $S left after stop: ${p#/proc/}" ;; esac
done
sleep 1.2 # two checks of the watcher with the service gone
kill -0 $W 2>/dev/null || fail "the watcher ended when $S stopped"
echo "GUEST stop: systemctl stop ended every process of the placed $S; the watcher goes on"

# ---- killed -9 and started again: continues, the first record kept
kill -9 $W
wait $W 2>/dev/null
$P watch --interval 500 /t/p.yaml >/tmp/watch2.log 2>&1 &
W=$!
wait_for "the second watcher started" 300 grep -q "^watching 2 instances" /tmp/watch2.log
grep -q "^applied profile watch-systemd: 2 instances, 0 changes" /tmp/watch2.log || fail "the second watcher changed something"
kill -TERM $W
rc=0; wait $W || rc=$?
[ $rc = 0 ] || fail "the watcher exited $rc on SIGTERM"
grep -q "stopping; everything placed stays in force" /tmp/watch2.log || fail "no stop line"
shows $V AllowedCPUs 0 || fail "$V not placed after SIGTERM"
echo "GUEST restart: killed -9, started again with 0 changes; SIGTERM exit 0, $V still placed"

# ---- reset: as before the first watcher
must reset $P reset --json
show reset
tr -d ' \n' </tmp/out | grep -qF '"backend":"systemd"' || fail "reset not through systemd"
# the original of the first watcher's record (a second record would hold the placed 0)
shows $V AllowedCPUs "" || fail "$V AllowedCPUs after reset: $(systemctl show -p AllowedCPUs --value $V)"
threads_on $VG 0-1 0-1 1 || fail "$V after reset"
in_unit $VG
[ -z "$(ls $C/$S.d $C/$V.d 2>/dev/null)" ] || fail "runtime drop-ins left: $(ls $C/$S.d $C/$V.d 2>/dev/null)"
[ ! -e /run/placer-w/systemd.json ] || fail "state left"
systemctl stop $V
echo "GUEST reset: $V back to AllowedCPUs empty (every thread on 0-1), no drop-in, no state"
echo "GUEST OK: placer watch through systemd units: new service and scope placed, not moved; drift put back; stop; kill -9; reset"
EOF

systemd_guest_run "$name" 600 "$tmp/p.yaml:/t/p.yaml" || fail "systemd guest test failed"
