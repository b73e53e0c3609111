#!/bin/sh
# Build placer's container images locally (no image registry is reachable).
#
#   containers/build-images.sh [--only NAME] [--force]
#
# NAME: debian-base | ceph | fio | stress-ng | deb-install (--only also builds what NAME is FROM).
# Images:
#   localhost/placer/debian-base:12  debootstrap minbase from the host's own Debian mirror,
#                                    imported with `podman import` (debian-base/mkrootfs.sh)
#   localhost/placer/ceph:latest     FROM debian-base: ceph-mon ceph-osd ceph-mgr ceph-mds ceph-common
#   localhost/placer/fio:latest      FROM ceph: fio with the rbd/rados engines
#   localhost/placer/stress-ng:latest FROM debian-base: stress-ng
#   localhost/placer/deb-install:latest FROM debian-base: placer's runtime libraries, man-db,
#                                    bash-completion (where deb_install.sh installs the .deb)
#
# Each image carries the label placer.inputs-hash: a sha256 over its directory here (Containerfile
# or mkrootfs.sh), its parent's hash and, for the base, the apt sources taken from the host.  An
# image whose label matches is not rebuilt ("cached"); --force rebuilds anyway.  Prints one line
# per image, exits nonzero with the end of the build log when a build fails.
# Needs root, podman, runc and debootstrap (ci/install-deps.sh installs them) and the Debian mirror
# that apt-get on this host uses.  Environment: PLACER_DEBIAN_MIRROR overrides the mirror URL.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# Every podman call below (build, import, inspect, rmi) reads placer's containers.conf.
CONTAINERS_CONF="$here/containers.conf"
export CONTAINERS_CONF

ALL="debian-base ceph fio stress-ng deb-install"
HASH_LABEL=placer.inputs-hash

die() { echo "build-images: $*" >&2; exit 1; }

usage() { echo "usage: $0 [--only debian-base|ceph|fio|stress-ng|deb-install] [--force]" >&2; exit 2; }

tag_of() {
  case $1 in
    debian-base) echo localhost/placer/debian-base:12 ;;
    *) echo "localhost/placer/$1:latest" ;;
  esac
}

parent_of() {
  case $1 in
    debian-base) echo "" ;;
    fio) echo ceph ;;
    *) echo debian-base ;;
  esac
}

only="" force=0
while [ $# -gt 0 ]; do
  case $1 in
    --only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --force) force=1; shift ;;
    -h|--help) usage ;;
    *) usage ;;
  esac
done
if [ -n "$only" ]; then
  case " $ALL " in *" $only "*) ;; *) echo "build-images: unknown image '$only'" >&2; usage ;; esac
fi

[ "$(id -u)" = 0 ] || die "must run as root (podman stores placer's images in root's storage)"
for tool in podman runc debootstrap flock sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found; run ci/install-deps.sh"
done

# One build at a time on this machine.
mkdir -p /run/lock
exec 9>/run/lock/placer-build-images.lock
flock 9

work=$(mktemp -d "${TMPDIR:-/var/tmp}/placer-build.XXXXXX")
cleanup() {
  # debootstrap mounts proc/sys inside the target; never let rm walk into a mount.
  if [ -d "$work/rootfs" ]; then
    for m in $(awk -v p="$work/rootfs/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r); do
      umount -l "$m" 2>/dev/null || true
    done
  fi
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the host's Debian mirror ------------------------------------------------------------------
# Prints "URI SUITE" for every `deb` entry of the host's apt sources (one-line and deb822 styles).
apt_entries() {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" {
           i = 2
           if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
           if (i + 1 <= NF) print $i, $(i + 1)
         }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'function flush(  nu, ns, i, j, u, s) {
           if ((" " types " ") ~ / deb / && enabled != "no" && enabled != "false") {
             nu = split(uris, u, " "); ns = split(suites, s, " ")
             for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
           }
           types = uris = suites = enabled = ""
         }
         /^[ \t]*#/ { next }
         /^[ \t]*$/ { flush(); next }
         /^[ \t]/ { next }
         { k = tolower($1); sub(/:$/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
           if (k == "types") types = v; else if (k == "uris") uris = v
           else if (k == "suites") suites = v; else if (k == "enabled") enabled = tolower(v) }
         END { flush() }' "$f"
  done
}

# Writes $work/apt/sources.list (bookworm, bookworm-updates, bookworm-security as the host has
# them) and $work/apt/host.conf (the host's apt proxy and Release-date settings), sets $mirror.
prepare_apt_inputs() {
  mkdir -p "$work/apt"
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  entries=$(apt_entries | sed 's|/* | |')
  pick() { printf '%s\n' "$entries" | awk -v s="$1" '$2 == s { print $1; exit }'; }
  mirror=${PLACER_DEBIAN_MIRROR:-}
  updates="" security=""
  if [ -n "$codename" ]; then
    [ -n "$mirror" ] || mirror=$(pick "$codename")
    updates=$(pick "$codename-updates")
    security=$(pick "$codename-security")
  fi
  [ -n "$mirror" ] || die "no Debian mirror found in the host's apt sources (a 'deb URI ${codename:-CODENAME} main' entry); set PLACER_DEBIAN_MIRROR=URL"
  {
    echo "deb $mirror bookworm main"
    [ -z "$updates" ] || echo "deb $updates bookworm-updates main"
    [ -z "$security" ] || echo "deb $security bookworm-security main"
  } >"$work/apt/sources.list"
  apt-config dump 2>/dev/null \
    | grep -E '^Acquire::(https?|ftp)::Proxy |^Acquire::Check-(Valid-Until|Date) ' \
    >"$work/apt/host.conf" || true
  # debootstrap fetches with wget, which knows only the environment's proxy.
  proxy=$(sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' "$work/apt/host.conf" | head -n 1)
  if [ -n "$proxy" ] && [ -z "${http_proxy:-}" ]; then http_proxy=$proxy; export http_proxy; fi
}

# ---- hashes ------------------------------------------------------------------------------------
dir_digest() {  # every file of a directory, with its relative path
  (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum)
}

var_of() { echo "hash_$1" | tr - _; }

compute_hash() {
  name=$1 parent=$(parent_of "$1")
  if [ -z "$parent" ]; then
    h=$( { dir_digest "$here/$name"; cat "$work/apt/sources.list" "$work/apt/host.conf"; } \
         | sha256sum | cut -c1-64)
  else
    ph=$(eval echo "\$$(var_of "$parent")")
    h=$( { dir_digest "$here/$name"; echo "parent $ph"; } | sha256sum | cut -c1-64)
  fi
  eval "$(var_of "$name")=$h"
}

# ---- building ----------------------------------------------------------------------------------
build_base() {  # $1 tag, $2 hash  (explicit returns: set -e does not act inside `f || ...`)
  sh "$here/debian-base/mkrootfs.sh" "$work/rootfs" "$mirror" "$work/apt/sources.list" \
    "$work/apt/host.conf" || return 1
  tar -C "$work/rootfs" --numeric-owner --xattrs --xattrs-include='security.capability' \
    -cf "$work/rootfs.tar" . || return 1
  rm -rf --one-file-system "$work/rootfs"
  podman import -q --message "placer debian-base (debootstrap minbase bookworm)" \
    --change "LABEL $HASH_LABEL=$2" --change "LABEL placer.image=debian-base" \
    --change 'CMD ["/bin/bash"]' "$work/rootfs.tar" "$1" || return 1
  rm -f "$work/rootfs.tar"
}

build_derived() {  # $1 name, $2 tag, $3 hash
  # --network host: only the build's RUN steps use it, to reach the mirror with apt-get.
  # --layers=false: one new layer per image, no intermediate images left in the store.
  podman build --network host --pull=never --layers=false \
    --label "$HASH_LABEL=$3" --label "placer.image=$1" \
    -t "$2" -f "$here/$1/Containerfile" "$here/$1"
}

old_ids=""
build_one() {
  name=$1 tag=$(tag_of "$1")
  h=$(eval echo "\$$(var_of "$name")")
  have=$(podman image inspect --format "{{index .Labels \"$HASH_LABEL\"}}" "$tag" 2>/dev/null || true)
  if [ "$force" = 0 ] && [ "$have" = "$h" ]; then
    echo "$tag cached"
    return 0
  fi
  old=$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
  log="$work/$name.log"
  start=$(date +%s) status=0
  if [ "$name" = debian-base ]; then
    build_base "$tag" "$h" >"$log" 2>&1 || status=$?
  else
    build_derived "$name" "$tag" "$h" >"$log" 2>&1 || status=$?
  fi
  if [ "$status" != 0 ]; then
    tail -n 40 "$log" >&2
    cp "$log" "/tmp/placer-build-$name.log"
    die "building $tag failed (exit ${status}); full log: /tmp/placer-build-$name.log"
  fi
  new=$(podman image inspect --format '{{.Id}}' "$tag")
  [ -z "$old" ] || [ "$old" = "$new" ] || old_ids="$old $old_ids"
  echo "$tag built in $(( $(date +%s) - start )) s"
}

# The images to build: --only NAME and its ancestors, parents first.
want=""
if [ -n "$only" ]; then
  n=$only
  while [ -n "$n" ]; do want="$n $want"; n=$(parent_of "$n"); done
else
  want=$ALL
fi

prepare_apt_inputs
for name in $ALL; do compute_hash "$name"; done
for name in $want; do build_one "$name"; done

# Drop the images that a rebuild replaced (children first; one still used by a container stays).
for id in $old_ids; do podman rmi "$id" >/dev/null 2>&1 || true; done
