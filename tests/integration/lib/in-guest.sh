# What every test script that runs inside a qemu test guest sources first (POSIX sh: busybox
# sh in the initramfs guests, dash in the systemd one): copied into the guest as /t/in-guest.sh
# by lib/guest.sh's guest_run_test and by apply_systemd_guest.sh.  The host echoes the console's
# "GUEST ..." lines and passes the test only on exit 0 and a line starting with "GUEST OK".
#
#   . /t/in-guest.sh
#   $P                   placer's binary in the guest (/t/placer)
#   fail MSG             guest_on_fail (nothing, unless the script defines it again: what to
#                        show on a failure), then "GUEST FAIL: MSG", exit 1
#   show TAG [FILE]      each line of FILE (default /tmp/out) as "GUEST TAG: LINE"
#   field PID KEY        KEY's value in /proc/PID/status (Cpus_allowed_list, Mems_allowed_list)
#   must WHAT CMD...     CMD with its output in /tmp/out; unless it exits 0: the output, then
#                        fail "WHAT exited RC"
#   exits RC WHAT CMD... the same, unless CMD exits RC (status on a drift: 1)
#   need_v2              fail unless /sys/fs/cgroup is cgroup v2
#   threads_in GROUP CPUS MEMS  every thread of every process in the cgroup directory GROUP
#                        checked: "GUEST NAME: N processes, M threads, B not on cpus CPUS mems
#                        MEMS" and a line per thread off them; $np and $nt hold the counts;
#                        exits 0 when none is off
# shellcheck disable=SC2034 # for the script that sources this file
P=/t/placer

guest_on_fail() { :; }
fail() {
    guest_on_fail
    echo "GUEST FAIL: $*"
    exit 1
}

show() { sed "s|^|GUEST $1: |" "${2:-/tmp/out}"; }

field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

must() {
    _ig_what=$1
    shift
    "$@" >/tmp/out 2>&1 || { _ig_rc=$?; cat /tmp/out; fail "$_ig_what exited $_ig_rc"; }
}

exits() {
    _ig_want=$1 _ig_what=$2
    shift 2
    _ig_rc=0
    "$@" >/tmp/out 2>&1 || _ig_rc=$?
    [ "$_ig_rc" = "$_ig_want" ] || { cat /tmp/out; fail "$_ig_what exited $_ig_rc, not $_ig_want"; }
}

need_v2() { [ -f /sys/fs/cgroup/cgroup.controllers ] || fail "not cgroup v2"; }

threads_in() {
    np=0 nt=0 _ig_bad=0
    for _ig_p in $(cat "$1/cgroup.procs" 2>/dev/null); do
        np=$((np + 1))
        for _ig_t in /proc/$_ig_p/task/*; do
            _ig_t=${_ig_t##*/}
            # one read of the status file: a thread that ends between two reads is gone, not wrong
            _ig_st=$(cat /proc/$_ig_p/task/$_ig_t/status 2>/dev/null)
            _ig_c=$(echo "$_ig_st" | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
            _ig_m=$(echo "$_ig_st" | sed -n 's/^Mems_allowed_list:[[:space:]]*//p')
            [ -n "$_ig_c" ] && [ -n "$_ig_m" ] || continue
            nt=$((nt + 1))
            if [ "$_ig_c" != "$2" ] || [ "$_ig_m" != "$3" ]; then
                _ig_bad=$((_ig_bad + 1))
                echo "GUEST thread $_ig_t of $_ig_p ($(cat /proc/$_ig_p/task/$_ig_t/comm 2>/dev/null)): cpus $_ig_c mems $_ig_m"
            fi
        done
    done
    echo "GUEST ${1##*/}: $np processes, $nt threads, $_ig_bad not on cpus $2 mems $3"
    [ $_ig_bad = 0 ]
}
