#!/bin/sh
# placer run / stop with the podman backend, for real: a local Ceph cluster (1 mon, 1 mgr,
# 2 bluestore OSDs on sparse files, host network on 127.0.0.1) whose daemons are podman
# containers of localhost/placer/ceph:latest started by `placer run` from a profile.
# The cluster's config, keys, monmap and OSD stores are made on the host first (as
# libexec/ceph-cluster.sh does) in a directory bind-mounted into every container at the same path.
# Checks, once every PG is active+clean:
#   - one running container per instance, named placer-<instance>, labelled with the profile;
#   - the container's own cgroup and its parent (the instance's group) hold the planned
#     cpuset.cpus / cpuset.mems / memory limit, and EVERY thread of every process in the
#     container (~60 per OSD) has the planned Cpus_allowed_list;
#   - `placer stop` leaves no container, no ceph process, no conmon and no cgroup (in any
#     hierarchy: podman makes its groups in all of them) behind.
# Needs root, podman + runc, the Ceph packages on the host (mkfs) and the image
# (containers/build-images.sh --only ceph, built here when missing).  Exits 77 without them.
# ctest: needs=shared cost=90
set -eu
PLACER=${PLACER_BIN:?PLACER_BIN not set}
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
T=run_podman_ceph
IMAGE=localhost/placer/ceph:latest
. "$SRC/tests/integration/lib/common.sh"
note() { say "$@"; }

need_root
need_cmd podman runc ceph-mon ceph-osd ceph-authtool monmaptool ceph python3
export CONTAINERS_CONF="$SRC/containers/containers.conf"
if ! podman image exists "$IMAGE"; then
  [ -r "$SRC/containers/build-images.sh" ] || skip "no image $IMAGE and no containers/build-images.sh"
  note "building $IMAGE (once; cached afterwards)"
  sh "$SRC/containers/build-images.sh" --only ceph >&2 || fail "could not build $IMAGE"
fi

START=$(date +%s)
t_begin /var/tmp   # bluestore needs O_DIRECT: not tmpfs
work=$T_WORK
DIR=$work/cluster
prof=$work/ceph.yaml
cleanup() {
  if [ $rc -ne 0 ] && [ -d "$DIR/log" ]; then
    for f in "$DIR"/log/*.log "$work"/state/run/t-run-ceph/*.log; do
      [ -s "$f" ] && { echo "---- tail of $f"; tail -n 15 "$f"; }
    done >&2
  fi
  "$PLACER" stop --timeout 5 "$prof" >/dev/null 2>&1 || true
  for c in $(podman ps -a -q --filter label=placer.profile=t-run-ceph 2>/dev/null); do podman rm -f "$c" >/dev/null 2>&1 || true; done
  for p in $(pgrep -f "$DIR/ceph.conf" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
}
t_defer cleanup

# ---------------------------------------------------------------- the cluster's files
mkdir -p "$DIR/mon/a" "$DIR/mgr/x" "$DIR/osd/0" "$DIR/osd/1" "$DIR/log" "$DIR/run/self" "$DIR/crash"
set -- $(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
P2=$1 P1=$2
fsid=$(cat /proc/sys/kernel/random/uuid)
cat >"$DIR/ceph.conf" <<EOF2
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$P2,v1:127.0.0.1:$P1]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv4 = true
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
keyring = $DIR/keyring
run dir = $DIR/run
crash dir = $DIR/crash
pid file = $DIR/run/self/\$name.pid
log file = $DIR/log/\$name.log
mon cluster log file = $DIR/log/cluster.\$channel.log
mon data = $DIR/mon/\$id
mgr data = $DIR/mgr/\$id
osd data = $DIR/osd/\$id
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $((8 << 30))
bluestore fsck on mkfs = false
osd memory target = 1073741824
osd crush chooseleaf type = 0
osd pool default size = 2
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon data avail warn = 2
mon data avail crit = 1
mon osd reporter subtree level = osd
mon osd min down reporters = 1
mgr initial modules = iostat

[client]
admin socket = $DIR/run/\$cluster-\$name.\$pid.\$cctid.asok
log file = $DIR/log/client.log
EOF2
kr=$DIR/keyring
{
  ceph-authtool --create-keyring "$kr" --gen-key -n mon. --cap mon 'allow *'
  ceph-authtool "$kr" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *'
  ceph-authtool "$kr" --gen-key -n mgr.x --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *'
  for i in 0 1; do
    ceph-authtool "$kr" --gen-key -n "osd.$i" --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *'
  done
} >/dev/null
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$P2,v1:127.0.0.1:$P1]" "$DIR/monmap" >/dev/null
ceph-mon -c "$DIR/ceph.conf" --mkfs -i a --monmap "$DIR/monmap" --keyring "$kr" >"$DIR/log/mon.a.mkfs.out" 2>&1
mkfs_pids=""
for i in 0 1; do
  cat /proc/sys/kernel/random/uuid >"$DIR/osd/$i.uuid"
  ceph-osd -c "$DIR/ceph.conf" -i $i --mkfs --no-mon-config --osd-uuid "$(cat "$DIR/osd/$i.uuid")" \
    </dev/null >"$DIR/log/osd.$i.mkfs.out" 2>&1 &
  mkfs_pids="$mkfs_pids $!"
done
for p in $mkfs_pids; do wait "$p" || fail "ceph-osd --mkfs failed: $(tail -n 5 "$DIR"/log/osd.*.mkfs.out)"; done
note "cluster files ready in $(($(date +%s) - START))s (mon 127.0.0.1:$P1)"

# ---------------------------------------------------------------- the profile
# Control daemons share one hardware thread, the OSDs another.  Each OSD container first
# registers its id with the mon (osd new, as an activation step would), then execs the daemon.
cat >"$prof" <<YAML
version: 1
name: t-run-ceph
reserve: { cores: 0, memory: 0 }
roles:
  - name: mon
    kind: ceph-mon
    cpu: { threads: 1, pool: ctl }
    memory: 512MiB
    match: { ceph_id: "a" }
    run:
      backend: podman
      image: $IMAGE
      network: host
      volumes: ["$DIR:$DIR"]
      command: [ceph-mon, -f, -i, a, -c, "$DIR/ceph.conf"]
  - name: mgr
    kind: ceph-mgr
    cpu: { threads: 1, pool: ctl }
    memory: 768MiB
    match: { ceph_id: "x" }
    run:
      backend: podman
      image: $IMAGE
      network: host
      volumes: ["$DIR:$DIR"]
      command: [ceph-mgr, -f, -i, x, -c, "$DIR/ceph.conf"]
  - name: osd
    kind: ceph-osd
    count: 2
    cpu: { threads: 1, pool: osd }
    memory: 1536MiB
    run:
      backend: podman
      image: $IMAGE
      network: host
      volumes: ["$DIR:$DIR"]
      env: { TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES: "67108864" }
      command: [sh, -c, 'ceph -c $DIR/ceph.conf --connect-timeout 60 osd new "\$(cat $DIR/osd/{id}.uuid)" {id} >/dev/null && exec ceph-osd -f -i {id} -c $DIR/ceph.conf']
      stop_timeout: 15
YAML
"$PLACER" plan --json "$prof" >"$work/plan.json"
"$PLACER" run "$prof" | tee "$work/run.out"
note "placer run returned after $(($(date +%s) - START))s"

# ---------------------------------------------------------------- active+clean
export CEPH_CONF="$DIR/ceph.conf"
python3 - <<'PY' || fail "the cluster did not reach active+clean"
import json, subprocess, sys, time
def ceph(*args, check=True):
    r = subprocess.run(["ceph", "--connect-timeout", "20", *args], capture_output=True, text=True, timeout=60)
    if check and r.returncode:
        raise RuntimeError(f"ceph {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout
deadline = time.time() + 150
pool = False
last = ""
while time.time() < deadline:
    try:
        st = json.loads(ceph("status", "-f", "json"))
        up = st["osdmap"].get("num_up_osds", st["osdmap"].get("osdmap", {}).get("num_up_osds", 0))
        if up == 2 and not pool:
            ceph("osd", "pool", "create", "rbd", "8", "8")
            pool = True
        pgm = st.get("pgmap", {})
        clean = sum(s["count"] for s in pgm.get("pgs_by_state", []) if s["state_name"] == "active+clean")
        last = f"{up} osds up, mgr {'available' if st.get('mgrmap', {}).get('available') else 'not available'}, {clean} of {pgm.get('num_pgs', 0)} pgs active+clean"
        if pool and pgm.get("num_pgs", 0) >= 8 and clean == pgm["num_pgs"]:
            print("run_podman_ceph: " + last)
            sys.exit(0)
    except Exception as e:
        last = str(e)
    time.sleep(1)
print("run_podman_ceph: not ready: " + last)
sys.exit(1)
PY
note "active+clean after $(($(date +%s) - START))s"

# ---------------------------------------------------------------- placement as planned
python3 - "$work" "$PLACER_CGROUP_PREFIX" <<'PY' || fail "placement differs from the plan"
import json, os, re, subprocess, sys
work, prefix = sys.argv[1], sys.argv[2]
plan = {i["name"]: i for i in json.load(open(f"{work}/plan.json"))["instances"]}
rundir = f"{work}/state/run/t-run-ceph"
recs = {r["instance"]: r for r in (json.load(open(f"{rundir}/{f}")) for f in os.listdir(rundir) if f.endswith(".json"))}
fail = []
names = subprocess.run(["podman", "ps", "--filter", "label=placer.profile=t-run-ceph", "--format", "{{.Names}}"],
                       capture_output=True, text=True, check=True).stdout.split()
if sorted(names) != sorted(f"placer-{n}" for n in plan):
    fail.append(f"running containers {sorted(names)}, want one per instance {sorted(plan)}")
def read(path):
    return open(path).read().strip()
def mem_limit(group):
    for p in (f"/sys/fs/cgroup/memory/{group}/memory.limit_in_bytes", f"/sys/fs/cgroup/{group}/memory.max"):
        if os.path.exists(p):
            return int(read(p))
def cpuset_dir(group):
    for p in (f"/sys/fs/cgroup/cpuset/{group}", f"/sys/fs/cgroup/{group}"):
        if os.path.exists(f"{p}/cpuset.cpus"):
            return p
total_threads = 0
for name, rec in sorted(recs.items()):
    want = plan[name]
    if rec["backend"] != "podman":
        fail.append(f"{name}: backend {rec['backend']}")
    inst_group = f"{prefix}/{name.split('.')[0]}/{name}"
    if rec["group"] != inst_group:
        fail.append(f"{name}: group {rec['group']}, want {inst_group}")
    cg = rec["container_cgroup"]
    if not cg.startswith(inst_group + "/libpod-"):
        fail.append(f"{name}: container cgroup {cg} is not under {inst_group}")
    for what, group in (("instance group", inst_group), ("container", cg)):
        d = cpuset_dir(group)
        if d is None:
            fail.append(f"{name}: no cpuset dir for {group}")
            continue
        if read(f"{d}/cpuset.cpus") != want["cpus"]:
            fail.append(f"{name} {what}: cpuset.cpus {read(f'{d}/cpuset.cpus')}, plan {want['cpus']}")
        if read(f"{d}/cpuset.mems") != want["mems"]:
            fail.append(f"{name} {what}: cpuset.mems {read(f'{d}/cpuset.mems')}, plan {want['mems']}")
        if mem_limit(group) != want["memory_bytes"]:
            fail.append(f"{name} {what}: memory limit {mem_limit(group)}, plan {want['memory_bytes']}")
    d = cpuset_dir(cg)
    procs = read(f"{d}/cgroup.procs").split() if d else []
    if str(rec["pid"]) not in procs:
        fail.append(f"{name}: recorded pid {rec['pid']} not in its container cgroup ({procs})")
    comm = read(f"/proc/{rec['pid']}/comm")
    wantcomm = {"mon": "ceph-mon", "mgr": "ceph-mgr", "osd": "ceph-osd"}[name.split(".")[0]]
    if comm != wantcomm:
        fail.append(f"{name}: pid {rec['pid']} is {comm}, want {wantcomm}")
    n = 0
    for pid in procs:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                st = read(f"/proc/{pid}/task/{tid}/status")
            except OSError:
                continue
            cpus = re.search(r"Cpus_allowed_list:\s*(\S+)", st).group(1)
            mems = re.search(r"Mems_allowed_list:\s*(\S+)", st).group(1)
            n += 1
            if cpus != want["cpus"] or mems != want["mems"]:
                fail.append(f"{name}: thread {tid} of {pid} on cpus {cpus} mems {mems}, plan {want['cpus']} / {want['mems']}")
    total_threads += n
    print(f"run_podman_ceph: {name}: {comm} pid {rec['pid']}, {n} threads on cpus {want['cpus']}, limit {want['memory_bytes']} B, cgroup {cg[:60]}...")
if fail:
    print("FAIL:\n  " + "\n  ".join(fail[:30]))
    sys.exit(1)
print(f"run_podman_ceph: ok: {len(recs)} containers, {total_threads} threads, all as planned")
PY

# ---------------------------------------------------------------- stop leaves nothing
"$PLACER" stop "$prof"
sleep 0.5
left=$(podman ps -a --filter label=placer.profile=t-run-ceph --format '{{.Names}}')
[ -z "$left" ] || fail "containers left after stop: $left"
if pgrep -f "$DIR/ceph.conf" >/dev/null; then
  for p in $(pgrep -f "$DIR/ceph.conf"); do
    st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1 || true)
    case "$st" in Z|X|'') ;; *) fail "ceph process $p ($(cat /proc/$p/comm)) left after stop" ;; esac
  done
fi
for p in $(pgrep -x conmon 2>/dev/null); do
  if grep -q "$PLACER_CGROUP_PREFIX" "/proc/$p/cgroup" 2>/dev/null; then
    st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1 || true)
    case "$st" in Z|X|'') ;; *) fail "conmon $p left after stop" ;; esac
  fi
done
groups=$(find /sys/fs/cgroup -maxdepth 3 -type d -name "$PLACER_CGROUP_PREFIX" 2>/dev/null)
[ -z "$groups" ] || fail "cgroups left after stop: $groups"
[ -z "$(ls "$work"/state/run/t-run-ceph/*.json 2>/dev/null)" ] || fail "run records left after stop"
note "ok: stop left no container, ceph process, conmon or cgroup ($(($(date +%s) - START))s in all)"
