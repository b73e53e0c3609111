#!/bin/sh
# Rollback and crash recovery of placer apply, for real (cgroup v1 here).
# Before apply: process P1 sits in a group of its own ($TAG-orig, 500 MiB)
# with one thread pinned to one CPU, process P2 in the root groups, and the
# group $TAG/a/a.0 already exists with its own values (so apply changes
# values it must put back rather than create).  Then:
#   - a failure injected before every single step (test hook
#     PLACER_FAULT_AFTER_STEPS): each time, exactly the state before;
#   - SIGKILL of placer at several steps (PLACER_FAULT_MODE=sigkill) and from
#     outside while it runs: status says interrupted (exit 1), reset restores
#     the state before; an apply after a crash first rolls the crash back;
#   - a process that exits mid-apply: rolled back;
#   - a value the kernel refuses (a memory limit below what the group holds,
#     EBUSY on v1 without swap): the whole second apply rolled back, the
#     first one still in force;
#   - a plan for another machine (--topology): refused before any change.
set -eu
T=apply_rollback
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup apply_rollback

mkprofile() { # FILE A_WEIGHT B_MEMORY
    cat >"$1" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: a
    kind: generic
    count: 1
    cpu: { threads: 1, pool: one, weight: $2 }
    memory: 64MiB
    match: { cmdline: "*threads.py $TAG-p1 *" }
  - name: b
    kind: generic
    count: 1
    cpu: { threads: 1, pool: two }
    memory: $3
    match: { cmdline: "*threads.py $TAG-p2 *" }
EOF
}
profile=$WORK/p.yaml
mkprofile "$profile" 200 128MiB

# The world before placer.
orig=$TAG-orig
T_EXTRA_GROUPS=$orig
for c in cpuset memory cpu; do mkdir "$CG/$c/$orig"; done
cat "$CG/cpuset/cpuset.cpus" >"$CG/cpuset/$orig/cpuset.cpus"
cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$orig/cpuset.mems"
echo $((500 << 20)) >"$CG/memory/$orig/memory.limit_in_bytes"
for c in cpuset memory cpu; do mkdir -p "$CG/$c/$TAG/a/a.0"; done
for g in "$TAG" "$TAG/a" "$TAG/a/a.0"; do
    cat "$CG/cpuset/cpuset.cpus" >"$CG/cpuset/$g/cpuset.cpus"
    cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$g/cpuset.mems"
done
echo $((300 << 20)) >"$CG/memory/$TAG/a/a.0/memory.limit_in_bytes"
echo 512 >"$CG/cpu/$TAG/a/a.0/cpu.shares"
SNAP_GROUPS="$orig $TAG/a/a.0"

start_p2() {
    bg_start "$PY" "$LIB/threads.py" "$TAG-p2" 2 --alloc-mb 100
    P2=$LAST_PID
}
bg_start "$PY" "$LIB/threads.py" "$TAG-p1" 3
P1=$LAST_PID
start_p2
sleep 0.5
for c in cpuset memory cpu; do echo "$P1" >"$CG/$c/$orig/cgroup.procs"; done
last=$(ls "/proc/$P1/task" | sort -n | tail -1)
taskset -p -c 1 "$last" >/dev/null
snapshot "$P1" "$P2" >"$WORK/before"
grep -q "cpuset:/$orig" "$WORK/before" || fail "setup: P1 not in $orig"

same_as_before() { # WHAT
    snapshot "$P1" "$P2" >"$WORK/after"
    diff "$WORK/before" "$WORK/after" >"$WORK/diff" || fail "$1: not the state before apply:
$(cat "$WORK/diff")"
}

"$PLACER" apply --dry-run "$profile" >"$WORK/out"
steps=$(sed -n 's/^dry run: \([0-9]*\) changes* would be made.*/\1/p' "$WORK/out")
[ -n "$steps" ] && [ "$steps" -ge 8 ] || fail "dry run: $(tail -1 "$WORK/out")"
grep -q "would: a.0: set $TAG/a/a.0 memory_limit = 64.0 MiB (was 300 MiB)" "$WORK/out" || fail "dry run: $(cat "$WORK/out")"

# --- a failure before each step
k=0
while [ $k -lt "$steps" ]; do
    rc=0
    PLACER_FAULT_AFTER_STEPS=$k "$PLACER" apply "$profile" >"$WORK/out" 2>&1 || rc=$?
    [ $rc = 4 ] || fail "fault before step $((k + 1)): exit $rc: $(cat "$WORK/out")"
    grep -q "apply failed; the $k steps done are rolled back: .*fault injected before step $((k + 1))" "$WORK/out" ||
        fail "fault before step $((k + 1)): $(cat "$WORK/out")"
    same_as_before "rollback after $k of $steps steps"
    k=$((k + 1))
done
say "a failure before each of the $steps steps: all rolled back exactly"

# --- placer killed part-way (SIGKILL at a step), then reset
for k in 1 $((steps / 2)) $((steps - 1)); do
    rc=0
    PLACER_FAULT_AFTER_STEPS=$k PLACER_FAULT_MODE=sigkill "$PLACER" apply "$profile" >/dev/null 2>&1 || rc=$?
    [ $rc = 137 ] || fail "sigkill at step $k: exit $rc"
    rc=0; "$PLACER" status >"$WORK/out" || rc=$?
    [ $rc = 1 ] && grep -q "an apply was interrupted" "$WORK/out" || fail "status after a crash: exit $rc: $(cat "$WORK/out")"
    "$PLACER" reset >"$WORK/out" || fail "reset after a crash at $k: $(cat "$WORK/out")"
    grep -q "was interrupted part-way" "$WORK/out" || fail "reset does not mention the crash: $(cat "$WORK/out")"
    same_as_before "reset after SIGKILL at step $k"
done
say "SIGKILL at steps 1, $((steps / 2)), $((steps - 1)): reset restores the state before"

# --- killed from outside while it works, then apply again: the crash is rolled back first
PLACER_STEP_DELAY_MS=300 "$PLACER" apply "$profile" >/dev/null 2>&1 &
slow=$!
i=0
until grep -q "cpuset:/$TAG/a/a.0" "/proc/$P1/cgroup"; do
    i=$((i + 1)); [ $i -lt 200 ] || fail "P1 never moved"; sleep 0.05
done
kill -9 "$slow"
wait "$slow" 2>/dev/null || true
rc=0; "$PLACER" status >/dev/null || rc=$?
[ $rc = 1 ] || fail "status after kill -9: exit $rc"
"$PLACER" apply "$profile" >"$WORK/out" || fail "apply after a crash: $(cat "$WORK/out")"
grep -q "^note: rolled back an interrupted apply" "$WORK/out" || fail "no note of the rollback: $(cat "$WORK/out")"
"$PLACER" status >/dev/null || fail "status after apply-after-crash"
"$PY" "$LIB/check_placement.py" "$P1" "$TAG/a/a.0" "$(planned "$profile" a.0 | cut -d' ' -f1)" 0 || fail "P1"
"$PLACER" reset >/dev/null || fail "reset"
same_as_before "reset after kill -9, apply, reset"
say "kill -9 mid-apply: status exit 1; the next apply rolls it back first; reset restores"

# --- a process exits mid-apply
PLACER_STEP_DELAY_MS=400 "$PLACER" apply "$profile" >"$WORK/out" 2>&1 &
slow=$!
i=0
until grep -q "cpuset:/$TAG/a/a.0" "/proc/$P1/cgroup"; do
    i=$((i + 1)); [ $i -lt 200 ] || fail "P1 never moved"; sleep 0.05
done
kill -9 "$P2"
wait "$P2" 2>/dev/null || true
rc=0; wait "$slow" || rc=$?
[ $rc = 4 ] || fail "apply with a process exiting: exit $rc: $(cat "$WORK/out")"
grep -q "b.0: pid $P2 (python3) exited during apply" "$WORK/out" || fail "reason: $(cat "$WORK/out")"
start_p2
sleep 0.5
snapshot "$P1" "$P2" >"$WORK/before"     # P2 is a new process now
sed -n '/exited during apply/p' "$WORK/out" | sed 's/^/  /'
same_as_before "rollback after a process exited"
say "a process exiting mid-apply: everything rolled back"

# --- the kernel refuses a value: the second apply is rolled back whole
"$PLACER" apply "$profile" >/dev/null || fail "first apply"
kill -USR1 "$P2"
i=0
until [ "$(cat "$CG/memory/$TAG/b/b.0/memory.usage_in_bytes")" -ge $((100 << 20)) ]; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "P2's allocation is not charged to b.0"; sleep 0.1
done
shares_applied=$(cat "$CG/cpu/$TAG/a/a.0/cpu.shares")
mkprofile "$WORK/p2.yaml" 900 32MiB
rc=0; "$PLACER" apply "$WORK/p2.yaml" >"$WORK/out" 2>&1 || rc=$?
[ $rc = 4 ] || fail "apply of a limit below usage: exit $rc: $(cat "$WORK/out")"
grep -q "rolled back: b.0: write .*memory.limit_in_bytes = '$((32 << 20))': Device or resource busy" "$WORK/out" ||
    fail "refusal reason: $(cat "$WORK/out")"
[ "$(cat "$CG/cpu/$TAG/a/a.0/cpu.shares")" = "$shares_applied" ] || fail "a.0's weight not rolled back"
[ "$(cat "$CG/memory/$TAG/b/b.0/memory.limit_in_bytes")" = $((128 << 20)) ] || fail "b.0's limit changed"
"$PLACER" status >"$WORK/out" || fail "status after the refused apply: $(cat "$WORK/out")"
"$PLACER" reset >/dev/null || fail "reset"
snapshot "$P1" >"$WORK/after"
grep -v "^$P2" "$WORK/before" | diff - "$WORK/after" || fail "reset after the refused apply (diff above)"
say "kernel refusal (EBUSY lowering a v1 memory limit under usage): second apply rolled back, first still in force"

# --- a plan for another machine: refused before anything changes (this
# machine lacks CPUs 32-35 or NUMA node 1 of the fixture's plan)
if [ -d /sys/devices/system/node/node1 ] && [ "$(nproc --all)" -gt 35 ]; then
    say "skipping the foreign-plan check: this machine has the fixture's CPUs and nodes"
    for c in cpuset memory cpu; do rmdir "$CG/$c/$TAG/a/a.0" "$CG/$c/$TAG/a" "$CG/$c/$TAG"; done
    say "ok"
    exit 0
fi
cat >"$WORK/wide.yaml" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: a
    kind: generic
    count: 1
    cpu: { cores: 2 }
    locality: { near: numa, numa: 1 }
    match: { cmdline: "*threads.py $TAG-p1 *" }
EOF
snapshot "$P1" >"$WORK/before"
rc=0
"$PLACER" apply --topology "$PLACER_TEST_DATA/fixtures/crafted-hci-2s16c-8nvme.xml" "$WORK/wide.yaml" >"$WORK/out" 2>&1 || rc=$?
[ $rc = 3 ] || fail "a foreign plan: exit $rc, want 3: $(cat "$WORK/out")"
grep -Eq "a.0: planned (cpus 32-35|mems 1), but cgroup $TAG/a has only .* missing\); was the plan made for another machine" "$WORK/out" || fail "reason: $(cat "$WORK/out")"
snapshot "$P1" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "a refused plan changed something"
cat "$WORK/out"
say "a plan for another machine: refused (exit 3), nothing changed"

# The groups the test made itself go; so must placer's state.
for c in cpuset memory cpu; do rmdir "$CG/$c/$TAG/a/a.0" "$CG/$c/$TAG/a" "$CG/$c/$TAG"; done
[ ! -e "$PLACER_STATE_DIR/state.json" ] || fail "state.json left behind"
say "ok"
