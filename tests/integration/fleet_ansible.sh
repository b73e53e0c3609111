#!/bin/sh
# The Ansible fleet playbooks (ansible/, docs/fleet.md) for real, the way they reach real hosts:
# over ssh (ansible_connection: ssh, a key made for the test, pipelining from ansible.cfg). 3 podman
# containers act as nodes, each running its own sshd (/usr/sbin/sshd -D) on 127.0.0.1 and a port
# of its own (--network host: loopback only, key authentication only, host keys made in the
# container's copy-on-write overlay of this machine's root), each with its own hwloc XML from
# tests/fixtures (AMD EPYC 8 NUMA nodes, Intel 2x8c2t, Intel quartz 2x18c no SMT), cgroup prefix
# and state dir; one installs placer from the build, one from the .deb that `cpack -G DEB` makes:
#   - site.yml applies and verifies on all 3: the cgroup files each node's apply made (seen from
#     the host under the container's own cgroup: cpuset.cpus/mems, memory limit, cpu.shares), the
#     node's two processes in their groups on the planned CPUs; the facts differ per node; each
#     node's sshd log has the key's logins;
#   - a second site.yml reports changed=0 on every node and does not unpack the build again;
#     rolling (-e placer_serial=1, the plan tasks) it runs the nodes one after another: one batch
#     per node, no node's task between another's;
#   - a drift (another cpuset written into one group of one node) fails verify.yml on that node
#     only; site.yml --check --diff shows that node's plan diff and what apply would set, and
#     changes nothing;
#   - bench.yml runs a tiny study (cluster none: fio on a file) on 2 nodes, fetches both results
#     directories and merges them into one report (fleet.json, fleet.md);
#   - reset.yml removes every group and puts the processes back; a second reset changes nothing.
#   - then site.yml with placer_backend=systemd on n3 fails it with placer's own line (no systemd
#     there to place through) and leaves no group.
# Cleanup (also on failure or SIGTERM): containers (and their sshd) removed, every cgroup under
# them gone, nothing listening on the test's ports, no ssh client left.
# ctest: cost=150
set -u
PLACER=${PLACER_BIN:?PLACER_BIN not set}
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
T=fleet_ansible
. "$SRC/tests/integration/lib/fleet.sh"
need_root
need_cmd ansible-playbook podman runc fio ssh ssh-keygen ss tar cpack python3
[ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (sh ci/install-deps.sh all)"
[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] || skip "needs the cgroup v1 cpuset hierarchy (this test reads the nodes' groups there)"
BUILD=$(cd "$(dirname "$PLACER")" && pwd)
[ -f "$BUILD/CPackConfig.cmake" ] || skip "$BUILD has no CPackConfig.cmake"
export CONTAINERS_CONF="$SRC/containers/containers.conf"
export ANSIBLE_CONFIG="$SRC/ansible/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks # each task's time in the .out files
export ANSIBLE_LOCAL_TEMP ANSIBLE_HOME ANSIBLE_SSH_CONTROL_PATH_DIR

t_begin /var/tmp # not tmpfs: fio's O_DIRECT in the study
work=$T_WORK
ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_HOME=$work/ansible-home ANSIBLE_SSH_CONTROL_PATH_DIR=$work/cp
tag=$T_TAG
NODES="n1 n2 n3"
ports=""
cleanup() {
  for n in $NODES; do fleet_remove_node "$tag-$n" "$n"; done
  # ansible's ssh masters (ControlPersist) end with their sshd (given 5 s to see it go); any left
  # are killed and reported.
  j=0
  while left=$(pgrep -f "ssh.*$work/cp" | tr '\n' ' ') && [ -n "$left" ] && [ $j -lt 25 ]; do
    j=$((j + 1))
    sleep 0.2
  done
  [ -z "$left" ] || { echo "$T: ssh clients left: $left" >&2; kill $left 2>/dev/null; rc=1; }
  for p in $ports; do
    [ -z "$(ss -Htln "sport = :$p")" ] || { echo "$T: something still listens on port $p" >&2; rc=1; }
  done
}
# podman's groups under --cgroup-parent=/$tag (its conmon's outlives `podman rm`), after cleanup
t_defer t_remove_groups
t_defer cleanup

# A free loopback port per node, none of those taken for the nodes before it (their sshd may not
# listen yet).
free_port() {
  p=$((20000 + ($$ * 7 + $1) % 20000))
  while [ -n "$(ss -Htan "sport = :$p")" ] || case " $ports " in *" $p "*) true ;; *) false ;; esac; do
    p=$((p + 1))
  done
  echo "$p"
}

ssh-keygen -q -t ed25519 -N "" -C placer-fleet-test -f "$work/key" || fail "ssh-keygen"
# --- the nodes: sshd on 127.0.0.1:PORT each ---------------------------------------------------
i=0
for n in $NODES; do
  i=$((i + 1))
  port=$(free_port $i)
  ports="$ports $port"
  echo "$port" >"$work/$n.port"
  mkdir -p "$work/$n"
  podman run -d --name "$tag-$n" --cgroup-parent="/$tag" --privileged --cgroupns=host --network host \
    -v "$work/key.pub:/etc/placer-test/authorized_keys:ro" -v "$work/$n:/var/lib/placer" --rootfs /:O \
    sh -c "sleep 7001 & sleep 7002 & mkdir -p /run/sshd && ssh-keygen -A -q &&
           exec /usr/sbin/sshd -D -e -p $port -o ListenAddress=127.0.0.1 -o UsePAM=no \
             -o AuthorizedKeysFile=/etc/placer-test/authorized_keys -o PasswordAuthentication=no \
             -o KbdInteractiveAuthentication=no -o PermitRootLogin=prohibit-password" \
    >/dev/null 2>"$work/$n.err" || fail "podman run $n: $(cat "$work/$n.err")"
  podman inspect -f '{{.State.CgroupPath}}' "$tag-$n" >"$work/$n.cgpath" || fail "podman inspect $n"
  [ -d "$CG/cpuset$(cgpath "$n")" ] || fail "$n: no cpuset group $(cgpath "$n") on the host"
done
for n in $NODES; do
  port=$(cat "$work/$n.port") j=0
  until ss -Htln "sport = :$port" | grep -q "127.0.0.1:$port"; do
    j=$((j + 1))
    [ $j -lt 300 ] || fail "$n: no sshd listening on 127.0.0.1:$port in 60 s: $(podman logs "$tag-$n" 2>&1 | tail -3)"
    sleep 0.2
  done
  [ -z "$(ss -Htln "sport = :$port" | grep -v "127.0.0.1:$port")" ] || fail "$n: sshd listens beyond 127.0.0.1: $(ss -Htln "sport = :$port")"
done
say "3 nodes up, sshd on 127.0.0.1 ports$ports"

# The .deb for n2, made outside the build directory.
cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/deb" >"$work/cpack.out" 2>&1 ||
  { cat "$work/cpack.out" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/deb/placer_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no placer_*.deb"
rm -rf "$work/deb/_CPack_Packages"

fleet_profiles

cat >"$work/study.yaml" <<'EOF'
version: 1
title: fleet tiny study
cluster: { type: none }
variants:
  - { name: unpinned, profile: unpinned }
  - { name: pinned, profile: demo-local }
workloads:
  path: target.img
  size: 16MiB
  block_sizes: [4K]
  patterns: [randread]
  iodepth: 4
  runtime: 1
  ramp: 0
repeats: 1
warmup: 0
EOF

F=$SRC/tests/fixtures
cat >"$work/inventory.yml" <<EOF
all:
  vars:
    ansible_connection: ssh
    ansible_host: 127.0.0.1
    ansible_user: root
    ansible_ssh_private_key_file: $work/key
    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=$work/known_hosts -o IdentitiesOnly=yes
    ansible_python_interpreter: /usr/bin/python3
    placer_install: build
    placer_build_dir: $BUILD
    placer_profile: $work/profile.yaml
    placer_state_dir: /var/lib/placer/state
  children:
    placer_nodes:
      hosts:
        n1:
          ansible_port: $(cat "$work/n1.port")
          placer_topology_xml: $F/mpibind-epyc-corona.xml
          placer_cgroup_prefix: fleet-n1
        n2:
          ansible_port: $(cat "$work/n2.port")
          placer_topology_xml: $F/32em64t-2n8c2t-pci-normalio.xml
          placer_cgroup_prefix: fleet-n2
          placer_install: deb
          placer_deb: $deb
        n3:
          ansible_port: $(cat "$work/n3.port")
          placer_topology_xml: $F/mpibind-cts1-quartz-smt1.xml
          placer_cgroup_prefix: fleet-n3
          placer_profile: $work/profile-b.yaml
    placer_bench:
      hosts:
        n1: {}
        n2: {}
EOF
# Expected per node: prefix, app.0 cpus, svc.0 cpus, PUs of its fixture.
expect_n1="fleet-n1 0 1 96" expect_n2="fleet-n2 0 1 32" expect_n3="fleet-n3 1 0 36"
groups_of() { echo "$CG/cpuset$(cgpath "$1")/fleet-$1"; }

# --- apply and verify on all 3 -------------------------------------------------------------------
play apply1 playbooks/site.yml
[ "$prc" = 0 ] || { show apply1; fail "site.yml exited $prc"; }
for n in $NODES; do
  [ "$(recap apply1 $n failed)" = 0 ] || { show apply1; fail "$n failed in site.yml"; }
  [ "$(recap apply1 $n changed)" -gt 0 ] || { show apply1; fail "$n: nothing changed in the first site.yml"; }
done
# The cgroup files each node's apply made, and its processes in them.
for n in $NODES; do
  eval "set -- \$expect_$n"
  prefix=$1 app=$2 svc=$3
  fleet_check_groups "$n" "$prefix" "$app" "$svc"
  # The node planned from its own XML.
  podman exec "$tag-$n" cmp -s /etc/placer/topology.xml "$(sed -n "/^        $n:/,/placer_cgroup/s/.*placer_topology_xml: //p" "$work/inventory.yml")" ||
    fail "$n: /etc/placer/topology.xml is not its fixture"
done
podman exec "$tag-n2" dpkg-query -W -f '${Version}' placer >"$work/n2.deb" 2>&1 || fail "n2: placer .deb not installed: $(cat "$work/n2.deb")"
podman exec "$tag-n1" test -x /usr/local/bin/placer || fail "n1: placer not installed from the build"
podman exec "$tag-n1" grep -Eqx '[0-9a-f]{64}' /usr/local/share/placer/build.sha256 ||
  fail "n1: no checksum of the installed build in /usr/local/share/placer/build.sha256"
# What ansible reached was the nodes' sshd: their logs have the key's logins.
for n in $NODES; do
  podman logs "$tag-$n" 2>&1 | grep -q "Accepted publickey for root from 127.0.0.1" || fail "$n: no ssh login in sshd's log"
done
say "applied: every node's groups hold its processes on the planned CPUs (n2 from the .deb $(cat "$work/n2.deb"))"

# The facts differ per node (the plan task prints each node's PUs from its topology facts).
for n in $NODES; do
  eval "set -- \$expect_$n"
  grep -A1 "^ok: \[$n\] => {" "$work/apply1.out" | grep -q "\"msg\": \"$4 PUs, .*/etc/placer/topology.xml); profile fleet-.: app.0 cpus $2 mems 0; svc.0 cpus $3 mems 0\"" ||
    { grep -A1 "^ok: \[$n\] => {" "$work/apply1.out" >&2; fail "$n: the plan task does not say $4 PUs, app.0 cpus $2, svc.0 cpus $3"; }
done

# --- idempotent ----------------------------------------------------------------------------------
play apply2 playbooks/site.yml
[ "$prc" = 0 ] || { show apply2; fail "second site.yml exited $prc"; }
for n in $NODES; do
  [ "$(recap apply2 $n changed)" = 0 ] || { show apply2; fail "$n: the second site.yml changed $(recap apply2 $n changed) things"; }
done
# The unchanged build was not sent again (the nodes' build.sha256 is the staged tree's).
for n in n1 n3; do
  sed -n '/^TASK \[placer.fleet.node : Install placer from the build/,/^$/p' "$work/apply2.out" | grep -q "^skipping: \[$n\]" ||
    { show apply2; fail "$n: the second site.yml unpacked the unchanged build again"; }
done
# Rolling (-e placer_serial=1), on the plan tasks only (a whole rolling site.yml is the same
# batches, three times longer): a play header per batch, and the hosts' task results in runs
# (n1's all before n2's); the first site.yml (serial 100%) interleaves them.
play rolling playbooks/site.yml --tags plan -e placer_serial=1
[ "$prc" = 0 ] || { show rolling; fail "site.yml --tags plan -e placer_serial=1 exited $prc"; }
batches=$(grep -c '^PLAY \[' "$work/rolling.out")
order=$(sed -n 's/^\(ok\|changed\|skipping\): \[\(n[0-9]\)\].*/\2/p' "$work/rolling.out" | uniq | tr '\n' ' ')
[ "$batches" = 3 ] && [ "$order" = "n1 n2 n3 " ] || { show rolling; fail "placer_serial=1: $batches play batches, hosts in the order '$order', want 3 and 'n1 n2 n3'"; }
order1=$(sed -n 's/^\(ok\|changed\|skipping\): \[\(n[0-9]\)\].*/\2/p' "$work/apply1.out" | uniq | wc -l)
[ "$order1" -gt 3 ] || fail "the first site.yml (serial 100%) did not interleave the nodes: $order1 runs"
say "second run: changed=0 on every node; rolling (placer_serial=1): 3 batches, n1 then n2 then n3"

# --- drift on one node fails only that node --------------------------------------------------------
echo 0 >"$(groups_of n2)/svc/svc.0/cpuset.cpus" || fail "could not write the drift"
play drift playbooks/verify.yml
[ "$prc" != 0 ] || { show drift; fail "verify.yml passed with a drift on n2"; }
[ "$(recap drift n2 failed)" = 1 ] || { show drift; fail "n2 did not fail on its drift"; }
for n in n1 n3; do
  [ "$(recap drift $n failed)" = 0 ] && [ "$(recap drift $n ok)" -gt 0 ] || { show drift; fail "$n failed without drift"; }
done
grep -q "placement drift: svc.0: " "$work/drift.out" || { show drift; fail "n2's failure does not name svc.0"; }
# Check mode shows what would change on n2 only (its plan's diff and apply's dry run) and changes
# nothing: the drift is still there.
play check playbooks/site.yml --check --diff --skip-tags install
[ "$prc" = 0 ] || { show check; fail "site.yml --check --diff exited $prc"; }
[ "$(recap check n2 changed)" -gt 0 ] && [ "$(recap check n1 changed)" = 0 ] && [ "$(recap check n3 changed)" = 0 ] ||
  { show check; fail "check mode: changed n1=$(recap check n1 changed) n2=$(recap check n2 changed) n3=$(recap check n3 changed)"; }
grep -q "^+++ after: plan (fleet-a)" "$work/check.out" || { show check; fail "no plan diff in check mode"; }
sed -n '/^--- before: in force (fleet-a)/,/^changed: /p' "$work/check.out" >"$work/check.diff"
grep -q "^-  cpus: 0" "$work/check.diff" && grep -q "^+  cpus: 1" "$work/check.diff" && grep -q "^changed: \[n2\]" "$work/check.diff" ||
  { cat "$work/check.diff" >&2; fail "the check-mode diff does not show n2's svc.0 going from cpus 0 to 1"; }
[ "$(cat "$(groups_of n2)/svc/svc.0/cpuset.cpus")" = 0 ] || fail "check mode changed n2's svc.0"
say "drift on n2: only n2 failed; --check --diff showed its repair and changed nothing"

# --- a fleet study on 2 nodes ------------------------------------------------------------------
play bench playbooks/bench.yml -e "placer_bench_study=$work/study.yaml placer_bench_results=$work/results placer_bench_prefix=fleet-bench placer_bench_allow_inconclusive=true"
[ "$prc" = 0 ] || { show bench; fail "bench.yml exited $prc"; }
python3 - "$work/results/study" <<'PY' || fail "merged fleet results"
import json, os, sys
d = sys.argv[1]
for n in ("n1", "n2"):
    s = json.load(open(os.path.join(d, n, "summary.json")))
    assert len(s["runs"]) == 2 and all(r["read"]["iops"] > 0 for r in s["runs"]), (n, s["runs"])
f = json.load(open(os.path.join(d, "fleet", "fleet.json")))
assert f["nodes"] == ["n1", "n2"], f["nodes"]
assert sorted(f["per_node"]) == ["n1", "n2"]
cells = f["across_nodes"]
assert len(cells) == 2, cells
for c in cells:
    assert c["n_nodes"] == 2 and set(c["nodes"]) == {"n1", "n2"}, c
    assert c["min"] > 0 and c["min"] <= c["median"] <= c["max"], c
md = open(os.path.join(d, "fleet", "fleet.md")).read()
assert "## n1" in md and "## n2" in md and "Across nodes" in md, md
print("fleet_ansible: merged:", "; ".join("%s %s median %.0f IOPS (n1 %.0f, n2 %.0f)" % (
    c["variant"], c["workload"], c["median"], c["nodes"]["n1"], c["nodes"]["n2"]) for c in cells))
PY
[ ! -d "$CG/cpuset$(cgpath n1)/fleet-bench" ] || fail "the study left its groups on n1"

# --- reset -----------------------------------------------------------------------------------
play reset1 playbooks/reset.yml
[ "$prc" = 0 ] || { show reset1; fail "reset.yml exited $prc"; }
for n in $NODES; do
  fleet_check_reset "$n" "fleet-$n"
  [ "$(recap reset1 $n changed)" = 1 ] || { show reset1; fail "$n: reset changed $(recap reset1 $n changed)"; }
done
for p in $(cat "$CG/cpuset$(cgpath n1)/cgroup.procs"); do
  case "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" in "sleep 700"*)
    [ "$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$p/status")" = 0-1 ] || fail "n1: pid $p not back on cpus 0-1" ;;
  esac
done
n_back=$(for p in $(cat "$CG/cpuset$(cgpath n1)/cgroup.procs"); do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done | grep -c '^sleep 700')
[ "$n_back" = 2 ] || fail "n1: $n_back of its 2 processes back in the container's group"
play reset2 playbooks/reset.yml
[ "$prc" = 0 ] || { show reset2; fail "second reset.yml exited $prc"; }
for n in $NODES; do
  [ "$(recap reset2 $n changed)" = 0 ] || { show reset2; fail "$n: the second reset changed something"; }
done
say "reset: every group gone, processes back; a second reset changed nothing"

# --- the backend option reaches placer: systemd, with no systemd on n3, fails it ----------------
# (last, on the node placer is installed on and reset: the install is not run again)
play systemd playbooks/site.yml -e placer_backend=systemd --limit n3 --skip-tags install
[ "$prc" != 0 ] || { show systemd; fail "site.yml with placer_backend=systemd passed on a node without systemd"; }
[ "$(recap systemd n3 failed)" = 1 ] || { show systemd; fail "n3 did not fail with placer_backend=systemd"; }
fleet_check_reset n3 fleet-n3
grep -q "cannot be placed through systemd" "$work/systemd.out" || { show systemd; fail "the failure is not placer's systemd line"; }
say "placer_backend=systemd: n3 failed with placer's line, no group made"
say "OK"
