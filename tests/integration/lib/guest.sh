# Shared by the integration tests that run placer inside a qemu guest with
# pure cgroup v2 and two NUMA nodes (sourced, POSIX sh, after T is set):
# lib/common.sh and the guest preamble.
#
# guest_begin
#   Skips (77) without qemu or a readable kernel; sets $src (the source
#   tree), $cache (the guest files' cache, PLACER_CACHE_DIR/vm) and $tmp (the
#   test's scratch directory, $T_WORK, removed at teardown).
#
# guest_modules MODULE...
#   The guest kernel's modules MODULE... with their dependencies, in the order to load them:
#   $tmp/order names them (for the guest's insmod /t/mods/NAME.ko), $GUEST_MODULES holds the
#   HOST:GUEST words to pack them.  Skips (77) without the kernel's modules.dep or a module.
#
# guest_run_test NAME TIMEOUT_S SHOW_REGEX SCRIPT [HOST:GUEST]...
#   Packs placer's binary ($PLACER_BIN as /t/placer), SCRIPT (as /t/NAME.sh),
#   the guest-side helpers (lib/in-guest.sh as /t/in-guest.sh, which SCRIPT
#   sources) and every extra HOST:GUEST file into a cached initramfs, boots it, and
#   succeeds only when the guest script exits 0 and printed a line starting
#   with "GUEST OK".  $GUEST_ARGS (word-split) goes to ci/vm/run-guest.sh after
#   the defaults (--numa 2 --smp 2 --mem 1024), e.g. "--smp 4 --machine q35".  Console lines matching SHOW_REGEX are echoed; the whole
#   console is printed on failure.  qemu's pidfile is in $tmp, so that the
#   teardown finds a qemu left running.
#   With $GUEST_ON_LINE (a regex) set, each console line matching it, in order,
#   runs `guest_on_line LINE` (a function of the test) on the host while the guest
#   runs: what the guest asks the host for mid-run (a QMP device_add, say; the
#   guest then waits for what it asked).  A hook that fails ends the test.
#
# systemd_guest_run NAME TIMEOUT_S [HOST:GUEST]...
#   The same for the guest whose init is systemd (ci/vm/build-systemd-guest.sh: the
#   Debian rootfs, cached), named NAME (its archive removed at teardown): placer's
#   binary, $tmp/test.sh (run by the guest's test service), lib/in-guest.sh and every
#   HOST:GUEST file packed, booted (--numa 2 --smp 2 --mem 1024); succeeds on exit 0
#   with a "GUEST OK" line, echoing the GUEST lines; else the whole console, and fails.
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"

guest_begin() {
    need_cmd qemu-system-x86_64
    ls /boot/vmlinuz-* >/dev/null 2>&1 || skip "no /boot/vmlinuz-* (linux-image-amd64)"
    [ -r "$(ls /boot/vmlinuz-* | tail -n 1)" ] || skip "cannot read the kernel (not root)"
    src=$SRC
    cache=${PLACER_CACHE_DIR:-/var/cache/placer}/vm
    t_begin
    tmp=$T_WORK
}

guest_modules() {
    # the guest's kernel is the newest /boot/vmlinuz-* (ci/vm/build-initramfs.sh)
    g_kver=$(ls /boot/vmlinuz-* | sort -V | tail -n 1)
    g_kver=${g_kver##*/vmlinuz-}
    g_mods=/lib/modules/$g_kver
    [ -r "$g_mods/modules.dep" ] || skip "no $g_mods/modules.dep (linux-image-$g_kver's modules)"
    : >"$tmp/order"
    GUEST_MODULES=""
    for g_m in "$@"; do
        g_line=$(grep "/$g_m\.ko[^:]*:" "$g_mods/modules.dep" | head -n 1)
        [ -n "$g_line" ] || skip "kernel $g_kver has no module $g_m"
        # modules.dep lists a module's dependencies, each before what needs it when read backwards
        for g_f in $(echo "${g_line#*:}" | tr ' ' '\n' | sed '/^$/d' | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }') "${g_line%%:*}"; do
            case "$g_f" in *.ko) ;; *) skip "module $g_f is compressed (busybox insmod loads plain .ko)" ;; esac
            g_name=$(basename "$g_f" .ko)
            grep -qx "$g_name" "$tmp/order" && continue
            echo "$g_name" >>"$tmp/order"
            GUEST_MODULES="$GUEST_MODULES $g_mods/$g_f:/t/mods/$g_name.ko"
        done
    done
}

guest_run_test() {
    g_name=$1 g_timeout=$2 g_show=$3 g_script=$4
    shift 4
    g_adds="--add ${PLACER_BIN:?}:/t/placer --add $g_script:/t/$g_name.sh --add $LIB/in-guest.sh:/t/in-guest.sh"
    for g_extra in "$@"; do g_adds="$g_adds --add $g_extra"; done
    # shellcheck disable=SC2086 # paths with blanks are refused by build-initramfs.sh
    eval "$(sh "$src/libexec/vm/build-initramfs.sh" "$cache" --name "$g_name" $g_adds | tail -n 2)"
    sh "$src/ci/vm/run-guest.sh" --kernel "$PLACER_VM_KERNEL" --initrd "$PLACER_VM_INITRD" \
        --numa 2 --smp 2 --mem 1024 ${GUEST_ARGS:-} --timeout "$g_timeout" --name "placer-$g_name-$$" --pidfile "$tmp/qemu-$g_name.pid" \
        --append "placer.mode=test placer.test=/t/$g_name.sh placer.cgroup=v2" >"$tmp/console" 2>&1 &
    g_pid=$! g_rc=0 g_hooked=0
    while [ -n "${GUEST_ON_LINE:-}" ] && kill -0 "$g_pid" 2>/dev/null; do
        g_seen=$(tr -d '\r' <"$tmp/console" | grep -cE "$GUEST_ON_LINE" || true)
        while [ "$g_hooked" -lt "$g_seen" ]; do
            g_hooked=$((g_hooked + 1))
            g_line=$(tr -d '\r' <"$tmp/console" | grep -E "$GUEST_ON_LINE" | sed -n "${g_hooked}p")
            guest_on_line "$g_line" >>"$tmp/hooks" 2>&1 || { echo "FAIL: the host's hook on '$g_line': $(cat "$tmp/hooks")"; return 1; }
        done
        sleep 0.2
    done
    wait "$g_pid" || g_rc=$?
    if [ "$g_rc" = 0 ]; then
        tr -d '\r' <"$tmp/console" | grep -E "$g_show"
        tr -d '\r' <"$tmp/console" | grep -q '^GUEST OK' || { echo "FAIL: no GUEST OK line"; return 1; }
    else
        tr -d '\r' <"$tmp/console"
        echo "FAIL: guest test failed"
        return 1
    fi
}

systemd_guest_run() {
    g_name=$1 g_timeout=$2
    shift 2
    t_defer "rm -f '$cache/$g_name.cpio' '$cache/$g_name.cpio.key'"
    g_adds="--add ${PLACER_BIN:?}:/t/placer --add $tmp/test.sh:/t/test.sh --add $LIB/in-guest.sh:/t/in-guest.sh"
    for g_extra in "$@"; do g_adds="$g_adds --add $g_extra"; done
    # shellcheck disable=SC2086 # paths with blanks are refused by build-systemd-guest.sh
    eval "$(sh "$src/ci/vm/build-systemd-guest.sh" "$cache" --name "$g_name" $g_adds | tail -n 3)"
    g_rc=0
    sh "$src/ci/vm/run-guest.sh" --kernel "$PLACER_VM_KERNEL" --initrd "$PLACER_VM_INITRD" \
        --numa 2 --smp 2 --mem 1024 --timeout "$g_timeout" --name "placer-$g_name" --pidfile "$tmp/qemu.pid" \
        --append "$PLACER_VM_APPEND" >"$tmp/console" 2>&1 || g_rc=$?
    if [ $g_rc = 0 ] && tr -d '\r' <"$tmp/console" | grep -q '^GUEST OK'; then
        tr -d '\r' <"$tmp/console" | grep -E '^GUEST|PLACER-GUEST-BOOTED'
        return 0
    fi
    tr -d '\r' <"$tmp/console"
    echo "FAIL: systemd guest test failed (run-guest exit $g_rc)"
    return 1
}
