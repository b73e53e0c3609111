# Shared by the apply_*.sh integration tests (sourced, POSIX sh, after lib/common.sh): the
# test's processes started in the background and killed at teardown, `placer reset` at teardown,
# the groups a test made outside its prefix removed, the plan's placement and a snapshot of what a
# rollback or reset must restore.  Every test uses its own cgroup prefix ($TAG = $T_TAG) and state
# directory, so it never touches a real placer's groups.
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
T_PIDS=""
T_PGIDS="" # process groups started with bg_start_group: killed whole on exit
SNAP_GROUPS=""
T_EXTRA_GROUPS="" # groups a test made outside its prefix: removed on exit

# Root and this machine's cgroup v1 controllers, else skip (77).
apply_require_v1() {
    need_root
    for c in cpuset memory cpu; do
        [ -f "$CG/$c/cgroup.procs" ] || skip "no cgroup v1 $c at $CG/$c"
    done
}

apply_setup() {
    T=$1 T_NAME=$1 T_TAG=placer-t-$1-$$
    TAG=$T_TAG
    t_begin
    WORK=$T_WORK
    unset PLACER_FAULT_AFTER_STEPS PLACER_FAULT_MODE PLACER_STEP_DELAY_MS
    t_defer apply_cleanup
}

# Start a command in the background; its PID goes to $LAST_PID.
bg_start() {
    "$@" >>"$WORK/bg.log" 2>&1 &
    LAST_PID=$!
    T_PIDS="$T_PIDS $LAST_PID"
}

# Start a command that forks (a process tree) in the background in its own
# session and process group, so that cleanup kills the whole tree with
# `kill -9 -PGID` even when its children were reparented; its PID (= PGID)
# goes to $LAST_PID.
bg_start_group() {
    setsid "$@" >>"$WORK/bg.log" 2>&1 &
    LAST_PID=$!
    T_PGIDS="$T_PGIDS $LAST_PID"
    # setsid forks (and $! is not the group) only when it is a group leader
    # already, which a background job of a non-interactive shell is not.
    i=0
    while [ "$(ps -o pgid= -p "$LAST_PID" 2>/dev/null | tr -d ' ')" != "$LAST_PID" ]; do
        i=$((i + 1)); [ $i -lt 50 ] || fail "setsid $1: pid $LAST_PID is not its process group"; sleep 0.1
    done
}

# The descendants of PID now (every thread's children, recursively).
tree_pids() {
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c"
        tree_pids "$c"
    done
}

# Wait until FILE exists (at most 10 s).
wait_file() {
    i=0
    while [ ! -s "$1" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "timed out waiting for $1"
        sleep 0.1
    done
}

# Deferred by apply_setup: the test's background processes and trees killed, `placer reset`, the
# groups it made outside its prefix removed (lib/common.sh's teardown then fails the test for
# anything of its own left after this).
apply_cleanup() {
    for p in $T_PIDS; do kill -9 "$p" 2>/dev/null; done
    # A tree: stopped first (a stopped process forks no more), listed
    # again, then killed; its group too.  fio's job processes setsid()
    # themselves, so the group alone is not enough.
    for g in $T_PGIDS; do
        kill -STOP "-$g" 2>/dev/null
        t=$(tree_pids "$g")
        [ -z "$t" ] || kill -STOP $t 2>/dev/null
        t=$(tree_pids "$g")
        kill -9 "-$g" $t 2>/dev/null
    done
    for p in $T_PIDS $T_PGIDS; do wait "$p" 2>/dev/null; done
    # what was left of a group (reparented children die a moment later)
    for g in $T_PGIDS; do
        i=0
        while pgrep -g "$g" >/dev/null 2>&1 && [ $i -lt 50 ]; do
            kill -9 "-$g" 2>/dev/null; i=$((i + 1)); sleep 0.1
        done
    done
    # anything else that carries the test's tag on its command line
    if [ -n "$T_PGIDS" ] && pgrep -f "$TAG" >/dev/null 2>&1; then
        echo "$T: cleanup: killing leftovers: $(pgrep -f "$TAG" | tr '\n' ' ')" >&2
        kill -9 $(pgrep -f "$TAG") 2>/dev/null
        [ "$rc" != 0 ] || rc=1 # a test that leaks processes fails
    fi
    "$PLACER" reset >/dev/null 2>&1
    for c in cpuset memory cpu; do
        for g in $T_EXTRA_GROUPS; do
            d=$CG/$c/$g
            [ -d "$d" ] || continue
            while read -r p; do echo "$p" >"$CG/$c/cgroup.procs"; done <"$d/cgroup.procs"
            rmdir "$d"
        done
    done
}

# placer reset exits 0 and leaves no group under the test's prefix and no state directory; else
# the test fails, WHY saying after what.
reset_clean() {
    _rc_rc=0
    "$PLACER" reset >"$WORK/reset.txt" 2>&1 || _rc_rc=$?
    [ "$_rc_rc" = 0 ] || fail "$1: reset: exit $_rc_rc: $(cat "$WORK/reset.txt")"
    [ -z "$(t_cgroups)" ] || fail "$1: groups left after reset: $(t_cgroups)"
    [ ! -e "$PLACER_STATE_DIR" ] || fail "$1: state left after reset: $(ls "$PLACER_STATE_DIR")"
}

# The placement planned for INSTANCE: "CPUS MEMS" (from placer plan --json).
planned() {
    "$PLACER" plan --json "$1" | "$PY" -c '
import json, sys
plan = json.load(sys.stdin)
for i in plan["instances"]:
    if i["name"] == sys.argv[1]:
        print(i["cpus"], i["mems"])
' "$2"
}

# The INDEX-th CPU (from 0) of the cpu list CPUS ("0-1,4"): the PU of vCPU INDEX under
# pin_vcpus (placer_cpulist_nth), without wrapping around.
cpulist_nth() {
    "$PY" -c 'import sys; from itertools import chain
r=[range(int(a),int(b or a)+1) for a,_,b in (p.partition("-") for p in sys.argv[1].split(","))]
print(sorted(chain(*r))[int(sys.argv[2])])' "$1" "$2"
}

# What a rollback or a reset must restore, printed: placer's groups under
# the prefix (with their values), the given groups' values, and for each
# PID its groups and every thread's allowed cpus and mems.
snapshot() {
    for c in cpuset memory cpu; do
        [ -d "$CG/$c/$TAG" ] && find "$CG/$c/$TAG" -type d | sort
    done
    for g in $SNAP_GROUPS; do
        for f in cpuset/$g/cpuset.cpus cpuset/$g/cpuset.mems memory/$g/memory.limit_in_bytes cpu/$g/cpu.shares; do
            [ -f "$CG/$f" ] && echo "$f=$(cat "$CG/$f")"
        done
    done
    for p in "$@"; do
        grep -E ':(cpuset|memory|cpu):' "/proc/$p/cgroup" | sed "s/^/$p /"
        for t in /proc/"$p"/task/*; do
            echo "$p/$(basename "$t") $(grep -E '^(Cpus|Mems)_allowed_list' "$t/status" | tr -s '\t\n' '  ')"
        done
    done
    [ -f "$PLACER_STATE_DIR/state.json" ] && echo "state.json present"
    return 0
}

# v1 cpu.shares -> cgroup v2 weight, the conversion cgroup.h documents.
shares_to_weight() {
    "$PY" -c 'import sys; s=int(sys.argv[1]); print(10000 if s >= 102400 else max(1, (s * 100 + 512) // 1024))' "$1"
}
