#!/bin/sh
# placer run / stop of a vm role, for real: a qemu guest (ci/vm kernel + initramfs whose
# /init runs a CPU load and prints PLACER-WORK progress lines) started by the exec backend in
# its planned cgroup.  Checks: the accelerator placer chose and said (TCG on machines without
# vmx/svm, as here), every qemu thread inside the planned cpus, each "CPU n/TCG" vCPU thread
# pinned to its own PU (pin_vcpus), the memory limit in the group, the guest making progress,
# and that `placer stop` leaves no qemu and no group behind.
# Environment: PLACER_BIN, PLACER_SOURCE_DIR, PLACER_CACHE_DIR (default /var/cache/placer; the
# guest kernel and initramfs in its vm/ subdirectory).  Exit 77 (skip) without qemu or a kernel.
set -eu
T=run_vm
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/guest.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
need_root
guest_begin
eval "$(sh "$SRC/libexec/vm/build-initramfs.sh" "$cache" 2>/dev/null | tail -n 2)"
export PLACER_VM_KERNEL PLACER_VM_INITRD

work=$T_WORK
prof=$work/vm.yaml
t_defer '"$PLACER" stop --timeout 2 "$prof" >/dev/null 2>&1'

npus=$(nproc)
vcpus=2
[ "$npus" -ge 2 ] || vcpus=1
cat >"$prof" <<YAML
version: 1
name: t-run-vm
reserve: { cores: 0, memory: 0 }
roles:
  - name: client
    kind: vm
    cpu: { threads: $vcpus, pin_vcpus: true }
    memory: 768MiB
    run:
      vm: { vcpus: $vcpus, memory: 256MiB, seconds: 120, work_memory: 16MiB }
      stop_timeout: 5
YAML

"$PLACER" plan --json "$prof" >"$work/plan.json"
"$PLACER" run "$prof" | tee "$work/run.out"
grep -q 'qemu tcg\|qemu kvm' "$work/run.out" || { echo "FAIL: placer run did not say which accelerator it used"; exit 1; }
# The reason follows placer_vm_choose_accel's order: /dev/kvm first (stat, open without O_CREAT,
# KVM_GET_API_VERSION = 12: never a shell '<>' redirection, which creates a missing /dev/kvm as a
# regular file), then the flags.
kvm=$(python3 -c '
import fcntl, os, stat
try:
    st = os.stat("/dev/kvm")
except FileNotFoundError:
    print("there is none"); raise SystemExit
if not stat.S_ISCHR(st.st_mode):
    print("it is not a character device"); raise SystemExit
try:
    fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
except OSError:
    print("it does not open"); raise SystemExit
try:
    ok = fcntl.ioctl(fd, 0xAE00) == 12  # KVM_GET_API_VERSION
except OSError:
    ok = False
print("usable" if ok else "KVM_GET_API_VERSION does not answer 12")')
if [ "$kvm" != usable ]; then
  grep -qF "qemu tcg (no usable /dev/kvm: $kvm" "$work/run.out" || { echo "FAIL: /dev/kvm: $kvm here, want TCG and why"; exit 1; }
elif ! grep -qw -e vmx -e svm /proc/cpuinfo; then
  grep -q 'qemu tcg (no vmx/svm flag' "$work/run.out" || { echo "FAIL: no vmx/svm here, want TCG and why"; exit 1; }
else
  grep -q 'qemu kvm' "$work/run.out" || { echo "FAIL: a usable KVM and vmx/svm here, want kvm"; exit 1; }
fi

# The guest boots (TCG: a few seconds) and its load makes progress.
console=$work/state/run/t-run-vm/client.0.console
i=0
until [ "$(grep -c '^PLACER-WORK units=' "$console" 2>/dev/null || true)" -ge 2 ]; do
  i=$((i + 1))
  [ $i -lt 90 ] || { echo "FAIL: no PLACER-WORK progress from the guest in 45 s"; tail -n 20 "$console"; exit 1; }
  sleep 0.5
done
grep '^PLACER-WORK' "$console" | tail -n 2

python3 - "$work" "$PLACER_CGROUP_PREFIX" "$vcpus" <<'PY'
import json, os, re, sys
work, prefix, vcpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
def expand(text):
    s = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            s.update(range(int(lo), int(hi or lo) + 1))
    return s
plan = json.load(open(f"{work}/plan.json"))["instances"][0]
rec = json.load(open(f"{work}/state/run/t-run-vm/client.0.json"))
fail = []
pid = rec["pid"]
cmd = open(f"/proc/{pid}/cmdline").read().split("\0")
if not os.path.basename(cmd[0]).startswith("qemu-system"):
    fail.append(f"pid {pid} is not qemu: {cmd[0]}")
accel = cmd[cmd.index("-accel") + 1]
if accel != rec["accel"]:
    fail.append(f"record says accel {rec['accel']}, qemu runs with {accel}")
if "-nic" not in cmd or cmd[cmd.index("-nic") + 1] != "none":
    fail.append("the guest has a NIC")
planned = expand(plan["cpus"])
pus = sorted(planned)
vcpu_threads = {}
for tid in os.listdir(f"/proc/{pid}/task"):
    comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
    st = open(f"/proc/{pid}/task/{tid}/status").read()
    cpus = expand(re.search(r"Cpus_allowed_list:\s*(\S+)", st).group(1))
    if not cpus <= planned:
        fail.append(f"thread {tid} ({comm}) on {sorted(cpus)}, outside the plan {sorted(planned)}")
    m = re.match(r"CPU (\d+)/(TCG|KVM)$", comm)
    if m:
        vcpu_threads[int(m.group(1))] = (tid, cpus)
if sorted(vcpu_threads) != list(range(vcpus)):
    fail.append(f"vCPU threads {sorted(vcpu_threads)}, want {list(range(vcpus))}")
for n, (tid, cpus) in vcpu_threads.items():
    want = {pus[n % len(pus)]}
    if cpus != want:
        fail.append(f"vCPU {n} (thread {tid}) on {sorted(cpus)}, want {sorted(want)}")
group = f"{prefix}/client/client.0"
for root in ("/sys/fs/cgroup/cpuset", "/sys/fs/cgroup"):
    if os.path.exists(f"{root}/{group}/cpuset.cpus"):
        got = expand(open(f"{root}/{group}/cpuset.cpus").read())
        if got != planned:
            fail.append(f"cpuset.cpus {sorted(got)} != plan {sorted(planned)}")
        procs = open(f"{root}/{group}/cgroup.procs").read().split()
        if str(pid) not in procs:
            fail.append(f"qemu {pid} is not in {root}/{group}")
        break
else:
    fail.append(f"no cpuset group {group}")
for lim in (f"/sys/fs/cgroup/memory/{group}/memory.limit_in_bytes", f"/sys/fs/cgroup/{group}/memory.max"):
    if os.path.exists(lim):
        if int(open(lim).read()) != plan["memory_bytes"]:
            fail.append(f"{lim} = {open(lim).read().strip()}, want {plan['memory_bytes']}")
        break
else:
    fail.append("no memory limit file")
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print(f"ok: qemu {pid} ({accel}) in {group}, {len(vcpu_threads)} vCPU threads pinned: " +
      ", ".join(f"CPU {n}->{sorted(c)[0]}" for n, (t, c) in sorted(vcpu_threads.items())))
PY

pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$work/state/run/t-run-vm/client.0.json")
"$PLACER" stop "$prof"
sleep 0.3
state=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1 || true)
case "$state" in ''|Z|X) ;; *) echo "FAIL: qemu $pid still runs after stop (state $state)"; exit 1 ;; esac
if pgrep -f "guest=client.0,debug-threads=on" >/dev/null; then
  echo "FAIL: a qemu of client.0 is left"; exit 1
fi
if find /sys/fs/cgroup -maxdepth 2 -name "$PLACER_CGROUP_PREFIX" | grep -q .; then
  echo "FAIL: groups left after stop"; exit 1
fi
echo "ok: stop killed qemu $pid and removed its group"
