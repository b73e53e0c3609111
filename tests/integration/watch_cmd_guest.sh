#!/bin/sh
# `placer watch` and a NIC whose driver is reloaded, in a qemu q35 guest (TCG, 2 vCPUs, pure cgroup
# v2) with an e1000e NIC (MSI-X, on a hub port that leads nowhere): the watcher steers eth0's IRQs
# to CPU 1 as the profile's irqs: says; then the driver is unbound from the NIC and bound again
# (what a driver reload or a NIC reset does: the IRQs freed and requested anew, on whatever CPUs
# the kernel picks), and every IRQ of eth0 is back on CPU 1 within three seconds, through the
# watcher alone (a change of the node's IRQ numbers plans the profile again; the same numbers
# with their lists reset are put back by the check); SIGTERM, then reset sets every IRQ back.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer).
# Exit 77 (skip) without qemu, a kernel and its modules, or busybox.
# ctest: cost=3 timeout=300
set -eu
T=watch_cmd_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
guest_begin
guest_modules e1000e

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: watch-guest
irqs:
  - device: eth0
    to: "1"
roles:
  - name: app
    kind: generic
    cpu: { threads: 1 }
    match: { cmdline: "placer-t-nothing *" }
EOF

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/watch-guest.sh" <<'EOF'
set -u
export PLACER_STATE_DIR=/tmp/state PLACER_CGROUP_PREFIX=placer-t
P=/t/placer I=/proc/irq
fail() { echo "GUEST FAIL: $*"; sed 's/^/GUEST watch: /' /tmp/w.log; exit 1; }
while read -r m; do insmod "/t/mods/$m.ko" || fail "insmod $m"; done </t/mods/order
ip link set lo up && ip link set eth0 up || fail "eth0 up"
eth0_irqs() { awk '$NF ~ /^eth0/ { sub(":", "", $1); print $1 }' /proc/interrupts | sort -n | tr '\n' ' '; }
on_cpu1() {
    [ -n "$(eth0_irqs)" ] || return 1
    for n in $(eth0_irqs); do [ "$(cat $I/$n/smp_affinity_list)" = 1 ] || return 1; done
}
wait_until() { i=0; until "$@"; do i=$((i + 1)); [ $i -lt 30 ] || return 1; sleep 0.1; done; }
wait_until sh -c "grep -q eth0 /proc/interrupts" || fail "no eth0 IRQs"
for d in $I/[0-9]*; do echo "${d##*/} $(cat "$d/smp_affinity_list")"; done >/tmp/before
BEFORE=$(eth0_irqs)

$P watch --interval 200 /t/p.yaml >/tmp/w.log 2>&1 &
W=$!
wait_until grep -q '^watching' /tmp/w.log || fail "the watcher did not start"
on_cpu1 || fail "eth0's IRQs ($BEFORE) not steered to cpu 1"
echo "GUEST watch steered eth0's IRQs $BEFORE to cpu 1"

pci=$(basename "$(readlink -f /sys/class/net/eth0/device)")
drv=/sys/bus/pci/drivers/e1000e # the guest's, through a variable as ci/check-test-writes.sh asks
echo "$pci" >"$drv/unbind" || fail "unbind $pci"
echo "$pci" >"$drv/bind" || fail "bind $pci"
wait_until test -e /sys/class/net/eth0 || fail "no eth0 after the rebind"
ip link set eth0 up || fail "eth0 up again"
wait_until sh -c "grep -q eth0 /proc/interrupts" || fail "no eth0 IRQs after the rebind"
AFTER=$(eth0_irqs)
echo "GUEST driver reloaded: eth0's IRQs $BEFORE -> $AFTER"
wait_until on_cpu1 || wait_until on_cpu1 || wait_until on_cpu1 ||
    fail "eth0's IRQs $AFTER not back on cpu 1: $(for n in $AFTER; do echo "$n:$(cat $I/$n/smp_affinity_list)"; done)"
grep -E "IRQs or devices changed|put back" /tmp/w.log | sed 's/^/GUEST watch: /'
echo "GUEST every IRQ of eth0 back on cpu 1 after the reload"

kill -TERM $W
wait $W || fail "the watcher exited $?"
$P reset >/tmp/reset.txt 2>&1 || { cat /tmp/reset.txt; fail "reset exited $?"; }
for n in $AFTER; do
    want=$(awk -v n="$n" '$1 == n { print $2 }' /tmp/before)
    [ -z "$want" ] || [ "$(cat $I/$n/smp_affinity_list)" = "$want" ] || fail "IRQ $n not set back by reset"
done
echo "GUEST OK: eth0's IRQs steered by placer watch, again after a driver reload, set back by reset"
EOF

# shellcheck disable=SC2086 # $GUEST_MODULES is a list of HOST:GUEST words
GUEST_ARGS="--smp 2 --machine q35 --nic e1000e" \
    guest_run_test watch-guest 200 '^GUEST' "$tmp/watch-guest.sh" "$tmp/p.yaml:/t/p.yaml" \
    "$tmp/order:/t/mods/order" $GUEST_MODULES || exit 1
