#!/bin/sh
# cpu weights between roles on pure cgroup v2 (apply_weight_share.sh does it
# on this host's v1): boots the 2-NUMA-node qemu guest (libexec/vm/, ci/vm/, TCG) and,
# inside it, two busy loops of DIFFERENT roles in one shared pool of one PU
# at weights 900 and 100; apply writes cpu.weight 900 / 100 on the instance
# groups and on the role groups (the sum of each role's instances'), and the
# two get about 90% / 10% of that CPU, measured from each instance group's
# cpu.stat usage_usec over a few seconds (tolerance 0.85..0.95; 0.50 without
# the role groups' weights).  status exits 0, and DRIFT (exit 1) once a role
# group's cpu.weight is changed by hand; reset removes every group.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default
# /var/cache/placer).  Exit 77 (skip) without qemu, a kernel or busybox.
set -eu
T=apply_weight_v2_guest
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
bin=${PLACER_BIN:?PLACER_BIN not set}
guest_begin

cat >"$tmp/p.yaml" <<'EOF'
version: 1
name: weight-v2
reserve: { cores: 0, memory: 0 }
roles:
  - name: hi
    kind: generic
    count: 1
    cpu: { threads: 1, pool: shared, weight: 900 }
    match: { pidfile: /tmp/hi.pid }
  - name: lo
    kind: generic
    count: 1
    cpu: { threads: 1, pool: shared, weight: 100 }
    match: { pidfile: /tmp/lo.pid }
EOF

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/weight-v2.sh" <<'EOF'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/tmp/state PLACER_CGROUP_PREFIX=placer-w
G=/sys/fs/cgroup/placer-w
need_v2
for r in hi lo; do
    sh -c 'echo $$ >/tmp/'$r'.pid; while :; do :; done' &
done
sleep 0.5
$P plan /t/p.yaml | sed 's/^/GUEST plan: /'
must apply $P apply /t/p.yaml
show apply
for g in hi hi/hi.0; do [ "$(cat $G/$g/cpu.weight)" = 900 ] || fail "$g cpu.weight $(cat $G/$g/cpu.weight)"; done
for g in lo lo/lo.0; do [ "$(cat $G/$g/cpu.weight)" = 100 ] || fail "$g cpu.weight $(cat $G/$g/cpu.weight)"; done
[ "$(cat $G/hi/hi.0/cpuset.cpus)" = "$(cat $G/lo/lo.0/cpuset.cpus)" ] || fail "not one pool"
grep -qx "0::/placer-w/hi/hi.0" /proc/$(cat /tmp/hi.pid)/cgroup || fail "hi not in its group"
grep -qx "0::/placer-w/lo/lo.0" /proc/$(cat /tmp/lo.pid)/cgroup || fail "lo not in its group"
usage() { sed -n 's/^usage_usec //p' $G/$1/$1.0/cpu.stat; }
sleep 1
h0=$(usage hi) l0=$(usage lo)
sleep 4
h1=$(usage hi) l1=$(usage lo)
dh=$((h1 - h0)) dl=$((l1 - l0))
[ $((dh + dl)) -gt 0 ] || fail "no CPU used"
permille=$((dh * 1000 / (dh + dl)))
echo "GUEST share: cpu $(cat $G/hi/hi.0/cpuset.cpus) over 4s: hi.0 (weight 900) ${permille}/1000 of what the two used (hi ${dh} us, lo ${dl} us)"
[ $permille -ge 850 ] && [ $permille -le 950 ] || fail "hi.0 got ${permille}/1000, expected 900 (850..950)"

must status $P status
echo 100 >$G/hi/cpu.weight
exits 1 "status after changing the role group's weight" $P status
grep -q "DRIFT placer-w/hi cpu weight 100, planned 900" /tmp/out || { cat /tmp/out; fail "drift not reported"; }
echo "GUEST status: ok after apply; a role group's cpu.weight changed by hand is DRIFT (exit 1)"

must reset $P reset
[ ! -e $G ] || fail "groups left after reset: $(find $G -type d)"
echo "GUEST reset: groups removed"
kill $(cat /tmp/hi.pid) $(cat /tmp/lo.pid)
echo "GUEST OK: cgroup v2 weights between roles"
EOF

guest_run_test weight-v2 240 '^GUEST' "$tmp/weight-v2.sh" "$tmp/p.yaml:/t/p.yaml" || exit 1
