#!/bin/sh
# What placer reads back from a state directory acts only on what placer made, for real (root, the
# cgroup v1 hierarchies here, this machine's IRQs), with decoys: a group the test made under the
# state's prefix (placer never did), a sleep in it that must neither move nor die, its CPU affinity:
#   - a crafted state.json (bound to its directory and boot, as placer writes one) that records
#     creating the decoy group, moving the decoy process into it and pinning one of its threads:
#     reset refuses, exit 4, one line (the group does not carry the state's mark), nothing changes;
#     a copy of a real applied state directory is refused too (exit 4), the original resets;
#   - a crafted run record naming the decoy group and process (a session leader: a kill of its
#     process group would hit it), or a group outside the prefix: stop refuses, nothing signalled;
#   - binding PID 1, one of placer's own ancestors, `match: { cmdline: "*" }` (refused with the
#     profile), a kernel thread or one process to two instances: exit 2 with both backends (the same
#     checks: the model binds for both), nothing changed;
#   - one owner per IRQ: two state directories steering virtio1-config: the second refuses (exit 2)
#     while the first steers it; with the first's directory removed by hand, the second takes the
#     IRQ over with the first's recorded list; after every order of resets the IRQ is at its
#     original list and no owner record is left;
#   - a results directory is data: bench --resume of one whose irq-state is a link to a live
#     apply's state directory is refused (exit 2), and one whose irq-state is a copy of it runs
#     (its study steers no IRQ): that placement is left alone either way;
#   - apply --backend systemd of an irqs: profile where PID 1 is not systemd: exit 3, no IRQ moved;
#   - placer exec ... -- /nonexistent: exit 4, no group made;
#   - apply + reset, run + stop: no state directory left behind.
# Every /proc/irq/*/smp_affinity_list is compared with its value before the test at teardown and
# written back if it differs (the test then fails).
# ctest: lock=irqs
set -eu
T=trust_apply
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup trust_apply
need_cmd setsid python3 fio
irq=/proc/irq

for d in "$irq"/[0-9]*; do echo "${d##*/} $(cat "$d/smp_affinity_list")"; done >"$WORK/irqs.before"
restore_irqs() {
    while read -r n list; do
        [ -w "$irq/$n/smp_affinity_list" ] || continue
        if [ "$(cat "$irq/$n/smp_affinity_list")" != "$list" ]; then
            echo "$T: teardown: IRQ $n is on $(cat "$irq/$n/smp_affinity_list"), was $list: writing it back" >&2
            printf '%s' "$list" >"$irq/$n/smp_affinity_list" || true
            echo changed >"$WORK/irqs.leaked"
        fi
    done <"$WORK/irqs.before"
}
t_defer '[ ! -e "$WORK/irqs.leaked" ] || { echo "$T: FAIL: an IRQ affinity was left changed" >&2; rc=1; }'
t_defer restore_irqs
t_defer '"$PLACER" reset --state-dir "$WORK/irq-a" >/dev/null 2>&1; "$PLACER" reset --state-dir "$WORK/irq-b" >/dev/null 2>&1'

# "boot_id": ..., "state_id": ... of directory $1: what placer records in a state file
binding() { "$PY" "$LIB/state_binding.py" "$1"; }
# exit code of "$@" into $rc, its stderr into $WORK/err; stdout dropped
run_rc() { rc=0; "$@" >/dev/null 2>"$WORK/err" || rc=$?; }
one_line() { [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q -- "$1" "$WORK/err" || fail "$2: $(cat "$WORK/err")"; }

# ---- the decoys: a group under the prefix placer never made, a sleep in it --------------------------
T_EXTRA_GROUPS="$TAG/r/decoy $TAG/r $TAG/app/app.0 $TAG/app $TAG" # apply_cleanup: emptied and removed
for c in cpuset memory cpu; do
    mkdir -p "$CG/$c/$TAG/r/decoy"
done
for g in "$TAG" "$TAG/r" "$TAG/r/decoy"; do
    cat "$CG/cpuset/cpuset.cpus" >"$CG/cpuset/$g/cpuset.cpus"
    cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$g/cpuset.mems"
done
setsid sleep 600 </dev/null >/dev/null 2>&1 & # not on ctest's pipe: it waits for whatever holds it
S=$!
T_PIDS="$T_PIDS $S"
i=0
until [ "$(ps -o pgid= -p "$S" | tr -d ' ')" = "$S" ]; do
    i=$((i + 1)); [ $i -lt 50 ] || fail "sleep $S is not a process group leader"; sleep 0.1
done
for c in cpuset memory cpu; do echo "$S" >"$CG/$c/$TAG/r/decoy/cgroup.procs"; done
start=$(awk '{ print $22 }' "/proc/$S/stat")
decoy() { # where the decoy process is and what it may use, and that its groups are there
    grep -E ':(cpuset|memory|cpu):' "/proc/$S/cgroup"
    grep -E '^(Cpus|Mems)_allowed_list' "/proc/$S/status"
    for c in cpuset memory cpu; do [ -d "$CG/$c/$TAG/r/decoy" ] && echo "$c/$TAG/r/decoy"; done
}
decoy >"$WORK/decoy.before"
same_decoy() {
    kill -0 "$S" 2>/dev/null || fail "$1: the decoy sleep $S was killed"
    decoy | diff "$WORK/decoy.before" - >&2 || fail "$1: the decoy changed (diff above)"
}

# ---- a crafted state.json: a group, a process and a thread placer never touched ---------------------
st=$WORK/crafted
mkdir -m 755 "$st"
cat >"$st/state.json" <<EOF
{ $(binding "$st"), "schema": 1, "backend": "cgroupfs", "cgroup_mode": "v1", "cgroup_root": "/sys/fs/cgroup",
  "prefix": "$TAG", "last_txn": 1, "pending_txn": null, "pending_pid": null, "instances": [],
  "journal": [ { "txn": 1, "op": "create", "group": "$TAG" }, { "txn": 1, "op": "create", "group": "$TAG/r" },
               { "txn": 1, "op": "create", "group": "$TAG/r/decoy" },
               { "txn": 1, "op": "move", "pid": $S, "start_time": $start, "instance": "decoy.0",
                 "group": "$TAG/r/decoy", "original": { "cpuset": "", "memory": "", "cpu": "", "cpuacct": "" },
                 "threads": [ { "tid": $S, "cpus": "0" } ] },
               { "txn": 1, "op": "affinity", "pid": $S, "start_time": $start, "tid": $S, "previous": "0" } ] }
EOF
run_rc "$PLACER" reset --state-dir "$st"
[ $rc = 4 ] || fail "reset of a crafted state: exit $rc, not 4: $(cat "$WORK/err")"
one_line "records creating group $TAG, but that group does not carry this state's mark" "reset of a crafted state"
same_decoy "reset of a crafted state"
[ -f "$st/state.json" ] || fail "the crafted state.json was removed"
say "crafted state.json: $(cat "$WORK/err")"

# ---- a copy of a real applied state directory -----------------------------------------------------
cat >"$WORK/app.yaml" <<EOF
version: 1
name: $TAG-app
reserve: { cores: 0 }
roles:
  - name: app
    kind: generic
    cpu: { threads: 1 }
    match: { cmdline: "*sleep(601)* $TAG" }
    run: { command: [$PY, -c, "import time; time.sleep(602)", "$TAG"] }
EOF
bg_start "$PY" -c "import time; time.sleep(601)" "$TAG"
A=$LAST_PID
i=0
until grep -q "sleep(601)" "/proc/$A/cmdline" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 50 ] || fail "the bound process did not start"; sleep 0.1
done
"$PLACER" apply --state-dir "$WORK/real" "$WORK/app.yaml" >/dev/null 2>&1 || fail "apply exited $?"
grep -q "^[0-9]*:cpuset:/$TAG/app/app.0\$" "/proc/$A/cgroup" || fail "apply did not move $A"
cp -a "$WORK/real" "$WORK/copy"
run_rc "$PLACER" reset --state-dir "$WORK/copy"
[ $rc = 4 ] || fail "reset of a copied state: exit $rc"
one_line "copy/state.json was written for another directory" "reset of a copied state"
grep -q "^[0-9]*:cpuset:/$TAG/app/app.0\$" "/proc/$A/cgroup" || fail "the reset of a copy moved $A"
"$PLACER" reset --state-dir "$WORK/real" >/dev/null || fail "reset of the real state exited $?"
grep -q "^[0-9]*:cpuset:/\$" "/proc/$A/cgroup" || fail "reset did not move $A back"
[ ! -e "$WORK/real" ] || fail "reset left its state directory: $(ls -A "$WORK/real")"
say "a copied state directory refused; the original reset, and its directory gone"

# ---- a crafted run record: stop signals nothing it did not start ----------------------------------
mkdir -p -m 755 "$WORK/runst/run/$TAG-app"
record() { # group
    cat >"$WORK/runst/run/$TAG-app/app.0.json" <<EOF
{ $(binding "$WORK/runst/run/$TAG-app"), "schema": 1, "profile": "$TAG-app", "instance": "app.0", "role": "app",
  "backend": "exec", "pid": $S, "start_time": $start, "group": "$1", "container_name": null,
  "container_id": null, "container_cgroup": null, "log": null, "accel": null, "joined_by": "clone3",
  "argv": ["sleep"], "stop_timeout": 1, "started_at": 0, "seq": 0 }
EOF
}
record "$TAG-elsewhere/app/app.0"
run_rc "$PLACER" stop --state-dir "$WORK/runst" "$TAG-app"
[ $rc = 4 ] || fail "stop of a record naming a group outside the prefix: exit $rc"
one_line "its run record names group '$TAG-elsewhere/app/app.0', not $TAG/app/app.0" "stop, group outside"
for c in cpuset memory cpu; do mkdir -p "$CG/$c/$TAG/app/app.0"; done
cat "$CG/cpuset/cpuset.cpus" >"$CG/cpuset/$TAG/app/cpuset.cpus"
cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$TAG/app/cpuset.mems"
cat "$CG/cpuset/cpuset.cpus" >"$CG/cpuset/$TAG/app/app.0/cpuset.cpus"
cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$TAG/app/app.0/cpuset.mems"
for c in cpuset memory cpu; do echo "$S" >"$CG/$c/$TAG/app/app.0/cgroup.procs"; done
decoy >"$WORK/decoy.before"
record "$TAG/app/app.0"
run_rc "$PLACER" stop --state-dir "$WORK/runst" "$TAG-app"
[ $rc = 4 ] || fail "stop of a record naming a group run did not make: exit $rc"
one_line "app.0: group $TAG/app/app.0 does not carry the mark of this state directory" "stop, unmarked group"
same_decoy "stop of a crafted run record"
for c in cpuset memory cpu; do echo "$S" >"$CG/$c/$TAG/r/decoy/cgroup.procs"; rmdir "$CG/$c/$TAG/app/app.0" "$CG/$c/$TAG/app"; done
decoy >"$WORK/decoy.before"
rm -rf "$WORK/runst"
say "crafted run records: nothing stopped, the decoy sleep alive in its group"

# ---- never PID 1, placer's ancestors or every process, with either backend -------------------------
sed 's/cmdline: "[^"]*"/cmdline: "*"/' "$WORK/app.yaml" >"$WORK/all.yaml"
for backend in cgroupfs systemd; do
    for what in "--pid app.0=1" "--pid app.0=$$" ""; do
        prof=$WORK/app.yaml
        [ -n "$what" ] || prof=$WORK/all.yaml
        # shellcheck disable=SC2086 # $what is two words or none
        run_rc "$PLACER" apply --backend "$backend" --state-dir "$WORK/bind" $what "$prof"
        [ $rc = 2 ] || fail "$backend ${what:-cmdline *}: exit $rc: $(cat "$WORK/err")"
        case "$what" in
        *=1) one_line "that is PID 1, the init of the whole system, which placer never binds" "$backend $what" ;;
        *=*) one_line "that is one of placer's own ancestors" "$backend $what" ;;
        *) one_line "match.cmdline: '\*' names no character of a command line, so it matches every process" \
            "$backend cmdline *" ;;
        esac
        [ ! -e "$WORK/bind" ] || fail "$backend ${what:-cmdline *}: a state directory was left"
    done
done
grep -q "^[0-9]*:cpuset:/\$" /proc/1/cgroup || fail "PID 1 was moved"
say "PID 1, an ancestor, cmdline '*': refused by both backends"

# ---- a kernel thread, and one process two instances would bind: the same checks, either backend ------
# Both backends bind what the one model binds (placement-procs.c): the systemd backend refused a pid
# of two instances only when it found their unit, or said "no systemd unit" first (exit 3) here.
sed "s/^roles:/roles:\n  - { name: other, kind: generic, cpu: { threads: 1 }, match: { cmdline: \"*sleep(603)* $TAG\" } }/" \
    "$WORK/app.yaml" >"$WORK/two.yaml"
kthread=2
cat "/proc/$A/cgroup" >"$WORK/a.cgroup"
[ "$(cat /proc/2/comm)" = kthreadd ] || fail "PID 2 is $(cat /proc/2/comm), not kthreadd: no kernel thread to bind"
for backend in cgroupfs systemd; do
    run_rc "$PLACER" apply --backend "$backend" --state-dir "$WORK/bind" --pid app.0=$kthread "$WORK/app.yaml"
    [ $rc = 2 ] || fail "$backend --pid of a kernel thread: exit $rc: $(cat "$WORK/err")"
    one_line "app.0=$kthread: that is a kernel thread, which placer never binds" "$backend kernel thread"
    run_rc "$PLACER" apply --backend "$backend" --state-dir "$WORK/bind" --pid app.0="$A" --pid other.0="$A" \
        "$WORK/two.yaml"
    [ $rc = 2 ] || fail "$backend one pid bound twice: exit $rc: $(cat "$WORK/err")"
    one_line "pid $A (python3) is matched by both other.0 and app.0" "$backend one pid bound twice"
    [ ! -e "$WORK/bind" ] || fail "$backend: a refused apply left a state directory"
done
diff "$WORK/a.cgroup" "/proc/$A/cgroup" >&2 || fail "a refused apply moved $A (diff above)"
say "a kernel thread, one pid of two instances: refused by both backends, exit 2"

# ---- one owner per IRQ ---------------------------------------------------------------------------
n=$(awk '/virtio1-config/ { sub(":", "", $1); print $1 }' /proc/interrupts)
[ -n "$n" ] && [ -w "$irq/$n/smp_affinity_list" ] || skip "no steerable virtio1-config (vda's config IRQ)"
orig=$(cat "$irq/$n/smp_affinity_list")
[ "$orig" = 0-1 ] || skip "virtio1-config is on $orig, not on both CPUs"
for to in 0 1; do
    cat >"$WORK/irq$to.yaml" <<EOF
version: 1
name: $TAG-irq$to
irqs: [ { device: vda, to: "$to" } ]
roles: [ { name: x, kind: generic, cpu: { threads: 1 }, match: {} } ]
EOF
done
owners=/run/placer-irq-owners
"$PLACER" apply --irqs-only --state-dir "$WORK/irq-a" "$WORK/irq0.yaml" >/dev/null || fail "apply a exited $?"
[ "$(cat "$irq/$n/smp_affinity_list")" = 0 ] || fail "a did not steer IRQ $n"
[ -f "$owners/$n.json" ] || fail "no owner record of IRQ $n"
run_rc "$PLACER" apply --irqs-only --state-dir "$WORK/irq-b" "$WORK/irq1.yaml"
[ $rc = 2 ] || fail "b over a: exit $rc: $(cat "$WORK/err")"
one_line "IRQ $n (virtio1-config) is steered by the placement in $WORK/irq-a: one placer state steers an IRQ" "b over a"
[ "$(cat "$irq/$n/smp_affinity_list")" = 0 ] || fail "the refused apply moved IRQ $n"
[ ! -e "$WORK/irq-b" ] || fail "the refused apply left a state directory"
"$PLACER" reset --state-dir "$WORK/irq-b" >/dev/null || fail "reset b exited $?"
"$PLACER" reset --state-dir "$WORK/irq-a" >/dev/null || fail "reset a exited $?"
[ "$(cat "$irq/$n/smp_affinity_list")" = "$orig" ] || fail "after the resets IRQ $n is on $(cat "$irq/$n/smp_affinity_list")"
[ ! -e "$owners" ] && [ ! -e "$WORK/irq-a" ] || fail "reset left $owners or irq-a"
# a's directory removed by hand while it steers the IRQ: b takes it over with a's original list
"$PLACER" apply --irqs-only --state-dir "$WORK/irq-a" "$WORK/irq0.yaml" >/dev/null || fail "apply a again exited $?"
rm -rf "$WORK/irq-a"
"$PLACER" apply --irqs-only --state-dir "$WORK/irq-b" "$WORK/irq1.yaml" >/dev/null || fail "b over a gone exited $?"
[ "$(cat "$irq/$n/smp_affinity_list")" = 1 ] || fail "b did not steer IRQ $n"
grep -q "\"previous\": \"$orig\"" "$WORK/irq-b/irq.json" || fail "b did not take over a's original: $(cat "$WORK/irq-b/irq.json")"
"$PLACER" reset --state-dir "$WORK/irq-b" >/dev/null || fail "reset b exited $?"
[ "$(cat "$irq/$n/smp_affinity_list")" = "$orig" ] || fail "after b's reset IRQ $n is on $(cat "$irq/$n/smp_affinity_list")"
[ ! -e "$owners" ] && [ ! -e "$WORK/irq-b" ] || fail "b's reset left $owners or irq-b"
say "IRQ $n: one owner at a time; a gone owner taken over; back on $orig after every reset"

# ---- a results directory is data: --resume never resets an irq-state it did not steer -----------
t_defer 'rm -f "/var/tmp/$TAG.img"'
cat >"$WORK/study.yaml" <<EOF
version: 1
title: irq-state is data
cluster: { type: none }
variants: [ { name: unpinned, profile: unpinned } ]
workloads: { path: /var/tmp/$TAG.img, size: 16MiB, block_sizes: [4K], patterns: [randread], iodepth: 1, runtime: 1,
             ramp: 0 }
repeats: 1
warmup: 0
EOF
"$PLACER" bench --allow-inconclusive --prefix "$TAG-bench" --out "$WORK/r" "$WORK/study.yaml" >/dev/null 2>"$WORK/bench.err" ||
    { cat "$WORK/bench.err" >&2; fail "bench exited $?"; }
"$PLACER" apply --irqs-only --state-dir "$WORK/live" "$WORK/irq0.yaml" >/dev/null || fail "apply of the live state exited $?"
drop_runs() { # a run to do again: what a study stopped part-way leaves
    "$PY" - "$WORK/r/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["runs"], s["interrupted"] = [], True
json.dump(s, open(sys.argv[1], "w"))
PY
}
live_alone() {
    [ "$(cat "$irq/$n/smp_affinity_list")" = 0 ] || fail "$1 undid the live placement of IRQ $n"
    [ -f "$WORK/live/irq.json" ] || fail "$1 removed the live state"
    "$PLACER" status --state-dir "$WORK/live" >/dev/null || fail "status of the live placement after $1 exited $?"
}
# a link to the live state directory: refused (a results directory is never written through a link)
ln -s "$WORK/live" "$WORK/r/irq-state"
drop_runs
run_rc "$PLACER" bench --prefix "$TAG-bench" --resume "$WORK/r"
[ $rc = 2 ] || fail "--resume through a linked irq-state: exit $rc: $(cat "$WORK/err")"
one_line "irq-state is a symbolic link" "--resume through a linked irq-state"
live_alone "--resume through a linked irq-state"
# a copy of it (a results directory from elsewhere): the study steers no IRQ, so it is data
rm "$WORK/r/irq-state"
cp -a "$WORK/live" "$WORK/r/irq-state"
"$PLACER" bench --prefix "$TAG-bench" --resume "$WORK/r" >/dev/null 2>"$WORK/bench.err" ||
    { cat "$WORK/bench.err" >&2; fail "--resume with a copied irq-state exited non-zero"; }
grep -q "unpinned-r0: 4k-randread" "$WORK/bench.err" || fail "--resume ran nothing: $(cat "$WORK/bench.err")"
live_alone "--resume with a copied irq-state"
cmp -s "$WORK/live/irq.json" "$WORK/r/irq-state/irq.json" || fail "--resume changed the copied irq-state"
"$PLACER" reset --state-dir "$WORK/live" >/dev/null || fail "reset of the live state exited $?"
[ "$(cat "$irq/$n/smp_affinity_list")" = "$orig" ] || fail "IRQ $n not back on $orig"
say "bench --resume left the live placement alone: a linked irq-state refused, a copied one untouched"

# ---- --backend systemd where PID 1 is not systemd: exit 3 before any IRQ moves ----------------------
if [ ! -e /run/systemd/system ]; then
    run_rc "$PLACER" apply --backend systemd --state-dir "$WORK/sd" "$WORK/irq0.yaml"
    [ $rc = 3 ] || fail "--backend systemd without systemd: exit $rc: $(cat "$WORK/err")"
    one_line "PID 1 is not systemd here" "--backend systemd"
    [ "$(cat "$irq/$n/smp_affinity_list")" = "$orig" ] || fail "--backend systemd moved IRQ $n"
    [ ! -e "$WORK/sd" ] || fail "--backend systemd left a state directory"
fi

# ---- exec of a program that is not there: no group -------------------------------------------------
run_rc "$PLACER" exec "$WORK/app.yaml" app.0 -- /nonexistent/program
[ $rc = 4 ] || fail "exec of a missing program: exit $rc"
one_line "exec '/nonexistent/program': No such file or directory" "exec of a missing program"
for c in cpuset memory cpu; do [ ! -d "$CG/$c/$TAG/app" ] || fail "exec left $CG/$c/$TAG/app"; done

# ---- run + stop: nothing left ---------------------------------------------------------------------
"$PLACER" run --state-dir "$WORK/ran" "$WORK/app.yaml" >/dev/null || fail "run exited $?"
"$PLACER" stop --state-dir "$WORK/ran" "$WORK/app.yaml" >/dev/null || fail "stop exited $?"
[ ! -e "$WORK/ran" ] || fail "run + stop left $(find "$WORK/ran")"
for c in cpuset memory cpu; do [ ! -d "$CG/$c/$TAG/app" ] || fail "stop left $CG/$c/$TAG/app"; done
same_decoy "the end"
say "ok"
