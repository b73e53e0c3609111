#!/bin/sh
# Speed of 'placer export --map' on maps of 10,000, 80,000 and 1,000,000
# lines against a reference measured in the same run: GNU sort finding the
# same file's names once each ('sort -t= -k1,1 -u', LC_ALL=C), the work a
# map's duplicate check is.  Each map names instances the plan does not
# have, so placer reads all of it and then refuses it (exit 2, "no instance
# 'x.0' in the plan"): its time is the parse, the duplicate check and the
# plan.  The plan is a fixed ~10 ms that dominates the small maps; at a
# million lines the map is nearly all of it.  A linear reader keeps the
# ratio flat or falling as the map grows (the quadratic one of issue #35
# F7 took 11 s at 80,000 lines: about 300x sort there).
# usage: bench/map-speed.sh [PLACER_BIN] [RUNS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
placer=${1:-$here/../build/placer}
runs=${2:-11}
xml=$here/../tests/fixtures/crafted-hci-2s16c-8nvme.xml
profile=$here/../profiles/hci-nvme.yaml
work=$(mktemp -d "${TMPDIR:-/tmp}/placer-map-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
export LC_ALL=C
for lines in 10000 80000 1000000; do
  awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++) printf "x.%d=%d\n", i, i }' >"$work/map"
  case $lines in 10000) target=4 ;; 80000) target=1.5 ;; *) target=1 ;; esac
  sh "$here/ratio.sh" "export --map of $lines lines vs sort -u of its names" "$runs" "$target" \
    "$placer export --format ceph --topology $xml --map $work/map $profile" "sort -t= -k1,1 -u $work/map" \
    placer 2
done
