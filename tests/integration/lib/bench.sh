# Shared by the bench_*.sh integration tests (sourced, POSIX sh, after T is set):
# skip/fail/say, a work directory and a cgroup prefix of the test's own, what of the
# test still runs (processes in its groups or naming its work directory), and an EXIT
# trap that tears down any local cluster left under the work directory, kills what
# is left, fails on a cgroup left behind and removes the work directory when all went
# well (keeps it, and says so, when not).
#   bench_setup [DIR_BASE]   $work (under DIR_BASE, default ${TMPDIR:-/tmp}) and $prefix
#   bench_ours               PIDs of the test still running
#   bench_nothing_left WHAT  fail unless no cluster, process or group of the test is left
#   bench_progress_whole ERR WHAT  fail unless the last progress line in ERR counts as many
#                            runs done as it said there were ("[N/N]")
PLACER=${PLACER_BIN:?PLACER_BIN not set}
SRC=${PLACER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
skip() { echo "$T: SKIP: $*"; exit 77; }
fail() { echo "$T: FAIL: $*" >&2; exit 1; }
say() { echo "$T: $*"; }

bench_setup() {
  work=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/placer-$T.XXXXXX")
  prefix=placer-t-$T-$$
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM HUP
}

bench_ours() {
  # Two greps over /proc, not a grep per process: under load a scan must take well under the
  # few seconds a run lasts.  "[/]..." matches the work directory's path but not grep's own
  # argument list; $$ is the test's shell (its cmdline names the test, not $work).
  { grep -l -- "/$prefix/" /proc/[0-9]*/cgroup; grep -lz -- "[/]${work#/}/" /proc/[0-9]*/cmdline; } 2>/dev/null |
    sed -n 's,^/proc/\([0-9]*\)/.*,\1,p' | sort -un | grep -vx "$$" | tr '\n' ' '
  return 0
}

bench_nothing_left() {
  for r in "$work"/cluster "$work"/*/cluster; do [ ! -d "$r" ] || fail "$1: cluster directory $r left"; done
  [ -z "$(bench_ours)" ] || fail "$1: processes left: $(bench_ours)"
  for d in /sys/fs/cgroup/*/"$prefix" /sys/fs/cgroup/"$prefix"; do
    [ ! -d "$d" ] || fail "$1: cgroup $d left behind"
  done
}

bench_progress_whole() {
  # names of its own: sourced functions share the test's variables
  _bpw_last=$(grep -o '\[[0-9]*/[0-9]*\]' "$1" | tail -1)
  _bpw_done=${_bpw_last#[} _bpw_total=${_bpw_last#*/}
  [ -n "$_bpw_last" ] && [ "${_bpw_done%%/*}" = "${_bpw_total%]}" ] ||
    fail "$2: the last progress line counts '$_bpw_last', not every run: $(grep '\[[0-9]*/' "$1" | tail -1)"
}

bench_cleanup() {
  rc=$?
  trap - EXIT INT TERM HUP
  for r in "$work"/cluster "$work"/*/cluster; do
    [ -d "$r" ] && sh "$SRC/ci/ceph-cluster.sh" down "$r" >/dev/null 2>&1
  done
  for p in $(bench_ours); do kill -9 "$p" 2>/dev/null; done
  sleep 0.5
  for d in /sys/fs/cgroup/*/"$prefix" /sys/fs/cgroup/"$prefix"; do
    [ -d "$d" ] || continue
    echo "$T: cgroup $d left behind" >&2
    find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
    rc=1
  done
  [ "$rc" = 0 ] && rm -rf "$work" || echo "$T: kept $work" >&2
  exit "$rc"
}
