#!/bin/sh
# Speed of 'placer plan --json' against hwloc's own lstopo on the largest
# fixture (24 NUMA nodes, 384 PUs), with a profile that places an instance
# on every NUMA node (bench/profiles/every-numa.yaml).  hwloc's XML load is
# the floor; target ratio <= 0.6x (docs/profiles.md, "Speed").
# usage: bench/plan-speed.sh [PLACER_BIN] [RUNS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
placer=${1:-$here/../build/placer}
runs=${2:-31}
xml=$here/../tests/fixtures/192em64t-24n8c2t.xml
profile=$here/profiles/every-numa.yaml
# the plan must be one instance per node before its time means anything
n=$("$placer" plan --json --topology "$xml" "$profile" | grep -c '"name": "worker\.')
[ "$n" = 24 ] || { echo "plan-speed: expected 24 instances, got $n" >&2; exit 1; }
sh "$here/ratio.sh" "plan --json on 192em64t-24n8c2t.xml vs lstopo-no-graphics -i" "$runs" 0.6 \
  "$placer plan --json --topology $xml $profile" "lstopo-no-graphics -i $xml"
pool=$here/profiles/shared-pool.yaml
n=$("$placer" plan --json --topology "$xml" --set w.count=4096 "$pool" | grep -c '"name": "w\.')
[ "$n" = 4096 ] || { echo "plan-speed: expected 4096 instances, got $n" >&2; exit 1; }
sh "$here/ratio.sh" "plan --json of 4096 instances in one pool vs 1024" "$runs" 6 \
  "$placer plan --json --topology $xml --set w.count=4096 $pool" \
  "$placer plan --json --topology $xml --set w.count=1024 $pool" "4096"
