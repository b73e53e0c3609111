#!/bin/sh
# The Ansible fleet playbooks over ssh, as on real hosts (docs/fleet.md "Real hosts over ssh"):
# 2 podman containers act as nodes, each running its own sshd (/usr/sbin/sshd -D) on 127.0.0.1
# and a port of its own (--network host: loopback only, key authentication only, a host key made
# in the container's copy-on-write overlay of this machine's root), each with its own hwloc XML
# from tests/fixtures, cgroup prefix and state dir. ansible-playbook connects with
# ansible_connection: ssh and a key made for the test, as it would to a rack:
#   - site.yml with placer_backend=systemd fails each node with placer's own line (no systemd
#     there to place through) and leaves no group;
#   - site.yml installs placer over ssh (from the build), applies and verifies: the cgroup files
#     each node's apply made and its processes in them, seen from the host;
#   - a second site.yml reports changed=0; reset.yml removes every group.
# Cleanup (also on failure or SIGTERM): containers (and their sshd) removed, nothing listening
# on the test's ports, every cgroup under the containers gone, no ssh client left.
set -u
PLACER=${PLACER_BIN:?PLACER_BIN not set}
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
T=fleet_ssh
. "$SRC/tests/integration/lib/fleet.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
for b in ansible-playbook podman runc ssh ssh-keygen ss tar python3; do
  command -v "$b" >/dev/null 2>&1 || skip "$b not installed"
done
[ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (sh ci/install-deps.sh all)"
[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] || skip "needs the cgroup v1 cpuset hierarchy (this test reads the nodes' groups there)"
export CONTAINERS_CONF="$SRC/containers/containers.conf"
export ANSIBLE_CONFIG="$SRC/ansible/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_LOCAL_TEMP ANSIBLE_HOME ANSIBLE_SSH_CONTROL_PATH_DIR

work=$(mktemp -d /tmp/placer-fleet-ssh.XXXXXX)
ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_HOME=$work/ansible-home ANSIBLE_SSH_CONTROL_PATH_DIR=$work/cp
tag=placer-t-fleetssh-$$
NODES="s1 s2"
ports=""
cleanup() {
  rc=$?
  trap - EXIT INT TERM HUP
  for n in $NODES; do fleet_remove_node "$tag-$n" "$n"; done
  # ansible's ssh masters (ControlPersist) end with their sshd; any left are killed and reported.
  left=$(pgrep -f "ssh.*$work/cp" | tr '\n' ' ')
  [ -z "$left" ] || { echo "$T: ssh clients left: $left" >&2; kill $left 2>/dev/null; }
  for p in $ports; do
    [ -z "$(ss -Htln "sport = :$p")" ] || { echo "$T: something still listens on port $p" >&2; rc=1; }
  done
  [ "$rc" = 0 ] && rm -rf "$work" || echo "$T: kept $work" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# A free loopback port per node.
free_port() {
  p=$((20000 + ($$ * 7 + $1) % 20000))
  while [ -n "$(ss -Htan "sport = :$p")" ]; do p=$((p + 1)); done
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
  podman run -d --name "$tag-$n" --privileged --cgroupns=host --network host \
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
    [ $j -lt 100 ] || fail "$n: no sshd listening on 127.0.0.1:$port in 20 s: $(podman logs "$tag-$n" 2>&1 | tail -3)"
    sleep 0.2
  done
  [ -z "$(ss -Htln "sport = :$port" | grep -v "127.0.0.1:$port")" ] || fail "$n: sshd listens beyond 127.0.0.1: $(ss -Htln "sport = :$port")"
done
say "2 nodes up, sshd on 127.0.0.1 ports$ports"

fleet_profiles
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
    placer_build_dir: $(cd "$(dirname "$PLACER")" && pwd)
    placer_profile: $work/profile.yaml
    placer_state_dir: /var/lib/placer/state
  children:
    placer_nodes:
      hosts:
        s1:
          ansible_port: $(cat "$work/s1.port")
          placer_topology_xml: $F/mpibind-epyc-corona.xml
          placer_cgroup_prefix: fleet-s1
        s2:
          ansible_port: $(cat "$work/s2.port")
          placer_topology_xml: $F/32em64t-2n8c2t-pci-normalio.xml
          placer_cgroup_prefix: fleet-s2
          placer_profile: $work/profile-b.yaml
EOF

# --- the backend option reaches placer: systemd, with no systemd on the nodes, fails each ------
play systemd playbooks/site.yml -e placer_backend=systemd
[ "$prc" != 0 ] || { show systemd; fail "site.yml with placer_backend=systemd passed on nodes without systemd"; }
for n in $NODES; do
  [ "$(recap systemd $n failed)" = 1 ] || { show systemd; fail "$n did not fail with placer_backend=systemd"; }
  fleet_check_reset "$n" "fleet-$n"
done
grep -q "cannot be placed through systemd" "$work/systemd.out" || { show systemd; fail "the failure is not placer's systemd line"; }
say "placer_backend=systemd: both nodes failed with placer's line, no group made"

# --- apply and verify over ssh ---------------------------------------------------------------
play apply1 playbooks/site.yml
[ "$prc" = 0 ] || { show apply1; fail "site.yml exited $prc"; }
fleet_check_groups s1 fleet-s1 0 1
fleet_check_groups s2 fleet-s2 1 0
for n in $NODES; do
  [ "$(recap apply1 $n changed)" -gt 0 ] || { show apply1; fail "$n: nothing changed in the first site.yml"; }
  podman exec "$tag-$n" test -x /usr/local/bin/placer || fail "$n: placer not installed over ssh"
done
grep -A1 "^ok: \[s1\] => {" "$work/apply1.out" | grep -q '"msg": "96 PUs, ' &&
  grep -A1 "^ok: \[s2\] => {" "$work/apply1.out" | grep -q '"msg": "32 PUs, ' ||
  { show apply1; fail "the plan tasks do not say 96 PUs (s1) and 32 PUs (s2)"; }
# What ansible reached was the nodes' sshd: their logs have the key's logins.
for n in $NODES; do
  podman logs "$tag-$n" 2>&1 | grep -q "Accepted publickey for root from 127.0.0.1" || fail "$n: no ssh login in sshd's log"
done
say "applied over ssh: each node's groups hold its processes on the planned CPUs"

play apply2 playbooks/site.yml
[ "$prc" = 0 ] || { show apply2; fail "second site.yml exited $prc"; }
for n in $NODES; do
  [ "$(recap apply2 $n changed)" = 0 ] || { show apply2; fail "$n: the second site.yml changed $(recap apply2 $n changed) things"; }
done
say "second run: changed=0 on both nodes"

play reset playbooks/reset.yml
[ "$prc" = 0 ] || { show reset; fail "reset.yml exited $prc"; }
for n in $NODES; do fleet_check_reset "$n" "fleet-$n"; done
say "reset: every group gone"
say "OK"
