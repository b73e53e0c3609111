#!/bin/sh
# Install every Debian package placer's build, tests and default job need.
# Idempotent and quiet on success; prints apt's output only when it fails.
set -eu

BUILD_PKGS="build-essential cmake pkg-config libhwloc-dev hwloc-nox libnuma-dev \
libyaml-dev libjansson-dev libxml2-dev libcmocka-dev"
RUNTIME_PKGS="fio stress-ng util-linux procps psmisc python3 numactl"
CEPH_PKGS="ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common ceph-fuse"
CONTAINER_PKGS="podman runc debootstrap"
VM_PKGS="qemu-system-x86 linux-image-amd64 busybox-static cpio xz-utils"
# placer export --format libvirt/virsh against a real libvirtd (tests/integration/export_libvirt.sh):
# the daemon, its qemu driver and virsh only.  Not libvirt-daemon-system: its postinst starts
# libvirtd and defines and autostarts the "default" NAT network (a bridge, firewall rules, dnsmasq),
# and it adds users and /etc files.  These three have no maintainer script that starts anything; the
# test runs its own libvirtd in a private mount and network namespace.
LIBVIRT_PKGS="libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients"
# ansible/: the fleet playbooks (ansible-core with its collections; tests/integration/fleet_ansible.sh);
# openssh-server: tests/integration/fleet_ansible.sh starts its own sshd on 127.0.0.1 in its containers
FLEET_PKGS="ansible openssh-server"
# ci/check-format.sh (Debian 12 ships clang-format 14); ci/fuzz.sh (clang 14's libFuzzer and sanitizers)
CHECK_PKGS="clang-format clang libclang-rt-14-dev"
# placer report: gnuplot draws the SVG plots; the test renders the page in headless Chromium
REPORT_PKGS="gnuplot-nox chromium"
# tests/integration/deb_install.sh: lintian checks the .deb that cpack makes
PACKAGE_PKGS="lintian"
# tests/integration/watch_storm.sh: the watcher's metrics read by Prometheus's Python client (its
# text-format parser; a library, nothing that starts)
METRICS_PKGS="python3-prometheus-client"

want="$BUILD_PKGS $RUNTIME_PKGS $CHECK_PKGS"
case "${1:-all}" in
  build) ;;
  all) want="$want $CEPH_PKGS $CONTAINER_PKGS $VM_PKGS $LIBVIRT_PKGS $FLEET_PKGS $REPORT_PKGS $PACKAGE_PKGS $METRICS_PKGS" ;;
  *) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

# The host's own sshd must never run because of this script: Debian's ssh init script and
# ssh.service do not start it while /etc/ssh/sshd_not_to_be_run exists, and openssh-server's
# postinst would start it on 0.0.0.0:22 (where no policy-rc.d forbids it), as would an upgrade's
# restart later. So on a machine without openssh-server the file goes in first, and stays
# (remove it to run an sshd of your own). fleet_ansible.sh runs /usr/sbin/sshd directly.
case " $missing " in
  *" openssh-server "*) mkdir -p /etc/ssh && touch /etc/ssh/sshd_not_to_be_run ;;
esac

log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $missing; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "install-deps: apt-get failed installing:$missing" >&2
  exit 1
fi
