#!/bin/sh
# Build what placer's qemu test guests boot: an uncompressed kernel and a small initramfs.
#
# usage: build-initramfs.sh OUTDIR [--add HOSTPATH[:GUESTPATH]]... [--init-script FILE]
#                           [--name NAME] [--no-compress] [--vmlinuz FILE]
#
#   OUTDIR/vmlinux        the ELF kernel extracted from /boot/vmlinuz-* (newest, or --vmlinuz;
#                         also $PLACER_VM_VMLINUZ). Under TCG it boots in a few seconds where
#                         the compressed bzImage spends ~5 s decompressing itself.
#   OUTDIR/NAME.cpio.gz   (NAME defaults to "initramfs"; .cpio with --no-compress) holding static
#                         busybox with its applet links, /init (libexec/vm/init unless --init-script)
#                         and every --add: a file (an ELF brings its shared libraries and the
#                         dynamic loader, resolved with ldd, at their host paths) or a directory
#                         (copied whole, links dereferenced; ELF files in it bring their
#                         libraries too). GUESTPATH defaults to HOSTPATH.
#
# Both are cached in OUTDIR: the kernel is re-extracted only when the vmlinuz is newer, the
# initramfs only when its inputs changed (this script, the init, busybox, the added files and
# their libraries). Concurrent runs on one OUTDIR are serialised with flock. On success the last
# two lines of stdout are shell assignments for the caller to eval:
#   PLACER_VM_KERNEL=OUTDIR/vmlinux
#   PLACER_VM_INITRD=OUTDIR/NAME.cpio.gz
# Progress and errors go to stderr.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
me=build-initramfs

die() { echo "$me: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; -*) usage ;; esac
outdir=$1; shift
init_script=$here/init
name=initramfs
compress=1
vmlinuz=${PLACER_VM_VMLINUZ:-}
adds=""   # newline-separated HOSTPATH:GUESTPATH
nl='
'
while [ $# -gt 0 ]; do
    case "$1" in
        --add) [ $# -ge 2 ] || usage; adds="$adds$2$nl"; shift 2 ;;
        --init-script) [ $# -ge 2 ] || usage; init_script=$2; shift 2 ;;
        --name) [ $# -ge 2 ] || usage; name=$2; shift 2 ;;
        --no-compress) compress=0; shift ;;
        --vmlinuz) [ $# -ge 2 ] || usage; vmlinuz=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "$me: unknown argument: $1" >&2; usage ;;
    esac
done
case "$name" in */*|"") die "--name must be a plain file name" ;; esac
[ -f "$init_script" ] || die "no init script $init_script"

for tool in cpio xz gzip ldd sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "missing $tool (run ci/install-deps.sh)"
done
busybox=
for b in /bin/busybox /usr/bin/busybox; do
    # The guest has no libc: busybox must be the static build (Debian: busybox-static).
    if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then busybox=$b; break; fi
done
[ -n "$busybox" ] || die "no static busybox (install busybox-static)"

if [ -z "$vmlinuz" ]; then
    vmlinuz=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
    [ -n "$vmlinuz" ] || die "no /boot/vmlinuz-* (install linux-image-amd64)"
fi
[ -r "$vmlinuz" ] || die "cannot read kernel $vmlinuz"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
if command -v flock >/dev/null 2>&1; then
    exec 9>"$outdir/.lock"
    flock 9
fi

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | tail -c 3)" = ELF ]; }

# ---------------------------------------------------------------- kernel
# Decompress the vmlinux ELF embedded in a bzImage: find each compressed-stream magic and
# try to decompress from there until the result is an ELF (what the kernel's
# scripts/extract-vmlinux does, for the formats whose tools we have).
extract_vmlinux() {  # IMAGE OUT
    for x in /usr/src/linux-headers-*/scripts/extract-vmlinux \
             "/lib/modules/${vmlinuz##*/vmlinuz-}/build/scripts/extract-vmlinux"; do
        if [ -x "$x" ] && "$x" "$1" >"$2" 2>/dev/null && is_elf "$2"; then return 0; fi
    done
    for fmt in 'xz:\xfd7zXZ\x00' 'gzip:\x1f\x8b\x08' 'zstd:\x28\xb5\x2f\xfd'; do
        tool=${fmt%%:*}
        command -v "$tool" >/dev/null 2>&1 || continue
        for off in $(LC_ALL=C grep -obUaP "${fmt#*:}" "$1" | cut -d: -f1); do
            case "$tool" in
                xz) tail -c +$((off + 1)) "$1" | xz -dc --single-stream >"$2" 2>/dev/null || true ;;
                *) tail -c +$((off + 1)) "$1" | "$tool" -dc >"$2" 2>/dev/null || true ;;
            esac
            if is_elf "$2"; then return 0; fi
        done
    done
    return 1
}

kernel=$outdir/vmlinux
# shellcheck disable=SC3013  # -nt: dash and busybox sh have it
if [ -s "$kernel" ] && [ "$kernel" -nt "$vmlinuz" ] &&
   [ "$(cat "$kernel.source" 2>/dev/null)" = "$vmlinuz" ]; then
    echo "$me: kernel cached: $kernel" >&2
else
    echo "$me: extracting $vmlinuz -> $kernel" >&2
    if ! extract_vmlinux "$vmlinuz" "$kernel.tmp"; then
        rm -f "$kernel.tmp"
        die "could not extract an ELF kernel from $vmlinuz"
    fi
    mv -f "$kernel.tmp" "$kernel"
    echo "$vmlinuz" >"$kernel.source"
fi

# Scratch files of this build (also when it fails half-way).
list=$outdir/$name.list.tmp
root=$outdir/$name.root.tmp
scratch() { rm -rf "$list" "$root" "$kernel.tmp" "$outdir/$name.cpio.gz.tmp" "$outdir/$name.cpio.tmp"; }
trap scratch EXIT

# ---------------------------------------------------------------- initramfs file list
# Lines "HOSTFILE GUESTPATH": files to copy (dereferenced). Directories are handled by
# expanding them to their files (links dereferenced). Paths with blanks are not supported.
: >"$list"

add_libs() {  # ELF: its libraries and loader, at the paths ldd resolves them to
    is_elf "$1" || return 0
    out=$(ldd "$1" 2>&1) || return 0   # static ELF: "not a dynamic executable"
    if echo "$out" | grep -q 'not found'; then
        echo "$out" >&2
        die "$1: a shared library is missing on the host"
    fi
    echo "$out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
        while read -r lib; do echo "$lib $lib"; done >>"$list"
}

printf '%s' "$adds" | while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    case "$spec" in
        *:*) host=${spec%%:*}; guest=${spec#*:} ;;
        *) host=$spec; guest=$spec ;;
    esac
    case "$guest" in /*) ;; *) guest=/$guest ;; esac
    [ -e "$host" ] || die "--add: no such file $host"
    case "$host" in *' '*|*'	'*) die "--add: paths with blanks are not supported: $host" ;; esac
    if [ -d "$host" ]; then
        host=$(cd "$host" && pwd)
        find "$host" -type f -o -type l | sort | while read -r f; do
            [ -e "$f" ] || continue   # dangling link
            [ -d "$f" ] && continue   # link to a directory: its target is listed on its own
            echo "$f $guest${f#"$host"}" >>"$list"
            add_libs "$f"
        done
    else
        echo "$host $guest" >>"$list"
        add_libs "$host"
    fi
done
sort -u -k2,2 "$list" -o "$list"

# ---------------------------------------------------------------- cache key
# Everything the archive is made of: this script, the init, busybox and each listed file
# (guest path and content; hashing a few MB costs less than rebuilding).
key=$( {
    echo "compress=$compress"
    for f in "$0" "$init_script" "$busybox"; do sha256sum <"$f"; done
    while read -r h g; do echo "$g $(sha256sum <"$h")"; done <"$list"
} | sha256sum | cut -d' ' -f1)

if [ "$compress" = 1 ]; then initrd=$outdir/$name.cpio.gz; else initrd=$outdir/$name.cpio; fi
if [ -s "$initrd" ] && [ "$(cat "$initrd.key" 2>/dev/null)" = "$key" ]; then
    echo "$me: initramfs cached: $initrd" >&2
    rm -f "$list"
else
    echo "$me: building $initrd" >&2
    rm -rf "$root"
    mkdir -p "$root"
    (
        cd "$root"
        mkdir -p bin sbin usr/bin usr/sbin etc proc sys dev tmp run root mnt \
                 sys/fs/cgroup lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu lib64
        # Start with a console so the kernel gives /init its stdio before devtmpfs is up.
        if [ "$(id -u)" = 0 ]; then mknod -m 600 dev/console c 5 1; fi
        cp "$busybox" bin/busybox
        "$busybox" --list-full | while read -r applet; do
            [ "$applet" = bin/busybox ] && continue
            mkdir -p "$(dirname "$applet")"
            ln -sf /bin/busybox "$applet"
        done
        cp "$init_script" init
        chmod 755 init
        echo 'root:x:0:0:root:/root:/bin/sh' >etc/passwd
        echo 'root:x:0:' >etc/group
    )
    while read -r h g; do
        mkdir -p "$root$(dirname "$g")"
        rm -f "$root$g"
        cp -L -p "$h" "$root$g"
    done <"$list"
    rm -f "$list"
    (
        cd "$root"
        if [ "$compress" = 1 ]; then
            find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -6 >"$initrd.tmp"
        else
            find . | LC_ALL=C sort | cpio -o -H newc --quiet >"$initrd.tmp"
        fi
    )
    rm -rf "$root"
    mv -f "$initrd.tmp" "$initrd"
    echo "$key" >"$initrd.key"
fi

echo "PLACER_VM_KERNEL=$kernel"
echo "PLACER_VM_INITRD=$initrd"
