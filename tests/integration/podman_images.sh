#!/bin/sh
# Integration test: placer's container images build locally, and a container placed with
# --cpuset-cpus/--memory under a --cgroup-parent is really confined; podman's leftover cgroups
# can be removed completely.
#
# Runs as root (ctest sets PLACER_SOURCE_DIR to the repository root).  Exit 77 = skipped.
# The first run builds every image (~1-2 minutes, needs the host's Debian mirror); later runs find
# them cached.
# ctest: needs=shared cost=60
set -eu

T=podman_images
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
src=$SRC
CONTAINERS_CONF="$src/containers/containers.conf"
export CONTAINERS_CONF

need_root
need_cmd podman runc debootstrap
grep -qE '(^|,)1(-|,|$)|^0-([1-9]|[1-9][0-9]+)$' /sys/devices/system/cpu/online \
  || skip "needs CPU 1 online"

image=localhost/placer/stress-ng:latest
name=$T_TAG
parent=/$T_TAG
limit=134217728            # --memory=128m

# Every cgroup hierarchy mounted here: "MOUNTPOINT TYPE" (v1: one per controller, plus the
# named systemd one; v2: the unified mount, in a hybrid layout at /sys/fs/cgroup/unified).
hierarchies() { awk '$3 == "cgroup" || $3 == "cgroup2" { print $2, $3 }' /proc/mounts; }

# rmdir every cgroup under $parent, deepest first, in every hierarchy.  Empty cgroups go at once;
# conmon may take a moment to leave its cgroup after `podman rm`, hence the retries.
remove_parent_cgroups() {
  tries=0
  while :; do
    left=0
    for mnt in $(hierarchies | cut -d' ' -f1); do
      [ -d "$mnt$parent" ] || continue
      find "$mnt$parent" -depth -type d -exec rmdir {} + 2>/dev/null || true
      [ ! -d "$mnt$parent" ] || left=1
    done
    [ "$left" = 0 ] && return 0
    tries=$((tries + 1))
    [ "$tries" -lt 50 ] || return 1
    sleep 0.1
  done
}

t_begin
t_defer 'podman rm -f -t 0 "$name" >/dev/null 2>&1; t_remove_groups'

# 1. Images: built the first time, "cached" afterwards.
sh "$src/containers/build-images.sh" || fail "containers/build-images.sh failed"
podman image exists "$image" || fail "$image missing after build-images.sh"

# 2. A confined container under our own cgroup parent.
start=$(date +%s%N)
podman run -d --name "$name" --cgroup-parent="$parent" --network none \
  --cpuset-cpus=1 --memory=128m "$image" stress-ng --cpu 1 --timeout 120 >/dev/null \
  || fail "podman run failed"
echo "container started in $(( ($(date +%s%N) - start) / 1000000 )) ms"
pid=$(podman inspect -f '{{.State.Pid}}' "$name")
cgpath=$(podman inspect -f '{{.State.CgroupPath}}' "$name")
[ -n "$pid" ] && [ "$pid" -gt 0 ] || fail "no PID for $name"
case $cgpath in
  "$parent"/*) ;;
  *) fail "container cgroup '$cgpath' is not under --cgroup-parent $parent" ;;
esac
echo "container PID $pid, cgroup $cgpath"

# 3. The cgroup files, read from the host.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
  cpus_file=/sys/fs/cgroup$cgpath/cpuset.cpus
  mem_file=/sys/fs/cgroup$cgpath/memory.max
  procs_file=/sys/fs/cgroup$cgpath/cgroup.procs
else
  cpus_file=/sys/fs/cgroup/cpuset$cgpath/cpuset.cpus
  mem_file=/sys/fs/cgroup/memory$cgpath/memory.limit_in_bytes
  procs_file=/sys/fs/cgroup/cpuset$cgpath/cgroup.procs
fi
[ "$(cat "$cpus_file")" = 1 ] || fail "$cpus_file = '$(cat "$cpus_file")', want 1"
[ "$(cat "$mem_file")" = "$limit" ] || fail "$mem_file = '$(cat "$mem_file")', want $limit"
grep -qx "$pid" "$procs_file" || fail "PID $pid is not in $procs_file"

# 4. Every thread of the main PID, and of every other process in the container's cgroup, may run
#    on CPU 1 only.
sleep 0.5   # let stress-ng start its worker
nthreads=0
for p in $( { echo "$pid"; cat "$procs_file"; } | sort -un); do
  for status in /proc/"$p"/task/*/status; do
    [ -r "$status" ] || continue
    allowed=$(awk '$1 == "Cpus_allowed_list:" { print $2 }' "$status")
    [ -z "$allowed" ] && continue          # the thread exited meanwhile
    [ "$allowed" = 1 ] || fail "$status: Cpus_allowed_list $allowed, want 1"
    nthreads=$((nthreads + 1))
  done
done
[ "$nthreads" -ge 1 ] || fail "no thread of PID $pid found"
echo "$nthreads threads checked: Cpus_allowed_list 1"

# 5. Remove the container; podman leaves cgroups behind under the parent (v1: the parent and a
#    'conmon' child in each controller's hierarchy).  Remove them and check nothing remains.
podman rm -f -t 0 "$name" >/dev/null || fail "podman rm failed"
! podman container exists "$name" || fail "container $name still exists"
leftover=$(for mnt in $(hierarchies | cut -d' ' -f1); do
             [ -d "$mnt$parent" ] && find "$mnt$parent" -type d; done || true)
echo "cgroups podman left behind:"
printf '%s\n' "$leftover" | sed 's/^/  /'
remove_parent_cgroups || fail "could not remove the cgroups under $parent"
for mnt in $(hierarchies | cut -d' ' -f1); do
  [ ! -e "$mnt$parent" ] || fail "$mnt$parent still exists"
done
echo "PASS"
