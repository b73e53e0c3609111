#!/bin/sh
# The cgroup layer on kernels this host cannot offer: boots a 2-NUMA-node qemu guest (libexec/vm/, ci/vm/)
# twice and runs the real-cgroup cmocka scenario (tests/unit/cgroup_live_tests.h) inside it:
#   - pure cgroup v2 (production nodes): test_cgroup_v2_live; subtree_control on ancestors,
#     memory.max, cpu.weight, cgroup.threads refusal;
#   - cgroup v1 with cpu and cpuacct mounted together ("cpu,cpuacct", found via mountinfo):
#     test_cgroup_v1_live.
# Both bind the instance to CPU 1 and NUMA node 1, so Mems_allowed_list is checked on a real
# second node. PLACER_LIVE_REQUIRED=1 makes the scenario fail instead of skipping.
#
# Environment: PLACER_BIN (its directory holds tests/test_cgroup_v*_live), PLACER_SOURCE_DIR,
# PLACER_CACHE_DIR (default /var/cache/placer; guest files in its vm/ subdirectory).
# Exit 77 (skip) when qemu is not installed or the test programs were not built.
set -eu

T=cgroup_vm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
bin=${PLACER_BIN:?PLACER_BIN not set}
tests=$(dirname "$bin")/tests
for mode in v1 v2; do
    [ -x "$tests/test_cgroup_${mode}_live" ] || skip "$tests/test_cgroup_${mode}_live not built"
done
guest_begin

# Runs as /t/cgroup-live.sh in the guest; the mode comes from the kernel command line.
cat >"$tmp/cgroup-live.sh" <<'EOF'
mode=v2
for arg in $(cat /proc/cmdline); do
    case "$arg" in placer.cgroup=*) mode=${arg#placer.cgroup=} ;; esac
done
echo "GUEST cgroup=$mode nodes=$(cat /sys/devices/system/node/online) cpus=$(cat /sys/devices/system/cpu/online)"
grep cgroup /proc/self/mountinfo
PLACER_LIVE_REQUIRED=1 /t/test_cgroup_${mode}_live
EOF

eval "$(sh "$src/libexec/vm/build-initramfs.sh" "$cache" --name cgroup-live \
    --add "$tests/test_cgroup_v1_live:/t/test_cgroup_v1_live" \
    --add "$tests/test_cgroup_v2_live:/t/test_cgroup_v2_live" \
    --add "$tmp/cgroup-live.sh:/t/cgroup-live.sh" | tail -n 2)"

rc=0
for mode in v2 v1; do
    echo "== guest with cgroup $mode"
    if sh "$src/ci/vm/run-guest.sh" --kernel "$PLACER_VM_KERNEL" --initrd "$PLACER_VM_INITRD" \
        --numa 2 --smp 2 --mem 1024 --timeout 300 --name "placer-cgtest-$mode-$$" --pidfile "$tmp/qemu-$mode.pid" \
        --append "placer.mode=test placer.test=/t/cgroup-live.sh placer.cgroup=$mode" >"$tmp/console.$mode" 2>&1
    then
        # The guest's exit code is the test program's; also insist that nothing was skipped.
        if ! tr -d '\r' <"$tmp/console.$mode" | grep -q '^\[  PASSED  \] 8 test(s)'; then
            cat "$tmp/console.$mode"
            echo "FAIL: cgroup $mode: the scenario did not pass all 8 tests"
            rc=1
        elif tr -d '\r' <"$tmp/console.$mode" | grep -q 'SKIPPED'; then
            cat "$tmp/console.$mode"
            echo "FAIL: cgroup $mode: tests were skipped"
            rc=1
        else
            tr -d '\r' <"$tmp/console.$mode" | grep -E '^GUEST|PASSED'
        fi
    else
        cat "$tmp/console.$mode"
        echo "FAIL: cgroup $mode: guest test failed"
        rc=1
    fi
done
exit $rc
