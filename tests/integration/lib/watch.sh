# What the watcher's tests (tests/integration/watch_*.sh) share, sourced after common.sh: the
# driver of placer/watch/ (lib/watchd.c) started and waited for, a wait for a condition, a line
# in a log, and how many hierarchies a group was made in.
#
#   watch_start LOG ARG...   start "$WATCHD ARG..." in the background (stdout LOG, stderr LOG.err),
#                            $WATCH_PID its pid; fail unless it says "watching" within 20 s
#   placer_watch_start LOG ARG...  the same for `placer watch ARG...` ($PLACER_BIN), at nice
#                            $WATCH_NICE when it is set (placer-watch.service's -10)
#   wait_for SECONDS CMD...  until CMD succeeds; 1 when SECONDS pass first
#   has_line FILE PATTERN    grep -q PATTERN FILE (no error when FILE is not there yet)
#   storm_placed_are OUT LOG INSTANCE  fail unless the storm children that say they were placed
#                            (lib/storm.c's OUT) are exactly the PIDs the watcher's LOG says it
#                            placed for INSTANCE after their exec; \$STORM_PLACED: how many
#   group_lines GROUP        the hierarchies GROUP is in: the lines of /proc/PID/cgroup that name
#                            it once a process is in it everywhere the watcher moves it (v1:
#                            cpuset, memory, cpu, cpuacct)
WATCHD=${PLACER_TEST_WATCHD:?PLACER_TEST_WATCHD not set (built by CMake: placer_test_watchd)}

wait_for() {
    _wf_end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$_wf_end" ] || return 1
        sleep 0.05
    done
}

has_line() { grep -q -- "$2" "$1" 2>/dev/null; }

group_lines() {
    _gl=0
    for _d in "$CG"/*/"$1" "$CG/$1"; do [ -d "$_d" ] && _gl=$((_gl + 1)); done
    echo $_gl
}

watch_start() {
    _ws_log=$1
    shift
    _watch_start "$_ws_log" "$WATCHD" "$@"
}

placer_watch_start() {
    _ws_log=$1
    shift
    _watch_start "$_ws_log" nice -n "${WATCH_NICE:-0}" "${PLACER_BIN:?PLACER_BIN not set}" watch "$@"
}

_watch_start() {
    _ws_log=$1
    shift
    "$@" >"$_ws_log" 2>"$_ws_log.err" &
    WATCH_PID=$!
    wait_for 20 has_line "$_ws_log" "^watching " || fail "the watcher did not start: $(cat "$_ws_log" "$_ws_log.err")"
}

storm_placed_are() {
    awk '$1 == "m" && $3 == 1 { print $2 }' "$1" | sort -n >"$1.children"
    sed -n "s/^$3: placed pid \([0-9]*\) in .* after its exec\$/\1/p" "$2" | sort -n >"$1.placed"
    cmp -s "$1.children" "$1.placed" ||
        fail "the watcher placed other PIDs than the matching children: $(diff "$1.children" "$1.placed" | head -5)"
    STORM_PLACED=$(wc -l <"$1.children")
}
