#!/bin/sh
# placer apply / status / reset through systemd, as on a production Ceph node (systemd as PID 1,
# pure cgroup v2), which this host (no systemd, v1 hybrid) cannot offer: boots a 2-NUMA-node qemu
# guest whose init is systemd (ci/vm/build-systemd-guest.sh: Debian 12 rootfs, the host's
# kernel, TCG) and, inside it, with a live plan:
#   - a service unit running a forking, multi-threaded load (placer's churn helper, which keeps
#     creating and ending threads, beside stress-ng --cpu 2 --sleep 1: a parent, two cpu workers
#     and one with long-lived threads) is placed by
#     `placer apply` (backend chosen automatically): the unit's group has cpuset.cpus.effective 1,
#     cpuset.mems.effective 1, memory.max and cpu.weight as planned; every thread of every process
#     in the unit has Cpus_allowed_list 1 / Mems_allowed_list 1; the processes stay in the unit's
#     own group and placer made no group of its own;
#   - a second apply changes nothing; status exits 0; an AllowedCPUs changed behind placer's back
#     is DRIFT (exit 1); `systemctl restart` keeps the runtime properties (until reboot);
#   - reset (--json) leaves the unit as before (no runtime drop-in, every thread on 0-1) and its
#     document names the unit set back (under "systemd": units_restored), no group and no process;
#   - apply --persist writes /etc/systemd/system/UNIT.d/50-placer.conf; with the runtime
#     properties wiped (as a reboot does) and the unit restarted, the placement holds on every
#     new thread; --restart rolling restarts it, waits for health and checks every thread;
#   - systemctl stop still stops every process of the unit (KillMode=control-group);
#   - reset removes the drop-in (dropins_removed in its document); a second reset has nothing to
#     do; PID 1, a pid in init.scope and --persist on a scope are precise errors;
#   - a profile with irqs: (a PCI function's interrupt line to cpu 1) and --persist installs and
#     enables placer-irqs.service; with the line back at the kernel's value and the IRQ journal
#     gone (as after a reboot), starting the unit places it again; reset removes the unit.
# No real ceph-osd runs in the guest (a Ceph rootfs would triple the image and the boot time
# under TCG); stress-ng stands in for a forking, threaded daemon.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer).
# Exit 77 (skip) without qemu, a kernel or debootstrap.
# ctest: needs=shared cost=150
set -eu
T=apply_systemd_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
need_cmd debootstrap
guest_begin
name=apply-systemd-$$

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: apply-systemd
reserve: { cores: 0, memory: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: 1, weight: 300 }
    memory: 256MiB
    locality: { near: numa, numa: 1 }
    match: { cmdline: "/usr/bin/stress-ng --cpu 2 *" } # the parent: its workers are its tree
EOF

cat >"$tmp/placer-stress.service" <<'EOF'
[Unit]
Description=placer test load: forking and multi-threaded

[Service]
ExecStart=/bin/sh -c '/t/churn placer-guest 4 20 & exec /usr/bin/stress-ng --cpu 2 --cpu-load 5 --sleep 1 --sleep-max 4 --timeout 0 --quiet'
EOF

# Runs in the guest (dash) as a oneshot service; the guest's exit code is this script's.
cat >"$tmp/test.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/run/placer-t
U=placer-stress.service G=/sys/fs/cgroup/system.slice/placer-stress.service
D=/etc/systemd/system/placer-stress.service.d C=/run/systemd/system.control/placer-stress.service.d
guest_on_fail() { systemctl status $U --no-pager 2>&1 | head -n 20; }
procs() { cat $G/cgroup.procs 2>/dev/null; }
# every thread of every process in the unit on CPUS and MEMS, at least 5 processes
threads_on() {  # CPUS MEMS
    threads_in $G "$1" "$2" || return 1
    [ $nt -le "$(cat /tmp/max-threads 2>/dev/null || echo 0)" ] || echo $nt >/tmp/max-threads
    [ $np -ge 5 ]
}
wait_procs() {  # 5 processes in the unit (parent, 2 cpu workers, pthread and sleep workers)
    i=0
    while [ "$(procs | wc -l)" -lt 5 ]; do i=$((i + 1)); [ $i -lt 100 ] || fail "$U has $(procs | wc -l) processes"; sleep 0.1; done
}
echo "GUEST pid1=$(cat /proc/1/comm) controllers=$(cat /sys/fs/cgroup/cgroup.controllers) nodes=$(cat /sys/devices/system/node/online)"
[ -d /run/systemd/system ] || fail "PID 1 is not systemd"
systemctl daemon-reload
systemctl start $U || fail "start $U"
wait_procs
threads_on 0-1 0-1 >/dev/null || fail "before apply: threads not on 0-1"

# ---- apply at run time
must apply $P apply /t/p.yaml
show apply
grep -q "unit $U: bound pid" /tmp/out || fail "apply did not go through the unit"
[ "$(cat $G/cpuset.cpus.effective)" = 1 ] || fail "cpuset.cpus.effective $(cat $G/cpuset.cpus.effective)"
[ "$(cat $G/cpuset.mems.effective)" = 1 ] || fail "cpuset.mems.effective $(cat $G/cpuset.mems.effective)"
[ "$(cat $G/memory.max)" = 268435456 ] || fail "memory.max $(cat $G/memory.max)"
[ "$(cat $G/cpu.weight)" = 300 ] || fail "cpu.weight $(cat $G/cpu.weight)"
[ "$(systemctl show -p AllowedCPUs --value $U)" = 1 ] || fail "AllowedCPUs $(systemctl show -p AllowedCPUs --value $U)"
threads_on 1 1 || fail "after apply"
for p in $(procs); do
    [ "$(cat /proc/$p/cgroup 2>/dev/null || echo 0::/system.slice/$U)" = "0::/system.slice/$U" ] || fail "pid $p left its unit: $(cat /proc/$p/cgroup)"
done
[ -z "$(ls -d /sys/fs/cgroup/placer* 2>/dev/null)" ] || fail "placer made groups of its own"
ls $C/50-AllowedCPUs.conf >/dev/null || fail "no runtime drop-in"
echo "GUEST applied: cpuset.cpus.effective 1, cpuset.mems.effective 1, memory.max 256 MiB, cpu.weight 300"

must "second apply" $P apply /t/p.yaml
grep -q "^nothing to change" /tmp/out || { cat /tmp/out; fail "second apply changed something"; }
must status $P status
show status
systemctl set-property --runtime $U AllowedCPUs=0-1
exits 1 "status after AllowedCPUs=0-1" $P status
grep -q "DRIFT $U AllowedCPUs=0-1, planned 1" /tmp/out || { cat /tmp/out; fail "drift not reported"; }
$P apply /t/p.yaml >/dev/null 2>&1 || fail "apply after drift"
$P status >/dev/null 2>&1 || fail "status after re-apply"
echo "GUEST status: second apply changes nothing; AllowedCPUs changed by hand is DRIFT (exit 1); apply puts it back"

old=$(procs | tr '\n' ' ')
systemctl restart $U || fail "restart"
wait_procs
threads_on 1 1 || fail "runtime properties after restart"
must "status after restart" $P status
grep -q "have exited (restarted?)" /tmp/out || { cat /tmp/out; fail "status does not note the restart"; }
echo "GUEST restart: the runtime properties hold for the new processes (pids were $old)"

must reset $P reset --json
show reset
# reset --json, flattened: the document of the systemd backend (docs/apply.md)
has() { tr -d ' \n' </tmp/out | grep -qF "$1" || { cat /tmp/out; fail "reset --json lacks $1"; }; }
# what only the systemd backend reports sits under its name; no groups, no processes
for k in '"backend":"systemd"' '"changed":true' '"changes":1,' '"interrupted":false' \
    "\"systemd\":{\"units_restored\":[\"$U\"],\"dropins_removed\":[]}"; do has "$k"; done
tr -d ' \n' </tmp/out | grep -qE '"(groups_removed|pids_restored|cgroupfs)"' && { cat /tmp/out; fail "a cgroupfs key in reset --json"; }
[ -z "$(ls $C 2>/dev/null)" ] || fail "runtime drop-ins left: $(ls $C)"
[ -z "$(systemctl show -p AllowedCPUs --value $U)" ] || fail "AllowedCPUs left: $(systemctl show -p AllowedCPUs --value $U)"
# systemd drops a controller nothing asks for any more: a missing file is the default too
[ ! -e $G/memory.max ] || [ "$(cat $G/memory.max)" = max ] || fail "memory.max after reset $(cat $G/memory.max)"
[ ! -e $G/cpu.weight ] || [ "$(cat $G/cpu.weight)" = 100 ] || fail "cpu.weight after reset $(cat $G/cpu.weight)"
[ ! -e $G/cpuset.cpus ] || [ -z "$(cat $G/cpuset.cpus)" ] || fail "cpuset.cpus after reset $(cat $G/cpuset.cpus)"
threads_on 0-1 0-1 || fail "after reset"
[ ! -e /run/placer-t/systemd.json ] || fail "state left"

# ---- persistent
must "apply --persist" $P apply --persist /t/p.yaml
grep -q "write $D/50-placer.conf" /tmp/out || { cat /tmp/out; fail "no drop-in written"; }
show drop-in $D/50-placer.conf
grep -qx "AllowedCPUs=1" $D/50-placer.conf || fail "drop-in lacks AllowedCPUs=1"
# a reboot empties /run: only the drop-in is left
rm -rf $C
systemctl daemon-reload
systemctl restart $U || fail "restart after wiping the runtime properties"
wait_procs
[ "$(cat $G/cpuset.cpus.effective)" = 1 ] || fail "drop-in: cpuset.cpus.effective $(cat $G/cpuset.cpus.effective)"
threads_on 1 1 || fail "drop-in after restart"
must "status after restart with --persist" $P status
echo "GUEST persist: with only the drop-in left (runtime properties wiped) a restarted unit is placed on every thread"

old=$(systemctl show -p MainPID --value $U)
must "apply --restart rolling" $P apply --persist --restart rolling --health-cmd "systemctl is-active --quiet $U" --health-timeout 60 /t/p.yaml
grep -q "restarted; the placement holds on every thread" /tmp/out || { cat /tmp/out; fail "rolling restart not reported"; }
new=$(systemctl show -p MainPID --value $U)
[ "$new" != "$old" ] || fail "not restarted (MainPID $new)"
wait_procs
threads_on 1 1 || fail "after the rolling restart"
echo "GUEST rolling: $U restarted (MainPID $old -> $new), health checked, every thread placed"

systemctl stop $U || fail "stop"
[ -z "$(procs)" ] || fail "processes left after stop: $(procs)"
for p in /proc/[0-9]*; do
    case "$(cat $p/cmdline 2>/dev/null | tr '\0' ' ')" in /usr/bin/stress-ng* | /t/churn*) fail "stress-ng or churn left after stop: ${p#/proc/}" ;; esac
done
echo "GUEST stop: systemctl stop ended every process of the unit"
must "reset after --persist" $P reset --json
for k in '"backend":"systemd"' '"changes":2,' \
    "\"systemd\":{\"units_restored\":[\"$U\"],\"dropins_removed\":[\"$D/50-placer.conf\"]}"; do has "$k"; done
[ ! -e $D/50-placer.conf ] || fail "drop-in left"
[ ! -d $D ] || fail "drop-in directory left"
systemctl cat $U | grep -q 50-placer && fail "systemd still has the drop-in"
must "second reset" $P reset --json
has '"changed":false'
echo "GUEST reset: drop-in removed (reset --json names it and the unit); a second reset has nothing to do"

# ---- IRQs with --persist: the boot unit that places them again after a reboot
# the first PCI function with an interrupt line of its own that a handler uses (PIIX4's ACPI)
I=/proc/irq FN=
for d in /sys/bus/pci/devices/*; do
    n=$(cat $d/irq 2>/dev/null); [ "${n:-0}" -gt 0 ] && [ -n "$(ls -d $I/$n/*/ 2>/dev/null)" ] && { FN=${d##*/}; break; }
done
[ -n "$FN" ] || fail "no PCI function with an interrupt line"
IRQ=$(cat /sys/bus/pci/devices/$FN/irq) ORIG=$(cat $I/$IRQ/smp_affinity_list)
sed "s/^roles:/irqs:\n  - { device: \"$FN\", to: \"1\" }\nroles:/" /t/p.yaml >/tmp/p-irq.yaml
systemctl start $U || fail "start $U again"
wait_procs
must "apply --persist with irqs" $P apply --persist /tmp/p-irq.yaml
show irqs
[ "$(cat $I/$IRQ/smp_affinity_list)" = 1 ] || fail "IRQ $IRQ of $FN is on $(cat $I/$IRQ/smp_affinity_list)"
grep -q "ExecStart=.* apply --irqs-only --irqbalance refuse --state-dir /run/placer-t /tmp/p-irq.yaml" /etc/systemd/system/placer-irqs.service ||
    { cat /etc/systemd/system/placer-irqs.service; fail "the boot unit"; }
[ "$(systemctl is-enabled placer-irqs.service)" = enabled ] || fail "the boot unit is not enabled"
# a reboot: the kernel's list back, the IRQs' journal in /run gone (systemd.json is kept: the
# backend's own reset after a reboot is another matter)
echo "$ORIG" >$I/$IRQ/smp_affinity_list
rm -f /run/placer-t/irq.json
systemctl start placer-irqs.service || { journalctl -u placer-irqs.service --no-pager | tail; fail "the boot unit failed"; }
[ "$(cat $I/$IRQ/smp_affinity_list)" = 1 ] || fail "the boot unit left IRQ $IRQ on $(cat $I/$IRQ/smp_affinity_list)"
must "status after the boot unit" $P status
grep -q "IRQ $IRQ .*planned 1, now 1" /tmp/out || { cat /tmp/out; fail "status does not show IRQ $IRQ"; }
must "reset with irqs" $P reset
show "irqs reset"
[ "$(cat $I/$IRQ/smp_affinity_list)" = "$ORIG" ] || fail "reset left IRQ $IRQ on $(cat $I/$IRQ/smp_affinity_list), was $ORIG"
[ ! -e /etc/systemd/system/placer-irqs.service ] && [ ! -e /etc/systemd/system/multi-user.target.wants/placer-irqs.service ] ||
    fail "the boot unit is left"
systemctl stop placer-irqs.service $U
echo "GUEST irqs: --persist's boot unit ($FN's IRQ $IRQ to cpu 1) placed it again after its list was reset; reset removed it"

# ---- precise errors
# PID 1 is never bound, whatever the backend (exit 2, since #35); another process in init.scope
# has no unit placer could set properties on (exit 3)
rc=0; $P apply --pid app.0=1 /t/p.yaml >/tmp/out 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "that is PID 1, the init of the whole system, which placer never binds" /tmp/out ||
  { cat /tmp/out; fail "pid 1: exit $rc"; }
sleep 1000 &
s=$!
INIT_SCOPE=/sys/fs/cgroup/init.scope # the throwaway guest's, never the host's
echo $s >"$INIT_SCOPE/cgroup.procs" || fail "cannot move $s into init.scope"
rc=0; $P apply --pid app.0=$s /t/p.yaml >/tmp/out 2>&1 || rc=$?
kill $s
[ $rc = 3 ] && grep -q "init.scope" /tmp/out || { cat /tmp/out; fail "a pid in init.scope: exit $rc"; }
systemd-run --scope --unit placer-t-scope sleep 1000 >/dev/null 2>&1 &
i=0; while ! systemctl is-active --quiet placer-t-scope.scope; do i=$((i + 1)); [ $i -lt 50 ] || fail "no scope"; sleep 0.1; done
S=$(cat /sys/fs/cgroup/system.slice/placer-t-scope.scope/cgroup.procs | head -n 1)
rc=0; $P apply --persist --pid app.0=$S /t/p.yaml >/tmp/out 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "placer-t-scope.scope is a scope" /tmp/out || { cat /tmp/out; fail "--persist on a scope: exit $rc"; }
[ ! -e /run/placer-t/systemd.json ] || fail "a refused apply left state"
systemctl stop placer-t-scope.scope
echo "GUEST errors: $(head -n 1 /tmp/out)"
echo "GUEST most threads seen in the unit at one check: $(cat /tmp/max-threads)"
[ "$(cat /tmp/max-threads)" -ge 7 ] || fail "the load was not multi-threaded (the sleep worker keeps 5 threads)"
echo "GUEST OK: systemd backend: apply, status, drift, restart, --persist, --restart rolling, stop, reset, the IRQs' boot unit"
EOF

systemd_guest_run "$name" 840 "$tmp/p.yaml:/t/p.yaml" "${PLACER_TEST_CHURN:?}:/t/churn" "$tmp/placer-stress.service:/etc/systemd/system/placer-stress.service" || fail "systemd guest test failed"
