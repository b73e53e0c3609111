#!/bin/sh
# placer apply / status / reset under load: 60 instances of 60 threads each
# (tests/integration/lib/churn.c), every thread starting and joining
# short-lived threads all the time.  apply binds every process with all its
# threads (checked in /proc/PID/task/*/status and /proc/PID/task/*/cgroup),
# status finds no drift (three times, while threads come and go), a second
# apply changes nothing, reset puts every process back in its groups and
# removes placer's.  No false errors: a thread ending mid-check is not one.
# PLACER_LOAD_INSTANCES / PLACER_LOAD_THREADS change the size (60 / 60).
# ctest: cost=50
set -eu
T=apply_load
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup apply_load
N=${PLACER_LOAD_INSTANCES:-60}
THREADS=${PLACER_LOAD_THREADS:-60}
NA=$((N / 2))
NB=$((N - NA))

cp "${PLACER_TEST_CHURN:?PLACER_TEST_CHURN not set (built by CMake: placer_test_churn)}" "$WORK/churn" || fail "no churn helper"

profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: a
    kind: generic
    count: $NA
    cpu: { threads: 1, pool: one }
    match: { cmdline: "*churn $TAG-a-{index} *" }
  - name: b
    kind: generic
    count: $NB
    cpu: { threads: 1, pool: two }
    memory: 64MiB
    match: { cmdline: "*churn $TAG-b-{index} *" }
EOF
"$PLACER" plan --json "$profile" | "$PY" -c '
import json, sys
for i in json.load(sys.stdin)["instances"]:
    print(i["name"], i["role"], i["cpus"], i["mems"])
' >"$WORK/planned" || fail "plan"
[ "$(wc -l <"$WORK/planned")" = "$N" ] || fail "plan has $(wc -l <"$WORK/planned") instances, not $N"

: >"$WORK/pids"
for role in a b; do
    eval "count=\$N$(echo $role | tr ab AB)"
    i=0
    while [ $i -lt "$count" ]; do
        bg_start "$WORK/churn" "$TAG-$role-$i" "$THREADS"
        echo "$role.$i $LAST_PID" >>"$WORK/pids"
        i=$((i + 1))
    done
done
# every process has its threads before apply starts
n_threads() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
while read -r name pid; do
    k=0
    while [ "$(n_threads "$pid")" -lt "$THREADS" ]; do
        k=$((k + 1))
        [ $k -lt 100 ] || fail "$name (pid $pid) has $(n_threads "$pid") threads, not $THREADS"
        sleep 0.1
    done
done <"$WORK/pids"
total=0
while read -r name pid; do total=$((total + $(n_threads "$pid"))); done <"$WORK/pids"
say "$N processes, $total threads, each thread starting and joining a thread every ~20 ms"
groups_of_all() {
    for p in $(cut -d' ' -f2 "$WORK/pids"); do
        grep -E ':(cpuset|memory|cpu,cpuacct|cpu):' "/proc/$p/cgroup" | sed "s/^/$p /"
    done
}
groups_of_all >"$WORK/groups-before"

# --- apply
t0=$(date +%s%N)
"$PLACER" apply "$profile" >"$WORK/out" 2>&1 || fail "apply exit $?: $(tail -5 "$WORK/out")"
t1=$(date +%s%N)
bound=$(grep -c " bound pid " "$WORK/out" || true)
[ "$bound" = "$N" ] || fail "apply bound $bound instances, not $N: $(head -5 "$WORK/out")"
say "apply: $N instances bound in $(((t1 - t0) / 1000000)) ms"

# every thread of every process (read twice, 0.2 s apart) where planned
while read -r name role cpus mems; do
    pid=$(grep "^$name " "$WORK/pids" | cut -d' ' -f2)
    "$PY" "$LIB/check_placement.py" "$pid" "$TAG/$role/$name" "$cpus" "$mems" >"$WORK/check" \
        || fail "$name placement: $(cat "$WORK/check")"
done <"$WORK/planned"
say "every thread of the $N processes in its groups, allowed lists as planned"

# --- status while threads come and go: no drift, no error
for k in 1 2 3; do
    "$PLACER" status >"$WORK/status" 2>&1 || fail "status #$k exit $?: $(grep -iv ' ok' "$WORK/status" | head -5)"
done
"$PLACER" status --json >"$WORK/status.json" || fail "status --json exit $?"
"$PY" - "$WORK/status.json" "$N" <<'PY' || fail "status --json"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["instances"]) == int(sys.argv[2]), f"{len(s['instances'])} instances in status"
PY
say "status: 3 runs while threads come and go, no drift"

# --- a second apply changes nothing
"$PLACER" apply "$profile" >"$WORK/out2" 2>&1 || fail "second apply exit $?: $(tail -5 "$WORK/out2")"
grep -q "^nothing to change: profile $TAG is already in force ($N instances, $N processes bound" "$WORK/out2" \
    || fail "second apply changed something: $(tail -3 "$WORK/out2")"
say "second apply: nothing to change"

# --- reset: every process back where it was, placer's groups gone
"$PLACER" reset >"$WORK/out3" 2>&1 || fail "reset exit $?: $(tail -5 "$WORK/out3")"
groups_of_all >"$WORK/groups-after"
diff "$WORK/groups-before" "$WORK/groups-after" >&2 || fail "reset did not put every process back (diff above)"
for c in cpuset memory cpu; do
    [ ! -d "$CG/$c/$TAG" ] || fail "reset left $CG/$c/$TAG"
done
say "reset: $N processes back in their groups, placer's groups removed"
