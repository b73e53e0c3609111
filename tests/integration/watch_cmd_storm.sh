#!/bin/sh
# `placer watch` against storms of real short processes (tests/integration/lib/storm.c):
# - 10,000 processes in 25 s, 1,000 of them matching the profile's instance: every matching one
#   in the group in every hierarchy (each child checks its own /proc/self/cgroup, 5 s of
#   patience), no other touched, the watcher's log names exactly the matching PIDs, the
#   journal keeps no record of the ones gone;
# - killed with -9 in the middle of a second storm and started again at once: it continues from
#   the journal (nothing applied again), every matching child still placed; reset then undoes
#   it all: a long-lived process placed by the first watcher back in its groups with its
#   affinities as before (the originals the first one recorded), and the leftovers check
#   (lib/common.sh's teardown) finds no group and no process.
# ctest: cost=40
set -eu
T=watch_cmd_storm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup watch_cmd_storm
. "$LIB/watch.sh"
STORM=${PLACER_TEST_STORM:?PLACER_TEST_STORM not set (built by CMake: placer_test_storm)}
# On /run, tmpfs, as placer's default state directory: a move is journaled for each process placed,
# and a rename on this VM's disk under load took milliseconds.
export PLACER_STATE_DIR=/run/$TAG
# At the priority placer-watch.service gives it: the storm's children that wait to be placed poll
# /proc/self/cgroup, and beside stress-ng they left a watcher at nice 0 without a CPU for seconds.
export WATCH_NICE=-10
WPID=""
t_defer '[ -z "$WPID" ] || { kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }'
G=$TAG/storm/storm.0
profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: storm
    kind: generic
    count: 1
    cpu: { threads: 1, pool: one }
    match: { cmdline: "storm-child m $TAG *" }
EOF
# The journal as placer reads it: state.json's, and the records appended to state.log since (its
# first line names state.json's log_seq; a last line without its newline was torn by a kill).
journal_moves() {
    "$PY" -c 'import json, os, sys
d = json.load(open(sys.argv[1] + "/state.json"))
journal = d.get("journal", [])
log = sys.argv[1] + "/state.log"
if "log_seq" in d and os.path.exists(log):
    lines = open(log).read().split("\n")[:-1]
    if lines and json.loads(lines[0]).get("log_seq") == d["log_seq"]:
        journal += [json.loads(l) for l in lines[1:]]
print(sum(1 for e in journal if e["op"] == "move"))' "$PLACER_STATE_DIR"
}

# A long-lived process of the instance, its groups and affinities before: what reset must restore
# after a watcher killed -9 and another one (which must not record it again from its placed state).
bg_start "$PY" -c 'import os, sys; os.execv("/bin/sleep", [sys.argv[1], "1000"])' "storm-child m $TAG keeper"
KEEP=$LAST_PID
wait_for 10 grep -qx sleep "/proc/$KEEP/comm" || fail "the keeper did not start"
snapshot "$KEEP" >"$WORK/keeper.before"

placer_watch_start "$WORK/w.log" --interval 500 "$profile"
WPID=$WATCH_PID
has_line "$WORK/w.log" "^storm.0: placed pid $KEEP in $G (found by a rescan)" || fail "the keeper was not placed"
K=$(group_lines "$G")
[ "$K" -ge 1 ] || fail "group $G not made"
"$STORM" --rate 400 --seconds 25 --life-ms 50 --patience-ms 5000 --tag "$TAG" --in "/$G" --lines "$K" \
    --out "$WORK/storm.out" >"$WORK/storm.txt" 2>&1 || fail "storm: $(cat "$WORK/storm.txt")"
say "$(cat "$WORK/storm.txt")"
grep -q "started 10000 (1000 matching)" "$WORK/storm.txt" || fail "storm: $(cat "$WORK/storm.txt")"
grep -q "matching: 1000 placed, 0 missed" "$WORK/storm.txt" || fail "matching processes missed: $(cat "$WORK/storm.txt")"
grep -q "others: 0 touched" "$WORK/storm.txt" || fail "other processes moved: $(cat "$WORK/storm.txt")"
storm_placed_are "$WORK/storm.out" "$WORK/w.log" storm.0
[ "$STORM_PLACED" = 1000 ] || fail "$STORM_PLACED children say they were placed"
# The next check forgets the moves of processes gone: the journal is the size of what runs (the
# keeper's move alone).
keeper_move_alone() { [ "$(journal_moves)" = 1 ]; }
wait_for 5 keeper_move_alone || fail "the journal keeps $(journal_moves) moves, not the keeper's alone"

# ---------------------------------------------------------------- kill -9 in the middle of a storm
"$STORM" --rate 400 --seconds 5 --life-ms 50 --patience-ms 5000 --tag "$TAG" --in "/$G" --lines "$K" \
    --out "$WORK/storm2.out" >"$WORK/storm2.txt" 2>&1 &
SPID=$!
sleep 2
kill -9 "$WPID"
wait "$WPID" 2>/dev/null || true
placer_watch_start "$WORK/w2.log" --interval 500 "$profile"
WPID=$WATCH_PID
has_line "$WORK/w2.log" "^applied profile $TAG: 1 instance, 0 changes" || fail "did not continue: $(head -5 "$WORK/w2.log")"
wait "$SPID" || fail "storm: $(cat "$WORK/storm2.txt")"
say "killed -9 and restarted: $(cat "$WORK/storm2.txt")"
grep -q "matching: 200 placed, 0 missed" "$WORK/storm2.txt" && grep -q "others: 0 touched" "$WORK/storm2.txt" ||
    fail "across the restart: $(cat "$WORK/storm2.txt")"
kill -TERM "$WPID"
wait "$WPID" || fail "the watcher exited $?"
WPID=""
reset_clean "after the kill -9 and the second watcher"
snapshot "$KEEP" >"$WORK/keeper.after"
cmp -s "$WORK/keeper.before" "$WORK/keeper.after" ||
    fail "reset did not restore the keeper's groups and affinity: $(diff "$WORK/keeper.before" "$WORK/keeper.after")"
say "ok: 1000 of 1000 placed, 200 of 200 across a kill -9, none other touched, reset clean"
