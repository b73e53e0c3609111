#!/bin/sh
# The exec backend on pure cgroup v2 (production nodes), which this host (v1 hybrid) cannot
# offer: boots a 2-NUMA-node qemu guest (libexec/vm/, ci/vm/, TCG) with cgroup v2 and runs `placer run` /
# `placer stop` inside it.  The instance is placed near NUMA node 1, so:
#   - the process must be born in its group (clone3 with CLONE_INTO_CGROUP, recorded as
#     joined_by "clone3") and its own first reading of /proc/self/status and /proc/self/cgroup
#     shows Cpus_allowed_list 1, Mems_allowed_list 1 (a real second node) and the group;
#   - memory.max holds the limit, the environment is applied;
#   - `placer stop` kills it and removes the group.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer).
# Exit 77 (skip) without qemu or a kernel.
set -eu
T=run_exec_v2_vm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
bin=${PLACER_BIN:?PLACER_BIN not set}
guest_begin

cat >"$tmp/p.yaml" <<'EOF2'
version: 1
name: t-run-v2
reserve: { cores: 0, memory: 0 }
roles:
  - name: near
    kind: generic
    cpu: { threads: 1 }
    memory: 64MiB
    locality: { near: numa, numa: 1 }
    run:
      command: [sh, -c, 'grep -E "^(Cpus|Mems)_allowed_list" /proc/self/status >/tmp/first.txt; cat /proc/self/cgroup >>/tmp/first.txt; exec sleep 300']
      env: { PLACER_T: "a b $(x)" }
EOF2

# Runs in the guest (busybox sh); the guest's exit code is this script's.
cat >"$tmp/run-v2.sh" <<'EOF2'
set -u
. /t/in-guest.sh
export PLACER_STATE_DIR=/tmp/state
echo "GUEST nodes=$(cat /sys/devices/system/node/online) cpus=$(cat /sys/devices/system/cpu/online) fs=$(stat -f -c %T /sys/fs/cgroup)"
$P run /t/p.yaml || fail "placer run exited $?"
rec=/tmp/state/run/t-run-v2/near.0.json
pid=$(sed -n 's/^ *"pid": \([0-9]*\),*$/\1/p' "$rec")
[ -n "$pid" ] || fail "no pid in $rec"
grep -q '"joined_by": "clone3"' "$rec" || fail "not born in its group with clone3: $(grep joined_by "$rec")"
sleep 0.3
cat /tmp/first.txt
grep -q "^Cpus_allowed_list:[[:space:]]*1$" /tmp/first.txt || fail "first reading: cpus not 1"
grep -q "^Mems_allowed_list:[[:space:]]*1$" /tmp/first.txt || fail "first reading: mems not 1"
grep -q "^0::/placer/near/near.0$" /tmp/first.txt || fail "first reading: not in placer/near/near.0"
[ "$(cat /sys/fs/cgroup/placer/near/near.0/memory.max)" = 67108864 ] || fail "memory.max $(cat /sys/fs/cgroup/placer/near/near.0/memory.max)"
[ "$(cat /sys/fs/cgroup/placer/near/near.0/cpuset.mems)" = 1 ] || fail "cpuset.mems"
tr '\0' '\n' <"/proc/$pid/environ" | grep -qx 'PLACER_T=a b $(x)' || fail "environment not applied"
grep -q "^Cpus_allowed_list:[[:space:]]*1$" "/proc/$pid/status" || fail "sleep not on cpu 1"
$P stop /t/p.yaml || fail "placer stop exited $?"
st=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
case "$st" in ''|Z|X) ;; *) fail "pid $pid still runs (state $st)" ;; esac
[ ! -e /sys/fs/cgroup/placer ] || fail "placer's groups left: $(find /sys/fs/cgroup/placer -type d)"
echo "GUEST OK: born in its group by clone3, cpus 1, mems 1, memory.max, env; stop left nothing"
EOF2

guest_run_test run-v2 180 '^(GUEST|Cpus|Mems|0::|INSTANCE|near)' "$tmp/run-v2.sh" "$tmp/p.yaml:/t/p.yaml" || exit 1
