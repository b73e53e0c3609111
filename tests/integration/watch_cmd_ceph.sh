#!/bin/sh
# `placer watch` and an OSD of a real local Ceph cluster (libexec/ceph-cluster.sh: mon, mgr, one
# OSD) that crashes and is started again by its supervisor (ceph-cluster.sh kill / start, as a
# crash and a restart by systemd or a container runtime would): the OSD running at start is
# placed by the watcher's first rescan (every thread: check_placement.py), the new OSD process is
# back in its group, every thread, within a second of its start, and placer status is clean
# (exit 0) with the watcher still running; SIGTERM then leaves it placed and reset puts it back.
# ctest: cost=40
set -eu
T=watch_cmd_ceph
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd ceph-mon ceph-osd ceph-mgr ceph
apply_setup watch_cmd_ceph
. "$LIB/watch.sh"
CC=$SRC/libexec/ceph-cluster.sh
CLUSTER=$WORK/ceph
t_defer 'sh "$CC" down "$CLUSTER" >/dev/null 2>&1 || true'
WPID=""
t_defer '[ -z "$WPID" ] || { kill -9 "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }'
sh "$CC" up "$CLUSTER" --osds 1 --osd-size 4 || fail "ceph-cluster.sh up failed"

profile=$WORK/p.yaml
cat >"$profile" <<EOF2
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: osd
    kind: ceph-osd
    count: 1
    cpu: { threads: 1, pool: ceph }
EOF2
set -- $(planned "$profile" osd.0)
CPUS=$1 MEMS=$2
G=$TAG/osd/osd.0
in_group() { grep -qx "$1" "$CG/cpuset/$G/cgroup.procs" 2>/dev/null; }

OSD=$(cat "$CLUSTER/run/osd.0.pid")
placer_watch_start "$WORK/w.log" --interval 500 "$profile"
WPID=$WATCH_PID
has_line "$WORK/w.log" "^osd.0: placed pid $OSD in $G (found by a rescan)" || fail "osd.0 not placed: $(cat "$WORK/w.log")"
"$PY" "$LIB/check_placement.py" "$OSD" "$G" "$CPUS" "$MEMS" || fail "osd.0 placement"

sh "$CC" kill "$CLUSTER" osd.0 >/dev/null || fail "ceph-cluster.sh kill osd.0"
t0=$(date +%s%N)
NEW=$(sh "$CC" start "$CLUSTER" osd.0) || fail "ceph-cluster.sh start osd.0"
wait_for 1 in_group "$NEW" || fail "the restarted osd.0 (pid $NEW) not in $G within 1 s: $(grep cpuset "/proc/$NEW/cgroup")"
ms=$((($(date +%s%N) - t0) / 1000000))
"$PY" "$LIB/check_placement.py" "$NEW" "$G" "$CPUS" "$MEMS" || fail "the restarted osd.0's placement"
wait_for 5 has_line "$WORK/w.log" "^osd.0: placed pid $NEW in $G, .* after its exec" || fail "no log line for $NEW"
say "osd.0 restarted as pid $NEW: in its group ${ms} ms after 'start' ($(sed -n "s/^osd.0: placed pid $NEW in .*, \(.*\) after its exec/\1/p" "$WORK/w.log") after its exec, the watcher says)"
# status while the watcher runs: clean once the OSD is up again
rc=0
"$PLACER" status >"$WORK/status.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "status: exit $rc: $(cat "$WORK/status.txt")"

kill -TERM "$WPID"
wait "$WPID" || fail "exit $? after SIGTERM"
WPID=""
in_group "$NEW" || fail "osd.0 left its group when the watcher stopped"
"$PLACER" reset >"$WORK/reset.txt" 2>&1 || fail "reset: $(cat "$WORK/reset.txt")"
in_group "$NEW" && fail "osd.0 still in $G after reset"
[ -z "$(t_cgroups)" ] || fail "groups left: $(t_cgroups)"
say "ok"
