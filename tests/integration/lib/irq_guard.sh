# What the tests that steer this machine's real IRQs share (sourced after common.sh's t_begin):
#   irq_guard      every /proc/irq/*/smp_affinity_list recorded now; at teardown each that differs
#                  is written back, and the test fails ("an IRQ affinity was left changed")
#   same_irqs WHY  fail unless every list is as it was recorded
IRQ_DIR=/proc/irq

_irq_lists() { for _d in "$IRQ_DIR"/[0-9]*; do echo "${_d##*/} $(cat "$_d/smp_affinity_list")"; done; }

irq_restore() {
    while read -r _n _list; do
        [ -r "$IRQ_DIR/$_n/smp_affinity_list" ] || continue
        _now=$(cat "$IRQ_DIR/$_n/smp_affinity_list")
        if [ "$_now" != "$_list" ]; then
            echo "$T: teardown: IRQ $_n is on $_now, was $_list: writing it back" >&2
            printf '%s' "$_list" >"$IRQ_DIR/$_n/smp_affinity_list" || true
            echo changed >"$T_WORK/irqs.leaked"
        fi
    done <"$T_WORK/irqs.before"
}

irq_guard() {
    _irq_lists >"$T_WORK/irqs.before"
    t_defer '[ ! -e "$T_WORK/irqs.leaked" ] || { echo "$T: FAIL: an IRQ affinity was left changed" >&2; rc=1; }'
    t_defer irq_restore
}

same_irqs() {
    _irq_lists | diff "$T_WORK/irqs.before" - || fail "$1: IRQ affinities differ from before the test"
}
