#!/bin/sh
# placer exec (the launcher that places a local cluster's daemons for placer bench),
# for real (root, cgroups):
#   - the command's own first reading of /proc/self/status and /proc/self/cgroup
#     already shows its plan: Cpus_allowed_list = the instance's cpus, and the group
#     PREFIX/ROLE/INSTANCE in the cpuset, memory, cpu and (where it is mounted apart)
#     cpuacct hierarchies; the memory limit is in the group's file;
#   - a Ceph daemon name resolves through the role's ceph_id (mon.a -> mon.0);
#   - --env reaches the command; the PID is the command's (exec, no fork);
#   - an unknown instance is refused (exit 2), a missing program reported (exit 4).
set -u
PLACER=${PLACER_BIN:?PLACER_BIN not set}
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
T=exec_placed
. "$SRC/tests/integration/lib/common.sh"
need_root
need_cmd /usr/bin/python3
t_begin
prefix=$T_TAG
work=$T_WORK
prof=$SRC/profiles/demo-local.yaml
t_defer t_remove_groups # placer exec leaves the groups it made: they outlive the command

plan=$("$PLACER" plan --json "$prof") || fail "placer plan"
cpus_of() {
  printf '%s' "$plan" | /usr/bin/python3 -c \
    "import json,sys; print({i['name']: i['cpus'] for i in json.load(sys.stdin)['instances']}['$1'])"
}
same_cpus() { # LIST LIST: the same set of CPUs
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
def s(t):
    out = set()
    for p in t.split(","):
        if "-" in p:
            a, b = p.split("-"); out.update(range(int(a), int(b) + 1))
        elif p:
            out.add(int(p))
    return out
sys.exit(0 if s(sys.argv[1]) == s(sys.argv[2]) else 1)
PY
}

for pair in "fio.0 fio.0 fio" "mon.a mon.0 mon" "osd.1 osd.1 osd"; do
  set -- $pair
  name=$1 inst=$2 role=$3
  out=$work/$name.txt
  "$PLACER" exec --prefix "$prefix" --env PLACER_T_EXEC=hello "$prof" "$name" -- \
    sh -c 'echo "pid $$"; grep -E "^Cpus_allowed_list" /proc/self/status; cat /proc/self/cgroup; echo "env $PLACER_T_EXEC"' \
    >"$out" 2>&1 || fail "$name: placer exec failed: $(cat "$out")"
  want=$(cpus_of "$inst")
  have=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$out")
  same_cpus "$have" "$want" || fail "$name: ran on cpus $have, the plan says $want"
  for c in cpuset memory cpu; do
    grep -E "^[0-9]+:([^:]*,)?$c(,[^:]*)?:/$prefix/$role/$inst\$" "$out" >/dev/null ||
      fail "$name: not in $prefix/$role/$inst of the $c hierarchy: $(cat "$out")"
  done
  if [ -d /sys/fs/cgroup/cpuacct ] && [ ! -L /sys/fs/cgroup/cpuacct ] && [ -d /sys/fs/cgroup/cpuacct/"$prefix" ]; then
    grep -E "^[0-9]+:([^:]*,)?cpuacct(,[^:]*)?:/$prefix/$role/$inst\$" "$out" >/dev/null ||
      fail "$name: not in the cpuacct hierarchy: $(cat "$out")"
  fi
  grep -q "^env hello$" "$out" || fail "$name: --env did not reach the command"
done
lim=$(cat /sys/fs/cgroup/memory/"$prefix"/fio/fio.0/memory.limit_in_bytes 2>/dev/null ||
      cat /sys/fs/cgroup/"$prefix"/fio/fio.0/memory.max)
[ "$lim" = $((512 << 20)) ] || fail "fio.0 memory limit is $lim, the profile says 512MiB"

# exec, not fork: the PID placer was started with is the command's.
sh -c 'echo $$ >"$1"; exec "$2" exec --prefix "$3" "$4" fio.0 -- sh -c "echo \$\$ >\"$1.inner\""' \
  sh "$work/outer" "$PLACER" "$prefix" "$prof" || fail "exec chain"
[ "$(cat "$work/outer")" = "$(cat "$work/outer.inner")" ] || fail "placer exec forked instead of exec'ing"

"$PLACER" exec --prefix "$prefix" "$prof" nosuch.0 -- true 2>"$work/e1"; rc=$?
[ "$rc" = 2 ] && grep -q "no instance 'nosuch.0'" "$work/e1" || fail "unknown instance: exit $rc: $(cat "$work/e1")"
"$PLACER" exec --prefix "$prefix" "$prof" fio.0 -- /nonexistent/prog 2>"$work/e2"; rc=$?
[ "$rc" = 4 ] && grep -q "exec '/nonexistent/prog'" "$work/e2" || fail "missing program: exit $rc: $(cat "$work/e2")"
"$PLACER" exec "$prof" fio.0 2>"$work/e3"; rc=$?
[ "$rc" = 2 ] || fail "usage: exit $rc"
echo "$T: OK"
