#!/bin/sh
# `placer watch` keeps this machine's steered IRQs where the profile puts them (as irq_host.sh,
# the IRQs of the virtio-rng PCI function to CPU 0): the watcher applies them; one moved by hand
# is put back within two intervals (--on-drift fix: the log line, drift_fixed_total{kind="irq"},
# the IRQ's interrupts per CPU in the metrics file), or with --on-drift report logged and left
# where it was moved (drift_found_total{kind="irq"}); reset then writes every original list back.
# Every /proc/irq/*/smp_affinity_list is compared with its value before the test at teardown,
# written back if it differs (and the test then fails).
# ctest: lock=irqs
set -eu
T=watch_cmd_irq
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_root
P=${PLACER_BIN:?PLACER_BIN not set}
t_begin
. "$LIB/watch.sh"
irq=/proc/irq
pgrep -x irqbalance >/dev/null && skip "irqbalance runs (it would move the IRQs itself)"
. "$LIB/irq_guard.sh"
irq_guard
t_defer '"$P" reset >/dev/null 2>&1'
WPID=""
t_defer '[ -z "$WPID" ] || { kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }'

rng=$(for d in /sys/bus/virtio/drivers/virtio_rng/virtio*; do [ -e "$d" ] && basename "$(dirname "$(readlink -f "$d")")"; done | head -n 1)
[ -n "$rng" ] || skip "no virtio-rng PCI function"
cat >"$T_WORK/p.yaml" <<EOF2
version: 1
name: watch-irq
irqs:
  - device: "$rng"
    to: "0"
roles:
  - name: app
    kind: generic
    cpu: { threads: 1 }
    match: { cmdline: "$T_TAG-nothing *" }
EOF2
STEER=$("$P" plan --json "$T_WORK/p.yaml" | "$PY" -c 'import json, sys
print(" ".join(str(q["irq"]) for q in json.load(sys.stdin)["irqs"] if not q["managed"]))')
[ -n "$STEER" ] || skip "the virtio-rng function has no IRQ placer may steer"
N=$(echo "$STEER" | awk '{ print $1 }')
NAME=$(cat "$irq/$N/actions" 2>/dev/null || sed -n "s/^ *$N:.* \([^ ]*\)\$/\1/p" /proc/interrupts)
is_on() { [ "$(cat "$irq/$N/smp_affinity_list")" = "$1" ]; }

placer_watch_start "$T_WORK/w.log" --interval 200 --metrics-file "$T_WORK/w.prom" "$T_WORK/p.yaml"
WPID=$WATCH_PID
for n in $STEER; do [ "$(cat "$irq/$n/smp_affinity_list")" = 0 ] || fail "IRQ $n not steered to 0"; done
printf 1 >"$irq/$N/smp_affinity_list"
wait_for 5 is_on 0 || fail "IRQ $N moved by hand was not put back: $(cat "$irq/$N/smp_affinity_list")"
wait_for 5 has_line "$T_WORK/w.log" "IRQ $N (.*): smp_affinity_list 1, planned 0: put back" ||
    fail "not logged: $(tail -3 "$T_WORK/w.log")"
prom() { "$PY" "$LIB/promcheck.py" "$T_WORK/w.prom" "$1" 2>/dev/null; }
fixed_counted() { [ "$(prom 'placer_watch_drift_fixed_total{kind="irq"}')" -ge 1 ]; }
wait_for 5 fixed_counted || fail "drift_fixed_total{irq} not counted"
prom "placer_irq_interrupts_total{irq=\"$N\",name=\"$NAME\",cpu=\"0\"}" >/dev/null ||
    fail "no interrupts per CPU of IRQ $N ($NAME) in the metrics: $(grep placer_irq "$T_WORK/w.prom" | head -3)"
kill -TERM "$WPID"
wait "$WPID" || fail "exit $? after SIGTERM"
WPID=""

placer_watch_start "$T_WORK/r.log" --interval 200 --on-drift report "$T_WORK/p.yaml"
WPID=$WATCH_PID
printf 1 >"$irq/$N/smp_affinity_list"
wait_for 5 has_line "$T_WORK/r.log" "IRQ $N (.*): smp_affinity_list 1, planned 0: reported, left as it is" ||
    fail "not reported: $(tail -3 "$T_WORK/r.log")"
sleep 0.5
is_on 1 || fail "report mode moved IRQ $N back"
kill -TERM "$WPID"
wait "$WPID" || fail "exit $? after SIGTERM"
WPID=""
"$P" reset >"$T_WORK/reset.txt" 2>&1 || fail "reset: $(cat "$T_WORK/reset.txt")"
same_irqs "after reset"
say "ok: IRQ $N ($NAME) moved by hand: put back (fix), left (report); reset restored every list"
