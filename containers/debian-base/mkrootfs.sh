#!/bin/sh
# Make the Debian 12 (bookworm) root filesystem of localhost/placer/debian-base:12.
#
#   mkrootfs.sh TARGET_DIR MIRROR_URL APT_SOURCES_FILE [APT_CONF_FILE]
#
# Called by containers/build-images.sh, which reads MIRROR_URL and the sources from the host's own
# apt configuration (no registry is reachable, and no host name is written in this repository).
# The image's inputs hash covers this file and the generated sources/apt conf, so any change here
# rebuilds the base image and, through their parents' hash, every image built FROM it.
#
# A plain minbase (~200 packages): the daemons and tools are added by the Containerfiles with
# apt-get.  (`debootstrap --include=ceph-mon,...` was tried: its simple resolver cannot configure
# python3-bcrypt and friends in the right order and gives up after five attempts.)
set -eu

target=$1
mirror=$2
sources=$3
aptconf=${4:-}
suite=bookworm

[ -n "$target" ] && [ ! -e "$target/bin" ] || { echo "mkrootfs: bad target '$target'" >&2; exit 2; }

# --keyring makes debootstrap verify the Release signature (it would otherwise only warn and go
# on unauthenticated when the keyring is missing).
debootstrap --variant=minbase --components=main \
  --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
  "$suite" "$target" "$mirror"

# apt inside the image: the same Debian mirror(s) as the host, no recommends, no translations.
rm -f "$target/etc/apt/sources.list.d/"*
cp "$sources" "$target/etc/apt/sources.list"
[ -n "$aptconf" ] && cp "$aptconf" "$target/etc/apt/apt.conf.d/90placer-host"
cat >"$target/etc/apt/apt.conf.d/90placer" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Dpkg::Use-Pty "false";
EOF

# Leave documentation out of every package installed later (ceph alone brings ~40 MB of it).
cat >"$target/etc/dpkg/dpkg.cfg.d/90placer-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
find "$target/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
rm -rf "$target/usr/share/man/"* "$target/usr/share/info/"*

# Package scripts must never start services inside an image build.
printf '#!/bin/sh\nexit 101\n' >"$target/usr/sbin/policy-rc.d"
chmod 755 "$target/usr/sbin/policy-rc.d"

# Nothing of the build host stays in the image: podman provides these files at run time.
: >"$target/etc/resolv.conf"
: >"$target/etc/hostname"
rm -rf "$target/var/cache/apt/archives/"*.deb "$target/var/lib/apt/lists/"* \
  "$target/var/log/"*.log "$target/var/log/apt/"* "$target/var/cache/debconf/"*-old
