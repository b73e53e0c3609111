# Shared by the fleet_*.sh integration tests (sourced, POSIX sh, after T is set; lib/common.sh
# first; work and NODES set before the functions are called):
# ansible-playbook runs with their output kept, the PLAY RECAP read back, the two test profiles,
# and the check of the groups a node's apply made, seen from the host.
#   play NAME ARGS...          ansible-playbook ARGS with -i $work/inventory.yml, output in
#                              $work/NAME.out, exit code in $prc
#   recap NAME HOST KEY        a PLAY RECAP counter (ok, changed, failed, ...) of HOST
#   show NAME                  the tail of NAME's output from its first task (on failure)
#   fleet_profiles             $work/profile.yaml (fleet-a) and $work/profile-b.yaml (fleet-b)
#   fleet_check_groups NODE PREFIX APP_CPUS SVC_CPUS
#                              NODE's groups PREFIX/{app,svc}/*.0 hold its sleep 7001 / 7002 on
#                              the planned cpus, node 0, app's 64 MiB limit and svc's weight 200
# The node's container cgroup path is in $work/NODE.cgpath (cgpath NODE).
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
cgpath() { cat "$work/$1.cgpath" 2>/dev/null; }

play() {
  out=$1
  shift
  t0=$(date +%s)
  (cd "$SRC/ansible" && timeout 240 ansible-playbook -i "$work/inventory.yml" "$@") >"$work/$out.out" 2>&1
  prc=$?
  say "$out: exit $prc in $(($(date +%s) - t0)) s"
}
recap() {
  sed -n "/^PLAY RECAP/,\$p" "$work/$1.out" | grep "^$2 " | tail -1 | sed -n "s/.* $3=\([0-9]*\).*/\1/p"
}
show() { sed -n '/TASK\|fatal\|FAILED\|PLAY RECAP/,$p' "$work/$1.out" | tail -40 >&2; }

# Two profiles: both plan cpus 0 and 1 on NUMA node 0 of every fixture (their first two cores'
# first PUs), so they can be put in force on a 2-CPU machine; profile b swaps the roles.
# align: numa, the lowest free cores of the node: on the EPYC fixture, cache alignment would give
# the second role a core of the next L3 (cpu 3), which this machine does not have.
fleet_profiles() {
  cat >"$work/profile.yaml" <<'YAML'
version: 1
name: fleet-a
reserve: { cores: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: 1, align: numa }
    memory: 64MiB
    locality: { near: numa, numa: 0 }
    match: { cmdline: "sleep 7001" }
  - name: svc
    kind: generic
    count: 1
    cpu: { threads: 1, weight: 200, align: numa }
    locality: { near: numa, numa: 0 }
    match: { cmdline: "sleep 7002" }
YAML
  sed -e 's/name: fleet-a/name: fleet-b/' "$work/profile.yaml" | awk '
    /^  - name: app/ { grab = 1 } /^  - name: svc/ { grab = 0 }
    grab { app = app $0 "\n"; next } { print } END { printf "%s", app }' >"$work/profile-b.yaml"
}

fleet_check_groups() {
  n=$1 base="$(cgpath "$1")/$2"
  for r in app:$3 svc:$4; do
    role=${r%%:*} want=${r#*:}
    d=$CG/cpuset$base/$role/$role.0
    [ "$(cat "$d/cpuset.cpus" 2>/dev/null)" = "$want" ] || fail "$n: $d/cpuset.cpus is '$(cat "$d/cpuset.cpus" 2>&1)', planned $want"
    [ "$(cat "$d/cpuset.mems")" = 0 ] || fail "$n: $d/cpuset.mems is $(cat "$d/cpuset.mems")"
    pids=$(cat "$d/cgroup.procs")
    [ "$(echo "$pids" | wc -w)" = 1 ] || fail "$n: $d holds '$pids', expected one process"
    case "$role" in app) cmd="sleep 7001" ;; *) cmd="sleep 7002" ;; esac
    [ "$(tr '\0' ' ' <"/proc/$pids/cmdline")" = "$cmd " ] || fail "$n: $d holds pid $pids, not '$cmd'"
    allowed=$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$pids/status")
    [ "$allowed" = "$want" ] || fail "$n: pid $pids ($cmd) Cpus_allowed_list $allowed, planned $want"
    grep -q "^[0-9]*:cpuset:$base/$role/$role.0\$" "/proc/$pids/cgroup" || fail "$n: pid $pids not in cpuset $base/$role/$role.0"
  done
  lim=$(cat "$CG/memory$base/app/app.0/memory.limit_in_bytes")
  [ "$lim" = $((64 << 20)) ] || fail "$n: app.0 memory.limit_in_bytes $lim, planned 64 MiB"
  shares=$(cat "$CG/cpu$base/svc/svc.0/cpu.shares")
  w=$(((shares * 100 + 512) / 1024)) # placer's v1 mapping: linear, 100 = 1024 shares
  [ "$w" = 200 ] || fail "$n: svc.0 cpu.shares $shares is weight $w, planned 200"
}

# NODE's groups under its container are gone (after reset).
fleet_check_reset() {
  for h in cpuset cpu memory; do
    [ ! -d "$CG/$h$(cgpath "$1")/$2" ] || fail "$1: $CG/$h$(cgpath "$1")/$2 left after reset"
  done
}

# Cleanup of a node's container and of every group under it (runc removes the container's
# groups; what placer made under them must go too). Sets rc=1 when a group stays.
fleet_remove_node() {
  podman rm -f -t 0 "$1" >/dev/null 2>&1
  p=$(cgpath "$2")
  [ -n "$p" ] || return 0
  for d in "$CG"/*"$p"; do
    [ -d "$d" ] || continue
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
    [ ! -d "$d" ] || { echo "$T: cgroup $d left behind" >&2; rc=1; }
  done
}
