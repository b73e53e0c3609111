#!/bin/sh
# Build what placer's systemd test guest boots: a Debian 12 rootfs whose init is systemd, as an
# uncompressed cpio initramfs (ci/vm/run-guest.sh boots it with the host's kernel, pure cgroup v2).
#
# usage: build-systemd-guest.sh OUTDIR [--add HOSTPATH:GUESTPATH]... [--name NAME]
#        build-systemd-guest.sh OUTDIR --base-only   (the kernel and the base, cached; ci/shared-setup.sh)
#
#   OUTDIR/systemd-rootfs-KEY.cpio  the base: debootstrap --variant=minbase of bookworm with
#                  systemd, systemd-sysv, dbus and stress-ng, from the host's configured apt
#                  source (deb.debian.org by default; $PLACER_DEBIAN_MIRROR overrides), docs and
#                  locales dropped. KEY hashes the suite, the packages and RECIPE below, so it is
#                  built once (5 min 20 s seen here, most of it downloading) and shared by every test.
#   OUTDIR/NAME.cpio  the base plus a second archive (the kernel unpacks both) holding every
#                  --add (an ELF brings the shared libraries ldd finds that the base lacks), a
#                  fixed machine-id and placer-test.target/.service: systemd starts the target
#                  (kernel parameter systemd.unit=placer-test.target), whose service runs
#                  /t/test.sh with its output on the serial console, prints
#                  PLACER-GUEST-EXIT=<exit code> and powers the guest off.
#   OUTDIR/vmlinux the ELF kernel (build-initramfs.sh's extraction, shared with the other guests).
#
# On success the last two lines of stdout are shell assignments for the caller to eval:
#   PLACER_VM_KERNEL=OUTDIR/vmlinux
#   PLACER_VM_INITRD=OUTDIR/NAME.cpio
# and PLACER_VM_APPEND (the kernel parameters the guest needs) is printed before them.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
me=build-systemd-guest
die() { echo "$me: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

SUITE=bookworm
PACKAGES="systemd systemd-sysv dbus stress-ng"
RECIPE=1 # bump when the base's recipe below changes

[ $# -ge 1 ] || usage
case "$1" in -*) usage ;; esac
outdir=$1; shift
name=systemd-guest
base_only=0
adds=""
nl='
'
while [ $# -gt 0 ]; do
    case "$1" in
        --add) [ $# -ge 2 ] || usage; adds="$adds$2$nl"; shift 2 ;;
        --name) [ $# -ge 2 ] || usage; name=$2; shift 2 ;;
        --base-only) base_only=1; shift ;;
        -h|--help) usage ;;
        *) echo "$me: unknown argument: $1" >&2; usage ;;
    esac
done
case "$name" in */*|"") die "--name must be a plain file name" ;; esac
for tool in debootstrap cpio ldd sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "missing $tool (run ci/install-deps.sh)"
done
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
exec 9>"$outdir/.systemd-guest.lock"
flock 9

# The kernel: build-initramfs.sh extracts and caches it (its busybox initramfs is a by-product).
eval "$(sh "$here/../../libexec/vm/build-initramfs.sh" "$outdir" --name kernel-only | tail -n 2)"
kernel=$PLACER_VM_KERNEL

# ---------------------------------------------------------------- base rootfs (cached)
mirror=${PLACER_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -n -e 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\(https\{0,1\}:[^[:space:]]*debian\/\{0,1\}\)[[:space:]]\{1,\}bookworm[[:space:]].*/\2/p' \
               -e 's/^URIs:[[:space:]]*\(https\{0,1\}:[^[:space:]]*debian\/\{0,1\}\)[[:space:]]*$/\1/p' | head -n 1)
    mirror=${mirror:-http://deb.debian.org/debian}
fi
key=$(printf '%s\n' "$SUITE" "$PACKAGES" "$RECIPE" | sha256sum | cut -c1-16)
base=$outdir/systemd-rootfs-$key.cpio
if [ -s "$base" ] && [ -s "$base.files" ]; then
    echo "$me: base rootfs cached: $base" >&2
else
    root=$outdir/systemd-rootfs-$key.tmp
    rm -rf "$root"
    echo "$me: debootstrap $SUITE ($PACKAGES) from $mirror into $root" >&2
    pkgs=$(echo "$PACKAGES" | tr ' ' ',')
    if ! debootstrap --variant=minbase --include="$pkgs" "$SUITE" "$root" "$mirror" >"$outdir/debootstrap.log" 2>&1; then
        tail -n 20 "$outdir/debootstrap.log" >&2
        rm -rf "$root"
        die "debootstrap failed (log: $outdir/debootstrap.log)"
    fi
    # What a test guest never reads; smaller is faster to load under TCG.
    rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
           "$root/var/cache/apt" "$root/var/lib/apt/lists" "$root/var/log"/*.log
    mkdir -p "$root/var/cache/apt" "$root/var/lib/apt/lists"
    (cd "$root" && find . | LC_ALL=C sort >"$base.files.tmp" && cpio -o -H newc --quiet <"$base.files.tmp" >"$base.tmp")
    rm -rf "$root"
    mv -f "$base.files.tmp" "$base.files"
    mv -f "$base.tmp" "$base"
fi

[ "$base_only" = 0 ] || exit 0

# ---------------------------------------------------------------- the test's own files
ov=$outdir/$name.overlay.tmp
rm -rf "$ov"
trap 'rm -rf "$ov" "$outdir/$name.cpio.tmp"' EXIT
mkdir -p "$ov/t" "$ov/etc/systemd/system" "$ov/etc/systemd/system/placer-test.target.wants"
in_base() { grep -qxF ".$1" "$base.files"; }
is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | tail -c 3)" = ELF ]; }
copy_in() {  # HOST GUEST
    mkdir -p "$ov$(dirname "$2")"
    cp -L -p "$1" "$ov$2"
    is_elf "$1" || return 0
    ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
        while read -r lib; do
            # the base is merged-/usr: /lib is a link to usr/lib
            case "$lib" in /usr/*) g=$lib ;; /lib*|/bin/*|/sbin/*) g=/usr$lib ;; *) g=$lib ;; esac
            in_base "$g" && continue
            mkdir -p "$ov$(dirname "$g")"
            cp -L -p "$lib" "$ov$g"
        done
}
printf '%s' "$adds" | while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    host=${spec%%:*} guest=${spec#*:}
    [ -e "$host" ] || die "--add: no such file $host"
    copy_in "$host" "$guest"
done
echo 0123456789abcdef0123456789abcdef >"$ov/etc/machine-id"
cat >"$ov/etc/systemd/system/placer-test.target" <<'EOF'
[Unit]
Description=placer test guest
Requires=basic.target placer-test.service
After=basic.target
AllowIsolate=yes
EOF
cat >"$ov/etc/systemd/system/placer-test.service" <<'EOF'
[Unit]
Description=placer guest test (/t/test.sh)
After=basic.target

[Service]
Type=oneshot
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ExecStart=/bin/sh -c 'echo PLACER-GUEST-BOOTED uptime_s=$(cut -d" " -f1 /proc/uptime); rc=0; /bin/sh /t/test.sh || rc=$?; echo PLACER-GUEST-EXIT=$rc; systemctl poweroff --force --force'
EOF
# Nothing the guest needs, and slow under TCG.
for u in systemd-logind.service getty@tty1.service serial-getty@ttyS0.service systemd-timesyncd.service \
         apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer systemd-tmpfiles-clean.timer \
         dpkg-db-backup.timer systemd-networkd.service; do
    ln -sf /dev/null "$ov/etc/systemd/system/$u"
done
# Every generator masked (a link to /dev/null in /etc/systemd/system-generators): the guest has
# no fstab, disks, crypttab, getty or SysV scripts to turn into units, and each of the twelve runs
# again at every daemon-reload, which placer's apply --persist and reset call: 5 to 12 s each
# under TCG, about 55 s of the systemd test.
mkdir -p "$ov/etc/systemd/system-generators"
for g in systemd-cryptsetup-generator systemd-debug-generator systemd-fstab-generator systemd-getty-generator \
         systemd-gpt-auto-generator systemd-hibernate-resume-generator systemd-integritysetup-generator \
         systemd-rc-local-generator systemd-run-generator systemd-system-update-generator systemd-sysv-generator \
         systemd-veritysetup-generator; do
    ln -sf /dev/null "$ov/etc/systemd/system-generators/$g"
done
ln -sf /lib/systemd/systemd "$ov/init"

okey=$( {
    cat "$0"
    echo "$base"
    (cd "$ov" && find . -type f -o -type l | LC_ALL=C sort | while read -r f; do
        if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(sha256sum <"$f")"; fi
    done)
} | sha256sum | cut -d' ' -f1)
initrd=$outdir/$name.cpio
if [ -s "$initrd" ] && [ "$(cat "$initrd.key" 2>/dev/null)" = "$okey" ]; then
    echo "$me: guest cached: $initrd" >&2
else
    # Directories the base has (some as links: /lib -> usr/lib) stay out of the second archive.
    (cd "$ov" && find . | LC_ALL=C sort | while read -r f; do
        if [ -d "$f" ] && [ ! -L "$f" ] && grep -qxF "$f" "$base.files"; then continue; fi
        echo "$f"
    done | cpio -o -H newc --quiet) >"$ov.cpio"
    cat "$base" "$ov.cpio" >"$outdir/$name.cpio.tmp"
    rm -f "$ov.cpio"
    mv -f "$outdir/$name.cpio.tmp" "$initrd"
    echo "$okey" >"$initrd.key"
fi
echo "PLACER_VM_APPEND='systemd.unit=placer-test.target systemd.unified_cgroup_hierarchy=1 systemd.show_status=error'"
echo "PLACER_VM_KERNEL=$kernel"
echo "PLACER_VM_INITRD=$initrd"
