#!/bin/sh
# placer apply binds a podman container by name (its PID from
# `podman inspect`, podman run without a shell): the container's process
# leaves podman's libpod_parent/libpod-ID groups for placer's, with the
# planned CPUs; a container that does not exist is a clear note; reset puts
# the process back in podman's groups.  The container runs the host's root
# as a copy-on-write overlay (--rootfs /:O): no image needed.
# After the image builds (needs=shared): no podman build may be making libpod_parent beside it.
# ctest: needs=shared
set -eu
T=apply_container
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd podman runc
export CONTAINERS_CONF="$SRC/containers/containers.conf"
apply_setup apply_container
ctr=$TAG-ctr
# podman (cgroupfs, no --cgroup-parent) makes libpod_parent and its conmon
# child in every hierarchy and leaves them after 'podman rm': remove them
# when this test is the one that made them (conmon may take a moment to go).
[ -d "$CG/cpuset/libpod_parent" ] && had_libpod_parent=1 || had_libpod_parent=0
remove_libpod_parent() {
    [ "$had_libpod_parent" = 0 ] || return 0
    for try in 1 2 3 4 5 6 7 8 9 10; do
        left=0
        for d in "$CG"/*/libpod_parent; do
            [ -d "$d" ] || continue
            rmdir "$d/conmon" 2>/dev/null; rmdir "$d" 2>/dev/null || left=1
        done
        [ "$left" = 0 ] && return 0
        sleep 0.5
    done
    echo "apply_container: podman's libpod_parent groups still busy: $(ls -d "$CG"/*/libpod_parent)" >&2
    return 1
}
t_defer 'podman rm -f -t 0 "$ctr" >/dev/null 2>&1; remove_libpod_parent || rc=1'

podman run -d --name "$ctr" --rootfs /:O sleep 1000 >/dev/null 2>"$WORK/podman.err" ||
    skip "podman cannot run a container here: $(cat "$WORK/podman.err")"
C=$(podman inspect --type container -f '{{.State.Pid}}' "$ctr")
[ "$C" -gt 0 ] || fail "podman inspect gave pid '$C'"
grep -q "cpuset:/libpod_parent/libpod-" "/proc/$C/cgroup" || fail "container not in podman's groups: $(cat "/proc/$C/cgroup")"
snapshot "$C" >"$WORK/before"

profile=$WORK/ctr.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: ctr
    kind: generic
    count: 2
    cpu: { threads: 1 }
    memory: 128MiB
    match: { container: "$TAG-{index}" }
EOF
podman rename "$ctr" "$TAG-0"
ctr=$TAG-0
"$PLACER" apply "$profile" >"$WORK/out" || fail "apply: $(cat "$WORK/out")"
cat "$WORK/out"
grep -q "^ctr.0 .* bound pid $C sleep" "$WORK/out" || fail "container not bound"
grep -q "^ctr.1 .* no process matches podman container '$TAG-1' (podman inspect: .*no such" "$WORK/out" ||
    fail "missing container note"
set -- $(planned "$profile" ctr.0)
"$PY" "$LIB/check_placement.py" "$C" "$TAG/ctr/ctr.0" "$1" "$2" || fail "container placement"
"$PLACER" status >"$WORK/out" || fail "status: $(cat "$WORK/out")"
"$PLACER" reset >/dev/null || fail "reset"
snapshot "$C" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "reset did not put the container's process back (diff above)"
say "container bound by name via podman inspect, placed, and back in podman's groups after reset"
say "ok"
