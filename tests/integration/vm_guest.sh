#!/bin/sh
# Integration test of placer's qemu test guest (libexec/vm/, ci/vm/): builds the kernel + initramfs into the
# cache, boots a 2-NUMA-node TCG guest whose init mounts pure cgroup v2, and checks, from the
# serial console, that a child group gets cpuset.cpus=1, cpuset.mems=1 and memory.max, that a
# process moved into it reads back Cpus_allowed_list 1 / Mems_allowed_list 1, and that its
# memory (touched on node 0) migrates to node 1 on the move (cgroup v2 cpuset semantics).
# Afterwards no qemu of this test may be left running.
#
# Environment: PLACER_SOURCE_DIR (repo root), PLACER_CACHE_DIR (default /var/cache/placer;
# the guest files go to its vm/ subdirectory). Exit 77 (skip) only when qemu is not installed.
set -eu

T=vm_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
guest_begin
name=placer-vmtest-$$
# Kill only our own qemu, found by its pidfile and checked by its guest name.
kill_guest() {
    if [ -s "$tmp/qemu.pid" ]; then
        pid=$(cat "$tmp/qemu.pid")
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "guest=$name,"; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
}
t_defer kill_guest
show_console() {
    if [ -s "$tmp/console.txt" ]; then
        echo "--- guest console:"; cat "$tmp/console.txt"; echo "---"
    fi
}

# ---------------------------------------------------------------- the guest's /test.sh
cat >"$tmp/test.sh" <<'EOF'
# Runs as /test.sh in the guest (busybox sh, pure cgroup v2 at /sys/fs/cgroup).
cg=/sys/fs/cgroup
nodes() {  # PID -> "N0=<pages> N1=<pages>" summed over /proc/PID/numa_maps
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); s[a[1]] += a[2] } }
         END { printf "N0=%d N1=%d", s["N0"], s["N1"] }' "/proc/$1/numa_maps"
}
echo "CHECK nodes=$(cat /sys/devices/system/node/online) cpus=$(cat /sys/devices/system/cpu/online)"
echo "CHECK fs=$(stat -f -c %t $cg)"   # 63677270: CGROUP2_SUPER_MAGIC
for c in cpuset cpu memory; do
    grep -qw $c $cg/cgroup.subtree_control && echo "CHECK subtree_control has $c"
done

mkdir $cg/placer
echo "+cpuset +cpu +memory" >$cg/placer/cgroup.subtree_control   # v2: for placer's children
mkdir $cg/placer/on0 $cg/placer/on1
echo 0 >$cg/placer/on0/cpuset.cpus
echo 0 >$cg/placer/on0/cpuset.mems
echo 1 >$cg/placer/on1/cpuset.cpus
echo 1 >$cg/placer/on1/cpuset.mems
echo 134217728 >$cg/placer/on1/memory.max
g=$cg/placer/on1
echo "CHECK group cpus=$(cat $g/cpuset.cpus) mems=$(cat $g/cpuset.mems)" \
     "effective=$(cat $g/cpuset.cpus.effective)/$(cat $g/cpuset.mems.effective)" \
     "memory.max=$(cat $g/memory.max)"

# A process that joins on0 (node 0), touches 8 MiB, then is moved into on1.
sh -c "echo \$\$ >$cg/placer/on0/cgroup.procs
       x=\$(head -c 8388608 /dev/zero | tr '\\0' a)
       : >/tmp/ready
       while :; do sleep 1; done" &
pid=$!
n=0
while [ ! -e /tmp/ready ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
before=$(nodes $pid)
echo $pid >$g/cgroup.procs
after=$(nodes $pid)
echo "CHECK moved cgroup=$(cat /proc/$pid/cgroup)" \
     "$(grep -E '^(Cpus|Mems)_allowed_list' /proc/$pid/status | tr -d ' \t' | tr '\n' ' ')"
echo "INFO pages before move: $before; after: $after"
b0=${before#N0=}; b0=${b0%% *}
a0=${after#N0=}; a0=${a0%% *}
a1=${after##*N1=}
if [ "$b0" -ge 2048 ] && [ $((a0 * 20)) -lt "$a1" ]; then
    echo "CHECK migrated to node 1 on the move"
fi
kill $pid
echo "CHECK done"
EOF

expected="CHECK nodes=0-1 cpus=0-1
CHECK fs=63677270
CHECK subtree_control has cpuset
CHECK subtree_control has cpu
CHECK subtree_control has memory
CHECK group cpus=1 mems=1 effective=1/1 memory.max=134217728
CHECK moved cgroup=0::/placer/on1 Cpus_allowed_list:1 Mems_allowed_list:1 
CHECK migrated to node 1 on the move
CHECK done"

# ---------------------------------------------------------------- build and boot
eval "$("$src/libexec/vm/build-initramfs.sh" "$cache" --name vm-guest-test \
        --add "$tmp/test.sh:/test.sh" | grep '^PLACER_VM_[A-Z]*=')"

start=$(date +%s)
rc=0
"$src/ci/vm/run-guest.sh" --kernel "$PLACER_VM_KERNEL" --initrd "$PLACER_VM_INITRD" \
    --numa 2 --smp 2 --mem 512 --timeout 50 --name "$name" --pidfile "$tmp/qemu.pid" \
    --append loglevel=1 >"$tmp/console" 2>&1 || rc=$?
echo "guest ran $(($(date +%s) - start)) s, exit $rc"
tr -d '\r' <"$tmp/console" >"$tmp/console.txt"
grep -E '^(CHECK|INFO|PLACER-)' "$tmp/console.txt" || true

[ "$rc" = 0 ] || { show_console; fail "guest exited $rc"; }
echo "$expected" | while IFS= read -r line; do
    grep -qxF "$line" "$tmp/console.txt" || { show_console; fail "console lacks: $line"; }
done

# ---------------------------------------------------------------- nothing left behind
# qemu removes its pidfile when it exits; one still there names a qemu that may be running.
sleep 0.2
pid=$(cat "$tmp/qemu.pid" 2>/dev/null || true)
if [ -n "$pid" ] && grep -q '^State:[[:space:]]*[^Z]' "/proc/$pid/status" 2>/dev/null; then
    fail "qemu $pid still running after the guest powered off"
fi
if pgrep -f "guest=$name," >/dev/null 2>&1; then
    fail "a qemu named $name is still running"
fi
echo "PASS"
