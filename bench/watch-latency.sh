#!/bin/sh
# How fast and how cheaply `placer watch` places new processes, on this machine: each phase
# applies a profile of one instance (its processes: "storm-child m TAG-PHASE *") through a
# watcher of its own, its state on /run (tmpfs, as the default /run/placer: a move is journaled
# for each process placed), and takes it back with placer reset at the end:
#
#   idle         the watcher with nothing to do but the machine's own processes for IDLE s:
#                its CPU (utime + stime from /proc/PID/stat) and its RSS, its metrics listener
#                open and its metrics file written every 2 s, as in every phase;
#   connector R  a storm (tests/integration/lib/storm.c) of R execs a second for SECONDS s, one
#                in ten matching the watcher's rule, each child living LIFE ms, through the
#                kernel's proc connector; R = 200 and 1000;
#   scan-2s R    the same storm with the 2 s scan of /proc instead (the fallback);
#   core R       before each connector R: the same storm through the watcher's core alone
#                (tests/integration/lib/watchd.c: the core's own move, no model, no journal),
#                the reference for what a placement costs the command.
#
# Per phase: exec to placed, p50 / p99 / max, two ways: the watcher's (from the kernel's exec
# timestamp to the move journaled, the cgroup.procs writes and every thread checked: its log line) and the
# children's (from their first instruction to the first read of /proc/self/cgroup that shows them
# in the group in every hierarchy; an upper bound, polled every 0.1 ms); matching children that
# ended unplaced (missed), other children moved (touched), the execs a second the watcher looked
# at (the storm's and the machine's own), the watcher's CPU in % of one core over the phase, its
# RSS and peak RSS at the end; the watcher's CPU per placement (its time on a CPU over the storm,
# from /proc/PID/task/*/schedstat in ns, divided by the processes it placed: the storm's other
# execs count in, alike for both) and, on a connector row, that figure over the core's of the
# same rate in the same run (x core): this machine is shared, so compare ratios, not runs.  One watcher per phase, so that each figure
# is its phase's alone.  Other work on the machine counts in: run it on a quiet machine.
#
# usage: [WATCH_NICE=N] [WATCH_PHASES="P..."] bench/watch-latency.sh [BUILD_DIR] [SECONDS] [IDLE_SECONDS] [LIFE_MS]
#        (defaults: build, 10, 60, 50; the issue's idle figure is over 600 s); WATCH_NICE runs the
#        watcher at that nice value (-10: ahead of the storm and of other work for the CPU);
#        WATCH_PHASES the phases to run (default "idle 200 1000 scan": idle, core and connector
#        at 200 and 1000, the scan at both)
# Needs root and cgroup v1 or v2 with the cpuset controller.  Exit 0, or 1 when a phase failed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
secs=${2:-10}
idle=${3:-60}
life=${4:-50}
placer=$build/placer
storm=$build/tests/placer_test_storm
watchd=$build/tests/placer_test_watchd
cg=/sys/fs/cgroup
[ "$(id -u)" = 0 ] || { echo "watch-latency: needs root" >&2; exit 2; }
[ -x "$placer" ] && [ -x "$storm" ] && [ -x "$watchd" ] ||
  { echo "watch-latency: build $build first (placer, placer_test_storm, placer_test_watchd)" >&2; exit 2; }
tag=placer-bench-watch-$$
work=$(mktemp -d "/tmp/$tag.XXXXXX")
export PLACER_CGROUP_PREFIX=$tag
wpid=""
state=""
cleanup() {
  set +e
  [ -z "$wpid" ] || { kill -9 "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; }
  [ -z "$state" ] || "$placer" reset --state-dir "$state" >/dev/null 2>&1
  for d in "$cg"/*/"$tag" "$cg/$tag" "$cg"/*/"$tag-core" "$cg/$tag-core"; do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ticks_per_s=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
# its threads' time on a CPU, ns (the scheduler's own count: clock ticks are too coarse per placement)
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
lines_of() {
  n=0
  for d in "$cg"/*/"$1" "$cg/$1"; do [ -d "$d" ] && n=$((n + 1)); done
  echo $n
}
# p50 p99 max of the numbers on stdin (nearest rank), "-" when none
percentiles() {
  sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "- - -"; exit }
    i50 = int(0.50 * (NR - 1) + 0.5) + 1; i99 = int(0.99 * (NR - 1) + 0.5) + 1
    printf "%.3f %.3f %.3f\n", v[i50], v[i99], v[NR] }'
}

dynmods=$(grep -c favordynmods /proc/mounts || true)
echo "watch-latency: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before, the watcher at nice ${WATCH_NICE:-0}, $dynmods cgroup mounts with favordynmods"
fmt='%-14s %6s %8s %8s %7s %8s %-23s %-23s %7s %7s %8s %9s %7s\n'
# shellcheck disable=SC2059
printf "$fmt" phase rate/s started matching missed touched \
  "watcher p50/p99/max ms" "children p50/p99/max ms" execs/s "cpu %" "rss KiB" "us/placed" "x core"
status=0
# phase NAME MODE RATE
phase() {
  name=$1 mode=$2 rate=$3
  group=$tag/w/w.0
  log=$work/$name.log
  [ "$mode" = core ] && group=$tag-core/w/w.0
  state=/run/$tag-$name
  printf '%s\n' "version: 1" "name: $tag-$name" "reserve: { cores: 0 }" "roles:" "  - name: w" "    kind: generic" \
    "    count: 1" "    cpu: { threads: 1, pool: one }" "    match: { cmdline: \"storm-child m $tag-$name *\" }" \
    >"$work/$name.yaml"
  # as it would run: metrics served and written every interval (2 s)
  set -- --state-dir "$state" --metrics 127.0.0.1:0 --metrics-file "$work/$name.prom" "$work/$name.yaml"
  [ "$mode" = scan ] && set -- --scan "$@"
  if [ "$mode" = core ]; then
    state=""
    # the group pinned to CPU 0 as the profile's instance is to one CPU
    set -- --metrics 127.0.0.1:0 --metrics-file "$work/$name.prom" "w=$group=0=cmdline:storm-child m $tag-$name *"
    nice -n "${WATCH_NICE:-0}" "$watchd" "$@" >"$log" 2>"$work/$name.err" &
  else
    nice -n "${WATCH_NICE:-0}" "$placer" watch "$@" >"$log" 2>"$work/$name.err" &
  fi
  wpid=$!
  i=0
  until grep -q '^watching' "$log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 400 ] || { echo "watch-latency: $name: the watcher did not start: $(cat "$work/$name.err")" >&2; return 1; }
    sleep 0.05
  done
  c0=$(cpu_ticks "$wpid")
  n0=$(cpu_ns "$wpid")
  t0=$(date +%s.%N)
  if [ "$rate" = 0 ]; then
    sleep "$idle"
    summary=""
  else
    "$storm" --rate "$rate" --seconds "$secs" --life-ms "$life" --tag "$tag-$name" --in "/$group" \
      --lines "$(lines_of "$group")" --out "$work/$name.out" >"$work/$name.storm" 2>&1 || true
    summary=$(cat "$work/$name.storm")
  fi
  c1=$(cpu_ticks "$wpid")
  n1=$(cpu_ns "$wpid")
  t1=$(date +%s.%N)
  rss=$(status_kib "$wpid" VmRSS) hwm=$(status_kib "$wpid" VmHWM)
  kill -TERM "$wpid"
  wait "$wpid" || status=1
  wpid=""
  cpu=$(awk -v c="$((c1 - c0))" -v hz="$ticks_per_s" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.3f", 100 * c / hz / (t1 - t0) }')
  # every exec the watcher looked at (the storm's and the machine's own), per second of the phase
  execs=$(awk -v t0="$t0" -v t1="$t1" '$1 == "placer_watch_events_total{event=\"exec\"}" { printf "%.0f", $2 / (t1 - t0) }' \
    "$work/$name.prom")
  w_lat=$(sed -n 's/.* \([0-9.]*\) ms after its exec$/\1/p' "$log" | percentiles | tr ' ' /)
  placed=$(grep -c ' ms after its exec$' "$log" || true)
  per=- ratio=-
  if [ "$placed" -gt 0 ]; then
    per=$(awk -v n="$((n1 - n0))" -v p="$placed" 'BEGIN { printf "%.0f", n / p / 1000 }')
    if [ "$mode" = core ]; then
      eval "core_per_$rate=\$per"
    else
      ref=$(eval "echo \${core_per_$rate:-}")
      [ -z "$ref" ] || [ "$ref" = 0 ] || ratio=$(awk -v a="$per" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')
    fi
  fi
  if [ -n "$summary" ]; then
    started=$(echo "$summary" | sed -n 's/^storm: started \([0-9]*\) .*/\1/p')
    matching=$(echo "$summary" | sed -n 's/.*started [0-9]* (\([0-9]*\) matching).*/\1/p')
    missed=$(echo "$summary" | sed -n 's/.* placed, \([0-9]*\) missed.*/\1/p')
    touched=$(echo "$summary" | sed -n 's/.*others: \([0-9]*\) touched.*/\1/p')
    c_lat=$(awk '$1 == "m" && $3 == 1 { printf "%.3f\n", $4 / 1e6 }' "$work/$name.out" | percentiles | tr ' ' /)
    [ -n "$started" ] || { echo "watch-latency: $name: $summary" >&2; status=1; }
  else
    started=- matching=- missed=- touched=- c_lat=-
    w_lat=-
  fi
  # shellcheck disable=SC2059
  printf "$fmt" "$name" "$rate" "$started" "$matching" "$missed" \
    "$touched" "$w_lat" "$c_lat" "${execs:-?}" "$cpu" "$rss/$hwm" "$per" "$ratio"
  if [ "$mode" = core ]; then # what apply would have made, by hand: taken away by hand
    for d in "$cg"/*/"$tag-core" "$cg/$tag-core"; do
      [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
    done
  else
    "$placer" reset --state-dir "$state" >"$work/$name.reset" 2>&1 ||
      { echo "watch-latency: $name: reset: $(cat "$work/$name.reset")" >&2; status=1; }
  fi
  state=""
  return 0
}

for p in ${WATCH_PHASES:-idle 200 1000 scan}; do
  case $p in
  idle) phase idle connector 0 ;;
  scan) phase scan-2s-200 scan 200 && phase scan-2s-1000 scan 1000 ;;
  *) phase "core-$p" core "$p" && phase "connector-$p" connector "$p" ;;
  esac
done
echo "(life of each child $life ms; rss KiB: at the end / peak; cpu %: of one core over the phase; idle over $idle s;"
echo " us/placed: the watcher's CPU over the storm per process placed; x core: over the core's at that rate)"
exit $status
