#!/bin/sh
# ceph-cluster.sh: bring up / tear down a throwaway Ceph cluster on 127.0.0.1
# for placer's tests and benchmarks (Ceph 16.2 "Pacific" as packaged by Debian 12).
#
#   libexec/ceph-cluster.sh up DIR [--osds N] [--mds] [--osd-size GiB] [--image-size GiB]
#                             [--timeout SECONDS] [--exec-prefix-osd CMD]
#   libexec/ceph-cluster.sh down DIR
#   libexec/ceph-cluster.sh status DIR
#   libexec/ceph-cluster.sh env DIR
#   libexec/ceph-cluster.sh kill DIR NAME | start DIR NAME | osd-out DIR ID | osd-in DIR ID
#   libexec/ceph-cluster.sh watch-recovery DIR [--timeout SECONDS]
#
# up      Creates DIR (or uses it if it is empty) and starts 1 mon (mon.a), 1 mgr (mgr.x),
#         N bluestore OSDs (osd.0..; default 2) on sparse files of --osd-size GiB (default 16)
#         and, with --mds, a CephFS "cephfs" (pools cephfs_metadata, cephfs_data) served by
#         mds.a. It creates the pool "rbd" (16 PGs, size 2 (1 with one OSD), rbd pool init)
#         and the image rbd/placer-bench of --image-size GiB (default 1), then waits until
#         every OSD is up and every PG is active+clean (and the MDS is up:active), for at
#         most --timeout seconds (default 120) from the start. Quiet; on success one line:
#           ceph-cluster: up in 6s: mon 127.0.0.1:6789 (v2 3300), 2 osds, pool rbd, image placer-bench
#         On failure it says what was not ready, which daemons died (and their exit status)
#         and prints the tail of the logs of the daemons at fault, then stops what it
#         started, removes DIR (CEPH_CLUSTER_KEEP=1: keeps DIR and its logs, minus the block
#         files) and exits 1. A failure of a daemon is noticed at once, not at the timeout.
#         If DIR holds a previous cluster whose daemons are all dead (a crash), it is wiped
#         and replaced; if one of its daemons still runs, up refuses (run down first). A DIR
#         that exists, is not empty and is not a cluster is refused.
# down    Unmounts any mount under DIR (ceph-fuse) and stops the daemons of DIR/run/*.pid
#         in stages (ceph-fuse clients and MDS, then OSDs, then mgr and mon: each stage
#         SIGTERM, up to 15 s, then SIGKILL), then removes DIR. Safe to run twice, on a
#         half-started or crashed DIR, and on a DIR that does not exist (exit 0). It only
#         signals a PID whose /proc/PID/cmdline contains "ceph" and a path inside DIR, so a
#         reused PID is never killed. Takes ~1-2 s; 4-10 s with an MDS (the MDS alone takes
#         3-9 s to exit after SIGTERM, even with the mon and OSDs still up).
# status  Prints each daemon with its PID and whether it is alive, then `ceph -s`.
#         Exit 0 if every daemon is alive (and ceph -s answered), 1 if not, 2 if DIR holds
#         no cluster.
# kill    SIGKILLs daemon NAME (osd.1) of DIR, as a crash would, and waits until it is gone.
# start   Starts daemon NAME of DIR again (after kill) through CEPH_CLUSTER_LAUNCHER (or
#         --exec-prefix-osd's prefix, given again as CEPH_CLUSTER_OSD_PREFIX), as up does;
#         prints its PID (the launcher must exec the daemon). run/NAME.pid follows it.
# osd-out, osd-in   `ceph osd out ID` / `ceph osd in ID` (data is moved off / back).
# watch-recovery    Follows the PG states (the mgr's, every 0.25 s) until they have left
#         active+clean and come back to it, for at most --timeout seconds (default 300): one
#         line per poll "t=UNIX clean=N pgs=N degraded=N misplaced=N up=N", then "UNCLEAN
#         UNIX" when they first left and "CLEAN UNIX" when all are active+clean again (exit
#         0), or "TIMEOUT ..." (exit 4). Recovery seen at 1 s resolution needs the mgr's stats
#         period at 1 s (mgr_stats_period; placer bench sets it for a recovery study).
# env     Prints lines to eval: CEPH_CONF (all that `ceph`, `rados`, `rbd` and
#         `fio --ioengine=rbd --clientname=admin --pool=rbd --rbdname=placer-bench` need),
#         CEPH_CLUSTER_DIR, CEPH_CLUSTER_MON (the mon_host value, for `ceph -m`),
#         CEPH_CLUSTER_POOL and CEPH_CLUSTER_IMAGE.
#
# Layout of DIR: ceph.conf, keyring (every key: mon., client.admin, mgr.x, osd.N, mds.a),
# monmap, mon-addr, mon/a, mgr/x, osd/N (bluestore "block" file inside), mds/a,
# log/NAME.log (ceph's log), log/NAME.out (the daemon's stdout/stderr), log/client.log,
# crash/, run/ (admin sockets; one pidfile per daemon: run/mon.a.pid, run/mgr.x.pid,
# run/osd.0.pid, run/mds.a.pid; ceph's own pid files in run/self/), daemons (names in
# start order) and .ceph-cluster (the marker that makes DIR ours).
# Nothing is written to /etc/ceph, /var/lib/ceph, /var/log/ceph or /var/run/ceph; the only
# file outside DIR is the lock file ${TMPDIR:-/tmp}/ceph-cluster-sh.lock (held while a mon
# port is chosen, so that concurrent `up`s do not pick the same one).
#
# Placing daemons:
#   --exec-prefix-osd CMD   every OSD is started as `CMD ceph-osd -i N -f -c DIR/ceph.conf`
#                           (CMD is split on blanks; no quotes or other shell parsing).
#   CEPH_CLUSTER_LAUNCHER   (environment) the same kind of prefix for every daemon (mon,
#                           mgr, osd, mds); --exec-prefix-osd takes precedence for OSDs.
#   In both, {name}, {type} and {id} are replaced by the daemon's name (osd.1), type (osd)
#   and id (1), e.g. CEPH_CLUSTER_LAUNCHER='placer exec --role {name} --' or
#   --exec-prefix-osd 'taskset -c {id}'. The prefix should exec the daemon (then the PID is
#   the daemon's). If it does not, up takes the daemon's own PID from run/self/NAME.pid
#   once the cluster is up, puts it in run/NAME.pid and keeps the launcher's PID in
#   run/NAME.launcher.pid; down signals both.
#
# Other environment: CEPH_CLUSTER_EXTRA_CONF (text appended to ceph.conf, e.g.
# "[osd]<newline>osd op num shards = 2"), CEPH_CLUSTER_DEBUG=1 (timestamps of the phases on
# stderr), CEPH_CLUSTER_KEEP=1, CEPH_CLUSTER_STOP_TIMEOUT (seconds, default 15),
# CEPH_CLUSTER_LOG_LINES (lines of log shown on failure, default 25).
#
# Speed (2 shared cores): up takes ~5-7 s to active+clean with 2 OSDs (+~1 s with --mds).
# It gets there by creating the OSDs' bluestore in parallel while the mon starts, by doing
# every mon command and the waiting in one librados client (python3-rados) instead of many
# `ceph` CLI runs, and by shortening paxos_propose_interval (1 s -> 0.2 s) and the mgr's
# stats/tick periods (5 s/2 s -> 1 s) in the mon's config database during the bring-up
# only: they are removed again once the cluster is clean, so benchmarks see the defaults.
# Permanent settings that differ from a stock cluster: see write_conf below; also the mgr
# module option mgr/devicehealth/enable_monitoring = false (no devices to scrape, and its
# pool would appear at a random moment).
#
# Ports: the mon listens on 127.0.0.1, msgr v2 and v1: 3300 and 6789 if both are free, else
# the first free pair (3300+k, 6789-k), k < 50. OSDs/mgr/mds take free ports in 6800-7300.
# Everything binds to 127.0.0.1 only (ms bind ipv6 = false; the only mgr module beyond the
# always-on ones is iostat, which listens nowhere).
# Requirements: root (or a user that may write DIR), the Debian packages ceph-mon ceph-osd
# ceph-mgr ceph-common (+ ceph-mds for --mds), util-linux, coreutils; /usr/bin/python3 with
# the rados and rbd modules comes with ceph-common. DIR must be on a filesystem that
# supports O_DIRECT (ext4, xfs, btrfs; tmpfs only on recent kernels): bluestore uses it.
set -eu

PROG=ceph-cluster
PY=/usr/bin/python3

die() { echo "$PROG: $*" >&2; exit 1; }
usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# --- helpers -------------------------------------------------------------------------

now() { date +%s; }
# CEPH_CLUSTER_DEBUG=1: timestamps of the phases of up on stderr.
phase() { [ "${CEPH_CLUSTER_DEBUG:-0}" = 0 ] || echo "$PROG: $(date +%T.%N | cut -c1-12) $*" >&2; }

abspath() { # canonical absolute path; DIR may not exist yet
  readlink -m -- "$1" 2>/dev/null && return 0
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$(pwd)" "$1" ;;
  esac | sed 's://*:/:g; s:/$::'
}

is_uint() { case "$1" in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }

# alive PID: the process exists and is not a zombie.
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# ours PID: alive, and its command line mentions ceph and a path in DIR (a daemon's
# "-c DIR/ceph.conf", a ceph-fuse mount point). Guards against a PID reused meanwhile.
ours() {
  alive "$1" || return 1
  cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
  case "$cmd" in *ceph*) ;; *) return 1 ;; esac
  case "$cmd" in *"$DIR/"*) return 0 ;; *) return 1 ;; esac
}

# fuse_pids: ceph-fuse processes whose mount point (given as an absolute path) is in DIR.
fuse_pids() {
  for d in /proc/[0-9]*; do
    [ "$(cat "$d/comm" 2>/dev/null)" = ceph-fuse ] || continue
    cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
    case "$cmd" in *" $DIR/"*) echo "${d#/proc/}" ;; esac
  done
}

readpid() { # FILE -> PID or nothing
  [ -r "$1" ] || return 0
  p=$(head -n1 "$1" 2>/dev/null | tr -dc '0-9')
  [ -n "$p" ] && printf '%s\n' "$p"
  return 0
}

daemon_names() { [ -r "$DIR/daemons" ] && cat "$DIR/daemons"; return 0; }

# port_busy PORT: something is bound to PORT (TCP, v4 or v6, any state but TIME_WAIT).
port_busy() {
  hex=$(printf ':%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v h="$hex" 'NR>0 && substr($2, length($2)-4) == h && $4 != "06" {f=1} END {exit !f}'
}

# The Python side: mon commands and readiness checks through librados in one process
# (a `ceph` CLI call costs ~0.4 s of CPU on this kind of 2-core machine).
HELPER='
import json, sys, time, os
import rados
mode = sys.argv[1]
conf = os.environ["CEPH_CONF"]
deadline = time.time() + float(os.environ.get("CC_TIMEOUT", "120"))
def left():
    return max(1, int(deadline - time.time()))
def out(*a):
    print(*a, flush=True)
r = rados.Rados(conffile=conf, name="client.admin")
r.conf_set("rados_mon_op_timeout", str(left()))
r.conf_set("rados_osd_op_timeout", str(left()))
try:
    r.connect(timeout=left())
except Exception as e:
    out("BLAME mon.a"); out("cannot reach the mon: %s" % e); sys.exit(3)
def mon(cmd, ok=()):
    ret, buf, outs = r.mon_command(json.dumps(cmd), b"", timeout=left())
    if ret < 0 and -ret not in ok:
        raise RuntimeError("%s: %s (%d)" % (cmd["prefix"], outs.strip(), ret))
    return buf
if mode == "mon":
    # each argument is one JSON mon command
    for c in sys.argv[2:]:
        mon(json.loads(c), ok=(17,))
    sys.exit(0)
if mode == "recovery":
    # PG states from the mgr (fresher than the digest the mon keeps), every 0.25 s.
    unclean = None
    while True:
        try:
            ret, buf, outs = r.mgr_command(json.dumps({"prefix": "pg stat", "format": "json"}), b"",
                                           timeout=10)
            st = json.loads(buf) if ret == 0 and buf else None
            osd = json.loads(mon({"prefix": "osd stat", "format": "json"}))
        except Exception as e:
            st = None
        if st is not None:
            # Pacific: {"pg_summary": {"num_pg_by_state": [...], "num_pgs": N, ...}}
            s = st.get("pg_summary", st)
            total = s.get("num_pgs", 0)
            clean = sum(x.get("num", 0) for x in s.get("num_pg_by_state", [])
                        if x.get("name") == "active+clean")
            t = time.time()
            out("t=%.3f clean=%d pgs=%d degraded=%d misplaced=%d up=%s" % (
                t, clean, total, s.get("degraded_objects", 0), s.get("misplaced_objects", 0),
                osd.get("num_up_osds", "?")))
            if total and clean < total and unclean is None:
                unclean = t
                out("UNCLEAN %.3f" % t)
            if unclean is not None and total and clean == total:
                out("CLEAN %.3f" % t)
                sys.exit(0)
        if time.time() >= deadline:
            out("TIMEOUT %s" % ("not active+clean again" if unclean else "the PGs never left active+clean"))
            sys.exit(4)
        time.sleep(0.25)
assert mode == "wait"
nosds = int(sys.argv[2]); want_mds = sys.argv[3] == "1"; pool = sys.argv[4]
image = sys.argv[5]; image_gib = int(sys.argv[6])
init_done = False
last = ""
def dead():
    for np in os.environ.get("CC_PIDS", "").split():
        name, pid = np.split("=")
        try:
            with open("/proc/%s/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in "ZX":
                    continue
        except OSError:
            pass
        yield name
while True:
    why = []; blame = []
    gone = list(dead())
    if gone:
        for b in gone:
            out("BLAME " + b)
        out("%s exited" % " and ".join(gone))
        sys.exit(5)
    try:
        st = json.loads(mon({"prefix": "status", "format": "json"}))
        osds = json.loads(mon({"prefix": "osd dump", "format": "json"}))
        up = [o["osd"] for o in osds["osds"] if o["up"]]
        for o in osds["osds"]:
            if not o["up"]:
                blame.append("osd.%d" % o["osd"])
        if len(osds["osds"]) < nosds:
            why.append("%d of %d osds exist" % (len(osds["osds"]), nosds))
        elif len(up) < nosds:
            why.append("%d of %d osds up" % (len(up), nosds))
        if not st.get("mgrmap", {}).get("available"):
            why.append("no active mgr"); blame.append("mgr.x")
        if not why and not init_done:
            import rbd
            with r.open_ioctx(pool) as io:
                rbd.RBD().pool_init(io, False)
                if image not in rbd.RBD().list(io):
                    rbd.RBD().create(io, image, image_gib << 30)
            init_done = True
            continue
        want_pgs = sum(p["pg_num"] for p in osds["pools"])
        pgm = st.get("pgmap", {})
        clean = sum(s["count"] for s in pgm.get("pgs_by_state", [])
                    if s["state_name"] == "active+clean")
        if pgm.get("num_pgs", 0) != want_pgs or clean != want_pgs:
            states = ", ".join("%d %s" % (s["count"], s["state_name"])
                               for s in pgm.get("pgs_by_state", []))
            why.append("%d of %d pgs active+clean (%s)" % (clean, want_pgs, states or "no pg stats yet"))
        if want_mds:
            fs = st.get("fsmap", {})
            ranks = [b.get("status") for b in fs.get("by_rank", [])]
            if ranks != ["up:active"]:
                why.append("mds not active (%s)" % (ranks or "no rank")); blame.append("mds.a")
        if not why:
            h = st.get("health", {})
            if h.get("status") != "HEALTH_OK":
                out("HEALTH %s: %s" % (h.get("status"), "; ".join(
                    "%s %s" % (k, v.get("summary", {}).get("message", ""))
                    for k, v in h.get("checks", {}).items())))
            for c in sys.argv[7:]:
                mon(json.loads(c))
            sys.exit(0)
        last = "; ".join(why)
        checks = st.get("health", {}).get("checks", {})
        if checks:
            last += "; health: " + "; ".join("%s %s" % (k, v.get("summary", {}).get("message", ""))
                                            for k, v in checks.items())
    except Exception as e:
        last = "error: %s" % e
    if time.time() >= deadline:
        for b in sorted(set(blame)):
            out("BLAME " + b)
        out("not ready within %ss: %s" % (os.environ.get("CC_TIMEOUT"), last))
        sys.exit(4)
    time.sleep(0.3)
'

helper() { # MODE ARGS... (CEPH_CONF and CC_TIMEOUT from the environment)
  CEPH_CONF="$DIR/ceph.conf" timeout -k 5 "$((${CC_TIMEOUT:-120} + 10))" \
    "$PY" -c "$HELPER" "$@"
}

# expand_prefix PREFIX NAME TYPE ID: the prefix with {name} {type} {id} replaced.
expand_prefix() {
  printf '%s\n' "$1" | sed "s/{name}/$2/g; s/{type}/$3/g; s/{id}/$4/g"
}

# launch_daemon NAME PREFIX BINARY ARGS...: start in the background, record the PID.
launch_daemon() {
  name=$1; pfx=$2; shift 2
  type=${name%%.*}; id=${name#*.}
  words=$(expand_prefix "$pfx" "$name" "$type" "$id")
  set -f
  # shellcheck disable=SC2086 # the prefix is split on blanks on purpose
  $words "$@" -f -c "$DIR/ceph.conf" </dev/null >>"$DIR/log/$name.out" 2>&1 9>&- &
  set +f
  echo "$!" >"$DIR/run/$name.pid"
}

# start_daemon NAME PREFIX BINARY ARGS...: launch, and list it among DIR's daemons.
start_daemon() {
  launch_daemon "$@"
  echo "$1" >>"$DIR/daemons"
}

# After the cluster is up: if a launcher did not exec the daemon, point run/NAME.pid at
# the daemon's own PID (from ceph's pid file) and keep the launcher's in NAME.launcher.pid.
resolve_pids() {
  for name in $(daemon_names); do
    pid=$(readpid "$DIR/run/$name.pid")
    [ -n "$pid" ] || continue
    comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
    case "$comm" in ceph-*) continue ;; esac
    self=$(readpid "$DIR/run/self/$name.pid")
    if [ -n "$self" ] && [ "$self" != "$pid" ] && alive "$self"; then
      echo "$pid" >"$DIR/run/$name.launcher.pid"
      echo "$self" >"$DIR/run/$name.pid"
    fi
  done
}

# --- down ----------------------------------------------------------------------------

# kill_group PID...: SIGTERM, wait up to CEPH_CLUSTER_STOP_TIMEOUT (15) s, then SIGKILL.
kill_group() {
  pids=""
  for p in "$@"; do
    ours "$p" || continue
    case " $pids " in *" $p "*) ;; *) pids="$pids $p" ;; esac
  done
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  phase "SIGTERM to$pids"
  end=$(($(now) + ${CEPH_CLUSTER_STOP_TIMEOUT:-15}))
  while :; do
    left=""
    for p in $pids; do ours "$p" && left="$left $p"; done
    pids=$left
    [ -n "$pids" ] || { phase "all exited"; return 0; }
    [ "$(now)" -lt "$end" ] || break
    sleep 0.1
  done
  echo "$PROG: SIGKILL to$pids (still running ${CEPH_CLUSTER_STOP_TIMEOUT:-15} s after SIGTERM)" >&2
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=""
    for p in $pids; do alive "$p" && left="$left $p"; done
    [ -n "$left" ] || return 0
    sleep 0.2
  done
  echo "$PROG: warning: PIDs$left survived SIGKILL" >&2
}

# pids_of GLOB: the PIDs in run/GLOB.pid, run/GLOB.launcher.pid and run/self/GLOB.pid.
pids_of() {
  for f in "$DIR"/run/$1.pid "$DIR"/run/$1.launcher.pid "$DIR"/run/self/$1.pid; do
    [ -e "$f" ] && readpid "$f"
  done
  return 0
}

# stop_all [PID...]: stop every daemon of DIR, and these PIDs (ceph-fuse clients), in
# stages: clients and MDS, then OSDs, then mgr and mon. While the mon is up, an OSD or an
# MDS stops in well under a second; without a mon each waits ~5 s for it in vain.
stop_all() {
  # shellcheck disable=SC2046
  kill_group "$@" $(pids_of 'mds.*')
  # shellcheck disable=SC2046
  kill_group $(pids_of 'osd.*')
  # shellcheck disable=SC2046
  kill_group $(pids_of '*')
}

# unmount_all: unmount ceph-fuse (and any other) mounts under DIR, deepest first, and
# give the ceph-fuse processes behind them up to 5 s to exit on their own. Prints the
# PIDs of those still running, for stop_all.
unmount_all() {
  fp=$(fuse_pids)
  awk -v d="$DIR/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r |
    while read -r m; do
      m=$(printf '%b' "$m")   # /proc/mounts escapes blanks as \040
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
        echo "$PROG: warning: cannot unmount $m" >&2
    done
  for _ in $(seq 50); do
    left=""
    for p in $fp; do alive "$p" && left="$left $p"; done
    fp=$left
    [ -n "$fp" ] || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  echo $fp
}

cmd_down() {
  [ -e "$DIR" ] || return 0
  [ -d "$DIR" ] || die "$DIR is not a directory"
  if [ ! -e "$DIR/.ceph-cluster" ]; then
    [ -z "$(ls -A "$DIR" 2>/dev/null)" ] || die "$DIR holds no ceph-cluster.sh cluster (no .ceph-cluster); not touching it"
  fi
  phase "down: unmount"
  # shellcheck disable=SC2046
  stop_all $(unmount_all)
  unmount_all >/dev/null
  phase "down: stopped"
  rm -rf "$DIR"
  phase "down: removed"
}

# --- status / env --------------------------------------------------------------------

cmd_status() {
  [ -e "$DIR/.ceph-cluster" ] || { echo "$PROG: no cluster in $DIR" >&2; exit 2; }
  rc=0
  echo "cluster $DIR, mon $(cat "$DIR/mon-addr" 2>/dev/null)"
  for name in $(daemon_names); do
    pid=$(readpid "$DIR/run/$name.pid")
    if [ -n "$pid" ] && ours "$pid"; then
      printf '%-8s %8s  %s\n' "$name" "$pid" "alive ($(cat "/proc/$pid/comm" 2>/dev/null))"
    else
      printf '%-8s %8s  %s\n' "$name" "${pid:--}" dead
      rc=1
    fi
  done
  monpid=$(readpid "$DIR/run/mon.a.pid")
  if [ -n "$monpid" ] && ours "$monpid"; then
    CEPH_CONF="$DIR/ceph.conf" timeout -k 2 20 ceph -s --connect-timeout 15 || rc=1
  else
    echo "(mon.a is not running: no ceph -s)"
  fi
  exit $rc
}

cmd_env() {
  [ -e "$DIR/.ceph-cluster" ] || die "no cluster in $DIR"
  q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
  echo "export CEPH_CONF=$(q "$DIR/ceph.conf")"
  echo "export CEPH_CLUSTER_DIR=$(q "$DIR")"
  echo "export CEPH_CLUSTER_MON=$(q "$(cat "$DIR/mon-addr")")"
  echo "export CEPH_CLUSTER_POOL=rbd"
  echo "export CEPH_CLUSTER_IMAGE=placer-bench"
}

# --- up ------------------------------------------------------------------------------

write_conf() { # P2 P1 FSID NOSDS OSD_BYTES
  size=2; [ "$4" -ge 2 ] || size=1
  cat >"$DIR/ceph.conf.new" <<EOF
# Written by libexec/ceph-cluster.sh: a throwaway cluster, everything under this directory.
[global]
fsid = $3
mon host = [v2:127.0.0.1:$1,v1:127.0.0.1:$2]
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
mds data = $DIR/mds/\$id
# bluestore on a sparse file osd/N/block; 16 GiB by default: with 3 GiB, 4K random writes
# filling a 1 GiB image ran RocksDB out of space and crashed both OSDs.
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $5
bluestore fsck on mkfs = false
osd memory target = 1073741824
# all OSDs are on one host: replicate across OSDs, and let one OSD report another down
# (else a dead OSD stays "up" for 15 min and clients hang).
osd crush chooseleaf type = 0
mon osd reporter subtree level = osd
mon osd min down reporters = 1
osd pool default size = $size
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
# the machine's disk is often more than 70% full: no MON_DISK_LOW warning for that
mon data avail warn = 2
mon data avail crit = 1
# no dashboard/restful/prometheus: nothing listens on all addresses
mgr initial modules = iostat

[client]
# one admin socket per client process, else parallel ceph/rados/fio runs collide on one
admin socket = $DIR/run/\$cluster-\$name.\$pid.\$cctid.asok
log file = $DIR/log/client.log
# librbd's write-around cache (Pacific's default) acknowledges writes before the OSDs have
# them, up to 24 MiB in flight: a short fio run then measures the cache filling and draining,
# not the cluster (IOPS twice the OSDs' rate, 15% run-to-run spread, and fio needs seconds
# after its window to drain).  Off, a write completes when both replicas have it.
rbd cache = false
EOF
  [ -z "${CEPH_CLUSTER_EXTRA_CONF:-}" ] || printf '\n# CEPH_CLUSTER_EXTRA_CONF\n%s\n' "$CEPH_CLUSTER_EXTRA_CONF" >>"$DIR/ceph.conf.new"
  mv -f "$DIR/ceph.conf.new" "$DIR/ceph.conf"   # atomic: OSD mkfs runs may be reading it
}

# pick_ports: sets P2 P1 to a free msgr v2/v1 pair.
pick_ports() {
  k=0
  while [ $k -lt 50 ]; do
    P2=$((3300 + k)); P1=$((6789 - k))
    if ! port_busy $P2 && ! port_busy $P1; then return 0; fi
    k=$((k + 1))
  done
  die "no free mon port pair (3300+k, 6789-k) for k < 50"
}

# wait_listen PORT PID SECONDS: the mon listens on PORT (or died).
wait_listen() {
  i=0
  while [ $i -lt $(($3 * 10)) ]; do
    awk -v h="$(printf ':%04X' "$1")" 'substr($2, length($2)-4) == h && $4 == "0A" {f=1} END {exit !f}' \
      /proc/net/tcp && return 0
    alive "$2" || return 1
    sleep 0.1; i=$((i + 1))
  done
  return 1
}

tail_log() { # NAME: the end of a daemon's log and stdout/stderr
  for f in "$DIR/log/$1.out" "$DIR/log/$1.log"; do
    [ -s "$f" ] || continue
    echo "---- tail of ${f#"$DIR"/} ----" >&2
    tail -n "${CEPH_CLUSTER_LOG_LINES:-25}" "$f" >&2
  done
}

up_failed() { # MESSAGE [NAMES TO BLAME...]
  msg=$1; shift
  FAILED_MSG=$msg
  echo "$PROG: up FAILED after $(($(now) - T0))s: $msg" >&2
  blamed=""
  for name in $(daemon_names); do
    pid=$(readpid "$DIR/run/$name.pid")
    if [ -z "$pid" ] || ! alive "$pid"; then
      st=""
      [ -z "$pid" ] || { wait "$pid" 2>/dev/null; st=" (exit status $?)"; } || true
      echo "$PROG: $name (pid ${pid:-?}) is dead$st" >&2
      blamed="$blamed $name"
    fi
  done
  for name in "$@"; do
    case " $blamed " in *" $name "*) ;; *) blamed="$blamed $name" ;; esac
  done
  for name in $blamed; do tail_log "$name"; done
  exit 1   # the EXIT trap cleans up
}

cleanup_failed_up() {
  trap - EXIT INT TERM HUP
  # shellcheck disable=SC2046
  stop_all $(unmount_all)
  if [ "${CEPH_CLUSTER_KEEP:-0}" = 1 ]; then
    rm -f "$DIR"/osd/*/block
    echo "$PROG: kept $DIR (CEPH_CLUSTER_KEEP=1; daemons stopped, block files removed)" >&2
  else
    rm -rf "$DIR"
  fi
}

UP_OK=0
on_exit() {
  rc=$?
  [ "$UP_OK" = 1 ] && return 0
  [ "$rc" -ne 0 ] || rc=1
  [ -n "${FAILED_MSG:-}" ] || echo "$PROG: up FAILED after $(($(now) - T0))s (unexpected error, exit status $rc)" >&2
  cleanup_failed_up
  exit "$rc"
}
on_signal() { echo "$PROG: interrupted" >&2; exit 130; }

cmd_up() {
  NOSDS=2; MDS=0; OSD_GIB=16; IMAGE_GIB=1; TIMEOUT=120; OSD_PREFIX=${CEPH_CLUSTER_LAUNCHER:-}
  while [ $# -gt 0 ]; do
    case "$1" in
      --osds) NOSDS=${2:?}; shift 2 ;;
      --osds=*) NOSDS=${1#*=}; shift ;;
      --mds) MDS=1; shift ;;
      --osd-size) OSD_GIB=${2:?}; shift 2 ;;
      --osd-size=*) OSD_GIB=${1#*=}; shift ;;
      --image-size) IMAGE_GIB=${2:?}; shift 2 ;;
      --image-size=*) IMAGE_GIB=${1#*=}; shift ;;
      --timeout) TIMEOUT=${2:?}; shift 2 ;;
      --timeout=*) TIMEOUT=${1#*=}; shift ;;
      --exec-prefix-osd) OSD_PREFIX=${2?}; shift 2 ;;
      --exec-prefix-osd=*) OSD_PREFIX=${1#*=}; shift ;;
      *) echo "$PROG: unknown option $1" >&2; usage ;;
    esac
  done
  for v in "$NOSDS" "$OSD_GIB" "$IMAGE_GIB" "$TIMEOUT"; do
    is_uint "$v" && [ "$v" -ge 1 ] || die "option values must be positive integers, got '$v'"
  done
  [ "$NOSDS" -le 64 ] || die "--osds $NOSDS: at most 64"
  for b in ceph-mon ceph-mgr ceph-osd ceph-authtool monmaptool ceph timeout; do
    command -v $b >/dev/null 2>&1 || die "$b not found (run ci/install-deps.sh)"
  done
  [ $MDS = 0 ] || command -v ceph-mds >/dev/null 2>&1 || die "ceph-mds not found (run ci/install-deps.sh)"
  [ -x "$PY" ] && "$PY" -c 'import rados, rbd' 2>/dev/null ||
    die "$PY with the rados and rbd modules is needed (python3-rados, python3-rbd; ceph-common pulls them in)"

  T0=$(now)
  if [ -e "$DIR/.ceph-cluster" ]; then
    for name in $(daemon_names); do
      p=$(readpid "$DIR/run/$name.pid")
      if [ -n "$p" ] && ours "$p"; then
        die "a cluster is running in $DIR ($name, pid $p): run '$0 down $DIR' first"
      fi
    done
    echo "$PROG: $DIR holds a dead cluster (crashed?): wiping it" >&2
    # shellcheck disable=SC2046
    stop_all $(unmount_all)
    rm -rf "$DIR"
  elif [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
    die "$DIR exists and is not empty; give a new or empty directory"
  fi
  mkdir -p "$DIR"
  : >"$DIR/.ceph-cluster"
  trap 'on_exit' EXIT
  trap 'on_signal' INT TERM HUP
  mkdir -p "$DIR/run/self" "$DIR/log" "$DIR/crash" "$DIR/mon/a" "$DIR/mgr/x"
  : >"$DIR/daemons"

  phase keys
  fsid=$(cat /proc/sys/kernel/random/uuid)
  kr="$DIR/keyring"
  {
    ceph-authtool --create-keyring "$kr" --gen-key -n mon. --cap mon 'allow *'
    ceph-authtool "$kr" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
      --cap mds 'allow *' --cap mgr 'allow *'
    ceph-authtool "$kr" --gen-key -n mgr.x --cap mon 'allow profile mgr' --cap osd 'allow *' \
      --cap mds 'allow *'
    i=0
    while [ $i -lt "$NOSDS" ]; do
      ceph-authtool "$kr" --gen-key -n "osd.$i" --cap mon 'allow profile osd' \
        --cap mgr 'allow profile osd' --cap osd 'allow *'
      i=$((i + 1))
    done
    [ $MDS = 0 ] || ceph-authtool "$kr" --gen-key -n mds.a --cap mon 'allow profile mds' \
      --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow profile mds'
  } >/dev/null

  # OSD mkfs (bluestore on a sparse file) needs only ceph.conf and the keyring: start it
  # now, in parallel, while the mon comes up. The mon's port is not known yet, so mkfs
  # gets a conf whose mon host is never contacted.
  write_conf 1 1 "$fsid" "$NOSDS" "$((OSD_GIB << 30))"
  mkfs_pids=""
  i=0
  while [ $i -lt "$NOSDS" ]; do
    mkdir -p "$DIR/osd/$i"
    cat /proc/sys/kernel/random/uuid >"$DIR/osd/$i.uuid"
    ceph-osd -c "$DIR/ceph.conf" -i $i --mkfs --no-mon-config --osd-uuid "$(cat "$DIR/osd/$i.uuid")" \
      </dev/null >"$DIR/log/osd.$i.mkfs.out" 2>&1 &
    mkfs_pids="$mkfs_pids $!"
    echo "$!" >"$DIR/run/osd.$i.mkfs.pid"   # so that a failed up stops it too
    i=$((i + 1))
  done

  phase "osd mkfs started"
  # Choose the mon's ports and start it, under a lock so that concurrent ups differ.
  lock="${TMPDIR:-/tmp}/ceph-cluster-sh.lock"
  exec 9>>"$lock"
  command -v flock >/dev/null 2>&1 && flock -w 60 9 || true
  pick_ports
  write_conf $P2 $P1 "$fsid" "$NOSDS" "$((OSD_GIB << 30))"
  echo "[v2:127.0.0.1:$P2,v1:127.0.0.1:$P1]" >"$DIR/mon-addr"
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$P2,v1:127.0.0.1:$P1]" "$DIR/monmap" \
    >/dev/null
  ceph-mon -c "$DIR/ceph.conf" --mkfs -i a --monmap "$DIR/monmap" --keyring "$kr" \
    >"$DIR/log/mon.a.mkfs.out" 2>&1 || { tail_log mon.a.mkfs; up_failed "ceph-mon --mkfs failed"; }
  start_daemon mon.a "${CEPH_CLUSTER_LAUNCHER:-}" ceph-mon -i a
  monpid=$(readpid "$DIR/run/mon.a.pid")
  wait_listen $P2 "$monpid" 20 || { exec 9>&-; up_failed "mon.a does not listen on 127.0.0.1:$P2" mon.a; }
  exec 9>&-
  phase "mon listens"
  start_daemon mgr.x "${CEPH_CLUSTER_LAUNCHER:-}" ceph-mgr -i x

  # The osdmap entries, pools and file system: mon commands only (no OSD needed yet).
  # SPEEDUP: settings that make bring-up ~2x faster (map changes proposed every 0.2 s
  # instead of 1 s, PG stats reported every 1 s instead of 5 s); they go to the mon's
  # config database and are removed once the cluster is clean, so that benchmarks run
  # with the default values.
  SPEEDUP="mon paxos_propose_interval 0.2
mgr mgr_tick_period 1
mgr mgr_stats_period 1"
  set --
  while read -r who opt val; do
    set -- "$@" "{\"prefix\": \"config set\", \"who\": \"$who\", \"name\": \"$opt\", \"value\": \"$val\"}"
  done <<EOF
$SPEEDUP
EOF
  i=0
  while [ $i -lt "$NOSDS" ]; do
    set -- "$@" "{\"prefix\": \"osd new\", \"uuid\": \"$(cat "$DIR/osd/$i.uuid")\", \"id\": $i}"
    i=$((i + 1))
  done
  # No device health monitoring: there are no devices to scrape, and its pool would be
  # created at a random moment (when the OSDs come up), racing the active+clean check.
  set -- "$@" '{"prefix": "config set", "who": "mgr", "name": "mgr/devicehealth/enable_monitoring", "value": "false", "force": true}'
  set -- "$@" '{"prefix": "osd pool create", "pool": "rbd", "pg_num": 16, "pgp_num": 16}'
  if [ $MDS = 1 ]; then
    set -- "$@" '{"prefix": "osd pool create", "pool": "cephfs_metadata", "pg_num": 8, "pgp_num": 8}' \
      '{"prefix": "osd pool create", "pool": "cephfs_data", "pg_num": 8, "pgp_num": 8}' \
      '{"prefix": "fs new", "fs_name": "cephfs", "metadata": "cephfs_metadata", "data": "cephfs_data"}'
  fi
  phase "mgr started"
  out=$(CC_TIMEOUT=$TIMEOUT helper mon "$@" 2>&1) || up_failed "mon commands failed: $out" mon.a

  phase "mon commands done"
  # Wait for the OSD mkfs runs, then start the OSDs (and the MDS).
  i=0
  for p in $mkfs_pids; do
    if ! wait "$p"; then
      tail_log "osd.$i.mkfs"
      up_failed "ceph-osd --mkfs of osd.$i failed"
    fi
    rm -f "$DIR/run/osd.$i.mkfs.pid"
    i=$((i + 1))
  done
  phase "osd mkfs done"
  i=0
  while [ $i -lt "$NOSDS" ]; do
    start_daemon "osd.$i" "$OSD_PREFIX" ceph-osd -i $i
    i=$((i + 1))
  done
  if [ $MDS = 1 ]; then
    mkdir -p "$DIR/mds/a"
    start_daemon mds.a "${CEPH_CLUSTER_LAUNCHER:-}" ceph-mds -i a
  fi

  phase "osds started"
  # rbd pool init, the image, then everything active+clean.
  left=$((TIMEOUT - ($(now) - T0)))
  [ $left -ge 5 ] || left=5
  set --
  while read -r who opt val; do
    set -- "$@" "{\"prefix\": \"config rm\", \"who\": \"$who\", \"name\": \"$opt\"}"
  done <<EOF
$SPEEDUP
EOF
  CC_PIDS=""
  for name in $(daemon_names); do CC_PIDS="$CC_PIDS $name=$(readpid "$DIR/run/$name.pid")"; done
  export CC_PIDS
  if ! out=$(CC_TIMEOUT=$left helper wait "$NOSDS" "$MDS" rbd placer-bench "$IMAGE_GIB" "$@" 2>&1); then
    blame=$(printf '%s\n' "$out" | sed -n 's/^BLAME //p')
    msg=$(printf '%s\n' "$out" | grep -v '^BLAME ' | tail -n 3 | tr '\n' ' ')
    # shellcheck disable=SC2086
    up_failed "${msg:-helper failed}" $blame
  fi
  phase "clean"
  printf '%s\n' "$out" | grep '^HEALTH' | sed "s/^/$PROG: note: /" >&2 || true
  resolve_pids
  UP_OK=1
  trap - EXIT INT TERM HUP
  what="$NOSDS osds"; [ $MDS = 0 ] || what="$what, mds (cephfs)"
  echo "$PROG: up in $(($(now) - T0))s: mon 127.0.0.1:$P1 (v2 $P2), $what, pool rbd, image placer-bench"
}

# --- faults: a daemon killed and started again, an OSD out and in, recovery followed -

is_daemon() { daemon_names | grep -qx "$1"; }

cmd_kill() { # NAME
  [ -e "$DIR/.ceph-cluster" ] || die "no cluster in $DIR"
  is_daemon "$1" || die "$1 is not a daemon of $DIR"
  pid=$(readpid "$DIR/run/$1.pid")
  [ -n "$pid" ] && ours "$pid" || die "$1 is not running"
  kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    alive "$pid" || return 0
    sleep 0.1
  done
  die "$1 (pid $pid) still runs 5 s after SIGKILL"
}

cmd_start() { # NAME
  [ -e "$DIR/.ceph-cluster" ] || die "no cluster in $DIR"
  is_daemon "$1" || die "$1 is not a daemon of $DIR"
  pid=$(readpid "$DIR/run/$1.pid")
  [ -z "$pid" ] || ! ours "$pid" || die "$1 is running (pid $pid)"
  type=${1%%.*}; id=${1#*.}
  pfx=${CEPH_CLUSTER_LAUNCHER:-}
  [ "$type" != osd ] || [ -z "${CEPH_CLUSTER_OSD_PREFIX:-}" ] || pfx=$CEPH_CLUSTER_OSD_PREFIX
  rm -f "$DIR/run/$1.launcher.pid"
  launch_daemon "$1" "$pfx" "ceph-$type" -i "$id"
  readpid "$DIR/run/$1.pid"
}

cmd_osd_inout() { # out|in ID
  [ -e "$DIR/.ceph-cluster" ] || die "no cluster in $DIR"
  is_uint "$2" && is_daemon "osd.$2" || die "osd.$2 is not a daemon of $DIR"
  CC_TIMEOUT=30 helper mon "{\"prefix\": \"osd $1\", \"ids\": [\"$2\"]}" || die "osd $1 $2 failed"
}

cmd_watch_recovery() {
  [ -e "$DIR/.ceph-cluster" ] || die "no cluster in $DIR"
  t=300
  while [ $# -gt 0 ]; do
    case $1 in
      --timeout) [ $# -ge 2 ] && is_uint "$2" || usage; t=$2; shift 2 ;;
      *) usage ;;
    esac
  done
  CC_TIMEOUT=$t exec timeout -k 5 "$((t + 30))" env CEPH_CONF="$DIR/ceph.conf" "$PY" -c "$HELPER" recovery
}

# --- main ----------------------------------------------------------------------------

[ $# -ge 2 ] || usage
# Every ceph command here names its conf (-c, or CEPH_CONF in helper/status): a caller's
# CEPH_CONF (say, of another cluster) or CEPH_ARGS must not leak in.
unset CEPH_ARGS
export CEPH_CONF=/dev/null
sub=$1; DIR=$(abspath "$2"); shift 2
case "$DIR" in /|'') die "refusing DIR '/'" ;; esac
case "$DIR" in *[[:space:]]*) die "DIR must not contain blanks: '$DIR'" ;; esac
case "$sub" in
  up) cmd_up "$@" ;;
  down) [ $# -eq 0 ] || usage; cmd_down ;;
  status) [ $# -eq 0 ] || usage; cmd_status ;;
  env) [ $# -eq 0 ] || usage; cmd_env ;;
  kill) [ $# -eq 1 ] || usage; cmd_kill "$1" ;;
  start) [ $# -eq 1 ] || usage; cmd_start "$1" ;;
  osd-out) [ $# -eq 1 ] || usage; cmd_osd_inout out "$1" ;;
  osd-in) [ $# -eq 1 ] || usage; cmd_osd_inout in "$1" ;;
  watch-recovery) cmd_watch_recovery "$@" ;;
  *) usage ;;
esac
