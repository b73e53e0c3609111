#!/bin/sh
# `placer watch` on real processes and real cgroups (v1 here), the command on the watcher's core:
# - a metrics address in use: exit 2, one line, no group made, no state left; a malformed one too;
# - the profile applied (its group with the planned cpus); a process of the instance that ran
#   before is placed by the first rescan, one started after it within a second: in cgroup.procs,
#   every thread's Cpus_allowed_list the plan's;
# - a second watcher on the same state directory, and apply and reset while it runs: refused
#   (exit 4, one line), nothing changed;
# - the instance's processes killed: "no process" said; started again: back in the group within 1 s;
# - cpuset.cpus of the group overwritten, and a placed process moved out of it: put back
#   (--on-drift fix, the default), counted in the metrics; SIGHUP with a profile that no longer fits, and with one that is not valid YAML: one
#   line each, the running plan stays; SIGTERM: exit 0, the plan left in force;
# - started again with --on-drift report: continues from the state; the overwritten value is
#   reported and left (drift gauge 1); status then says drift;
# - reset: the process back in its own groups with its affinity, the groups gone (the snapshot
#   before the first watcher, compared); not root: exit 4, one line, nothing made.
set -eu
T=watch_cmd
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd setpriv curl
apply_setup watch_cmd
. "$LIB/watch.sh"
WPID=""
t_defer '[ -z "$WPID" ] || { kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }'
G=$TAG/app/app.0
CPUSET=$CG/cpuset/$G

profile=$WORK/p.yaml
write_profile() { # THREADS
    cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: $1, pool: one }
    memory: 64MiB
    match: { cmdline: "$TAG-app *" }
EOF
}
write_profile 1
set -- $(planned "$profile" app.0)
PCPUS=$1
[ -n "$PCPUS" ] || fail "no plan for app.0"

# A process of the instance: sleep with an argv[0] the profile matches.
app() {
    bg_start "$PY" -c 'import os, sys; os.execv("/bin/sleep", [sys.argv[1], "1000"])' "$TAG-app $1"
    wait_for 10 grep -qx sleep "/proc/$LAST_PID/comm" || fail "app $1 did not start"
}
in_group() { grep -qx "$1" "$CPUSET/cgroup.procs" 2>/dev/null; }
threads_on_plan() {
    for t in /proc/"$1"/task/*; do
        [ "$(sed -n 's/^Cpus_allowed_list:\t//p' "$t/status")" = "$PCPUS" ] || return 1
    done
}
metric() { curl -sf "http://$ADDR/metrics" | "$PY" "$LIB/promcheck.py" /dev/stdin "$1"; }
# The milliseconds from now until PID is in the group (polled every 10 ms), or fail after 1 s.
time_to_group() {
    _t0=$(date +%s%N)
    wait_for 1 in_group "$1" || fail "pid $1 not in $G within 1 s: $(grep cpuset "/proc/$1/cgroup")"
    echo $((($(date +%s%N) - _t0) / 1000000))
}

app k1
K1=$LAST_PID

# ---------------------------------------------------------------- bad metrics address: nothing applied
"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$WORK/port" &
HOLDER=$!
t_defer "kill $HOLDER 2>/dev/null"
wait_for 10 test -s "$WORK/port" || fail "no port held"
for addr in "127.0.0.1:$(cat "$WORK/port")" "127.0.0.1:99999" "[::1]9101"; do
    rc=0
    "$PLACER" watch --metrics "$addr" "$profile" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
    [ "$rc" = 2 ] || fail "--metrics $addr: exit $rc, not 2: $(cat "$WORK/bad.err")"
    [ "$(wc -l <"$WORK/bad.err")" = 1 ] && grep -q "metrics" "$WORK/bad.err" || fail "--metrics $addr: $(cat "$WORK/bad.err")"
    [ -z "$(t_cgroups)" ] || fail "--metrics $addr: groups made: $(t_cgroups)"
    [ ! -e "$PLACER_STATE_DIR" ] || fail "--metrics $addr: a state directory left"
    in_group "$K1" && fail "--metrics $addr: pid $K1 moved"
done
kill "$HOLDER"

# ---------------------------------------------------------------- applied and watched
placer_watch_start "$WORK/w.log" --interval 200 --metrics 127.0.0.1:0 "$profile"
WPID=$WATCH_PID
has_line "$WORK/w.log" "^applied profile $TAG: 1 instance" || fail "not applied: $(cat "$WORK/w.log")"
[ "$(cat "$CPUSET/cpuset.cpus")" = "$PCPUS" ] || fail "$G: cpus $(cat "$CPUSET/cpuset.cpus"), planned $PCPUS"
has_line "$WORK/w.log" "^app.0: placed pid $K1 in $G (found by a rescan)" && in_group "$K1" && threads_on_plan "$K1" ||
    fail "the process that ran before was not placed: $(cat "$WORK/w.log")"
ADDR=$(sed -n 's,^metrics at http://\(.*\)/metrics$,\1,p' "$WORK/w.log")
app k2
K2=$LAST_PID
ms=$(time_to_group "$K2")
threads_on_plan "$K2" || fail "pid $K2: a thread off $PCPUS"
wait_for 5 has_line "$WORK/w.log" "^app.0: placed pid $K2 in $G, .* after its exec" || fail "no log line for $K2"
say "a new process placed ${ms} ms after it started (polled every 10 ms)"

# Refused while it runs: a second watcher, apply, reset.
for cmd in "watch $profile" "apply $profile" "reset"; do
    rc=0
    # shellcheck disable=SC2086 # the command and its operand
    "$PLACER" $cmd >"$WORK/second.out" 2>"$WORK/second.err" || rc=$?
    [ "$rc" = 4 ] || fail "placer $cmd while watch runs: exit $rc, not 4: $(cat "$WORK/second.err")"
    [ "$(wc -l <"$WORK/second.err")" = 1 ] && grep -q "lock" "$WORK/second.err" || fail "placer $cmd: $(cat "$WORK/second.err")"
done
in_group "$K1" && in_group "$K2" || fail "a refused command moved a process"

# Restarts: the instance without a process is said; started again, back within a second.
kill -9 "$K1" "$K2"
wait_for 5 has_line "$WORK/w.log" "^app.0: no process" || fail "no process not said: $(tail -3 "$WORK/w.log")"
app k3
K3=$LAST_PID
ms=$(time_to_group "$K3")
say "restarted: back in its group ${ms} ms after it started"

# A group value changed by someone: put back.
echo 1 >"$CPUSET/cpuset.cpus" 2>/dev/null || echo 0 >"$CPUSET/cpuset.cpus"
wait_for 5 sh -c "[ \"\$(cat '$CPUSET/cpuset.cpus')\" = '$PCPUS' ]" || fail "cpuset.cpus not put back: $(cat "$CPUSET/cpuset.cpus")"
wait_for 5 has_line "$WORK/w.log" "^app.0: $G cpus is .*, planned $PCPUS: put back" || fail "not logged: $(tail -3 "$WORK/w.log")"
[ "$(metric 'placer_watch_drift_fixed_total{kind="group"}')" -ge 1 ] || fail "drift_fixed_total{group} not counted"
[ "$(metric 'placer_instance_cpus{instance="app.0"}')" = 1 ] || fail "placer_instance_cpus not 1"
[ "$(metric 'placer_instance_processes{instance="app.0"}')" = 1 ] || fail "placer_instance_processes not 1"

# A placed process moved out by someone (back to the cpuset this shell is in): put back.
echo "$K3" >"$CG/cpuset$(sed -n 's/^[0-9]*:cpuset://p' /proc/$$/cgroup)/cgroup.procs"
wait_for 5 in_group "$K3" || fail "pid $K3 moved out was not put back: $(grep cpuset "/proc/$K3/cgroup")"
wait_for 5 has_line "$WORK/w.log" "^app.0: pid $K3 (sleep) is outside $G: put back" || fail "not logged: $(tail -3 "$WORK/w.log")"
[ "$(metric 'placer_watch_drift_fixed_total{kind="process"}')" -ge 1 ] || fail "drift_fixed_total{process} not counted"

# SIGHUP with a profile that does not fit, then with one that is not YAML: one line each, plan kept.
write_profile 64
kill -HUP "$WPID"
wait_for 5 has_line "$WORK/w.log" "^SIGHUP: .*the running plan stays" || fail "no line for the profile that does not fit"
grep "^SIGHUP" "$WORK/w.log" | grep -q "app" || fail "the line does not name the role: $(grep '^SIGHUP' "$WORK/w.log")"
printf 'version: 1\nroles: [\n' >"$profile"
kill -HUP "$WPID"
wait_for 5 sh -c "[ \$(grep -c '^SIGHUP: .*the running plan stays' '$WORK/w.log') = 2 ]" || fail "no line for bad YAML"
grep '^SIGHUP' "$WORK/w.log" | tail -1 | grep -q "p.yaml:[0-9]*:[0-9]*" || fail "no file:line:col: $(grep '^SIGHUP' "$WORK/w.log")"
[ "$(cat "$CPUSET/cpuset.cpus")" = "$PCPUS" ] && in_group "$K3" || fail "the running plan changed"
write_profile 1

kill -TERM "$WPID"
rc=0
wait "$WPID" || rc=$?
WPID=""
[ "$rc" = 0 ] || fail "exit $rc after SIGTERM"
in_group "$K3" && [ "$(cat "$CPUSET/cpuset.cpus")" = "$PCPUS" ] || fail "the plan did not stay in force"
[ ! -s "$WORK/w.log.err" ] || fail "stderr: $(cat "$WORK/w.log.err")"

# ---------------------------------------------------------------- --on-drift report, from the state
placer_watch_start "$WORK/r.log" --interval 200 --on-drift report --metrics-file "$WORK/r.prom" "$profile"
WPID=$WATCH_PID
has_line "$WORK/r.log" "^applied profile $TAG: 1 instance, 0 changes" || fail "not continued: $(cat "$WORK/r.log")"
OTHER=$([ "$PCPUS" = 0 ] && echo 1 || echo 0)
echo "$OTHER" >"$CPUSET/cpuset.cpus"
wait_for 5 has_line "$WORK/r.log" "^app.0: $G cpus is $OTHER, planned $PCPUS: reported, left as it is" ||
    fail "not reported: $(tail -3 "$WORK/r.log")"
wait_for 5 sh -c "$PY '$LIB/promcheck.py' '$WORK/r.prom' 'placer_instance_drift{instance=\"app.0\"}' | grep -qx 1" ||
    fail "drift gauge not 1: $(cat "$WORK/r.prom" | grep drift)"
sleep 0.5
[ "$(cat "$CPUSET/cpuset.cpus")" = "$OTHER" ] || fail "report mode changed cpuset.cpus"
kill -TERM "$WPID"
wait "$WPID" || fail "report watcher exit $?"
WPID=""
rc=0
"$PLACER" status >"$WORK/status.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "status: exit $rc, not 1 (drift): $(cat "$WORK/status.txt")"

# ---------------------------------------------------------------- reset: back as before
kill -9 "$K3"
wait "$K3" 2>/dev/null || true
reset_clean "after the watchers"

# A process placed by the watcher and put back by reset: its groups and affinity as before.
app k5
K5=$LAST_PID
SNAP5=$(snapshot "$K5")
placer_watch_start "$WORK/x.log" --interval 200 "$profile"
WPID=$WATCH_PID
wait_for 5 in_group "$K5" || fail "k5 not placed"
kill -TERM "$WPID"
wait "$WPID" || fail "exit $?"
WPID=""
"$PLACER" reset >"$WORK/reset2.txt" 2>&1 || fail "reset: $(cat "$WORK/reset2.txt")"
snapshot "$K5" >"$WORK/snap5.after"
[ "$(cat "$WORK/snap5.after")" = "$SNAP5" ] || fail "reset did not restore k5: before $SNAP5; after $(cat "$WORK/snap5.after")"

# ---------------------------------------------------------------- not root
chmod a+rx "$WORK" && chmod a+r "$profile" # its profile readable: refused for being no root, not for that
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$PLACER" watch --state-dir "$WORK/nobody" "$profile" \
    >"$WORK/nr.out" 2>"$WORK/nr.err" || rc=$?
[ "$rc" = 4 ] || fail "not root: exit $rc, not 4: $(cat "$WORK/nr.err")"
[ "$(wc -l <"$WORK/nr.err")" = 1 ] && grep -q "root" "$WORK/nr.err" || fail "not root: $(cat "$WORK/nr.err")"
[ -z "$(t_cgroups)" ] && [ ! -e "$WORK/nobody" ] || fail "not root: something made"
say "ok"
