#!/bin/sh
# The watcher's core (tests/integration/lib/watchd.c) with a podman container rule: a container
# started after the watcher (its first process a child of conmon when runc execs it) is asked of
# podman and its process moved into the instance's group; removed and run again under the same
# name, its new process is placed again; a container of another name is left in podman's groups.
# The containers run the host's root as a copy-on-write overlay (--rootfs /:O, no image) under the
# test's own cgroup parent.
# ctest: needs=shared
set -eu
T=watch_container
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
need_root
need_cmd podman runc
. "$LIB/watch.sh"
export CONTAINERS_CONF="$SRC/containers/containers.conf"
t_begin
W=$T_WORK
ctr=$T_TAG-ctr
other=$T_TAG-other
t_defer t_remove_groups
t_defer "podman rm -f -t 0 '$ctr' '$other' >/dev/null 2>&1"

run_ctr() {
    podman run -d --name "$1" --cgroup-parent "/$T_TAG/pod" --rootfs /:O sleep 1000 >/dev/null 2>"$W/podman.err" ||
        skip "podman cannot run a container here: $(cat "$W/podman.err")"
    podman inspect --type container -f '{{.State.Pid}}' "$1"
}

G=$T_TAG/w/ctr
watch_start "$W/watch.log" --interval 500 --metrics-file "$W/watch.prom" "ctr=$G=0=container:$ctr"
WPID=$WATCH_PID

C1=$(run_ctr "$ctr")
O=$(run_ctr "$other")
wait_for 20 has_line "$W/watch.log" "^ctr: placed pid $C1 in $G (found by podman)" ||
    fail "the container's process $C1 was not placed: $(cat "$W/watch.log")"
grep -q "cpuset:/$G\$" "/proc/$C1/cgroup" || fail "pid $C1: $(cat "/proc/$C1/cgroup")"
grep -q "cpuset:/$T_TAG/pod/libpod-" "/proc/$O/cgroup" || fail "the other container moved: $(cat "/proc/$O/cgroup")"

podman rm -f -t 0 "$ctr" >/dev/null
C2=$(run_ctr "$ctr")
[ "$C2" != "$C1" ] || fail "the same pid after a new run"
wait_for 20 has_line "$W/watch.log" "^ctr: placed pid $C2 in $G (found by podman)" ||
    fail "the container run again ($C2) was not placed: $(cat "$W/watch.log")"
grep -q "cpuset:/$G\$" "/proc/$C2/cgroup" || fail "pid $C2: $(cat "/proc/$C2/cgroup")"

kill -TERM "$WPID"
rc=0
wait "$WPID" || rc=$?
[ "$rc" = 0 ] || fail "the watcher exited $rc"
[ ! -s "$W/watch.log.err" ] || fail "the watcher wrote to stderr: $(head -3 "$W/watch.log.err")"
podman rm -f -t 0 "$ctr" "$other" >/dev/null
say "ok: the container's process placed, and placed again after a new run; the other left"
