#!/usr/bin/python3
"""The suite's leftovers check: what the tests created, changed or removed outside their own
scratch space, found by comparing the machine with a snapshot taken before the tests.

  ci/leftovers.py snapshot FILE   record the machine's state (ci/test.sh: after the install)
  ci/leftovers.py check FILE      compare with it: one line per leftover, exit 1 if any

What counts (docs/ARCHITECTURE.md, "Checks"): cgroups named for placer or a test, podman
containers, images other than the suite's shared ones, processes started since the snapshot
(placer, Ceph, fio, stress-ng, qemu, sshd, podman's conmon, libvirt), /run/placer* state,
regular files under /dev (a shell redirection onto a missing device node creates one), mounts,
loop devices, listening sockets, files under /etc, sysctls, the installed packages, and
placer-* entries in /tmp and /var/tmp.  The shared setup the suite builds once per run and keeps
for the next (placer's podman images, /var/cache/placer) is not a leftover.
"""
import hashlib
import json
import os
import re
import sys

# Built once per run by containers/build-images.sh and kept: the shared setup.
SHARED_IMAGES = re.compile(r"^localhost/placer/(debian-base|ceph|fio|stress-ng|deb-install):")
# podman's own lock, made on its first use and kept by design (not a test's).
DEV_SHM_KEPT = {"/dev/shm/libpod_lock"}
TEST_NAMES = re.compile(r"placer|(^|[/_-])t-|test|libpod|conmon|machine\.slice|ceph|qemu|fio|stress")
PROCESS_NAMES = re.compile(
    r"^(placer|ceph-(mon|osd|mgr|mds|fuse)|radosgw|fio|stress-ng.*|qemu-system-.*|sshd|conmon|"
    r"libvirtd|virtlogd|virtqemud|podman|runc|gnuplot|chromium|chrome|ansible.*|debootstrap)$")
# sysctls that move on their own
VOLATILE_SYSCTL = re.compile(
    r"^(fs/(dentry-state|file-nr|inode-nr|inode-state|quota/.*)|kernel/(random/.*|ns_last_pid|pty/nr|"
    r"tainted|sched_domain/.*|perf_event_max_sample_rate)|net/netfilter/nf_conntrack_count|"
    r"vm/(stat_refresh|drop_caches)|fs/binfmt_misc/.*|net/ipv4/tcp_fastopen_key|"
    r"net/ipv6/conf/.*/stable_secret|net/.*/(neigh|route)/.*/(gc_|base_reachable).*|"
    r"kernel/(hung_task_detect_count|warn_count|oops_count))$")


def read(path, default=""):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return default


def run(argv):
    import subprocess
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def cgroups():
    out = []
    for top, dirs, _ in os.walk("/sys/fs/cgroup"):
        for d in dirs:
            out.append(os.path.join(top, d))
    return sorted(out)


def processes():
    """pid -> 'comm starttime cmdline' for every process but this one and its ancestors."""
    mine = set()
    p = os.getpid()
    while p > 1:
        mine.add(p)
        stat = read(f"/proc/{p}/stat")
        try:
            p = int(stat[stat.rindex(")") + 2:].split()[1])
        except ValueError:
            break
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in mine:
            continue
        stat = read(f"/proc/{name}/stat")
        if not stat:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        start = stat[stat.rindex(")") + 2:].split()[19]
        cmd = read(f"/proc/{name}/cmdline").replace("\0", " ").strip()
        out[name] = f"{comm} {start} {cmd[:200]}"
    return out


def listeners():
    out = set()
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        for line in read(f"/proc/net/{proto}").splitlines()[1:]:
            f = line.split()
            # TCP: LISTEN (0A); UDP: every bound socket (07, unconnected)
            if (proto.startswith("tcp") and f[3] == "0A") or (proto.startswith("udp") and f[3] == "07"):
                out.add(f"{proto} {f[1]}")
    return sorted(out)


def tree_hashes(top):
    out = {}
    for d, dirs, files in os.walk(top):
        for f in files:
            path = os.path.join(d, f)
            try:
                if os.path.islink(path):
                    out[path] = "-> " + os.readlink(path)
                elif os.path.isfile(path):
                    with open(path, "rb") as fh:
                        out[path] = hashlib.sha1(fh.read()).hexdigest()
            except OSError:
                out[path] = "unreadable"
    return out


def sysctls():
    out = {}
    for d, _, files in os.walk("/proc/sys"):
        for f in files:
            path = os.path.join(d, f)
            key = path[len("/proc/sys/"):]
            if VOLATILE_SYSCTL.match(key):
                continue
            try:
                if not os.access(path, os.R_OK) or not (os.stat(path).st_mode & 0o200):
                    continue  # read-only: a test cannot change it
                with open(path) as fh:
                    out[key] = fh.read().strip()
            except OSError:
                pass
    return out


def snapshot():
    images = run(["podman", "images", "--noheading", "--format", "{{.Repository}}:{{.Tag}} {{.ID}}"])
    return {
        "cgroups": cgroups(),
        "containers": run(["podman", "ps", "-a", "--format", "{{.Names}}"]).split(),
        "images": sorted(images.splitlines()),
        "processes": processes(),
        "dev_files": sorted(
            os.path.join(d, f) for d, _, fs in os.walk("/dev") for f in fs
            if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f))),
        "mounts": sorted({line.split()[4] for line in read("/proc/self/mountinfo").splitlines()}),
        "loops": sorted(run(["losetup", "-a"]).splitlines()),
        "listeners": listeners(),
        "etc": tree_hashes("/etc"),
        "sysctls": sysctls(),
        "dpkg": hashlib.sha1(read("/var/lib/dpkg/status").encode()).hexdigest(),
        "tmp": sorted(os.path.join(t, n) for t in ("/tmp", "/var/tmp") for n in os.listdir(t)
                      if n.startswith("placer")),
        "run": sorted("/run/" + n for n in os.listdir("/run") if n.startswith("placer")),
    }


def check(before, now):
    bad = []
    new = lambda key: sorted(set(now[key]) - set(before[key]))  # noqa: E731
    for g in new("cgroups"):
        if TEST_NAMES.search(g[len("/sys/fs/cgroup"):]):
            bad.append(f"cgroup left: {g}")
    for c in new("containers"):
        bad.append(f"podman container left: {c}")
    for i in new("images"):
        if not SHARED_IMAGES.match(i):
            bad.append(f"podman image left (built for one test): {i}")
    for pid, what in sorted(now["processes"].items(), key=lambda kv: int(kv[0])):
        if before["processes"].get(pid) == what:
            continue
        comm = what.split(" ", 1)[0]
        if PROCESS_NAMES.match(comm) or "placer" in what.split(" ", 2)[-1]:
            bad.append(f"process left: pid {pid}: {comm}: {what.split(' ', 2)[-1]}")
    for f in now["dev_files"]:
        if f.startswith("/dev/shm/"):
            if f not in before["dev_files"] and f not in DEV_SHM_KEPT:
                bad.append(f"file left in /dev/shm: {f}")
        else:
            bad.append(f"regular file under /dev: {f} (a redirection onto a missing device node makes one)")
    for m in new("mounts"):
        bad.append(f"mount left: {m}")
    for m in sorted(set(before["mounts"]) - set(now["mounts"])):
        bad.append(f"mount removed: {m}")
    for lo in new("loops"):
        bad.append(f"loop device left: {lo}")
    for s in new("listeners"):
        bad.append(f"listening socket left: {s}")
    for path in sorted(set(before["etc"]) | set(now["etc"])):
        if before["etc"].get(path) != now["etc"].get(path):
            what = "added" if path not in before["etc"] else "removed" if path not in now["etc"] else "changed"
            bad.append(f"/etc {what}: {path}")
    for key in sorted(set(before["sysctls"]) & set(now["sysctls"])):
        if before["sysctls"][key] != now["sysctls"][key]:
            bad.append(f"sysctl changed: {key.replace('/', '.')}: {before['sysctls'][key]!r} -> {now['sysctls'][key]!r}")
    if before["dpkg"] != now["dpkg"]:
        bad.append("installed packages changed (/var/lib/dpkg/status)")
    for t in new("tmp"):
        bad.append(f"scratch left: {t}")
    for r in now["run"]:
        bad.append(f"placer state left: {r}")
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("snapshot", "check"):
        print("usage: ci/leftovers.py snapshot|check FILE", file=sys.stderr)
        return 2
    if sys.argv[1] == "snapshot":
        with open(sys.argv[2], "w") as f:
            json.dump(snapshot(), f)
        return 0
    with open(sys.argv[2]) as f:
        before = json.load(f)
    bad = check(before, snapshot())
    for line in bad:
        print(f"leftovers: {line}", file=sys.stderr)
    if not bad:
        print("leftovers: none (cgroups, containers, images, processes, /dev, mounts, loops, listeners, "
              "/etc, sysctls, packages, /tmp, /run/placer*)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
