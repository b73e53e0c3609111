#!/bin/sh
# placer apply / status / reset on real processes, real cgroups (v1 here):
# --dry-run changes nothing; apply binds a process by cmdline (one that keeps
# creating threads) and one by pid file, prepares the group of an instance
# without a process; every thread's Cpus_allowed_list / Mems_allowed_list and
# groups and the cgroup files match the plan; a second apply changes nothing;
# status reports drift (a limit changed by hand, a thread moved alone, a
# "restarted" process outside its group) and a new apply repairs it; the
# memory limit is enforced in its own group only; two applies cannot run at
# once; reset puts everything back exactly and is safe twice.
set -eu
T=apply_processes
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup apply_processes

profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: a
    kind: generic
    count: 1
    cpu: { threads: 1, pool: one }
    memory: 64MiB
    match: { cmdline: "*threads.py $TAG-a *" }
  - name: b
    kind: generic
    count: 1
    cpu: { threads: 1, pool: two, weight: 300 }
    memory: 256MiB
    match: { pidfile: "$WORK/b.pid" }
  - name: c
    kind: generic
    count: 1
    cpu: { threads: 1, pool: two }
    match: { cmdline: "*no-such-process-$TAG*" }
EOF
set -- $(planned "$profile" a.0); a_cpus=$1 a_mems=$2
set -- $(planned "$profile" b.0); b_cpus=$1 b_mems=$2
set -- $(planned "$profile" c.0); c_cpus=$1 c_mems=$2
say "plan: a.0 cpus $a_cpus mems $a_mems, b.0 cpus $b_cpus, c.0 cpus $c_cpus"

bg_start "$PY" "$LIB/threads.py" "$TAG-a" 4 --churn --alloc-mb 200
A=$LAST_PID
bg_start "$PY" "$LIB/threads.py" "$TAG-b" 3 --hold-mb 16 --alloc-mb 100 --pidfile "$WORK/b.pid"
B=$LAST_PID
wait_file "$WORK/b.pid"
[ "$(cat "$WORK/b.pid")" = "$B" ] || fail "pid file says $(cat "$WORK/b.pid"), started $B"
sleep 0.3
snapshot "$B" >"$WORK/before"

# --- dry run: says what it would do, changes nothing
"$PLACER" apply --dry-run "$profile" >"$WORK/out" || fail "dry run exit $?: $(cat "$WORK/out")"
grep -q "^would: a.0: move pid $A " "$WORK/out" || fail "dry run does not say it would move $A: $(cat "$WORK/out")"
grep -q "nothing was changed" "$WORK/out" || fail "dry run summary: $(cat "$WORK/out")"
snapshot "$B" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "--dry-run changed something (diff above)"
say "dry run: $(grep -c '^would:' "$WORK/out") steps listed, nothing changed"

# --- apply
"$PLACER" apply "$profile" >"$WORK/out" || fail "apply exit $?: $(cat "$WORK/out")"
cat "$WORK/out"
grep -Eq "^a\.0 .* bound pid $A " "$WORK/out" || fail "a.0 not reported bound"
grep -Eq "^b\.0 .* bound pid $B " "$WORK/out" || fail "b.0 not reported bound"
grep -q "^c.0 .*no process matches cmdline '\*no-such-process-$TAG\*'" "$WORK/out" || fail "c.0 note missing"
"$PY" "$LIB/check_placement.py" "$A" "$TAG/a/a.0" "$a_cpus" "$a_mems" || fail "a.0 placement"
"$PY" "$LIB/check_placement.py" "$B" "$TAG/b/b.0" "$b_cpus" "$b_mems" || fail "b.0 placement"
for i in a b c; do
    eval "want=\$${i}_cpus wantm=\$${i}_mems"
    [ "$(cat "$CG/cpuset/$TAG/$i/$i.0/cpuset.cpus")" = "$want" ] || fail "$i.0 cpuset.cpus $(cat "$CG/cpuset/$TAG/$i/$i.0/cpuset.cpus")"
    [ "$(cat "$CG/cpuset/$TAG/$i/$i.0/cpuset.mems")" = "$wantm" ] || fail "$i.0 cpuset.mems"
done
[ "$(cat "$CG/memory/$TAG/a/a.0/memory.limit_in_bytes")" = $((64 << 20)) ] || fail "a.0 memory limit"
[ "$(cat "$CG/memory/$TAG/b/b.0/memory.limit_in_bytes")" = $((256 << 20)) ] || fail "b.0 memory limit"
[ "$(shares_to_weight "$(cat "$CG/cpu/$TAG/b/b.0/cpu.shares")")" = 300 ] || fail "b.0 cpu.shares $(cat "$CG/cpu/$TAG/b/b.0/cpu.shares") is not weight 300"
[ "$(cat "$CG/cpu/$TAG/a/a.0/cpu.shares")" = 1024 ] || fail "a.0 cpu.shares changed without a weight"
[ -z "$(cat "$CG/cpuset/$TAG/c/c.0/cgroup.procs")" ] || fail "c.0 should be empty"
[ -f "$PLACER_STATE_DIR/state.json" ] || fail "no state.json"

# --- idempotent
snapshot "$B" >"$WORK/applied"
"$PLACER" apply "$profile" >"$WORK/out" || fail "second apply exit $?"
grep -q "^nothing to change: profile $TAG is already in force" "$WORK/out" || fail "second apply: $(tail -1 "$WORK/out")"
snapshot "$B" >"$WORK/after"
diff "$WORK/applied" "$WORK/after" || fail "a second identical apply changed something"
say "second apply: nothing to change"

# --- status: all in force
"$PLACER" status >"$WORK/out" || fail "status exit $? right after apply: $(cat "$WORK/out")"
"$PLACER" status --json >"$WORK/status.json" || fail "status --json exit $?"
"$PY" - "$WORK/status.json" "$A" "$B" <<'PY' || fail "status --json content"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == 1 and s["backend"] == "cgroupfs" and s["applied"] and not s["drift"], s
insts = {i["name"]: i for i in s["instances"]}
assert set(insts) == {"a.0", "b.0", "c.0"}, insts.keys()
pids = {p["pid"] for p in insts["a.0"]["processes"]}
assert int(sys.argv[2]) in pids, pids
b = insts["b.0"]
assert b["planned"]["cpu_weight"] == 300 and b["actual"]["cpu_weight"] == 300, b
assert b["actual"]["memory_bytes"] == 256 << 20, b["actual"]
assert all(t["ok"] for p in b["processes"] for t in p["threads"]), b
print("apply_processes: status --json: 3 instances, no drift")
PY

# --- drift 1: a limit changed behind placer's back
echo $((100 << 20)) >"$CG/memory/$TAG/b/b.0/memory.limit_in_bytes"
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status after a limit change: exit $rc, want 1"
grep -q "DRIFT $TAG/b/b.0 memory limit 100 MiB, planned 256 MiB" "$WORK/out" || fail "limit drift not reported: $(cat "$WORK/out")"
"$PLACER" apply "$profile" >"$WORK/out" || fail "repairing apply"
grep -q "1 changes" "$WORK/out" || fail "repair should be one change: $(tail -1 "$WORK/out")"
"$PLACER" status >/dev/null || fail "status after repair"
say "drift: changed memory limit reported (exit 1) and repaired"

# --- drift 2: one thread moved out alone (v1 'tasks'): its Cpus_allowed_list widens
tid=$(ls "/proc/$B/task" | grep -v "^$B\$" | head -1)
echo "$tid" >"$CG/cpuset/tasks"
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status after moving thread $tid: exit $rc"
grep -q "DRIFT thread $tid (python3) of pid $B is not in $TAG/b/b.0" "$WORK/out" || fail "stray thread not reported: $(cat "$WORK/out")"
"$PLACER" apply "$profile" >"$WORK/out" || fail "repairing apply: $(cat "$WORK/out")"
"$PY" "$LIB/check_placement.py" "$B" "$TAG/b/b.0" "$b_cpus" "$b_mems" || fail "b.0 after repair"
"$PLACER" status >/dev/null || fail "status after repairing the thread"
say "drift: a thread moved alone reported and repaired"

# --- drift 3: a matching process outside the group (a restarted daemon)
bg_start "$PY" "$LIB/threads.py" "$TAG-a" 1
A2=$LAST_PID
sleep 0.5
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status with a second matching process: exit $rc"
grep -q "DRIFT pid $A2 (python3) matches cmdline .* but runs outside $TAG/a/a.0" "$WORK/out" || fail "restart drift: $(cat "$WORK/out")"
kill "$A2"; wait "$A2" 2>/dev/null || true
"$PLACER" status >/dev/null || fail "status after the extra process left"
say "drift: a matching process outside its group reported"

# --- two applies at once: the second is refused
# (a limit changed by hand gives the slow apply one step to do)
echo $((50 << 20)) >"$CG/memory/$TAG/b/b.0/memory.limit_in_bytes"
PLACER_STEP_DELAY_MS=3000 "$PLACER" apply "$profile" >"$WORK/slow.out" 2>&1 &
slow=$!
i=0
until grep -q '"pending_txn": [0-9]' "$PLACER_STATE_DIR/state.json" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "the slow apply never started"; sleep 0.1
done
rc=0; "$PLACER" apply "$profile" >"$WORK/out" 2>&1 || rc=$?
[ $rc = 4 ] || fail "concurrent apply: exit $rc, want 4: $(cat "$WORK/out")"
grep -q "another placer apply or reset is running" "$WORK/out" || fail "lock message: $(cat "$WORK/out")"
wait "$slow" || fail "the slow apply failed: $(cat "$WORK/slow.out")"
"$PLACER" status >/dev/null || fail "status after the slow apply"
say "lock: a concurrent apply is refused (exit 4)"

# --- the memory limit is enforced, in its own group only
kill -USR1 "$B"
i=0
until grep -q "allocated 100 MiB" "$WORK/bg.log"; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "b never allocated"; sleep 0.1
done
usage=$(cat "$CG/memory/$TAG/b/b.0/memory.usage_in_bytes")
[ "$usage" -ge $((100 << 20)) ] || fail "b.0's 100 MiB are not charged to its group (usage $usage)"
kill -USR1 "$A"
rc=0; wait "$A" || rc=$?
[ $rc = 137 ] || fail "a.0 allocating 200 MiB under a 64 MiB limit: exit $rc, want 137 (SIGKILL by the OOM killer)"
grep -q "oom_kill [1-9]" "$CG/memory/$TAG/a/a.0/memory.oom_control" || fail "no OOM kill counted in a.0: $(cat "$CG/memory/$TAG/a/a.0/memory.oom_control")"
[ "$(cat "$CG/memory/$TAG/a/a.0/memory.failcnt")" -gt 0 ] || fail "a.0 memory.failcnt is 0"
max=$(cat "$CG/memory/$TAG/a/a.0/memory.max_usage_in_bytes")
[ "$max" -le $((64 << 20)) ] || fail "a.0 used $max bytes, over its 64 MiB limit"
kill -0 "$B" || fail "b.0 died too"
grep -q "oom_kill 0" "$CG/memory/$TAG/b/b.0/memory.oom_control" || fail "an OOM kill in b.0"
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status with a.0's process dead: exit $rc"
grep -q "DRIFT no process runs in $TAG/a/a.0 any more" "$WORK/out" || fail "dead process not reported: $(cat "$WORK/out")"
say "memory: a.0 OOM-killed at 64 MiB (peak $((max >> 20)) MiB) in its own group; b.0 holds $((usage >> 20)) MiB and lives"

# --- reset: back exactly where it was, twice
"$PLACER" reset >"$WORK/out" || fail "reset exit $?: $(cat "$WORK/out")"
cat "$WORK/out"
snapshot "$B" >"$WORK/after"
# b allocated meanwhile but its groups and threads must be as before apply
diff "$WORK/before" "$WORK/after" || fail "reset did not restore the state before apply (diff above)"
for c in cpuset memory cpu; do [ ! -d "$CG/$c/$TAG" ] || fail "$CG/$c/$TAG left behind"; done
"$PLACER" reset >"$WORK/out" || fail "second reset exit $?"
grep -q "nothing to reset" "$WORK/out" || fail "second reset: $(cat "$WORK/out")"
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 0 ] && grep -q "nothing applied" "$WORK/out" || fail "status after reset: exit $rc: $(cat "$WORK/out")"
say "reset: processes and threads back, groups removed; a second reset has nothing to do"
say "ok"
