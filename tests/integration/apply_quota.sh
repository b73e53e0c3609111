#!/bin/sh
# The CPU quota knob, for real (cgroup v1 here): a role with `cpu: { quota:
# 0.5 }` and two CPU-burning processes (two busy threads each, so together
# they could use every core).  apply writes cpu.cfs_quota_us / cpu.cfs_period_us
# on the role's group (PREFIX/ROLE, shared by its instances), plan shows it,
# the processes' CPU use measured from cpuacct over 2 s is about 0.5 core;
# status reports a quota changed by hand as drift and a new apply repairs it;
# reset restores a role group that existed before apply to its own earlier
# quota and period exactly ("20000 50000"), and removes what apply made.
# ctest: serial
set -eu
T=apply_quota
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
apply_setup apply_quota
[ -f "$CG/cpu/cpu.cfs_quota_us" ] || skip "no CFS bandwidth control"

profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
pin: false
roles:
  - name: burn
    kind: generic
    count: 2
    cpu: { quota: 0.5 }
    match: { cmdline: "*threads.py $TAG-{index} *" }
  - name: free
    kind: generic
    count: 1
    match: { cmdline: "*no-such-process-$TAG*" }
EOF
"$PLACER" plan "$profile" >"$WORK/plan" || fail "plan: $(cat "$WORK/plan")"
grep -q "^  burn: 0.5 cores" "$WORK/plan" || fail "plan does not show the quota: $(cat "$WORK/plan")"
"$PLACER" plan --json "$profile" | grep -q '"cpu_quota_cores": 0.5' || fail "plan --json has no cpu_quota_cores"

# A role group that exists before apply, with a quota of its own: reset must
# give it back.
hier="cpuset memory cpu"
[ "$(readlink -f "$CG/cpuacct")" = "$(readlink -f "$CG/cpu")" ] || hier="$hier cpuacct"
quota_cleanup() {
    for p in $T_PIDS; do kill -9 "$p" 2>/dev/null; done
    "$PLACER" reset >/dev/null 2>&1
    # apply_cleanup handles cpuset, memory and cpu; a separate cpuacct here.
    [ -d "$CG/cpuacct/$TAG" ] && [ "$(readlink -f "$CG/cpuacct")" != "$(readlink -f "$CG/cpu")" ] &&
        find "$CG/cpuacct/$TAG" -depth -type d -exec rmdir {} \; 2>/dev/null
}
t_defer quota_cleanup
for c in $hier; do mkdir -p "$CG/$c/$TAG/burn"; done
for f in cpuset.cpus cpuset.mems; do
    cat "$CG/cpuset/$f" >"$CG/cpuset/$TAG/$f"
    cat "$CG/cpuset/$f" >"$CG/cpuset/$TAG/burn/$f"
done
echo 50000 >"$CG/cpu/$TAG/burn/cpu.cfs_period_us"
echo 20000 >"$CG/cpu/$TAG/burn/cpu.cfs_quota_us"

for i in 0 1; do
    bg_start "$PY" "$LIB/threads.py" "$TAG-$i" 2 --spin
done
sleep 0.5

"$PLACER" apply --dry-run "$profile" >"$WORK/out" || fail "dry run: $(cat "$WORK/out")"
[ "$(grep -c "cpu_quota = 0.5 cores" "$WORK/out")" = 1 ] || fail "dry run should set the quota once: $(cat "$WORK/out")"
"$PLACER" apply "$profile" >"$WORK/out" || fail "apply exit $?: $(cat "$WORK/out")"
[ "$(cat "$CG/cpu/$TAG/burn/cpu.cfs_quota_us")" = 50000 ] || fail "cfs_quota_us $(cat "$CG/cpu/$TAG/burn/cpu.cfs_quota_us")"
[ "$(cat "$CG/cpu/$TAG/burn/cpu.cfs_period_us")" = 100000 ] || fail "cfs_period_us $(cat "$CG/cpu/$TAG/burn/cpu.cfs_period_us")"
[ "$(cat "$CG/cpu/$TAG/free/cpu.cfs_quota_us")" = -1 ] || fail "role free got a quota"
[ "$(cat "$CG/cpu/$TAG/burn/burn.0/cpu.cfs_quota_us")" = -1 ] || fail "instance group got a quota of its own"

acct=$CG/cpuacct/$TAG/burn
[ -f "$acct/cpuacct.usage" ] || acct=$CG/cpu/$TAG/burn
u0=$(cat "$acct/cpuacct.usage"); t0=$(date +%s%N)
sleep 2
u1=$(cat "$acct/cpuacct.usage"); t1=$(date +%s%N)
cores=$("$PY" -c "import sys; print('%.3f' % ((int(sys.argv[2]) - int(sys.argv[1])) / (int(sys.argv[4]) - int(sys.argv[3]))))" "$u0" "$u1" "$t0" "$t1")
"$PY" -c "import sys; c = float(sys.argv[1]); sys.exit(0 if 0.1 <= c <= 0.6 else 1)" "$cores" ||
    fail "2 processes with 2 busy threads each under a 0.5-core quota used $cores cores"
say "apply: cpu.cfs_quota_us 50000 / cpu.cfs_period_us 100000 on $TAG/burn; measured $cores cores over 2 s"

"$PLACER" status >"$WORK/out" || fail "status after apply exit $?: $(cat "$WORK/out")"
echo 90000 >"$CG/cpu/$TAG/burn/cpu.cfs_quota_us"
rc=0; "$PLACER" status >"$WORK/out" || rc=$?
[ $rc = 1 ] || fail "status with a changed quota: exit $rc: $(cat "$WORK/out")"
grep -q "DRIFT $TAG/burn cpu quota 0.9 cores, planned 0.5 cores" "$WORK/out" || fail "drift not reported: $(cat "$WORK/out")"
"$PLACER" apply "$profile" >"$WORK/out" || fail "repairing apply: $(cat "$WORK/out")"
[ "$(cat "$CG/cpu/$TAG/burn/cpu.cfs_quota_us")" = 50000 ] || fail "apply did not repair the quota"
"$PLACER" status >"$WORK/out" || fail "status after the repair: $(cat "$WORK/out")"
say "status: a quota changed by hand is drift; apply repairs it"

"$PLACER" reset >"$WORK/out" || fail "reset exit $?: $(cat "$WORK/out")"
[ "$(cat "$CG/cpu/$TAG/burn/cpu.cfs_quota_us")" = 20000 ] || fail "reset: quota $(cat "$CG/cpu/$TAG/burn/cpu.cfs_quota_us"), want 20000"
[ "$(cat "$CG/cpu/$TAG/burn/cpu.cfs_period_us")" = 50000 ] || fail "reset: period $(cat "$CG/cpu/$TAG/burn/cpu.cfs_period_us"), want 50000"
[ ! -d "$CG/cpu/$TAG/burn/burn.0" ] || fail "reset left burn.0"
[ ! -d "$CG/cpu/$TAG/free" ] || fail "reset left the free role's group"
for c in $hier; do rmdir "$CG/$c/$TAG/burn" "$CG/$c/$TAG"; done
say "reset: the earlier role group's quota and period back (20000 50000), apply's groups removed"
say "ok"
