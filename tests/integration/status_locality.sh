#!/bin/sh
# placer status shows each instance's memory locality: the share of its
# processes' resident memory on its planned NUMA nodes, from
# /proc/PID/numa_maps.  Real cgroups (v1 here), real processes holding real
# memory: a python3 that touched 64 MiB is bound by apply; stress-ng (--vm 1
# --vm-bytes 64M --vm-keep, its worker a child) is started in the same group
# by `placer exec`.  The figures status prints (text and JSON) are checked
# against the numa_maps of those processes, summed here independently, and
# the host's nodes against /sys.  On this 1-node machine every page is local
# (100%); a remote share needs a second node: status_locality_v2_guest.sh
# shows one in a 2-node qemu guest, the unit tests on fixtures.
set -eu
T=status_locality
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd stress-ng
apply_setup status_locality

profile=$WORK/p.yaml
cat >"$profile" <<EOF
version: 1
name: $TAG
reserve: { cores: 0 }
roles:
  - name: a
    kind: generic
    count: 1
    cpu: { threads: 1 }
    match: { cmdline: "*threads.py $TAG-a *" }
EOF
set -- $(planned "$profile" a.0)
a_mems=$2
procs=$CG/cpuset/$TAG/a/a.0/cgroup.procs
# Whatever runs in the group goes too (stress-ng's worker outlives a parent
# killed with SIGKILL), then the usual cleanup.
kill_group() {
    for p in $(cat "$procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
}
t_defer kill_group

bg_start "$PY" "$LIB/threads.py" "$TAG-a" 2 --hold-mb 64 --alloc-mb 32 --pidfile "$WORK/a.pid"
A=$LAST_PID
wait_file "$WORK/a.pid"
"$PLACER" apply "$profile" >"$WORK/out" || fail "apply exit $?: $(cat "$WORK/out")"
grep -Eq "^a\.0 .* bound pid $A " "$WORK/out" || fail "a.0 not bound: $(cat "$WORK/out")"

# stress-ng's parent and its vm worker, placed in a.0's group (not bound:
# status finds them in the group).
bg_start "$PLACER" exec "$profile" a.0 -- stress-ng --vm 1 --vm-bytes 64M --vm-keep --timeout 120
S=$LAST_PID
i=0
until [ "$(grep -c . "$procs")" -ge 3 ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "stress-ng's worker never showed up in $TAG/a/a.0: $(cat "$procs")"
    sleep 0.1
done
# the worker has touched its 64 MiB once the group's RSS says so
i=0
while :; do
    rss=0
    for p in $(cat "$procs"); do
        r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$p/status" 2>/dev/null || true)
        rss=$((rss + ${r:-0}))
    done
    [ $rss -ge $((120 * 1024)) ] && break
    i=$((i + 1))
    [ $i -lt 200 ] || fail "the group's processes never held 120 MiB (VmRSS sum $rss kB)"
    sleep 0.1
done

# and the group's processes hold still: stress-ng's vm worker forks the child that touches the
# memory (its OOM-able child) a moment after it starts, which status would count and this test
# not (1 of 22 runs failed so)
i=0
pids=$(cat "$procs")
while sleep 0.3 && [ "$(cat "$procs")" != "$pids" ]; do
    pids=$(cat "$procs")
    i=$((i + 1))
    [ $i -lt 30 ] || fail "the group's processes never held still: $(cat "$procs" | tr '\n' ' ')"
done
"$PLACER" status >"$WORK/status.txt" || fail "status exit $?: $(cat "$WORK/status.txt")"
"$PLACER" status --json >"$WORK/status.json" || fail "status --json exit $?"
"$PY" - "$WORK/status.json" "$WORK/status.txt" "$a_mems" $pids <<'PY' || fail "locality differs from numa_maps (above)"
import glob, json, re, sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
planned = set()
for part in sys.argv[3].split(","):
    lo, _, hi = part.partition("-")
    planned.update(range(int(lo), int(hi or lo) + 1))
pids = [int(p) for p in sys.argv[4:]]


def node_bytes(pid):
    out = {}
    for line in open("/proc/%d/numa_maps" % pid):
        m = re.search(r"kernelpagesize_kB=(\d+)", line)
        kib = int(m.group(1)) if m else 4
        for n, pages in re.findall(r"\bN(\d+)=(\d+)", line):
            out[int(n)] = out.get(int(n), 0) + int(pages) * kib * 1024
    return out


want = {}
for pid in pids:
    for n, b in node_bytes(pid).items():
        want[n] = want.get(n, 0) + b
resident = sum(want.values())
local = sum(b for n, b in want.items() if n in planned)

host_nodes = len(glob.glob("/sys/devices/system/node/node[0-9]*"))
numa = doc["numa"]
assert numa["available"] is True, numa
assert numa["nodes"] == host_nodes, (numa, host_nodes)
assert len(numa["node_bytes"]) == host_nodes and all(b > 0 for b in numa["node_bytes"]), numa

inst = [i for i in doc["instances"] if i["name"] == "a.0"][0]
loc = inst["memory_locality"]
assert loc is not None, inst
assert loc["planned_mems"] == sys.argv[3], loc
assert loc["n_processes"] == len(pids), (loc, pids)
# the processes hold still: numa_maps read here and by status agree to 2%
assert abs(loc["resident_bytes"] - resident) <= 0.02 * resident, (loc, resident)
assert loc["resident_bytes"] >= 128 << 20, loc
assert set(int(n) for n in loc["node_bytes"]) == set(n for n, b in want.items() if b), (loc, want)
share = local / resident
assert abs(loc["local_share"] - share) < 0.01, (loc, share)
shown = "100%" if local == resident else "%d%%" % min(round(100 * share), 99)
assert loc["shown"].split(" ")[0] == shown, (loc["shown"], shown)
line = [l for l in text.splitlines() if l.startswith("a.0 ")][0]
assert ("local mem " + loc["shown"]) in line, line
if host_nodes == 1:
    assert loc["shown"] == "100%" and "1 NUMA node here" in text, (loc, text)
print("status_locality: a.0 (%d processes) holds %d MiB, %.1f%% on planned node(s) %s (numa_maps: %.1f%%): '%s'"
      % (len(pids), loc["resident_bytes"] >> 20, 100 * loc["local_share"], sys.argv[3], 100 * share, line.strip()))
PY

# more memory, more resident: status follows (threads.py allocates 32 MiB on SIGUSR1)
resident_of() {
    "$PY" -c 'import json, sys
print([i for i in json.load(open(sys.argv[1]))["instances"] if i["name"] == "a.0"][0]["memory_locality"]["resident_bytes"])' "$1"
}
# stress-ng's processes are stopped meanwhile (SIGSTOP: their pages stay as they are; kill_group's
# SIGKILL still ends them on a failure): the vm stressor's resident memory moves by a few MiB as
# it works, which hid 8 of the 32 MiB in one run of ~40.
others=$(grep -vx "$A" "$procs" | tr '\n' ' ')
kill -STOP $others || fail "SIGSTOP stress-ng ($others)"
"$PLACER" status --json >"$WORK/status1.json" || fail "status --json exit $?"
before=$(resident_of "$WORK/status1.json")
kill -USR1 "$A"
i=0
until grep -q "allocated 32 MiB" "$WORK/bg.log"; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "threads.py did not allocate on SIGUSR1"
    sleep 0.1
done
"$PLACER" status --json >"$WORK/status2.json" || fail "status --json exit $?"
after=$(resident_of "$WORK/status2.json")
kill -CONT $others || fail "SIGCONT stress-ng ($others)"
[ $((after - before)) -ge $((30 << 20)) ] || fail "resident bytes $before -> $after after allocating 32 MiB"
say "after allocating 32 MiB more: $((before >> 20)) -> $((after >> 20)) MiB resident"

# stress-ng ends its worker on SIGTERM; reset once only python is left in
# the group (an exiting process cannot be moved out of it yet)
kill "$S" 2>/dev/null || true
i=0
until [ "$(cat "$procs")" = "$A" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "stress-ng still in the group 10 s after SIGTERM: $(cat "$procs")"
    sleep 0.1
done
"$PLACER" reset >/dev/null || fail "reset exit $?"
say "ok"
