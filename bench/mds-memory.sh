#!/bin/sh
# How far an MDS's resident memory runs past its mds_cache_memory_limit: a
# throwaway local cluster (libexec/ceph-cluster.sh up DIR --osds 2 --mds), the
# limit set, FILES empty files created 1,000 to a directory through ceph-fuse
# and then stat'ed, sampling every 10 s the daemon's VmRSS and its cache
# (`ceph daemon mds.a cache status`: the pool's bytes); the last line gives
# both against the limit after the load, settled 20 s.  What docs/profiles.md
# ("The MDS") quotes for the planner's half-the-memory rule.
# usage: bench/mds-memory.sh [LIMIT_BYTES] [FILES]   (root; ~2 min per 80,000 files here)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
limit=${1:-268435456}
files=${2:-300000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mds-memory.XXXXXX")
cluster=$dir/ceph
done_up=no
cleanup() {
  if [ "$done_up" = yes ]; then
    fusermount -u "$cluster/mnt" 2>/dev/null || umount "$cluster/mnt" 2>/dev/null || true
    sh "$here/../libexec/ceph-cluster.sh" down "$cluster" >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
sh "$here/../libexec/ceph-cluster.sh" up "$cluster" --osds 2 --mds
done_up=yes
eval "$(sh "$here/../libexec/ceph-cluster.sh" env "$cluster")"
export CEPH_CONF
ceph config set mds mds_cache_memory_limit "$limit"
mkdir "$cluster/mnt"
ceph-fuse -c "$CEPH_CONF" "$cluster/mnt" >"$dir/fuse.out" 2>&1
i=0
until mountpoint -q "$cluster/mnt"; do
  i=$((i + 1))
  [ $i -lt 300 ] || { echo "mds-memory: ceph-fuse did not mount" >&2; exit 1; }
  sleep 0.1
done
mds=$(cat "$cluster/run/mds.a.pid")
sample() { # WHEN: one line, the RSS and the cache against the limit
  rss=$(awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$mds/status")
  cache=$(ceph daemon mds.a cache status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pool"]["bytes"])')
  awk -v w="$1" -v r="$rss" -v c="$cache" -v l="$limit" 'BEGIN {
    printf "%s: rss %.0f MiB (%.2fx the limit), cache %.0f MiB (%.2fx), limit %.0f MiB\n", w, r / 1048576, r / l,
      c / 1048576, c / l, l / 1048576 }'
}
sample idle
python3 - "$cluster/mnt" "$files" <<'EOF' &
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
dirs = max(1, n // 1000)
for d in range(dirs):
    os.mkdir(os.path.join(root, "d%05d" % d))
    for f in range(1000):
        os.close(os.open(os.path.join(root, "d%05d" % d, "f%04d" % f), os.O_CREAT | os.O_WRONLY, 0o644))
for d in range(dirs):
    p = os.path.join(root, "d%05d" % d)
    for f in os.listdir(p):
        os.stat(os.path.join(p, f))
EOF
load=$!
while kill -0 "$load" 2>/dev/null; do
  sleep 10
  sample load
done
wait "$load"
sleep 20
sample settled
