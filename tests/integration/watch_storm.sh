#!/bin/sh
# The watcher's core (placer/watch/, driven by tests/integration/lib/watchd.c until `placer watch`
# exists) against a storm of real short processes (tests/integration/lib/storm.c):
# - through the kernel's proc connector: a process of the instance that ran before the watcher is
#   placed by its first scan; 2,000 processes in 5 s, 200 of them matching the rule;
#   every matching one is in the group in every hierarchy (each child checks its own
#   /proc/self/cgroup; one not placed within 5 s is missed: under load the watcher may take longer
#   than the others' 50 ms of life, which bench/watch-latency.sh measures), the watcher's log names
#   exactly those PIDs, no other child was moved; the metrics scraped over HTTP and the metrics file read strictly and by Prometheus's
#   Python client (lib/promcheck.py) count the same 200, and a busy IRQ's count per CPU lies
#   between two reads of /proc/interrupts around the scrape; the instance's process killed: "no
#   process", said once; started again: placed again; SIGHUP is answered, SIGTERM ends it with
#   exit 0 and the group (what it placed) left in force;
# - a second watcher on the same metrics address, or a malformed one, or a metrics file in no
#   directory: exit 2, one line, its group never made;
# - without CAP_NET_ADMIN (capsh --drop): the connector refuses, the watcher says so once and scans
#   /proc instead; processes living longer than its interval are all placed, no other touched.
# ctest: cost=30
set -eu
T=watch_storm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_root
need_cmd curl capsh
"$PY" -c 'import prometheus_client' 2>/dev/null || skip "python3-prometheus-client not installed (ci/install-deps.sh all)"
. "$LIB/watch.sh"
STORM=${PLACER_TEST_STORM:?PLACER_TEST_STORM not set (built by CMake: placer_test_storm)}
t_begin
# The watcher leaves its groups in force on purpose: the test removes them.
t_defer t_remove_groups
W=$T_WORK
PROMCHECK="$PY $LIB/promcheck.py"

# A long-lived process of the instance: sleep with an argv[0] the rule matches.
keeper() {
    "$PY" -c 'import os, sys; os.execv("/bin/sleep", [sys.argv[1], "1000"])' "storm-child m $T_TAG keeper $W/$1" &
    LAST_KEEPER=$!
    # (its comm: grep would take the NULs of /proc/PID/cmdline for line ends and match python's)
    wait_for 10 grep -qx sleep "/proc/$LAST_KEEPER/comm" || fail "keeper $1 did not start"
}
in_group() { grep -q ":/$2\$" "/proc/$1/cgroup"; }
# The first numbered line of /proc/interrupts with the most interrupts: its counts per CPU
busiest_irq() { awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { s = 0; for (i = 2; i <= n + 1; i++) s += $i; if (s > best) { best = s; irq = $1 } }
    NR == 1 { n = NF } END { sub(":", "", irq); print irq }' /proc/interrupts; }
irq_counts() { awk -v irq="$1:" 'NR == 1 { n = NF } $1 == irq { for (i = 2; i <= n + 1; i++) print $i }' /proc/interrupts; }

# ---------------------------------------------------------------- through the proc connector
G=$T_TAG/w/storm
IRQ=$(busiest_irq)
[ -n "$IRQ" ] || fail "no IRQ in /proc/interrupts"
keeper k1
K1=$LAST_KEEPER
watch_start "$W/watch.log" --metrics 127.0.0.1:0 --metrics-file "$W/watch.prom" --interval 500 --irq "$IRQ:busiest" \
    "storm=$G=0=cmdline:storm-child m $T_TAG *"
WPID=$WATCH_PID
# What ran before the watcher: placed by its first scan of /proc.
has_line "$W/watch.log" "^storm: placed pid $K1 in $G (found by a rescan)" && in_group "$K1" "$G" ||
    fail "the process that ran before the watcher was not placed: $(cat "$W/watch.log")"
has_line "$W/watch.log" "^process events from the kernel's proc connector" || fail "not on the connector: $(head -3 "$W/watch.log")"
ADDR=$(sed -n 's,^metrics at http://\(.*\)/metrics$,\1,p' "$W/watch.log")
[ -n "$ADDR" ] || fail "no metrics address in the log"
K=$(group_lines "$G")
[ "$K" -ge 1 ] || fail "group $G not made"
[ "$(cat "$CG/cpuset/$G/cpuset.cpus" 2>/dev/null || cat "$CG/$G/cpuset.cpus")" = 0 ] || fail "group $G: cpus not 0"

"$STORM" --rate 400 --seconds 5 --life-ms 50 --patience-ms 5000 --tag "$T_TAG" --in "/$G" --lines "$K" --out "$W/storm.out" \
    >"$W/storm.txt" 2>&1 || fail "storm: $(cat "$W/storm.txt")"
say "$(cat "$W/storm.txt")"
grep -q "started 2000 (200 matching)" "$W/storm.txt" || fail "storm: $(cat "$W/storm.txt")"
grep -q "matching: 200 placed, 0 missed" "$W/storm.txt" || fail "matching processes missed: $(cat "$W/storm.txt")"
grep -q "others: 0 touched" "$W/storm.txt" || fail "other processes moved: $(cat "$W/storm.txt")"
# The children's own reports against the watcher's log: the same 200 PIDs, none other.
storm_placed_are "$W/storm.out" "$W/watch.log" storm
[ "$STORM_PLACED" = 200 ] || fail "$STORM_PLACED children say they were placed"
# They all ended: the keeper alone is in the group, in every hierarchy.
for d in "$CG"/*/"$G" "$CG/$G"; do
    [ -d "$d" ] || continue
    [ "$(cat "$d/cgroup.procs")" = "$K1" ] || fail "$d holds $(cat "$d/cgroup.procs" | tr '\n' ' '), not only $K1"
done

irq_counts "$IRQ" >"$W/irq.before"
curl -sf "http://$ADDR/metrics" >"$W/scrape.txt" || fail "curl http://$ADDR/metrics"
irq_counts "$IRQ" >"$W/irq.after"
values=$($PROMCHECK "$W/scrape.txt" 'placer_watch_placements_total{instance="storm",role="storm"}' \
    'placer_watch_exec_to_placed_seconds_count' 'placer_watch_events_total{event="exec"}' \
    'placer_instance_processes{instance="storm"}' 'placer_watch_source{source="connector"}' \
    'placer_instance_cpus{instance="storm",cpus="0"}' 'placer_watch_place_errors_total{instance="storm"}' 2>&1) ||
    fail "the scraped metrics: $values"
set -- $values
[ "$1" = 201 ] || fail "placements_total $1, not 201 (the keeper and the storm's 200)"
[ "$2" = 200 ] || fail "exec_to_placed_seconds_count $2, not the storm's 200 (the keeper's was not timed from an exec)"
[ "$3" -ge 2000 ] || fail "events_total{exec} $3, fewer than the storm's 2000"
[ "$4" = 1 ] && [ "$5" = 1 ] && [ "$6" = 1 ] && [ "$7" = 0 ] || fail "processes $4, connector $5, cpus $6, errors $7"
# Each CPU's count of the IRQ lies between the reads of /proc/interrupts around the scrape.
cpu=0
paste "$W/irq.before" "$W/irq.after" | while read -r before after; do
    v=$($PROMCHECK "$W/scrape.txt" "placer_irq_interrupts_total{irq=\"$IRQ\",name=\"busiest\",cpu=\"$cpu\"}") ||
        fail "no count of IRQ $IRQ on cpu $cpu"
    [ "$before" -le "$v" ] && [ "$v" -le "$after" ] || fail "IRQ $IRQ cpu $cpu: $v, not between $before and $after"
    cpu=$((cpu + 1))
done
[ "$(wc -l <"$W/irq.before")" -ge 1 ] || fail "no CPU column for IRQ $IRQ"

# The instance's process ends: said once; it starts again: placed again.
kill "$K1"
wait "$K1" 2>/dev/null || true
wait_for 10 has_line "$W/watch.log" "^storm: no process" || fail "the end of the instance's last process was not said"
keeper k2
K2=$LAST_KEEPER
wait_for 10 has_line "$W/watch.log" "^storm: placed pid $K2 in $G, .* after its exec" || fail "the restarted process was not placed"
in_group "$K2" "$G" || fail "pid $K2: $(cat "/proc/$K2/cgroup")"
[ "$(grep -c "^storm: no process" "$W/watch.log")" = 1 ] || fail "'no process' said more than once"
kill "$K2"
wait "$K2" 2>/dev/null || true
# The exporter's answers to what is not a scrape.
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ADDR/nope")" = 404 ] || fail "GET /nope is not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$ADDR/metrics")" = 405 ] || fail "POST is not 405"
[ -z "$(curl -sf -I "http://$ADDR/metrics" | tr -d '\r' | sed -n '/^$/,$p' | tr -d '\n')" ] || fail "HEAD has a body"

# A second watcher on the address in use, a malformed one, a metrics file in no directory: one
# line, exit 2, nothing made.
for opt in "--metrics $ADDR" "--metrics 127.0.0.1:99999" "--metrics [::1]9101" "--metrics-file $W/none/m.prom"; do
    rc=0
    # shellcheck disable=SC2086 # the option and its value, two words
    "$WATCHD" $opt "second=$T_TAG/w/second=0=cmdline:nothing $T_TAG" >"$W/second.out" 2>"$W/second.err" || rc=$?
    [ "$rc" = 2 ] || fail "'$opt': exit $rc, not 2"
    [ "$(wc -l <"$W/second.err")" = 1 ] && grep -q "metrics" "$W/second.err" || fail "'$opt': $(cat "$W/second.err")"
    [ "$(group_lines "$T_TAG/w/second")" = 0 ] || fail "'$opt': the second watcher made its group"
done

kill -HUP "$WPID"
wait_for 10 has_line "$W/watch.log" "^SIGHUP: nothing to reload" || fail "no answer to SIGHUP"
# The file is rewritten every interval: it reaches the storm's count too.
wait_for 10 sh -c "$PROMCHECK '$W/watch.prom' 'placer_watch_placements_total{instance=\"storm\"}' 2>/dev/null | grep -qx 202" ||
    fail "the metrics file: $($PROMCHECK "$W/watch.prom" 'placer_watch_placements_total' 2>&1)"
kill -TERM "$WPID"
rc=0
wait "$WPID" || rc=$?
[ "$rc" = 0 ] || fail "the watcher exited $rc after SIGTERM: $(tail -3 "$W/watch.log.err")"
has_line "$W/watch.log" "^Terminated: stopping; everything placed stays in force" || fail "no last line: $(tail -2 "$W/watch.log")"
[ "$(group_lines "$G")" = "$K" ] || fail "the group went with the watcher"
[ ! -s "$W/watch.log.err" ] || fail "the watcher wrote to stderr: $(head -3 "$W/watch.log.err")"

# ---------------------------------------------------------------- without CAP_NET_ADMIN: the scan
G2=$T_TAG/w/scan
capsh --drop=cap_net_admin -- -c "exec '$WATCHD' --interval 200 --metrics-file '$W/scan.prom' \
    'slow=$G2=0=cmdline:storm-child m $T_TAG-slow *'" >"$W/scan.log" 2>"$W/scan.err" &
SPID=$!
wait_for 20 has_line "$W/scan.log" "^watching 1 instance" || fail "the scanning watcher did not start: $(cat "$W/scan.log" "$W/scan.err")"
[ "$(grep -c "proc connector" "$W/scan.log")" = 1 ] &&
    has_line "$W/scan.log" "^the proc connector is not available (bind: Operation not permitted): scanning /proc every 0.2 s instead" ||
    fail "not said once: $(cat "$W/scan.log")"
"$STORM" --rate 50 --seconds 2 --life-ms 1000 --patience-ms 5000 --tag "$T_TAG-slow" --in "/$G2" --lines "$(group_lines "$G2")" \
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
