#!/bin/sh
# The watcher's core (placer/watch/, driven by tests/integration/lib/watchd.c until `placer watch`
# exists) against a storm of real short processes (tests/integration/lib/storm.c):
# - through the kernel's proc connector: 2,000 processes in 5 s, 200 of them matching the rule;
#   every matching one is in the group in every hierarchy (each child checks its own
#   /proc/self/cgroup; one not placed within 5 s is missed: under load the watcher may take longer
#   than the others' 50 ms of life, which bench/watch-latency.sh measures), the watcher's log names
#   exactly those PIDs, no other child was moved; the metrics scraped over HTTP and the metrics file read strictly and by Prometheus's
#   Python client (lib/promcheck.py) count the same 200; SIGHUP is answered, SIGTERM ends it with
#   exit 0 and the group (what it placed) left in force;
# - a second watcher on the same metrics address, or a malformed one: exit 2, one line, its group
#   never made;
# - without CAP_NET_ADMIN (capsh --drop): the connector refuses, the watcher says so once and scans
#   /proc instead; processes living longer than its interval are all placed, no other touched.
# ctest: cost=30
set -eu
T=watch_storm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_root
need_cmd curl capsh
"$PY" -c 'import prometheus_client' 2>/dev/null || skip "python3-prometheus-client not installed (ci/install-deps.sh all)"
WATCHD=${PLACER_TEST_WATCHD:?PLACER_TEST_WATCHD not set (built by CMake: placer_test_watchd)}
STORM=${PLACER_TEST_STORM:?PLACER_TEST_STORM not set (built by CMake: placer_test_storm)}
t_begin
# The watcher leaves its groups in force on purpose: the test removes them.
t_defer t_remove_groups
W=$T_WORK
PROMCHECK="$PY $LIB/promcheck.py"

# wait_for SECONDS COMMAND...: until COMMAND succeeds
wait_for() {
    _wf_end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$_wf_end" ] || return 1
        sleep 0.05
    done
}
has_line() { grep -q -- "$2" "$1" 2>/dev/null; }
# /proc/self/cgroup lines that will name GROUP once a process is in it in every hierarchy the
# watcher moves it in: one per hierarchy the group was made in (v1: cpuset, memory, cpu, cpuacct)
lines_of() {
    _lo=0
    for _d in "$CG"/*/"$1" "$CG/$1"; do [ -d "$_d" ] && _lo=$((_lo + 1)); done
    echo $_lo
}

# ---------------------------------------------------------------- through the proc connector
G=$T_TAG/w/storm
"$WATCHD" --metrics 127.0.0.1:0 --metrics-file "$W/watch.prom" --interval 500 \
    "storm=$G=0=cmdline:storm-child m $T_TAG *" >"$W/watch.log" 2>"$W/watch.err" &
WPID=$!
wait_for 20 has_line "$W/watch.log" "^watching 1 instance" || fail "the watcher did not start: $(cat "$W/watch.log" "$W/watch.err")"
has_line "$W/watch.log" "^process events from the kernel's proc connector" || fail "not on the connector: $(head -3 "$W/watch.log")"
ADDR=$(sed -n 's,^metrics at http://\(.*\)/metrics$,\1,p' "$W/watch.log")
[ -n "$ADDR" ] || fail "no metrics address in the log"
K=$(lines_of "$G")
[ "$K" -ge 1 ] || fail "group $G not made"
[ "$(cat "$CG/cpuset/$G/cpuset.cpus" 2>/dev/null || cat "$CG/$G/cpuset.cpus")" = 0 ] || fail "group $G: cpus not 0"

"$STORM" --rate 400 --seconds 5 --life-ms 50 --patience-ms 5000 --tag "$T_TAG" --in "/$G" --lines "$K" --out "$W/storm.out" \
    >"$W/storm.txt" 2>&1 || fail "storm: $(cat "$W/storm.txt")"
say "$(cat "$W/storm.txt")"
grep -q "started 2000 (200 matching)" "$W/storm.txt" || fail "storm: $(cat "$W/storm.txt")"
grep -q "matching: 200 placed, 0 missed" "$W/storm.txt" || fail "matching processes missed: $(cat "$W/storm.txt")"
grep -q "others: 0 touched" "$W/storm.txt" || fail "other processes moved: $(cat "$W/storm.txt")"
# The children's own reports against the watcher's log: the same 200 PIDs, none other.
awk '$1 == "m" && $3 == 1 { print $2 }' "$W/storm.out" | sort -n >"$W/children"
sed -n 's/^storm: placed pid \([0-9]*\) in .*/\1/p' "$W/watch.log" | sort -n >"$W/placed"
[ "$(wc -l <"$W/children")" = 200 ] || fail "$(wc -l <"$W/children") children say they were placed"
cmp -s "$W/children" "$W/placed" || fail "the watcher placed other PIDs than the matching children: $(diff "$W/children" "$W/placed" | head -5)"
# They all ended: the group is empty in every hierarchy.
for d in "$CG"/*/"$G" "$CG/$G"; do
    [ -d "$d" ] || continue
    [ -z "$(cat "$d/cgroup.procs")" ] || fail "$d still holds $(cat "$d/cgroup.procs")"
done

curl -sf "http://$ADDR/metrics" >"$W/scrape.txt" || fail "curl http://$ADDR/metrics"
values=$($PROMCHECK "$W/scrape.txt" 'placer_watch_placements_total{instance="storm",role="storm"}' \
    'placer_watch_exec_to_placed_seconds_count' 'placer_watch_events_total{event="exec"}' \
    'placer_instance_processes{instance="storm"}' 'placer_watch_source{source="connector"}' \
    'placer_instance_cpus{instance="storm",cpus="0"}' 'placer_watch_place_errors_total{instance="storm"}' 2>&1) ||
    fail "the scraped metrics: $values"
set -- $values
[ "$1" = 200 ] || fail "placements_total $1, not 200"
timed=$(grep -c "^storm: placed pid .* after its exec" "$W/watch.log" || true)
[ "$2" = "$timed" ] && [ "$2" -ge 190 ] || fail "exec_to_placed_seconds_count $2, $timed placements timed from their exec"
[ "$3" -ge 2000 ] || fail "events_total{exec} $3, fewer than the storm's 2000"
[ "$4" = 0 ] && [ "$5" = 1 ] && [ "$6" = 1 ] && [ "$7" = 0 ] || fail "processes $4, connector $5, cpus $6, errors $7"
# The exporter's answers to what is not a scrape.
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ADDR/nope")" = 404 ] || fail "GET /nope is not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$ADDR/metrics")" = 405 ] || fail "POST is not 405"
[ -z "$(curl -sf -I "http://$ADDR/metrics" | tr -d '\r' | sed -n '/^$/,$p' | tr -d '\n')" ] || fail "HEAD has a body"

# A second watcher on the address in use, and a malformed one: one line, exit 2, nothing made.
for addr in "$ADDR" 127.0.0.1:99999 "[::1]9101"; do
    rc=0
    "$WATCHD" --metrics "$addr" "second=$T_TAG/w/second=0=cmdline:nothing $T_TAG" >"$W/second.out" 2>"$W/second.err" || rc=$?
    [ "$rc" = 2 ] || fail "metrics address '$addr': exit $rc, not 2"
    [ "$(wc -l <"$W/second.err")" = 1 ] && grep -q "metrics address" "$W/second.err" || fail "'$addr': $(cat "$W/second.err")"
    [ "$(lines_of "$T_TAG/w/second")" = 0 ] || fail "'$addr': the second watcher made its group"
done

kill -HUP "$WPID"
wait_for 10 has_line "$W/watch.log" "^SIGHUP: nothing to reload" || fail "no answer to SIGHUP"
# The file is rewritten every interval: it reaches the storm's count too.
wait_for 10 sh -c "$PROMCHECK '$W/watch.prom' 'placer_watch_placements_total{instance=\"storm\"}' 2>/dev/null | grep -qx 200" ||
    fail "the metrics file: $($PROMCHECK "$W/watch.prom" 'placer_watch_placements_total' 2>&1)"
kill -TERM "$WPID"
rc=0
wait "$WPID" || rc=$?
[ "$rc" = 0 ] || fail "the watcher exited $rc after SIGTERM: $(tail -3 "$W/watch.err")"
has_line "$W/watch.log" "^Terminated: stopping; everything placed stays in force" || fail "no last line: $(tail -2 "$W/watch.log")"
[ "$(lines_of "$G")" = "$K" ] || fail "the group went with the watcher"
[ ! -s "$W/watch.err" ] || fail "the watcher wrote to stderr: $(head -3 "$W/watch.err")"

# ---------------------------------------------------------------- without CAP_NET_ADMIN: the scan
G2=$T_TAG/w/scan
capsh --drop=cap_net_admin -- -c "exec '$WATCHD' --interval 200 --metrics-file '$W/scan.prom' \
    'slow=$G2=0=cmdline:storm-child m $T_TAG-slow *'" >"$W/scan.log" 2>"$W/scan.err" &
SPID=$!
wait_for 20 has_line "$W/scan.log" "^watching 1 instance" || fail "the scanning watcher did not start: $(cat "$W/scan.log" "$W/scan.err")"
[ "$(grep -c "proc connector" "$W/scan.log")" = 1 ] &&
    has_line "$W/scan.log" "^the proc connector is not available (bind: Operation not permitted): scanning /proc every 0.2 s instead" ||
    fail "not said once: $(cat "$W/scan.log")"
"$STORM" --rate 50 --seconds 2 --life-ms 1000 --patience-ms 5000 --tag "$T_TAG-slow" --in "/$G2" --lines "$(lines_of "$G2")" \
    --out "$W/scan.out" >"$W/scan-storm.txt" 2>&1 || fail "storm: $(cat "$W/scan-storm.txt")"
say "scan: $(cat "$W/scan-storm.txt")"
grep -q "matching: 10 placed, 0 missed" "$W/scan-storm.txt" && grep -q "others: 0 touched" "$W/scan-storm.txt" ||
    fail "the scan: $(cat "$W/scan-storm.txt")"
kill -TERM "$SPID"
rc=0
wait "$SPID" || rc=$?
[ "$rc" = 0 ] || fail "the scanning watcher exited $rc"
values=$($PROMCHECK "$W/scan.prom" 'placer_watch_source{source="scan"}' 'placer_watch_placements_total{instance="slow"}' 2>&1) ||
    fail "the scan's metrics file: $values"
set -- $values
[ "$1" = 1 ] && [ "$2" = 10 ] || fail "scan metrics: source $1, placements $2"
say "ok: 200 of 200 placed through the connector, 10 of 10 by the scan, none other touched"
