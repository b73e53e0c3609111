#!/bin/sh
# Live topology: 'placer topo --json' on this machine must agree with /sys
# (online CPUs, NUMA nodes, real block devices) and with this process's own
# Cpus_allowed_list / Mems_allowed_list.
set -eu
T=topo_live
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
t_begin
out=$T_WORK/topo.json
"$PLACER" topo --json >"$out"

python3 - "$out" <<'PY'
import json, os, re, sys

def expand(text):
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus

topo = json.load(open(sys.argv[1]))
failures = []
def check(what, got, want):
    if got != want:
        failures.append(f"{what}: placer says {sorted(got) if isinstance(got, set) else got}, /sys says {sorted(want) if isinstance(want, set) else want}")

assert topo["schema"] == 1
online = expand(open("/sys/devices/system/cpu/online").read())
check("online cpus", expand(topo["online"]["cpus"]), online)
check("pus total", topo["totals"]["pus"], len(online))

nodes = expand(open("/sys/devices/system/node/online").read()) if os.path.exists("/sys/devices/system/node/online") else {0}
check("numa nodes", {n["os_index"] for n in topo["numa_nodes"]}, nodes)
for n in topo["numa_nodes"]:
    path = f"/sys/devices/system/node/node{n['os_index']}"
    if os.path.exists(path):
        check(f"node {n['os_index']} cpus", expand(n["cpus"]), expand(open(path + "/cpulist").read()))
        kb = int(re.search(r"MemTotal:\s+(\d+) kB", open(path + "/meminfo").read()).group(1))
        if abs(n["memory_bytes"] - kb * 1024) > 64 << 20:
            failures.append(f"node {n['os_index']} memory {n['memory_bytes']} vs MemTotal {kb} kB")

real_blocks = {d for d in os.listdir("/sys/block") if "/devices/virtual/" not in os.path.realpath("/sys/block/" + d)}
check("block devices", {b["name"] for b in topo["block_devices"]}, real_blocks)
for b in topo["block_devices"]:
    sectors = int(open(f"/sys/block/{b['name']}/size").read())
    if b["size_bytes"] is not None and b["size_bytes"] != sectors * 512:
        failures.append(f"{b['name']} size {b['size_bytes']} vs {sectors * 512}")
    assert isinstance(b["numa_nodes"], list)

status = open("/proc/self/status").read()
allowed = re.search(r"Cpus_allowed_list:\s+(\S+)", status).group(1)
check("allowed cpus", expand(topo["allowed"]["cpus"]), expand(allowed))
mems = re.search(r"Mems_allowed_list:\s+(\S+)", status).group(1)
check("allowed mems", expand(topo["allowed"]["mems"]), expand(mems))

if failures:
    print("topo_live: FAIL\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"topo_live: ok ({len(online)} cpus, {len(nodes)} nodes, {len(real_blocks)} block devices)")
PY

# The text form names the same machine.
"$PLACER" topo | grep -q "^topology live: "
# Restricted by a cpuset, the allowed set shrinks accordingly (taskset).
if [ "$(nproc)" -gt 1 ]; then
  taskset -c 0 "$PLACER" topo --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["allowed"]["cpus"]=="0", d["allowed"]; print("topo_live: allowed follows taskset")'
fi
