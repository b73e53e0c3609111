#!/bin/sh
# placer export --format libvirt and --format virsh on a real libvirtd (Debian's libvirt-daemon
# and its qemu driver, qemu TCG guests booting the test guests' kernel and initramfs (libexec/vm), no network),
# with domains of 3 vCPUs (2 online) and an IOThread:
#   1. a domain defined from the whole XML --merge writes, started: every vCPU thread's
#      Cpus_allowed_list is its planned PU (pin_vcpus, the vCPUs on the VM's one PU), every other
#      qemu thread (the IOThread among them) is on the host reserve (emulatorpin, iothreadpin),
#      Mems_allowed_list is the plan's node, libvirt's cpuset groups (vcpuN, emulator, the domain's)
#      say the same, and the definition pins all 3 vCPUs while keeping its count;
#   2. a domain started with no placement at all (its threads on every CPU: the check fails
#      there), then the virsh commands run on it: the same checks on the running domain, the
#      pins and numatune in its definition, and after a restart from that definition;
#   3. a shut-off domain: the virsh commands run (no --live, which libvirt refuses there), its
#      definition is placed, and it starts placed;
#   4. nothing left: domains, the daemon, its groups, /etc, /run, /var/{lib,cache,log}.
# libvirtd runs as a daemon of the test's own, in a private mount and network namespace: its
# /etc/libvirt, /run, /var/lib, /var/cache and /var/log are directories of the test (bind
# mounts only that namespace sees), /etc/passwd and /etc/group there are copies with the
# libvirt-qemu user its qemu driver resolves before reading qemu.conf (qemu runs as root), and
# its network namespace has only a loopback (no bridge, no firewall rule, no dnsmasq). Its
# process is in the test's groups ($T_TAG); its domains go to the partition /$T_TAG, which
# libvirt names $T_TAG.partition and does not create itself.
# Needs root, cgroup v1 (cpuset), 2 CPUs, qemu, a kernel, libvirt-daemon-driver-qemu and
# libvirt-clients (ci/install-deps.sh all); exit 77 otherwise. ~35 s.
# ctest: cost=40
set -eu
T=export_libvirt
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
need_root
need_cmd virsh qemu-system-x86_64 unshare "$PY"
[ -x /usr/sbin/libvirtd ] || skip "no /usr/sbin/libvirtd (ci/install-deps.sh all)"
[ -f /usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_qemu.so ] ||
    skip "no libvirt qemu driver (libvirt-daemon-driver-qemu)"
[ -f "$CG/cpuset/cgroup.procs" ] || skip "needs cgroup v1 cpuset at $CG/cpuset"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a host reserve and a VM)"
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip "no /boot/vmlinuz-* (linux-image-amd64)"

# What must look the same afterwards.
host_state() {
    find /etc -xdev -printf '%p %s %m %T@\n' 2>/dev/null | sort | md5sum
    ls -d /run/libvirt /var/lib/libvirt /var/cache/libvirt /var/log/libvirt /run/libvirtd.pid 2>/dev/null || true
    ls -d "$CG"/*/machine "$CG"/machine 2>/dev/null || true
}
before=$(host_state)

t_begin
W=$T_WORK
LV=$W/lv
eval "$(sh "$SRC/libexec/vm/build-initramfs.sh" "${PLACER_CACHE_DIR:-/var/cache/placer}/vm" 2>/dev/null | tail -n 2)"
# the daemon's namespace hides /var/cache: the guest's files are the test's own links to them
ln "$PLACER_VM_KERNEL" "$W/vmlinux" 2>/dev/null || cp "$PLACER_VM_KERNEL" "$W/vmlinux"
ln "$PLACER_VM_INITRD" "$W/initrd" 2>/dev/null || cp "$PLACER_VM_INITRD" "$W/initrd"

# ---- the daemon
HIERARCHIES=$(for d in "$CG"/*; do [ -f "$d/cgroup.procs" ] && echo "$d"; done)
for h in $HIERARCHIES; do
    mkdir "$h/$T_TAG.partition"
    if [ -f "$h/cpuset.cpus" ]; then
        cat "$h/cpuset.cpus" >"$h/$T_TAG.partition/cpuset.cpus"
        cat "$h/cpuset.mems" >"$h/$T_TAG.partition/cpuset.mems"
    fi
done
remove_partitions() {
    for h in $HIERARCHIES; do
        [ ! -d "$h/$T_TAG.partition" ] || find "$h/$T_TAG.partition" -depth -type d -exec rmdir {} \; 2>/dev/null || :
    done
    return 0
}
t_defer 'remove_partitions; t_remove_groups'

mkdir -p "$LV/etc" "$LV/run" "$LV/lib" "$LV/cache" "$LV/log/libvirt"
cat >"$LV/etc/qemu.conf" <<'EOF'
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
namespaces = [ ]
stdio_handler = "file"
cgroup_controllers = [ "cpu", "cpuacct", "cpuset", "memory" ]
EOF
cat >"$LV/etc/libvirtd.conf" <<'EOF'
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
EOF
cp /etc/passwd "$W/passwd"
cp /etc/group "$W/group"
grep -q '^libvirt-qemu:' "$W/passwd" || echo 'libvirt-qemu:x:64055:64055::/nonexistent:/usr/sbin/nologin' >>"$W/passwd"
grep -q '^libvirt-qemu:' "$W/group" || echo 'libvirt-qemu:x:64055:' >>"$W/group"
cat >"$W/libvirtd.sh" <<EOF
set -e
for h in $(echo $HIERARCHIES); do
    mkdir -p "\$h/$T_TAG"
    if [ -f "\$h/cpuset.cpus" ]; then
        cat "\$h/cpuset.cpus" >"\$h/$T_TAG/cpuset.cpus"
        cat "\$h/cpuset.mems" >"\$h/$T_TAG/cpuset.mems"
    fi
    echo \$\$ >"\$h/$T_TAG/cgroup.procs"
done
mount --bind "$LV/etc" /etc/libvirt
mount --bind "$W/passwd" /etc/passwd
mount --bind "$W/group" /etc/group
mount --bind "$LV/run" /run
mount --bind "$LV/lib" /var/lib
mount --bind "$LV/cache" /var/cache
mount --bind "$LV/log" /var/log
echo \$\$ >"$W/libvirtd.pid"
exec /usr/sbin/libvirtd
EOF
unshare --mount --net --propagation private --fork sh "$W/libvirtd.sh" >"$W/libvirtd.out" 2>&1 &
stop_libvirtd() {
    p=$(cat "$W/libvirtd.pid" 2>/dev/null) || return 0
    kill "$p" 2>/dev/null || return 0
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null || true
    wait 2>/dev/null || true
}
t_defer stop_libvirtd
export LIBVIRT_DEFAULT_URI="qemu:///system?socket=$LV/run/libvirt/libvirt-sock"
i=0
until virsh version >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 60 ] || { cat "$W/libvirtd.out" "$LV/log/libvirt/libvirtd.log" >&2; fail "libvirtd did not answer in 30 s"; }
    sleep 0.5
done
say "libvirtd $(cat "$W/libvirtd.pid") answers on $LV/run/libvirt/libvirt-sock"
DOMAINS=""
t_defer 'for d in $DOMAINS; do virsh destroy "$d" >/dev/null 2>&1; virsh undefine "$d" >/dev/null 2>&1; done'

# ---- the plan: one core for the host, a guest with two vCPUs pinned on the other
prof=$W/profile.yaml
cat >"$prof" <<EOF
version: 1
name: t-export-libvirt
reserve: { cores: 1 }
roles:
  - name: vm
    kind: vm
    count: 1
    cpu: { threads: 1, pin_vcpus: true }
    memory: 384MiB
    match: { qemu_name: "$T_TAG-vm{index}" }
    run: { vm: { vcpus: 2, memory: 128MiB } }
EOF
"$PLACER" plan --json "$prof" >"$W/plan.json"

# A domain without placement: the guest boots the test initramfs and keeps a vCPU busy.
base_xml() {
    cat <<EOF
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>128</memory>
  <vcpu placement='static' current='2'>3</vcpu>
  <iothreads>1</iothreads>
  <resource><partition>/$T_TAG</partition></resource>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$W/vmlinux</kernel>
    <initrd>$W/initrd</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 placer.mode=work placer.work=cpu placer.seconds=300</cmdline>
  </os>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <serial type='file'><source path='$W/console-$1'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
}

# check_domain NAME WHAT: the running domain's threads and groups against the plan; 1 when
# they differ (each difference on stderr).
check_domain() {
    pid=$(cat "$LV/run/libvirt/qemu/$1.pid")
    "$PY" - "$W/plan.json" "$pid" "$CG/cpuset" "$2" <<'EOF'
import glob, json, sys
plan, pid, cpuset, what = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
vm = next(i for i in plan["instances"] if i["name"] == "vm.0")
def cpus(text):
    out = set()
    for part in filter(None, text.strip().split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
pus = sorted(cpus(vm["cpus"]))
reserve, mems = cpus(plan["reserved"]["cpus"]), cpus(vm["mems"])
def field(status, key):
    return next(l.split(":", 1)[1] for l in status.splitlines() if l.startswith(key + ":"))
def group(task):
    line = next(l for l in open(task + "/cgroup") if ":cpuset:" in l)
    return cpuset + line.strip().split(":", 2)[2]
bad, vcpus, domain = [], 0, None
for task in sorted(glob.glob(f"/proc/{pid}/task/*")):
    comm = open(task + "/comm").read().strip()
    status = open(task + "/status").read()
    g = group(task)
    if comm.startswith("CPU ") and comm.endswith("/TCG"):
        k = int(comm.split()[1].split("/")[0])
        want = {pus[k % len(pus)]}
        vcpus += 1
        domain = g.rsplit("/", 1)[0]
    else:
        want = reserve
    got = cpus(field(status, "Cpus_allowed_list"))
    gcpus = cpus(open(g + "/cpuset.cpus").read())
    if got != want or gcpus != want:
        bad.append(f"{comm} (tid {task.rsplit('/', 1)[1]}): Cpus_allowed_list {sorted(got)}, group {g} cpuset.cpus {sorted(gcpus)}, planned {sorted(want)}")
    if cpus(field(status, "Mems_allowed_list")) != mems or cpus(open(g + "/cpuset.mems").read()) != mems:
        bad.append(f"{comm}: memory nodes are not {sorted(mems)}")
if vcpus != 2:
    bad.append(f"{vcpus} vCPU threads, want 2")
elif cpus(open(domain + "/cpuset.mems").read()) != mems:
    bad.append(f"the domain's group {domain}: cpuset.mems is not {sorted(mems)}")
for b in bad:
    print(f"{what}: {b}", file=sys.stderr)
if not bad:
    print(f"{what}: 2 vCPU threads on {pus}, the emulator's on {sorted(reserve)}, memory on {sorted(mems)}: as planned")
sys.exit(1 if bad else 0)
EOF
}

# check_inactive NAME WHAT: the definition (dumpxml --inactive) pins every vCPU it has (3, 2 of them
# online) on the plan's PU, the emulator and the IOThread on the host reserve, memory strict on the
# plan's node, and keeps its own vCPU count
check_inactive() {
    virsh dumpxml --inactive "$1" >"$W/$1-inactive.xml"
    "$PY" - "$W/$1-inactive.xml" "$W/plan.json" "$2" <<'EOF' || fail "$2: the definition does not hold the placement"
import json, sys, xml.etree.ElementTree as ET
d, plan, what = ET.parse(sys.argv[1]).getroot(), json.load(open(sys.argv[2])), sys.argv[3]
vm = next(i for i in plan["instances"] if i["name"] == "vm.0")
vcpu = d.find("vcpu")
assert vcpu.text == "3" and vcpu.get("current") == "2", f"{what}: <vcpu> {ET.tostring(vcpu)}"
pins = {p.get("vcpu"): p.get("cpuset") for p in d.findall("cputune/vcpupin")}
assert pins == {"0": vm["cpus"], "1": vm["cpus"], "2": vm["cpus"]}, f"{what}: vcpupin {pins}"
assert d.find("cputune/emulatorpin").get("cpuset") == plan["reserved"]["cpus"], what
io = {p.get("iothread"): p.get("cpuset") for p in d.findall("cputune/iothreadpin")}
assert io == {"1": plan["reserved"]["cpus"]}, f"{what}: iothreadpin {io}"
mem = d.find("numatune/memory")
assert mem.get("mode") == "strict" and mem.get("nodeset") == vm["mems"], f"{what}: {ET.tostring(mem)}"
print(f"{what}: the definition pins vCPUs 0-2 on {vm['cpus']}, emulator and IOThread on {plan['reserved']['cpus']}")
EOF
}

start_domain() {
    DOMAINS="$DOMAINS $1"
    virsh define "$2" >/dev/null
    virsh start "$1" >/dev/null
}

# ---- 1. the whole domain written by --merge, defined and started
d1=$T_TAG-vm0
base_xml "$d1" >"$W/base-$d1.xml"
"$PLACER" export --format libvirt --merge "$W/base-$d1.xml" "$prof" >"$W/$d1.xml"
grep -q "Generated by placer export (format libvirt) from profile t-export-libvirt" "$W/$d1.xml" ||
    fail "the merged domain does not say where it came from"
start_domain "$d1" "$W/$d1.xml"
check_domain "$d1" "libvirt --merge" || fail "the domain defined from --merge is not placed as planned"
check_inactive "$d1" "libvirt --merge"

# ---- 2. virsh on a running domain started without placement
d2=$T_TAG-vm1
base_xml "$d2" >"$W/$d2.xml"
start_domain "$d2" "$W/$d2.xml"
if check_domain "$d2" "before virsh" 2>/dev/null; then fail "a domain without placement passed the check"; fi
echo "vm.0=$d2" >"$W/map"
"$PLACER" export --format virsh --map "$W/map" "$prof" >"$W/virsh.sh"
sh -e "$W/virsh.sh"
check_domain "$d2" "virsh, live" || fail "the virsh commands did not place the running domain"
check_inactive "$d2" "virsh, running"
virsh destroy "$d2" >/dev/null
virsh start "$d2" >/dev/null
check_domain "$d2" "virsh, after a restart" || fail "the domain's definition does not hold the placement"

# ---- 3. virsh on a shut-off domain: no --live (libvirt refuses it there), the definition placed
d3=$T_TAG-vm2
base_xml "$d3" >"$W/$d3.xml"
DOMAINS="$DOMAINS $d3"
virsh define "$W/$d3.xml" >/dev/null
echo "vm.0=$d3" >"$W/map"
"$PLACER" export --format virsh --map "$W/map" "$prof" >"$W/virsh-off.sh"
sh -e "$W/virsh-off.sh" >"$W/virsh-off.out" 2>&1 || fail "the virsh commands failed on a shut-off domain: $(cat "$W/virsh-off.out")"
check_inactive "$d3" "virsh, shut off"
virsh start "$d3" >/dev/null
check_domain "$d3" "virsh on a shut-off domain, started" || fail "the shut-off domain did not start as planned"

# ---- 4. nothing left
for d in $DOMAINS; do virsh destroy "$d" >/dev/null; virsh undefine "$d" >/dev/null; done
DOMAINS=""
stop_libvirtd
[ -z "$(ls "$LV/run/libvirt/qemu/"*.pid 2>/dev/null)" ] || fail "libvirt still records a running domain"
remove_partitions
t_remove_groups || : # (its rmdirs may fail while a group empties: it retries, set -e must not stop it)
t_nothing_left "after the daemon stopped"
[ "$(host_state)" = "$before" ] || fail "the host changed: before: $before; after: $(host_state)"
say "OK: the domain --merge wrote and the virsh commands (running and shut off) placed real domains as planned; nothing left"
