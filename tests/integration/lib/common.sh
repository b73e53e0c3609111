# What every integration test sources first (POSIX sh): one skip, fail and say; the test's own
# scratch directory, cgroup prefix and state directory; and one teardown, on failure as on
# success, that undoes what the test registered and then fails the test for whatever of its own
# it still finds (a leak).  ci/leftovers.py checks the whole machine once more after the suite.
#
#   T=NAME; . "$PLACER_SOURCE_DIR/tests/integration/lib/common.sh"
#   skip MSG            "T: SKIP: MSG", exit 77 (ctest counts it skipped)
#   fail MSG            "T: FAIL: MSG" on stderr, exit 1
#   say MSG             "T: MSG"
#   need_root [WHY]     skip unless root ("needs root", or "needs root (WHY)")
#   need_cmd CMD...     skip unless every CMD is on PATH
#   t_begin [BASE]      $T_WORK (a new directory under BASE, default ${TMPDIR:-/tmp}; /var/tmp
#                       where the test needs O_DIRECT), $T_TAG (placer-t-T-PID: the cgroup
#                       prefix and the name of whatever the test creates), PLACER_CGROUP_PREFIX
#                       and PLACER_STATE_DIR exported, the EXIT/INT/TERM/HUP traps set
#   t_defer CMD         run CMD (a shell command) at teardown, the last registered first
#   t_ours              PIDs of the test still running: in a cgroup named $T_TAG, or naming
#                       $T_WORK on their command line
#   t_nothing_left WHAT fail unless no process or cgroup of the test is left (mounts a test
#                       made on purpose stay until its deferred cleanup; the teardown checks them)
#   t_remove_groups     remove the test's cgroups ($T_TAG in every hierarchy, deepest first;
#                       for up to 5 s while a process is still leaving them, as podman's conmon
#                       does after `podman rm`): deferred by a test whose groups are meant to
#                       outlive its commands (placer exec's; podman's --cgroup-parent=/$T_TAG and
#                       its conmon child), so that they are not counted as a leak
#
# Teardown: the deferred commands (with set +e), then any process of the test is killed, any
# mount under $T_WORK unmounted and any cgroup named $T_TAG removed in every hierarchy; each of
# those is a leak and fails a test that passed.  $T_WORK is removed when the test passed and kept
# (and named) when it failed.
PLACER=${PLACER_BIN:-}
SRC=${PLACER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LIB=$SRC/tests/integration/lib
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
CG=/sys/fs/cgroup
T=${T:-$(basename "$0" .sh)}
T_WORK=""
T_TAG=placer-t-$T-$$
T_DEFERRED=""

skip() {
    echo "$T: SKIP: $*"
    exit 77
}
fail() {
    echo "$T: FAIL: $*" >&2
    exit 1
}
say() { echo "$T: $*"; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root${1:+ ($1)}"; }
need_cmd() {
    for _nc in "$@"; do
        command -v "$_nc" >/dev/null 2>&1 || skip "$_nc not installed (ci/install-deps.sh all)"
    done
}
# fio with each ioengine named (rbd, filecreate, ...), read from `fio --enghelp`'s list:
# --enghelp=NAME exits 1 alike for an engine it lacks and one without options (filecreate).
need_fio_engine() {
    need_cmd fio
    _engines=$(fio --enghelp 2>/dev/null)
    for _ne in "$@"; do
        printf '%s\n' "$_engines" | grep -qx "[[:space:]]*$_ne" || skip "this fio has no $_ne engine"
    done
}

t_begin() {
    T_WORK=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/placer-t-$T.XXXXXX") || fail "mktemp"
    export PLACER_CGROUP_PREFIX="$T_TAG"
    export PLACER_STATE_DIR="$T_WORK/state"
    trap t_teardown EXIT
    trap 'exit 130' INT TERM HUP
}

# A newline-separated stack: the last registered runs first.
t_defer() {
    T_DEFERRED="$*
$T_DEFERRED"
}

t_ours() {
    # Two greps over /proc, not one per process: under load a scan must stay well under a second.
    # "[/]..." matches the work directory's path but not grep's own argument list.
    { grep -l -- "/$T_TAG\(/\|\$\)" /proc/[0-9]*/cgroup
      [ -z "$T_WORK" ] || grep -lz -- "[/]${T_WORK#/}" /proc/[0-9]*/cmdline; } 2>/dev/null |
        sed -n 's,^/proc/\([0-9]*\)/.*,\1,p' | sort -un | grep -vx "$$" | tr '\n' ' '
    return 0
}

t_cgroups() {
    for _d in "$CG"/*/"$T_TAG" "$CG/$T_TAG" "$CG"/unified/"$T_TAG"; do [ -d "$_d" ] && echo "$_d"; done
    return 0
}

t_mounts() {
    [ -n "$T_WORK" ] && awk -v p="$T_WORK/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r
    return 0
}

t_nothing_left() {
    [ -z "$(t_ours)" ] || fail "$1: processes left: $(t_ours)"
    [ -z "$(t_cgroups)" ] || fail "$1: cgroups left: $(t_cgroups | tr '\n' ' ')"
}

t_remove_groups() {
    _rg_try=0
    while [ -n "$(t_cgroups)" ] && [ $_rg_try -lt 50 ]; do
        for _rg in $(t_cgroups); do
            find "$_rg" -depth -type d -exec rmdir {} \; 2>/dev/null
        done
        [ -z "$(t_cgroups)" ] || sleep 0.1
        _rg_try=$((_rg_try + 1))
    done
    return 0
}

t_teardown() {
    rc=$?
    trap - EXIT INT TERM HUP
    set +e
    _td_cmds=$T_DEFERRED
    T_DEFERRED=""
    while IFS= read -r _td; do
        [ -n "$_td" ] && eval "$_td"
    done <<EOF
$_td_cmds
EOF
    _td_left=$(t_ours)
    if [ -n "$_td_left" ]; then
        echo "$T: teardown: killing what the test left running: $_td_left" >&2
        kill -9 $_td_left 2>/dev/null
        sleep 0.3
        [ "$rc" != 0 ] || rc=1
    fi
    for _td in $(t_mounts); do
        echo "$T: teardown: unmounting $_td, left mounted" >&2
        umount "$_td" 2>/dev/null || umount -l "$_td"
        [ "$rc" != 0 ] || rc=1
    done
    for _td in $(t_cgroups); do
        echo "$T: teardown: removing cgroup $_td, left behind" >&2
        # any task still there goes back to the hierarchy's root first
        find "$_td" -name cgroup.procs | while read -r _f; do
            while read -r _p; do echo "$_p" >"${_td%/"$T_TAG"}/cgroup.procs"; done <"$_f"
        done 2>/dev/null
        find "$_td" -depth -type d -exec rmdir {} \; 2>/dev/null
        [ "$rc" != 0 ] || rc=1
    done
    if [ -n "$T_WORK" ] && [ -d "$T_WORK" ]; then
        if [ "$rc" = 0 ]; then rm -rf "$T_WORK"; else echo "$T: kept $T_WORK" >&2; fi
    fi
    exit "$rc"
}
