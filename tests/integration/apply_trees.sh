#!/bin/sh
# placer apply binds whole process trees, on real processes and real cgroups
# (v1 here): `--pid X=PID` takes PID's children and grandchildren along
# (stress-ng and its worker, fio with numjobs=4, a service that keeps forking
# children and creating and ending threads), each whole, and says so
# ("+ 1 child"); every thread of every descendant has the planned
# Cpus_allowed_list / Mems_allowed_list and groups; status is clean right
# after apply although the roles match by `cmdline: "stress-ng*"` and each
# stress-ng is bound to another instance (explicit --pid bindings are what
# status checks); repeated identical applies change nothing and never fail
# on threads or processes that come and go meanwhile; a descendant moved out
# is drift and a new apply brings it back; reset puts every process of the
# trees back.  Every workload runs in its own process group, killed whole on
# exit (also on failure, SIGINT and SIGTERM).
# APPLY_TREES_REPEATS (default 10): how many identical applies to repeat.
set -eu
T=apply_trees
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup apply_trees
need_cmd stress-ng fio
repeats=${APPLY_TREES_REPEATS:-10}

profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: loada
    kind: generic
    count: 1
    cpu: { threads: 1, pool: one }
    match: { cmdline: "stress-ng*" }
  - name: loadb
    kind: generic
    count: 1
    cpu: { threads: 1, pool: two }
    match: { cmdline: "stress-ng*" }
  - name: io
    kind: generic
    count: 1
    cpu: { threads: 1, pool: two }
    match: { cmdline: "fio*" }
  - name: fork
    kind: generic
    count: 1
    cpu: { threads: 1, pool: one }
    memory: 256MiB
    match: { cmdline: "*forker.py $TAG*" }
EOF
for i in loada loadb io fork; do
    set -- $(planned "$profile" $i.0)
    eval "${i}_cpus=\$1 ${i}_mems=\$2"
done
say "plan: loada.0 cpus $loada_cpus, loadb.0 cpus $loadb_cpus, io.0 cpus $io_cpus, fork.0 cpus $fork_cpus"

# --- the workloads, each a process tree in its own process group
# (their time limits are far beyond the test: under load its ten identical applies took more than
# the 120 s they had, and a workload that ended made the next apply refuse its --pid; the
# teardown stops them)
bg_start_group stress-ng --cpu 1 --cpu-method matrixprod --timeout 900 --temp-path "$WORK"
SA=$LAST_PID
bg_start_group stress-ng --cpu 1 --cpu-method matrixprod --timeout 900 --temp-path "$WORK"
SB=$LAST_PID
bg_start_group fio --name="$TAG" --filename="$WORK/fio.dat" --size=8M --rw=randread --bs=4k \
    --ioengine=psync --numjobs=4 --time_based --runtime=900 --output="$WORK/fio.out"
F=$LAST_PID
bg_start_group "$PY" "$LIB/forker.py" "$TAG" 2 --pidfile "$WORK/forker.pids"
K=$LAST_PID
wait_file "$WORK/forker.pids"

# Direct children only: enough to say how many the workload has.
children() {
    cat /proc/"$1"/task/*/children 2>/dev/null | wc -w
}
i=0
until [ "$(children "$SA")" -ge 1 ] && [ "$(children "$SB")" -ge 1 ] && [ "$(children "$F")" -ge 4 ]; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "workers did not start: stress-ng $(children "$SA")/$(children "$SB"), fio $(children "$F")"
    sleep 0.1
done
read -r K1 K1G <"$WORK/forker.pids"
grep -q "^$K1 " "$WORK/forker.pids" || fail "forker pids: $(cat "$WORK/forker.pids")"
W=$(cat /proc/"$SA"/task/*/children | tr -s ' ' '\n' | head -1)
grep -q "^Cpus_allowed_list:	0-1" "/proc/$W/status" || fail "stress-ng worker $W is not on every cpu before apply"
# (K1's threads come and go, and the drift below moves it to the root by
# hand, which reset then keeps: its cpuset group only)
snapshot "$SA" "$W" "$K1G" >"$WORK/before"
grep -E ':cpuset:' "/proc/$K1/cgroup" >>"$WORK/before"
say "workloads: stress-ng $SA (worker $W) and $SB, fio $F ($(children "$F") jobs), forker $K (child $K1, grandchild $K1G)"

# --- apply: every process of every tree moves
args="--pid loada.0=$SA --pid loadb.0=$SB --pid io.0=$F --pid fork.0=$K"
"$PLACER" apply "$profile" $args >"$WORK/out" 2>&1 || fail "apply exit $?: $(cat "$WORK/out")"
cat "$WORK/out"
grep -Eq "^loada\.0 .* bound pid $SA stress-ng \(1 thread\) \+ 1 child$" "$WORK/out" || fail "loada.0: not reported with its child"
grep -Eq "^io\.0 .* bound pid $F fio \([0-9]+ threads?\) \+ [4-9] children$" "$WORK/out" || fail "io.0: not reported with its 4 jobs"
grep -Eq "^fork\.0 .* bound pid $K python3 \(1 thread\) \+ [0-9]+ children$" "$WORK/out" || fail "fork.0: children not reported"
for i in loada:$SA loadb:$SB io:$F fork:$K; do
    r=${i%%:*} pid=${i#*:}
    eval "cpus=\$${r}_cpus mems=\$${r}_mems"
    "$PY" "$LIB/check_placement.py" --tree "$pid" "$TAG/$r/$r.0" "$cpus" "$mems" || fail "$r.0: a process of the tree of $pid is misplaced"
done
grep -q "^Cpus_allowed_list:	$loada_cpus$" "/proc/$W/status" || fail "stress-ng worker $W: $(grep Cpus_allowed_list "/proc/$W/status")"
grep -qx "$K1G" "$CG/memory/$TAG/fork/fork.0/cgroup.procs" || fail "grandchild $K1G is not in fork.0's memory group"

# --- status: clean right after apply; the other stress-ng is no drift
rc=0; "$PLACER" status >"$WORK/out" 2>&1 || rc=$?
[ $rc = 0 ] || fail "status exit $rc right after apply: $(cat "$WORK/out")"
"$PLACER" status --json >"$WORK/status.json" || fail "status --json exit $?"
"$PY" - "$WORK/status.json" "$SA" "$W" "$SB" <<'PY' || fail "status --json content"
import json, sys
s = json.load(open(sys.argv[1]))
sa, w, sb = (int(x) for x in sys.argv[2:5])
insts = {i["name"]: i for i in s["instances"]}
a = {p["pid"]: p for p in insts["loada.0"]["processes"]}
assert sa in a and a[sa]["bound"], a.keys()
assert w in a and a[w].get("descendant_of") == sa and a[w]["in_group"], a.get(w)
assert sb not in a, "loadb.0's stress-ng is listed under loada.0"
assert not s["drift"], [i["drift"] for i in s["instances"]]
n = sum(len(i["processes"]) for i in s["instances"])
print(f"apply_trees: status --json: {n} processes checked, no drift")
PY

# The undo records of the latest apply: what it changed.
last_steps() {
    "$PY" -c '
import json, sys
j = json.load(open(sys.argv[1])).get("journal", [])
last = max((e.get("txn", 0) for e in j), default=0)
print([e for e in j if e.get("txn") == last])' "$PLACER_STATE_DIR/state.json" 2>&1
}

# --- identical applies: nothing to change, however the trees churn
n=0
while [ $n -lt "$repeats" ]; do
    n=$((n + 1))
    rc=0; "$PLACER" apply "$profile" $args >"$WORK/out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "identical apply $n: exit $rc: $(cat "$WORK/out")"
    grep -q "^nothing to change: profile $TAG is already in force" "$WORK/out" || fail "identical apply $n changed something: $(tail -1 "$WORK/out"): $(last_steps)"
    rc=0; "$PLACER" status >"$WORK/out" 2>&1 || rc=$?
    [ $rc = 0 ] || fail "status after identical apply $n: exit $rc: $(cat "$WORK/out")"
done
"$PY" "$LIB/check_placement.py" --tree "$K" "$TAG/fork/fork.0" "$fork_cpus" "$fork_mems" || fail "fork.0 tree after $repeats applies"
say "$repeats identical applies: nothing to change, status clean each time"

# --- drift: a descendant moved out by hand; apply brings it back
for c in cpuset memory cpu; do echo "$K1" >"$CG/$c/cgroup.procs"; done
rc=0; "$PLACER" status >"$WORK/out" 2>&1 || rc=$?
[ $rc = 1 ] || fail "status with child $K1 moved out: exit $rc: $(cat "$WORK/out")"
grep -q "DRIFT pid $K1 (python3), below bound pid $K, is not in $TAG/fork/fork.0" "$WORK/out" || fail "descendant drift: $(cat "$WORK/out")"
"$PLACER" apply "$profile" $args >"$WORK/out" 2>&1 || fail "repairing apply: $(cat "$WORK/out")"
"$PY" "$LIB/check_placement.py" "$K1" "$TAG/fork/fork.0" "$fork_cpus" "$fork_mems" || fail "child $K1 after repair"
"$PLACER" status >/dev/null 2>&1 || fail "status after repair"
say "drift: a child moved out is reported below its bound pid, and repaired"

# --- reset: every process of the trees back where it was
"$PLACER" reset >"$WORK/out" 2>&1 || fail "reset exit $?: $(cat "$WORK/out")"
snapshot "$SA" "$W" "$K1G" >"$WORK/after"
grep -E ':cpuset:' "/proc/$K1/cgroup" >>"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "reset did not put the trees back (diff above)"
for c in cpuset memory cpu; do [ ! -d "$CG/$c/$TAG" ] || fail "$CG/$c/$TAG left behind"; done
say "reset: the trees are back, groups removed"
say "ok"
