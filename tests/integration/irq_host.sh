#!/bin/sh
# IRQ placement on this machine's real IRQs, as root.  A profile sends vda's IRQs and those of
# the virtio-rng PCI function (named by its address) to CPU 0:
#   - plan lists every IRQ with number, name, device, from and to; vda's request queue
#     (virtio1-req.0) is managed by the kernel here (its smp_affinity_list is read-only): it is
#     reported, never written;
#   - apply steers the others (journaled in irq.json with their original lists); reads of the
#     hardware RNG then raise its interrupts on CPU 0 only, and fio's O_DIRECT reads of a file
#     on vda complete on the managed queue's effective CPU only, as plan and status report;
#   - status: planned, effective, interrupts per CPU since apply; an IRQ moved by hand is DRIFT
#     (exit 1); apply repairs it; reset writes every original list back;
#   - /proc/irq refusing a write (one IRQ's directory bind-mounted read-only in a mount
#     namespace of the test's own, as in a container): exit 4, the IRQs written before it rolled
#     back, nothing left;
#   - bad input: an unknown device and a cpu list off the node, exit 2, nothing changed.
# Every /proc/irq/*/smp_affinity_list is compared with its value before the test at teardown,
# written back if it differs (and the test then fails).  Run it under flock /tmp/placer-heavy.lock.
# ctest: cost=1 lock=irqs
set -eu
T=irq_host
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_root
need_cmd fio python3 unshare mount
P=${PLACER_BIN:?PLACER_BIN not set}
[ -e /sys/class/block/vda ] || skip "no vda (this test is written for the project's VM)"
t_begin /var/tmp # O_DIRECT: fio's file must be on vda, not on a tmpfs
irq=/proc/irq

# The original list of every IRQ; the teardown puts back any that differ (and fails).
. "$LIB/irq_guard.sh"
irq_guard
t_defer '"$P" reset >/dev/null 2>&1'

# the virtio-rng function, if there is one: its interrupts come on demand (reads of /dev/hwrng)
rng=$(for d in /sys/bus/virtio/drivers/virtio_rng/virtio*; do [ -e "$d" ] && basename "$(dirname "$(readlink -f "$d")")"; done | head -n 1)
[ -n "$rng" ] && [ -c /dev/hwrng ] || skip "no virtio-rng PCI function with /dev/hwrng"
cat >"$T_WORK/p.yaml" <<EOF
version: 1
name: irq-host
irqs:
  - device: vda
    to: "0"
  - device: "$rng"
    to: "0"
roles:
  - name: app
    kind: generic
    cpu: { threads: 1 }
    match: {}
EOF

# 1. plan
"$P" plan --json "$T_WORK/p.yaml" >"$T_WORK/plan.json" || fail "plan --json exited $?"
"$P" plan "$T_WORK/p.yaml" >"$T_WORK/plan.txt" || fail "plan exited $?"
sed -n '/^irqs/,$p' "$T_WORK/plan.txt"
eval "$($PY - "$T_WORK/plan.json" <<'PY'
import json, sys
irqs = json.load(open(sys.argv[1]))["irqs"]
steer = [q for q in irqs if not q["managed"]]
managed = [q for q in irqs if q["managed"]]
assert all(q["to"] == "0" and q["from"] for q in steer), steer
assert all(q["to"] is None and q["effective"] for q in managed), managed
print("STEER='%s'" % " ".join(str(q["irq"]) for q in steer))
print("MANAGED='%s'" % " ".join(str(q["irq"]) for q in managed))
print("RNG_IRQ=%d" % [q["irq"] for q in steer if "-input" in q["name"]][0])
print("REQ='%s'" % " ".join("%d:%s" % (q["irq"], q["effective"]) for q in managed if q["device"] == "vda"))
PY
)" || fail "plan --json: the IRQs are not as expected"
say "steered: $STEER; managed (reported): ${MANAGED:-none}"
for n in $STEER; do
    grep -Eq "^ +$n +[^ ]+ +[^ ]+ +- +[0-9,-]+ +0\$" "$T_WORK/plan.txt" || fail "plan text lacks IRQ $n"
done

# 2. bad input: one line, exit 2, nothing changed
sed 's/device: vda/device: nvme9n1/' "$T_WORK/p.yaml" >"$T_WORK/bad.yaml"
rc=0; "$P" apply "$T_WORK/bad.yaml" 2>"$T_WORK/err" || rc=$?
[ $rc = 2 ] || fail "unknown device: exit $rc, not 2"
grep -q "bad.yaml:4:13: irqs\[0\].device: no block device, NIC or PCI device 'nvme9n1' (here: vda" "$T_WORK/err" ||
    fail "unknown device: $(cat "$T_WORK/err")"
sed 's/to: "0"/to: "0-9"/' "$T_WORK/p.yaml" >"$T_WORK/bad.yaml"
rc=0; "$P" apply "$T_WORK/bad.yaml" 2>"$T_WORK/err" || rc=$?
[ $rc = 2 ] && grep -q "irqs\[0\].to: cpus 2-9 are not on this node" "$T_WORK/err" || fail "cpu list: $rc $(cat "$T_WORK/err")"
same_irqs "after bad input"
[ ! -e "$PLACER_STATE_DIR/irq.json" ] || fail "bad input left irq.json"

# 3. a write refused part-way: the last IRQ's directory read-only in a mount namespace of ours
last=$(echo "$STEER" | awk '{ print $NF }')
rc=0
unshare -m --propagation private sh -c "mount --bind $irq/$last $irq/$last && mount -o remount,bind,ro $irq/$last &&
    exec \"$P\" apply --backend cgroupfs \"$T_WORK/p.yaml\"" >"$T_WORK/ro.out" 2>&1 || rc=$?
[ $rc = 4 ] || { cat "$T_WORK/ro.out"; fail "a read-only /proc/irq/$last: exit $rc, not 4"; }
grep -q "Read-only file system" "$T_WORK/ro.out" && grep -q "rolled back" "$T_WORK/ro.out" ||
    { cat "$T_WORK/ro.out"; fail "the refusal does not say what was rolled back"; }
say "read-only /proc/irq/$last: $(tail -n 1 "$T_WORK/ro.out")"
same_irqs "after the refused apply"
[ ! -e "$PLACER_STATE_DIR/irq.json" ] || fail "the refused apply left irq.json"

# 4. apply
"$P" apply --backend cgroupfs "$T_WORK/p.yaml" >"$T_WORK/apply.txt" 2>&1 || { cat "$T_WORK/apply.txt"; fail "apply exited $?"; }
cat "$T_WORK/apply.txt"
for n in $STEER; do
    [ "$(cat "$irq/$n/smp_affinity_list")" = 0 ] || fail "IRQ $n is on $(cat "$irq/$n/smp_affinity_list")"
    grep -q "\"irq\": $n," "$PLACER_STATE_DIR/irq.json" || fail "IRQ $n's original is not journaled"
done
for m in $MANAGED; do
    grep -Eq "^irq $m .*managed by the kernel, completes on cpu" "$T_WORK/apply.txt" || fail "IRQ $m not reported managed"
done

# 5. interrupts land where placer says: the RNG's on CPU 0 only; vda's reads on its managed queue's CPU
counts() { awk -v n="$1:" '$1 == n { print $2, $3 }' /proc/interrupts; }
# x86 moves an MSI at its next interrupt (and the RNG's driver buffers, so a read need not raise
# one): read until the kernel says the IRQ has moved, then count
i=0
until [ "$(cat "$irq/$RNG_IRQ/effective_affinity_list")" = 0 ]; do
    i=$((i + 1)); [ $i -le 50 ] || fail "IRQ $RNG_IRQ never moved to CPU 0 (effective $(cat "$irq/$RNG_IRQ/effective_affinity_list"))"
    dd if=/dev/hwrng of=/dev/null bs=32 count=4 2>/dev/null || fail "read /dev/hwrng"
done
set -- $(counts "$RNG_IRQ"); r0=$1 r1=$2
dd if=/dev/hwrng of=/dev/null bs=32 count=100 2>/dev/null || fail "read /dev/hwrng"
set -- $(counts "$RNG_IRQ")
say "IRQ $RNG_IRQ (virtio-rng) on cpu0 $r0 -> $1, cpu1 $r1 -> $2"
[ $(($1 - r0)) -ge 10 ] && [ "$2" = "$r1" ] || fail "the RNG's interrupts did not come on CPU 0 only"
for q in $REQ; do
    n=${q%%:*} eff=${q#*:}
    set -- $(counts "$n"); q0=$1 q1=$2
    fio --name=irq --filename="$T_WORK/fio.data" --size=32M --rw=randread --bs=4k --direct=1 --ioengine=psync \
        --runtime=2 --time_based --output="$T_WORK/fio.out" >/dev/null 2>&1 || { cat "$T_WORK/fio.out"; fail "fio"; }
    set -- $(counts "$n")
    say "IRQ $n (managed, effective $eff) on cpu0 $q0 -> $1, cpu1 $q1 -> $2"
    case "$eff" in
        0) [ $(($1 - q0)) -gt 100 ] && [ "$2" = "$q1" ] || fail "vda's completions are not on CPU 0 only" ;;
        1) [ $(($2 - q1)) -gt 100 ] && [ "$1" = "$q0" ] || fail "vda's completions are not on CPU 1 only" ;;
    esac
done

# 6. status, drift by hand, repair, reset
"$P" status >"$T_WORK/status.txt" 2>&1 || { cat "$T_WORK/status.txt"; fail "status exited $?"; }
sed -n '/^irqs/,$p' "$T_WORK/status.txt"
grep -Eq "IRQ $RNG_IRQ [^ ]+ \($rng\): planned 0, now 0, completes on cpu 0; since apply: cpu0 [1-9][0-9]* cpu1 [0-9]*\$" \
    "$T_WORK/status.txt" || fail "status: the RNG's interrupts since apply"
printf 1 >"$irq/$RNG_IRQ/smp_affinity_list"
rc=0; "$P" status >"$T_WORK/status.txt" 2>&1 || rc=$?
[ $rc = 1 ] || fail "status exited $rc with an IRQ moved by hand, not 1"
grep -q "^DRIFT: IRQ $RNG_IRQ (.*) of $rng: smp_affinity_list 1, planned 0" "$T_WORK/status.txt" || fail "no DRIFT line"
"$P" apply --backend cgroupfs "$T_WORK/p.yaml" >"$T_WORK/apply.txt" 2>&1 || fail "apply again exited $?"
[ "$(cat "$irq/$RNG_IRQ/smp_affinity_list")" = 0 ] || fail "apply did not repair IRQ $RNG_IRQ"
"$P" status >/dev/null 2>&1 || fail "status after the repair exited $?"
"$P" reset >"$T_WORK/reset.txt" 2>&1 || { cat "$T_WORK/reset.txt"; fail "reset exited $?"; }
cat "$T_WORK/reset.txt"
same_irqs "after reset"
[ ! -e "$PLACER_STATE_DIR/irq.json" ] || fail "reset left irq.json"
"$P" reset | grep -q "nothing to reset" || fail "a second reset did something"
say "ok: $(echo $STEER | wc -w) IRQs steered to CPU 0 and back, $(echo $MANAGED | wc -w) managed reported"
