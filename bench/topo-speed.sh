#!/bin/sh
# Speed of 'placer topo --json' against hwloc's own lstopo on the largest
# fixture (24 NUMA nodes, 384 PUs).  hwloc's XML load is the floor; target
# ratio <= 0.6x (placer reads the file once, with no child process, and
# asks hwloc for none of the objects it does not use; docs/topology.md).
# usage: bench/topo-speed.sh [PLACER_BIN] [RUNS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
placer=${1:-$here/../build/placer}
runs=${2:-31}
xml=$here/../tests/fixtures/192em64t-24n8c2t.xml
sh "$here/ratio.sh" "topo --json on 192em64t-24n8c2t.xml vs lstopo-no-graphics -i" "$runs" 0.6 \
  "$placer topo --json --topology $xml" "lstopo-no-graphics -i $xml"
# hwloc's own load of the same file, for scale: no reader through hwloc's
# importer gets under it (docs/topology.md, "Speed")
sh "$here/ratio.sh" "for scale, hwloc's load alone: hwloc-info -i vs lstopo-no-graphics -i" "$runs" 0.6 \
  "hwloc-info -i $xml" "lstopo-no-graphics -i $xml" hwloc-info
