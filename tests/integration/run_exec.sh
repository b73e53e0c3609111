#!/bin/sh
# placer run / stop with the exec backend, for real (root, cgroup v1 or v2):
#   - a process is in its planned cpuset from its first instruction: its own first
#     reading of /proc/self/status and /proc/self/cgroup already shows the plan, and every
#     thread of a multi-threaded fio, read from /proc right after `placer run` returns
#     (and again a second later), has the planned Cpus_allowed_list;
#   - the role's environment is applied (/proc/PID/environ; LD_PRELOAD of tcmalloc shows
#     in /proc/PID/maps) and argv arrives literally (spaces, quotes, $(...), backquotes);
#   - the memory limit is in the cgroup file and enforced (a hog is OOM-killed);
#   - a second `placer run` starts nothing twice; an exec failure is reported as
#     "exec 'PROG': No such file or directory" and rolled back;
#   - `placer stop` leaves no process, no cgroup and no record behind.
set -eu
T=run_exec
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/common.sh"
PLACER=${PLACER_BIN:?PLACER_BIN not set}
need_root
need_cmd fio python3 sh sleep
t_begin
work=$T_WORK
prof=$work/exec.yaml
t_defer '"$PLACER" stop --timeout 2 "$prof" >/dev/null 2>&1; "$PLACER" stop --timeout 2 "$work/fail.yaml" >/dev/null 2>&1'

tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
[ -e "$tcmalloc" ] || tcmalloc=""

# Two shared pools of one hardware thread each ("a" and "b"): 2 PUs are enough.
cat >"$prof" <<YAML
version: 1
name: t-run-exec
reserve: { cores: 0, memory: 0 }
roles:
  - name: first
    kind: generic
    cpu: { threads: 1, pool: a }
    memory: 64MiB
    run:
      command: [sh, -c, 'grep -E "^(Cpus|Mems)_allowed_list" /proc/self/status >"\$OUT"; cat /proc/self/cgroup >>"\$OUT"; exec sleep 300']
      env:
        OUT: "$work/first-{name}.txt"
        TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES: "134217728"
        LD_PRELOAD: "$tcmalloc"
        PLACER_HOSTILE: "a b 'c' \"d\" \$(touch $work/pwned-env) {{name}}"
  - name: args
    kind: generic
    cpu: { threads: 1, pool: a }
    memory: 32MiB
    run:
      command: [printf, '%s\n', 'a b', "'q' \"d\"", '\$(touch $work/pwned-arg)', '\`id\`', '{name}', '{cpus}']
  - name: hog
    kind: generic
    cpu: { threads: 1, pool: a }
    memory: 32MiB
    run:
      command: [python3, -c, "import time; x = bytearray(256 << 20); time.sleep(300)"]
  - name: fio
    kind: fio
    cpu: { threads: 1, pool: b }
    memory: 256MiB
    run:
      command: "fio --name=burn --ioengine=cpuio --cpuload=20 --numjobs=3 --thread --time_based --runtime=300"
      stop_timeout: 3
YAML

"$PLACER" plan --json "$prof" >"$work/plan.json"
"$PLACER" run "$prof" >"$work/run.out"
cat "$work/run.out"
# Right after `placer run` returned: every thread of every process, from /proc.
python3 - "$work" first <<'PY' >"$work/threads-immediate.json"
import json, os, sys
work = sys.argv[1]
out = {}
for name in os.listdir(f"{work}/state/run/t-run-exec"):
    if not name.endswith(".json"):
        continue
    rec = json.load(open(f"{work}/state/run/t-run-exec/{name}"))
    pid = rec["pid"]
    threads = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            st = open(f"/proc/{pid}/task/{tid}/status").read()
            threads[tid] = [l.split(":", 1)[1].strip() for l in st.splitlines() if l.startswith("Cpus_allowed_list")][0]
    except OSError:
        pass
    out[rec["instance"]] = threads
print(json.dumps(out))
PY
sleep 1.5

python3 - "$work" "$PLACER_CGROUP_PREFIX" "$tcmalloc" <<'PY'
import json, os, sys, glob
work, prefix, tcmalloc = sys.argv[1], sys.argv[2], sys.argv[3]
plan = {i["name"]: i for i in json.load(open(f"{work}/plan.json"))["instances"]}
rundir = f"{work}/state/run/t-run-exec"
recs = {r["instance"]: r for r in (json.load(open(f"{rundir}/{f}")) for f in os.listdir(rundir) if f.endswith(".json"))}
immediate = json.load(open(f"{work}/threads-immediate.json"))
fail = []
def check(what, got, want):
    if got != want:
        fail.append(f"{what}: got {got!r}, want {want!r}")

check("instances recorded", sorted(recs), sorted(plan))
def cgroup_dir(controller, group):
    for root in (f"/sys/fs/cgroup/{controller}", "/sys/fs/cgroup"):
        if os.path.isdir(f"{root}/{group}") and (os.path.exists(f"{root}/cpuset.cpus") or os.path.exists(f"{root}/{group}/cpuset.cpus") or controller != "cpuset"):
            return f"{root}/{group}"
    return None

for name, rec in recs.items():
    want = plan[name]
    group = f"{prefix}/{name.split('.')[0]}/{name}"
    check(f"{name} group", rec["group"], group)
    d = cgroup_dir("cpuset", group)
    if d is None:
        fail.append(f"{name}: no cpuset group {group}")
        continue
    check(f"{name} cpuset.cpus", open(f"{d}/cpuset.cpus").read().strip(), want["cpus"])
    check(f"{name} cpuset.mems", open(f"{d}/cpuset.mems").read().strip(), want["mems"])
    m = cgroup_dir("memory", group)
    lim = f"{m}/memory.limit_in_bytes" if os.path.exists(f"{m}/memory.limit_in_bytes") else f"{m}/memory.max"
    check(f"{name} memory limit", int(open(lim).read()), want["memory_bytes"])
    # Threads as read right after `placer run` returned.
    for tid, cpus in immediate.get(name, {}).items():
        check(f"{name} thread {tid} right after start", cpus, want["cpus"])

# first: its own first reading, and its environment.
first = open(f"{work}/first-first.0.txt").read().splitlines()
check("first.0 own first Cpus_allowed_list", first[0].split(":", 1)[1].strip(), plan["first.0"]["cpus"])
check("first.0 own first Mems_allowed_list", first[1].split(":", 1)[1].strip(), plan["first.0"]["mems"])
cg_lines = [l for l in first[2:] if "cpuset" in l.split(":")[1].split(",") or l.startswith("0::")]
if not any(l.endswith(f"/{prefix}/first/first.0") for l in cg_lines):
    fail.append(f"first.0 was not in its group at its first reading: {cg_lines}")
pid = recs["first.0"]["pid"]
env = dict(e.split("=", 1) for e in open(f"/proc/{pid}/environ").read().split("\0") if "=" in e)
check("env TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES", env.get("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES"), "134217728")
check("env PLACER_HOSTILE", env.get("PLACER_HOSTILE"), f"a b 'c' \"d\" $(touch {work}/pwned-env) {{name}}")
check("PATH inherited", "PATH" in env, True)
if tcmalloc:
    check("env LD_PRELOAD", env.get("LD_PRELOAD"), tcmalloc)
    maps = open(f"/proc/{pid}/maps").read()
    check("tcmalloc preloaded (in /proc/PID/maps)", "libtcmalloc_minimal" in maps, True)

# args: each argument literal, one per line.
log = open(recs["args.0"]["log"]).read()
check("argv arrived literally", log.splitlines(), ["a b", "'q' \"d\"", f"$(touch {work}/pwned-arg)", "`id`", "args.0", plan["args.0"]["cpus"]])
for f in ("pwned-env", "pwned-arg"):
    check(f"no shell ran ({f})", os.path.exists(f"{work}/{f}"), False)

# fio: several threads by now, every one on the plan's cpus.
fpid = recs["fio.0"]["pid"]
tids = os.listdir(f"/proc/{fpid}/task")
if len(tids) < 2:
    fail.append(f"fio has only {len(tids)} thread(s)")
for tid in tids:
    cpus = [l for l in open(f"/proc/{fpid}/task/{tid}/status").read().splitlines() if l.startswith("Cpus_allowed_list")][0]
    check(f"fio thread {tid}", cpus.split(":", 1)[1].strip(), plan["fio.0"]["cpus"])
if len(immediate.get("fio.0", {})) < 1:
    fail.append("no fio thread seen right after start")

# hog: over its 32 MiB limit, the kernel killed it.
m = cgroup_dir("memory", f"{prefix}/hog/hog.0")
hog_alive = os.path.exists(f"/proc/{recs['hog.0']['pid']}/status") and "State:\tZ" not in open(f"/proc/{recs['hog.0']['pid']}/status").read()
check("hog (256 MiB in a 32 MiB group) was killed", hog_alive, False)
oc = f"{m}/memory.oom_control" if os.path.exists(f"{m}/memory.oom_control") else f"{m}/memory.events"
kills = [int(l.split()[1]) for l in open(oc).read().splitlines() if l.startswith("oom_kill ")]
check("oom_kill counted in the hog's group", bool(kills and kills[0] >= 1), True)

if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print(f"ok: {len(recs)} instances placed from their first instruction; fio {len(tids)} threads; env, argv, memory limit checked")
PY

# A second run starts nothing twice.
pids_before=$(cat "$work"/state/run/t-run-exec/fio.0.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
"$PLACER" run "$prof" >"$work/run2.out"
grep -q '^fio.0 .* running ' "$work/run2.out" || { echo "FAIL: second run did not report fio.0 running"; cat "$work/run2.out"; exit 1; }
pids_after=$(cat "$work"/state/run/t-run-exec/fio.0.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
[ "$pids_before" = "$pids_after" ] || { echo "FAIL: fio.0 restarted ($pids_before -> $pids_after)"; exit 1; }
[ "$(pgrep -c -f 'fio --name=burn --ioengine=cpuio')" -ge 1 ] || { echo "FAIL: fio not running"; exit 1; }

# Stop: nothing left.
all_pids=$(cat "$work"/state/run/t-run-exec/*.json | python3 -c 'import json,sys
d = sys.stdin.read().replace("}\n{", "}\x00{").split("\x00")
print(" ".join(str(json.loads(x)["pid"]) for x in d))')
"$PLACER" stop "$prof"
sleep 0.3
python3 - "$PLACER_CGROUP_PREFIX" $all_pids <<'PY'
import os, sys
prefix, pids = sys.argv[1], sys.argv[2:]
left = []
for p in pids:
    try:
        st = open(f"/proc/{p}/stat").read()
        if st.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
            left.append(f"process {p} ({open(f'/proc/{p}/comm').read().strip()})")
    except OSError:
        pass
for root, dirs, _ in os.walk("/sys/fs/cgroup"):
    for d in dirs:
        if d == prefix:
            left.append(f"cgroup {root}/{d}")
    if root.count("/") > 4:
        dirs[:] = []
if left:
    print("FAIL: left behind after stop: " + ", ".join(left))
    sys.exit(1)
print(f"ok: stop left no process ({len(pids)} checked) and no group {prefix}")
PY
[ -z "$(ls "$work/state/run/t-run-exec/"*.json 2>/dev/null)" ] || { echo "FAIL: run records left"; exit 1; }

# An exec failure is reported through the close-on-exec pipe and rolled back.
cat >"$work/fail.yaml" <<YAML
version: 1
name: t-run-exec-fail
reserve: { cores: 0, memory: 0 }
roles:
  - name: good
    kind: generic
    cpu: { threads: 1, pool: a }
    run: { command: [sleep, "300"] }
  - name: bad
    kind: generic
    cpu: { threads: 1, pool: a }
    run: { command: [/nonexistent/placer-test-prog, --flag] }
YAML
rc=0
"$PLACER" run "$work/fail.yaml" >"$work/fail.out" 2>"$work/fail.err" || rc=$?
cat "$work/fail.err"
[ "$rc" = 4 ] || { echo "FAIL: exit $rc for a missing program, want 4"; exit 1; }
grep -q "bad.0: exec '/nonexistent/placer-test-prog': No such file or directory" "$work/fail.err" ||
  { echo "FAIL: the exec error does not name the program and errno"; exit 1; }
grep -qx "placer run: rolled back: stopped good.0" "$work/fail.err" ||
  { echo "FAIL: the rollback of good.0 is not reported"; exit 1; }
if pgrep -f 'sleep 300' | while read -r p; do grep -q "$PLACER_CGROUP_PREFIX" "/proc/$p/cgroup" 2>/dev/null && echo "$p"; done | grep -q .; then
  echo "FAIL: good.0 was not stopped by the rollback"; exit 1
fi
if find /sys/fs/cgroup -maxdepth 2 -name "$PLACER_CGROUP_PREFIX" | grep -q .; then
  echo "FAIL: groups left after the rollback"; exit 1
fi
echo "ok: exec failure reported and rolled back"
