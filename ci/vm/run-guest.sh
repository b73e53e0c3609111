#!/bin/sh
# Boot one of placer's test guests (kernel + initramfs from libexec/vm/build-initramfs.sh) in qemu
# with software emulation (TCG: these machines expose no hardware virtualization, and KVM
# guests stall there).
#
# usage: run-guest.sh --kernel K --initrd I [--numa N] [--smp N] [--mem MiB] [--timeout S]
#                     [--name NAME] [--qmp SOCK] [--pidfile F] [--append ARGS] [--log F]
#                     [--background] [--machine q35] [--pxb NODE] [--nvme FILE] [--nic MODEL]
#                     [--hotplug-port]
#
#   --numa N      N guest NUMA nodes (memory-backend-ram objects; the vCPUs and the memory are
#                 split between them in contiguous blocks). Default: no NUMA topology.
#   --smp N       vCPUs (default: 1, or N of --numa so each node has a CPU)
#   --mem MiB     guest RAM (default 512; qemu only backs what the guest touches)
#   --timeout S   foreground: kill qemu after S seconds and exit 124 (default 120);
#                 background: a watchdog kills qemu after S seconds (default: none)
#   --name NAME   qemu -name guest=NAME,debug-threads=on (default placer-guest): vCPU threads
#                 are named "CPU n/TCG"
#   --qmp SOCK    QMP server on a unix socket (query-cpus-fast gives the vCPU thread ids)
#   --pidfile F   qemu writes its PID there
#   --append ARGS extra kernel parameters, e.g. "placer.mode=work placer.seconds=20"
#                 (always there: console=ttyS0 quiet panic=-1)
#   --log F       also copy the serial console to F (background mode: default
#                 /tmp/placer-guest-NAME.log)
#   --machine M   qemu's machine type (default: qemu's, i440fx); q35 for PCI Express
#   --pxb NODE    (q35, --numa) a pxb-pcie expander bound to guest NUMA node NODE: --nvme and
#                 --nic sit behind it, each on a root port of its own, so the guest's kernel
#                 (through ACPI's _PXM) sees them on that node, as on a 2-socket server
#   --nvme FILE   an emulated NVMe drive (-device nvme) backed by FILE (raw; the guest sees
#                 nvme0n1); its queue interrupts are MSI-X, managed by the guest's kernel
#   --nic MODEL   a NIC with MSI-X (e1000e, virtio-net-pci) on a hub port that leads nowhere:
#                 no host network at all; the guest can send, nobody answers
#   --hotplug-port (q35) an empty pcie-root-port, id hp1, after the other devices' ports: a
#                 slot where a device is hot-added through QMP (device_add e1000e,bus=hp1,...)
#                 and removed (device_del); the guest sees it at the port's secondary bus
#   --background  daemonize qemu (-display none, serial console only to the log), print
#                 "PID=<pid> LOG=<log>" and return at once. The guest's result is then the
#                 PLACER-GUEST-EXIT=N line in the log.
#
# Foreground (default): the serial console goes to stdout; waits until the guest powers off
# (libexec/vm/init ends with poweroff -f) and exits with the guest job's exit code, read from the
# console's "PLACER-GUEST-EXIT=N" line; 124 on timeout; 125 when the guest ended without that
# line (kernel panic, qemu error); 2 on a usage error. qemu never outlives this script: it is
# killed when the script is interrupted.
set -eu

me=run-guest
usage() { sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
need() { [ "$1" -ge 2 ] || usage; }
posint() {
    case "$2" in ''|*[!0-9]*|0) echo "$me: $1 wants a positive integer" >&2; exit 2 ;; esac
}

kernel='' initrd='' numa=0 smp='' mem=512 timeout='' name=placer-guest qmp='' pidfile='' append=''
log='' background=0 machine='' pxb='' nvme='' nic='' hotplug_port=0
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel) need $#; kernel=$2; shift 2 ;;
        --initrd) need $#; initrd=$2; shift 2 ;;
        --numa) need $#; posint "$1" "$2"; numa=$2; shift 2 ;;
        --smp) need $#; posint "$1" "$2"; smp=$2; shift 2 ;;
        --mem) need $#; posint "$1" "$2"; mem=$2; shift 2 ;;
        --timeout) need $#; posint "$1" "$2"; timeout=$2; shift 2 ;;
        --name) need $#; name=$2; shift 2 ;;
        --qmp) need $#; qmp=$2; shift 2 ;;
        --pidfile) need $#; pidfile=$2; shift 2 ;;
        --append) need $#; append=$2; shift 2 ;;
        --log) need $#; log=$2; shift 2 ;;
        --background) background=1; shift ;;
        --machine) need $#; machine=$2; shift 2 ;;
        --pxb) need $#; pxb=$2; shift 2 ;;
        --nvme) need $#; nvme=$2; shift 2 ;;
        --nic) need $#; nic=$2; shift 2 ;;
        --hotplug-port) hotplug_port=1; shift ;;
        -h|--help) usage ;;
        *) echo "$me: unknown argument: $1" >&2; usage ;;
    esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ]; then usage; fi
[ -r "$kernel" ] || { echo "$me: cannot read kernel $kernel" >&2; exit 2; }
[ -r "$initrd" ] || { echo "$me: cannot read initrd $initrd" >&2; exit 2; }
case "$name" in *,*|*' '*) echo "$me: --name must not contain commas or blanks" >&2; exit 2 ;; esac
if ! qemu=$(command -v qemu-system-x86_64); then
    echo "$me: qemu-system-x86_64 not installed" >&2
    exit 2
fi
[ -n "$smp" ] || { if [ "$numa" -gt 1 ]; then smp=$numa; else smp=1; fi; }
case "$machine" in ''|q35|pc) ;; *) echo "$me: --machine wants q35 or pc" >&2; exit 2 ;; esac
if [ -n "$pxb" ]; then
    case "$pxb" in *[!0-9]*|'') echo "$me: --pxb wants a NUMA node number" >&2; exit 2 ;; esac
    [ "$machine" = q35 ] || { echo "$me: --pxb needs --machine q35" >&2; exit 2; }
    [ "$pxb" -lt "$numa" ] || { echo "$me: --pxb $pxb: the guest has only $numa NUMA node(s) (--numa)" >&2; exit 2; }
fi
[ -z "$nvme" ] || [ -r "$nvme" ] || { echo "$me: cannot read --nvme $nvme" >&2; exit 2; }
case "$nvme$nic" in *,*|*' '*) echo "$me: --nvme and --nic must not contain commas or blanks" >&2; exit 2 ;; esac
case "$nic" in ''|e1000e|virtio-net-pci) ;; *) echo "$me: --nic wants e1000e or virtio-net-pci" >&2; exit 2 ;; esac
[ "$hotplug_port" = 0 ] || [ "$machine" = q35 ] || { echo "$me: --hotplug-port needs --machine q35" >&2; exit 2; }

set -- -accel tcg -name "guest=$name,debug-threads=on" -smp "$smp" -m "$mem" \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 quiet panic=-1${append:+ $append}" \
    -nic none -no-reboot

# NUMA: node k gets vCPUs [k*smp/numa, (k+1)*smp/numa) and mem/numa MiB (the last the rest).
if [ "$numa" -gt 1 ]; then
    [ $((mem / numa)) -ge 64 ] || { echo "$me: --mem too small for $numa nodes" >&2; exit 2; }
    k=0 used=0
    while [ $k -lt "$numa" ]; do
        size=$((mem / numa))
        [ $k -lt $((numa - 1)) ] || size=$((mem - used))
        used=$((used + size))
        c0=$((k * smp / numa)) c1=$(((k + 1) * smp / numa - 1))
        set -- "$@" -object "memory-backend-ram,id=m$k,size=${size}M"
        if [ $c1 -ge $c0 ]; then
            set -- "$@" -numa "node,nodeid=$k,cpus=$c0-$c1,memdev=m$k"
        else
            set -- "$@" -numa "node,nodeid=$k,memdev=m$k"   # more nodes than vCPUs
        fi
        k=$((k + 1))
    done
fi
[ -z "$machine" ] || set -- "$@" -machine "$machine"
# Devices behind the expander (or on the root bus), each on its own root port.
bus=pcie.0
if [ -n "$pxb" ]; then
    set -- "$@" -device "pxb-pcie,id=pxb1,bus_nr=128,numa_node=$pxb,bus=pcie.0"
    bus=pxb1
fi
port=0
if [ -n "$nvme" ]; then
    if [ "$machine" = q35 ]; then
        port=$((port + 1))
        set -- "$@" -device "pcie-root-port,id=rp$port,bus=$bus,chassis=$port,slot=$port"
        set -- "$@" -drive "file=$nvme,if=none,id=nvme0,format=raw" -device "nvme,serial=placer0,drive=nvme0,bus=rp$port"
    else
        set -- "$@" -drive "file=$nvme,if=none,id=nvme0,format=raw" -device "nvme,serial=placer0,drive=nvme0"
    fi
fi
if [ -n "$nic" ]; then
    # a hub with this one port: whatever the guest sends goes nowhere
    set -- "$@" -netdev "hubport,id=nic0,hubid=0"
    if [ "$machine" = q35 ]; then
        port=$((port + 1))
        set -- "$@" -device "pcie-root-port,id=rp$port,bus=$bus,chassis=$port,slot=$port"
        set -- "$@" -device "$nic,netdev=nic0,bus=rp$port"
    else
        set -- "$@" -device "$nic,netdev=nic0"
    fi
fi
if [ "$hotplug_port" = 1 ]; then
    port=$((port + 1))
    set -- "$@" -device "pcie-root-port,id=hp1,bus=$bus,chassis=$port,slot=$port"
fi
[ -z "$qmp" ] || set -- "$@" -qmp "unix:$qmp,server=on,wait=off"
[ -z "$pidfile" ] || set -- "$@" -pidfile "$pidfile"

# ------------------------------------------------------------------ background
if [ "$background" = 1 ]; then
    log=${log:-/tmp/placer-guest-$name.log}
    : >"$log"
    pf=${pidfile:-$(mktemp /tmp/placer-guest-pid.XXXXXX)}
    [ -n "$pidfile" ] || set -- "$@" -pidfile "$pf"
    "$qemu" "$@" -display none -monitor none -serial "file:$log" -daemonize </dev/null
    pid=$(cat "$pf")
    [ -n "$pidfile" ] || rm -f "$pf"
    if [ -n "$timeout" ]; then
        # Watchdog: gone as soon as qemu is (a zombie counts as gone: the daemonized qemu is
        # reaped by whoever adopted it); kills it at the deadline.
        (
            trap '' HUP
            end=$(($(date +%s) + timeout))
            running() { grep -q '^State:[[:space:]]*[^Z]' "/proc/$pid/status" 2>/dev/null; }
            while running; do
                if [ "$(date +%s)" -ge "$end" ]; then
                    echo "$me: timeout after ${timeout}s, killing qemu $pid" >>"$log"
                    kill "$pid" 2>/dev/null; sleep 3; kill -9 "$pid" 2>/dev/null
                    break
                fi
                sleep 1
            done
        ) </dev/null >/dev/null 2>&1 &
    fi
    echo "PID=$pid LOG=$log"
    exit 0
fi

# ------------------------------------------------------------------ foreground
timeout=${timeout:-120}
own_log=
if [ -z "$log" ]; then log=$(mktemp /tmp/placer-guest-log.XXXXXX); own_log=$log; fi
: >"$log"
# The serial port is a stdio chardev that also logs to $log (for the exit marker); with
# -nographic and an explicit -serial, nothing else (monitor, parallel port) uses stdio.
# stdin is /dev/null: nothing types into the guest, and qemu leaves the terminal alone.
timeout -k 5 "$timeout" "$qemu" "$@" -nographic -monitor none \
    -chardev "stdio,id=console,signal=off,logfile=$log" -serial chardev:console </dev/null &
tpid=$!
# timeout(1) runs qemu in its own process group, so forward our terminations to it.
on_signal() {
    kill -TERM "$tpid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    [ -z "$own_log" ] || rm -f "$own_log"
    exit 130
}
trap on_signal INT TERM HUP
rc=0
wait $tpid || rc=$?
trap - INT TERM HUP

code=$(tr -d '\r' <"$log" | sed -n 's/^.*PLACER-GUEST-EXIT=\([0-9][0-9]*\).*$/\1/p' | tail -n 1)
[ -z "$own_log" ] || rm -f "$own_log"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "$me: guest $name timed out after ${timeout}s; qemu killed" >&2
    exit 124
fi
if [ -z "$code" ]; then
    echo "$me: guest $name ended without a PLACER-GUEST-EXIT line (qemu exit status $rc)" >&2
    exit 125
fi
exit "$code"
