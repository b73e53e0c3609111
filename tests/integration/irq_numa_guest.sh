#!/bin/sh
# Device locality and IRQ placement, live, on a machine with two NUMA nodes: a qemu q35 guest
# (TCG, 4 vCPUs: 0-1 on node 0, 2-3 on node 1) with a pxb-pcie expander bound to node 1 carrying
# an emulated NVMe drive (backed by a file in the test's scratch directory) and an e1000e NIC
# (MSI-X; on a hub port that leads nowhere: no host network).  Inside the guest:
#   - placer topo shows nvme0n1 and eth0 on node 1 (the kernel's numa_node through ACPI's _PXM);
#   - plan puts the OSD near its NVMe and the MDS near the NIC (node 1), a client on node 0;
#   - apply places three stand-in processes, steers the NIC's IRQs to the MDS's cpu and the
#     NVMe's admin queue to the OSD's, and reports its four managed I/O queues (a write to one
#     by hand fails with EIO: the kernel manages them); traffic on the NIC and reads on the NVMe
#     land where status says, counted per CPU;
#   - status (exit 0), an IRQ moved by hand (DRIFT, exit 1), apply again (repaired), reset
#     (every /proc/irq/*/smp_affinity_list as before, the processes back);
#   - with irqbalance running (Debian's binary, never installed on this machine: extracted from
#     its .deb into the cache): apply refuses (exit 2, nothing changed); --irqbalance ignore goes
#     on; --irqbalance ban writes the guest's /etc/default/irqbalance and restarts irqbalance
#     through the init script (a stand-in that sources the file as Debian's does), which then
#     leaves the steered IRQs alone; reset takes the ban back out.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer).
# Exit 77 (skip) without qemu, a kernel and its modules, or busybox.
# ctest: cost=3 timeout=300
set -eu
T=irq_numa_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
guest_begin
need_cmd truncate

# The guest kernel's modules for the NVMe drive and the NIC.
guest_modules nvme e1000e
adds=$GUEST_MODULES
truncate -s 64M "$tmp/nvme.img"

# irqbalance's binary from its .deb, unpacked into the cache (this machine never installs it:
# it would start rebalancing this machine's IRQs)
ib_dir=$cache/irqbalance
if [ ! -x "$ib_dir/usr/sbin/irqbalance" ] && command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; then
    mkdir -p "$tmp/deb"
    if (cd "$tmp/deb" && apt-get download irqbalance) >"$tmp/deb.out" 2>&1; then
        mkdir -p "$ib_dir.new" && dpkg-deb -x "$tmp/deb"/irqbalance_*.deb "$ib_dir.new" &&
            rm -rf "$ib_dir" && mv "$ib_dir.new" "$ib_dir"
    fi
fi
if [ -x "$ib_dir/usr/sbin/irqbalance" ]; then
    adds="$adds $ib_dir/usr/sbin/irqbalance:/t/irqbalance"
else
    say "no irqbalance binary (apt-get download irqbalance failed): its part is left out"
fi

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: irq-numa
roles:
  - name: osd
    kind: ceph-osd
    per_device: 1
    devices: [nvme0n1]
    cpu: { threads: 1 }
    irqs: own          # its device's IRQs on its own cpu; the managed queues reported
    match: {}
  - name: mds
    kind: ceph-mds
    cpu: { threads: 1 }
    locality: { near: nic, nic: eth0 }
    irqs: own          # the NIC's IRQs, one per cpu of the MDS
    match: {}
  - name: client
    kind: generic
    cpu: { threads: 1 }
    match: {}
EOF

# irqbalance's init script as Debian's works: it sources /etc/default/irqbalance (here exported
# by placer's block) and restarts the daemon
cat >"$tmp/irqbalance.init" <<'EOF'
#!/bin/sh
[ -f /etc/default/irqbalance ] && . /etc/default/irqbalance
case "$1" in
    restart)
        [ -f /run/irqbalance.pid ] && kill "$(cat /run/irqbalance.pid)" 2>/dev/null && sleep 0.5
        /t/irqbalance --foreground --interval=1 ${IRQBALANCE_ARGS:-} </dev/null >>/tmp/irqbalance.log 2>&1 &
        echo $! >/run/irqbalance.pid ;;
    stop) [ -f /run/irqbalance.pid ] && kill "$(cat /run/irqbalance.pid)"; rm -f /run/irqbalance.pid ;;
esac
exit 0
EOF

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/irq-numa.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/tmp/state PLACER_CGROUP_PREFIX=placer-t
I=/proc/irq
while read -r m; do insmod "/t/mods/$m.ko" || fail "insmod $m"; done </t/mods/order
ip link set lo up && ip link set eth0 up && ip addr add 10.99.0.1/24 dev eth0 || fail "eth0 up"
# a neighbour that does not exist: packets leave at once (no ARP) and go nowhere
arp -i eth0 -s 10.99.0.2 02:00:00:00:00:02 || fail "neighbour"
i=0
until grep -q 'eth0-tx-0' /proc/interrupts; do i=$((i + 1)); [ $i -lt 100 ] || fail "no eth0 IRQs"; sleep 0.1; done
irq_of() { awk -v n="$1" '$NF == n { sub(":", "", $1); print $1 }' /proc/interrupts; }
# CPU K's count of IRQ N (column K+2 of /proc/interrupts) and its sum over every cpu, from one
# read: two reads let an interrupt fall between them (1 run in ~40 failed so)
counts() { awk -v n="$1:" -v k="$2" 'NR == 1 { ncpu = NF } $1 == n { s = 0; for (i = 2; i <= ncpu + 1; i++) s += $i; print $(k + 2), s }' /proc/interrupts; }
snapshot() { for d in $I/[0-9]*; do echo "${d##*/} $(cat "$d/smp_affinity_list")"; done; }
snapshot >/tmp/before
TX=$(irq_of eth0-tx-0) RX=$(irq_of eth0-rx-0) Q0=$(irq_of nvme0q0)
echo "GUEST nodes $(cat /sys/devices/system/node/online); IRQs: eth0-tx-0 $TX, eth0-rx-0 $RX, nvme0q0 $Q0"

# 1. live device locality
$P topo >/tmp/topo.txt || fail "topo exited $?"
grep -E '^nvme0n1 +nvme .* 0000:81:00\.0 +1 ' /tmp/topo.txt || { cat /tmp/topo.txt; fail "nvme0n1 is not on node 1"; }
grep -E '^eth0 +0000:82:00\.0 +1 ' /tmp/topo.txt || { cat /tmp/topo.txt; fail "eth0 is not on node 1"; }

# 2. the plan: OSD near its NVMe, MDS near the NIC, their IRQs
$P plan /t/p.yaml >/tmp/plan.txt || { cat /tmp/plan.txt; fail "plan exited $?"; }
show plan /tmp/plan.txt
# NUMA CPUS LOCALITY of an instance's row, found by the header's columns
row() { awk -v i="$1" '/^INSTANCE / { n = index($0, " NUMA ") + 1; c = index($0, " CPUS ") + 1; l = index($0, " LOCALITY ") + 1 }
    $1 == i { split(substr($0, n), a, " "); split(substr($0, c), b, " "); split(substr($0, l), d, " "); print a[1], b[1], d[1] }' /tmp/plan.txt; }
set -- $(row osd.0); [ "$1 $3" = "1 local" ] || fail "osd.0 is not local on node 1: $*"; OSD_CPU=$2
set -- $(row mds.0); [ "$1 $3" = "1 local" ] || fail "mds.0 is not local on node 1: $*"; MDS_CPU=$2
set -- $(row client.0); [ "$1" = 0 ] || fail "client.0 is not on node 0: $*"
grep -Eq "^ +$TX +eth0-tx-0 +eth0 +mds\.0 +[0-9-]+ +$MDS_CPU\$" /tmp/plan.txt || fail "plan: eth0-tx-0 not to $MDS_CPU"
grep -Eq "^ +$Q0 +nvme0q0 +nvme0n1 +osd\.0 .* $OSD_CPU\$" /tmp/plan.txt || fail "plan: nvme0q0 not to $OSD_CPU"
grep -q "osd.0: 1 of the 4 managed queue IRQs of nvme0n1 complete on its own cpus" /tmp/plan.txt ||
    fail "plan does not report the managed queues"

# 3. apply to three stand-ins
sleep 1001 & OSD=$!
sleep 1002 & MDS=$!
sleep 1003 & CLI=$!
allowed() { field "$1" Cpus_allowed_list; }
$P apply --pid osd.0=$OSD --pid mds.0=$MDS --pid client.0=$CLI /t/p.yaml >/tmp/apply.txt 2>&1 ||
    { cat /tmp/apply.txt; fail "apply exited $?"; }
show apply /tmp/apply.txt
[ "$(allowed $OSD)" = "$OSD_CPU" ] || fail "osd stand-in on $(allowed $OSD), planned $OSD_CPU"
[ "$(allowed $MDS)" = "$MDS_CPU" ] || fail "mds stand-in on $(allowed $MDS), planned $MDS_CPU"
for n in $RX $TX $(irq_of eth0); do
    [ "$(cat $I/$n/smp_affinity_list)" = "$MDS_CPU" ] || fail "IRQ $n: $(cat $I/$n/smp_affinity_list), planned $MDS_CPU"
done
[ "$(cat $I/$Q0/smp_affinity_list)" = "$OSD_CPU" ] || fail "nvme0q0 on $(cat $I/$Q0/smp_affinity_list)"
[ "$(grep -c 'managed by the kernel, completes on cpu' /tmp/apply.txt)" = 4 ] || fail "apply reports no 4 managed queues"
Q1=$(irq_of nvme0q1)
if echo 0 >"$I/$Q1/smp_affinity_list" 2>/tmp/eio; then fail "the kernel let nvme0q1 be moved: not managed"; fi
grep -q "Input/output error" /tmp/eio || fail "writing nvme0q1: $(cat /tmp/eio), not EIO"

# 4. interrupts land where the plan says: the NIC's on the MDS's cpu, the OSD's reads on its queue
# x86 moves an MSI at its next interrupt: one packet first, so that the counted ones come after it
ping -c 1 -W 1 10.99.0.2 >/dev/null 2>&1
c=$(counts "$TX" "$MDS_CPU") && before=${c% *} all_before=${c#* }
ping -c 20 -i 0.05 -W 1 10.99.0.2 >/dev/null 2>&1
c=$(counts "$TX" "$MDS_CPU") && after=${c% *} all_after=${c#* }
echo "GUEST eth0-tx-0 on cpu $MDS_CPU: $before -> $after; on all cpus: $all_before -> $all_after"
[ $((after - before)) -ge 10 ] || fail "eth0-tx-0 grew by $((after - before)) on cpu $MDS_CPU"
[ $((all_after - all_before)) = $((after - before)) ] || fail "eth0-tx-0 grew on another cpu too"
[ "$(cat $I/$TX/effective_affinity_list)" = "$MDS_CPU" ] || fail "eth0-tx-0 is effective on $(cat $I/$TX/effective_affinity_list)"
taskset -c "$OSD_CPU" dd if=/dev/nvme0n1 of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null || fail "dd"

# 5. status: planned, effective, interrupts per cpu since apply
$P status >/tmp/status.txt 2>&1 || { cat /tmp/status.txt; fail "status exited $?"; }
show status /tmp/status.txt
grep -Eq "IRQ $TX eth0-tx-0 \(eth0, mds\.0\): planned $MDS_CPU, now $MDS_CPU, completes on cpu $MDS_CPU; since apply:.* cpu$MDS_CPU [1-9]" /tmp/status.txt ||
    fail "status: eth0-tx-0"
grep -Eq "IRQ $Q1 nvme0q1 \(nvme0n1, osd\.0\): managed by the kernel, completes on cpu $OSD_CPU; since apply:.* cpu$OSD_CPU ([2-9][0-9][0-9]|1[0-9][0-9][0-9])" /tmp/status.txt ||
    fail "status: the OSD's reads did not complete on its own queue (nvme0q1 on cpu $OSD_CPU)"

# 6. drift: an IRQ moved by hand
echo 0 >"$I/$TX/smp_affinity_list"
$P status >/tmp/status.txt 2>&1 && fail "status exited 0 with an IRQ moved"
[ $? = 1 ] || fail "status exit code for drift"
grep -q "DRIFT: IRQ $TX (eth0-tx-0) of eth0: smp_affinity_list 0, planned $MDS_CPU" /tmp/status.txt || { cat /tmp/status.txt; fail "no DRIFT line"; }
$P apply --pid osd.0=$OSD --pid mds.0=$MDS --pid client.0=$CLI /t/p.yaml >/tmp/apply.txt 2>&1 || fail "apply again exited $?"
grep -Eq "^irq $TX +eth0-tx-0 \(eth0, mds\.0\): on cpus $MDS_CPU \(was 0\)" /tmp/apply.txt || { cat /tmp/apply.txt; fail "apply did not repair"; }
$P status >/dev/null 2>&1 || fail "status after the repair exited $?"

# 7. reset: every IRQ as before
$P reset >/tmp/reset.txt 2>&1 || { cat /tmp/reset.txt; fail "reset exited $?"; }
show reset /tmp/reset.txt
snapshot | diff /tmp/before - || fail "reset left IRQs changed"
[ ! -e /tmp/state/irq.json ] || fail "irq.json left after reset"
[ "$(allowed $OSD)" = 0-3 ] || fail "osd stand-in still on $(allowed $OSD)"
echo "GUEST reset restored all $(wc -l </tmp/before) IRQs"

# 8. irqbalance
if [ -x /t/irqbalance ]; then
    mkdir -p /run/irqbalance /etc/init.d
    cp /t/irqbalance.init /etc/init.d/irqbalance && chmod 755 /etc/init.d/irqbalance
    /etc/init.d/irqbalance restart
    IB=$(cat /run/irqbalance.pid)
    sleep 2
    snapshot >/tmp/before
    $P apply --pid osd.0=$OSD --pid mds.0=$MDS --pid client.0=$CLI /t/p.yaml >/tmp/apply.txt 2>&1
    rc=$?
    [ $rc = 2 ] || { cat /tmp/apply.txt; fail "apply with irqbalance running exited $rc, not 2"; }
    show refused /tmp/apply.txt
    grep -q "irqbalance is running (pid $IB): it rebalances every 10 s and would move the 4 IRQs" /tmp/apply.txt ||
        fail "the refusal does not say what irqbalance would do"
    [ ! -e /tmp/state/irq.json ] && [ "$(allowed $OSD)" = 0-3 ] || fail "the refused apply changed something"
    $P apply --irqbalance ignore --pid osd.0=$OSD --pid mds.0=$MDS --pid client.0=$CLI /t/p.yaml >/tmp/apply.txt 2>&1 ||
        fail "apply --irqbalance ignore exited $?"
    grep -q "note: irqs: irqbalance is running (pid $IB) and may move the steered IRQs again" /tmp/apply.txt ||
        fail "no warning with --irqbalance ignore"
    $P reset >/dev/null 2>&1 || fail "reset after ignore"
    $P apply --irqbalance ban --pid osd.0=$OSD --pid mds.0=$MDS --pid client.0=$CLI /t/p.yaml >/tmp/apply.txt 2>&1 ||
        { cat /tmp/apply.txt; fail "apply --irqbalance ban exited $?"; }
    show ban /tmp/apply.txt
    show /etc/default/irqbalance /etc/default/irqbalance
    grep -q "^export IRQBALANCE_ARGS=\"\$IRQBALANCE_ARGS --banirq=$Q0 " /etc/default/irqbalance || fail "no --banirq"
    IB2=$(cat /run/irqbalance.pid)
    [ "$IB2" != "$IB" ] || fail "irqbalance was not restarted"
    tr '\0' '\n' <"/proc/$IB2/cmdline" | grep -qx -- "--banirq=$TX" || fail "the new irqbalance does not leave IRQ $TX alone"
    tr '\0' '\n' <"/proc/$IB2/environ" | grep -q '^IRQBALANCE_BANNED_CPULIST=' || fail "no banned cpus in its environment"
    sleep 3   # irqbalance rebalances every second here
    $P status >/tmp/status.txt 2>&1 || { cat /tmp/status.txt; fail "irqbalance moved a banned IRQ (status exited $?)"; }
    $P reset >/tmp/reset.txt 2>&1 || { cat /tmp/reset.txt; fail "reset after ban exited $?"; }
    show reset /tmp/reset.txt
    [ ! -e /etc/default/irqbalance ] || { cat /etc/default/irqbalance; fail "the ban is still there"; }
    IB3=$(cat /run/irqbalance.pid)
    [ "$IB3" != "$IB2" ] || fail "irqbalance was not restarted without the ban"
    tr '\0' '\n' <"/proc/$IB3/cmdline" | grep -q -- "--banirq" && fail "irqbalance still bans IRQs"
    /etc/init.d/irqbalance stop
    echo "GUEST irqbalance: refused, ignored, banned and unbanned"
fi
kill $OSD $MDS $CLI
echo "GUEST OK: device locality live on 2 NUMA nodes, IRQs steered, drift and reset"
EOF

# shellcheck disable=SC2086 # $adds is a list of HOST:GUEST words
GUEST_ARGS="--smp 4 --machine q35 --pxb 1 --nvme $tmp/nvme.img --nic e1000e" \
    guest_run_test irq-numa 240 '^GUEST' "$tmp/irq-numa.sh" "$tmp/p.yaml:/t/p.yaml" "$tmp/order:/t/mods/order" \
    "$tmp/irqbalance.init:/t/irqbalance.init" $adds || exit 1
