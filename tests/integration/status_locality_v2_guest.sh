#!/bin/sh
# placer status shows REMOTE memory: inside a 2-NUMA-node qemu guest (libexec/vm/, ci/vm/,
# TCG, pure cgroup v2), a 32 MiB tmpfs file is written by a process confined
# to node 1 (its own cpuset group, cpuset.mems 1), so its page cache is on
# node 1.  A small static program (lib/mapfile.c) is placed by apply on node 0
# and only then maps and reads that file: v2 migrates a task's pages when it
# moves or its mems change, not pages it maps later, so those stay on node 1.
# status must show the instance's local share below 100% with node 1's share,
# as computed in the guest from /proc/PID/numa_maps (text line and JSON).
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default
# /var/cache/placer).  Exit 77 (skip) without qemu, a kernel, busybox or a
# static C library.
set -eu
T=status_locality_v2_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
bin=${PLACER_BIN:?PLACER_BIN not set}
guest_begin
cp "${PLACER_TEST_MAPFILE:?PLACER_TEST_MAPFILE not set (built by CMake: placer_test_mapfile)}" "$tmp/mapfile"

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: locality-v2
reserve: { cores: 0, memory: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: 1 }
    locality: { near: numa, numa: 0 }
    match: { cmdline: "/t/mapfile /mnt/shm/fill /tmp/go" }
EOF

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/locality-v2.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/tmp/state PLACER_CGROUP_PREFIX=placer-t
C=/sys/fs/cgroup
echo "GUEST nodes=$(cat /sys/devices/system/node/online) controllers=$(cat $C/cgroup.controllers)"
mkdir -p /mnt/shm && mount -t tmpfs tmpfs /mnt/shm || fail "mount tmpfs"
# the filler: a group on node 1 only, writing the file's 32 MiB there
echo +cpuset >$C/cgroup.subtree_control || fail "enable cpuset"
mkdir $C/fill && echo 1 >$C/fill/cpuset.cpus && echo 1 >$C/fill/cpuset.mems || fail "fill group"
sh -c "echo \$\$ >$C/fill/cgroup.procs && dd if=/dev/zero of=/mnt/shm/fill bs=1M count=32 2>/dev/null" || fail "filler"
rmdir $C/fill
echo "GUEST filler wrote 32 MiB on node 1: $(grep Shmem: /sys/devices/system/node/node1/meminfo | tr -s ' ')"

/t/mapfile /mnt/shm/fill /tmp/go >/tmp/mapfile.out 2>&1 &
M=$!
sleep 0.2
must apply $P apply /t/p.yaml
grep -q "bound pid $M mapfile" /tmp/out || { cat /tmp/out; fail "mapfile not bound"; }
echo "GUEST placed: $(cat /proc/$M/cgroup) $(grep Mems_allowed_list: /proc/$M/status | tr -s '\t' ' ')"
touch /tmp/go
i=0
until grep -q "^mapped" /tmp/mapfile.out; do
    i=$((i + 1)); [ $i -lt 100 ] || { cat /tmp/mapfile.out; fail "mapfile did not map"; }
    sleep 0.1
done

$P status >/tmp/st.txt 2>&1 || { rc=$?; cat /tmp/st.txt; fail "status exited $rc"; }
$P status --json >/tmp/st.json 2>&1 || fail "status --json exited $?"
show status /tmp/st.txt
# node bytes from numa_maps, and the line status should print
want=$(awk '{ k = 4
    for (i = 1; i <= NF; i++) if ($i ~ /^kernelpagesize_kB=/) { split($i, a, "="); k = a[2] }
    for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split(substr($i, 2), a, "="); b[a[1]] += a[2] * k * 1024 } }
    END { t = b[0] + b[1]; l = int(100 * b[0] / t + 0.5); if (l > 99 && b[1] > 0) l = 99
          r = int(100 * b[1] / t + 0.5); if (r == 0 && b[1] > 0) r = "<1"
          printf "%d %d %s%% (N1 %s%%)\n", b[0], b[1], l, r }' /proc/$M/numa_maps)
set -- $want
n0=$1 n1=$2
shift 2
shown="$*"
echo "GUEST numa_maps of $M: N0 $n0 bytes, N1 $n1 bytes: want 'local mem $shown'"
[ "$n1" -ge 33554432 ] || fail "only $n1 bytes on node 1: the file's pages are not there"
grep -q "^app.0 .*local mem $shown " /tmp/st.txt || fail "status does not show 'local mem $shown'"
grep -q "\"planned_mems\": *\"0\"" /tmp/st.json || fail "JSON planned_mems"
grep -q "\"1\": *$n1" /tmp/st.json || fail "JSON node_bytes of node 1 is not $n1"
echo "GUEST status shows the remote share: local mem $shown"

kill $M
must reset $P reset
echo "GUEST OK: remote memory shown by status"
EOF

guest_run_test locality-v2 240 '^GUEST' "$tmp/locality-v2.sh" "$tmp/p.yaml:/t/p.yaml" "$tmp/mapfile:/t/mapfile" || exit 1
