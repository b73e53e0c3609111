#!/bin/sh
# The shared setup of the integration tests, built once per run and cached across runs:
#   - placer's podman images (containers/build-images.sh: debian-base, ceph, fio, stress-ng,
#     deb-install);
#   - the qemu test guests' kernel and busybox initramfs, and the systemd guest's Debian root
#     file system (libexec/vm/build-initramfs.sh, ci/vm/build-systemd-guest.sh --base-only) in
#     PLACER_CACHE_DIR/vm (default /var/cache/placer/vm).
# Both halves download from the Debian mirror and unpack packages: they run side by side. Each is
# idempotent (cached by the hash of its inputs) and holds its own lock while it builds, so
# ci/test.sh starts this in the background while it builds and fuzzes, and ctest's fixture test
# (integration_shared_setup, FIXTURES_SETUP shared) runs it again: that run finds the caches, or
# waits for the background one to finish.  Prints one line per half; exit 1 (with the end of the
# half's log) when one failed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${PLACER_CACHE_DIR:-/var/cache/placer}/vm
logs=$(mktemp -d "${TMPDIR:-/tmp}/placer-shared-setup.XXXXXX")
trap 'rm -rf "$logs"' EXIT
[ "$(id -u)" = 0 ] || { echo "shared-setup: run as root (podman's store, debootstrap)" >&2; exit 2; }

t0=$(date +%s)
sh "$root/containers/build-images.sh" >"$logs/images.log" 2>&1 &
images=$!
sh "$root/ci/vm/build-systemd-guest.sh" "$cache" --base-only >"$logs/guest.log" 2>&1 &
guest=$!
rc=0
if wait "$images"; then
  echo "shared-setup: podman images ready: $(tr '\n' ';' <"$logs/images.log" | sed 's/;$//')"
else
  tail -n 30 "$logs/images.log" >&2; echo "shared-setup: containers/build-images.sh failed" >&2; rc=1
fi
if wait "$guest"; then
  echo "shared-setup: guest kernel and systemd root file system ready in $cache"
else
  tail -n 30 "$logs/guest.log" >&2; echo "shared-setup: ci/vm/build-systemd-guest.sh --base-only failed" >&2; rc=1
fi
echo "shared-setup: $(($(date +%s) - t0)) s"
exit "$rc"
