#!/usr/bin/python3
"""The hostile-input suite: every case of cases.py against the placer binary.

Each case gets a workspace of its own (a temporary directory with the inputs
its setup made: studies, results directories, topologies, decoy files,
FIFOs), runs one placer command there, and checks
  - the exit code;
  - stderr: at most the case's number of lines, the last one matching its
    pattern (one clear line), and stdout empty when the command fails;
  - the peak memory of the command (ru_maxrss of the child, from wait4): at
    most the case's bound; not checked under ASan (its shadow memory and
    quarantine are most of what it uses), where PLACER_HOSTILE_ASAN=1;
  - nothing changed: every file, directory, link and FIFO of the workspace
    byte for byte (type, content, link target), but the paths the case
    says it writes;
  - time: no command hangs (a FIFO opened for reading blocks forever): each
    is killed after its timeout, and that fails the case.
Usage: run.py [-k SUBSTRING] [-j JOBS] [-v]; env PLACER_BIN, PLACER_TEST_DATA.
Exit 0 when every case passed, 1 otherwise; one line per case.
"""
import argparse
import concurrent.futures
import hashlib
import importlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C  # noqa: E402

# cases_AREA.py files add their cases to C.CASES (one file per area, so that
# work on several areas at once touches different files)
for _name in sorted(os.listdir(os.path.dirname(os.path.abspath(__file__)))):
    if _name.startswith("cases_") and _name.endswith(".py"):
        importlib.import_module(_name[:-3])


def tree_state(root, changes):
    """Every entry under ROOT but CHANGES (relative prefixes): type and content."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if any(rel == c or rel.startswith(c.rstrip("/") + "/") for c in changes):
                continue
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                state[rel] = ("dir", stat.S_IMODE(st.st_mode))
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                if st.st_size > (16 << 20):  # the sparse giants: size, and the ends
                    with open(path, "rb") as f:
                        h.update(f.read(1 << 20))
                        f.seek(-(1 << 20), 2)
                        h.update(f.read())
                    h.update(str(st.st_size).encode())
                else:
                    with open(path, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                state[rel] = ("file", h.hexdigest(), stat.S_IMODE(st.st_mode))
            else:
                state[rel] = ("special", stat.S_IFMT(st.st_mode))
    return state


def spawner_main():
    """--spawner: for each JSON line {argv, cwd, env, timeout, out, err} on
    stdin, run ARGV there with stdout to OUT and stderr to ERR, and answer
    "RC MAXRSS_KIB TIMED_OUT".  A small interpreter of its own does the
    forking so that each child's ru_maxrss is its own: Linux keeps the
    high-water RSS across fork and exec, and the runner's grows with the
    setups (a near-limit summary.json is 100 MB of Python strings)."""
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.chdir(job["cwd"])
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                os.dup2(os.open(job["out"], os.O_WRONLY), 1)
                os.dup2(os.open(job["err"], os.O_WRONLY), 2)
                os.execve(job["argv"][0], job["argv"], job["env"])
            finally:
                os._exit(127)
        t0, timed_out = time.monotonic(), False
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            if time.monotonic() - t0 > job["timeout"]:
                timed_out = True
                os.killpg(pid, signal.SIGKILL)
                wpid, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.002)
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, int(timed_out), flush=True)


_local = threading.local()


def run_child(argv, cwd, env, timeout):
    """(rc, stdout, stderr, peak RSS in KiB, seconds, timed out), through this
    thread's spawner."""
    sp = getattr(_local, "spawner", None)
    if sp is None:
        sp = _local.spawner = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), "--spawner"],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        SPAWNERS.append(sp)
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as err:
        t0 = time.monotonic()
        sp.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env, "timeout": timeout, "out": out.name,
                                   "err": err.name}) + "\n")
        sp.stdin.flush()
        rc, rss, timed_out = (int(x) for x in sp.stdout.readline().split())
        secs = time.monotonic() - t0
        return rc, out.read(), err.read(), rss, secs, bool(timed_out)


SPAWNERS = []


def run_case(case, placer, data, asan, keep):
    ws = C.Workspace(tempfile.mkdtemp(prefix="placer-hostile-"), placer, data)
    problems = []
    try:
        if case.needs and not all(shutil.which(t) for t in case.needs):
            return case.name, "skip", "needs " + ", ".join(case.needs), 0, 0
        case.setup(ws)
        before = tree_state(ws.root, case.changes)
        argv = [placer if a == "placer" else a.format(w=ws.root, data=data) for a in case.argv]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": ws.root,
               "PLACER_TEST_DATA": data}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        env.update({k: v.format(w=ws.root) for k, v in case.env.items()})
        rc, out, err, rss_kib, secs, timed_out = run_child(argv, ws.root, env, case.timeout)
        after = tree_state(ws.root, case.changes)
        lines = [line for line in err.decode("utf-8", "replace").split("\n") if line]
        if timed_out:
            problems.append("did not finish in %d s (blocked?)" % case.timeout)
        if rc != case.rc:
            problems.append("exit %d, expected %d" % (rc, case.rc))
        if case.rc not in (0, 1) and out:  # 1: status found drift, and says where on stdout
            problems.append("stdout not empty on error: %r" % out[:200])
        if len(lines) > case.lines:
            problems.append("%d lines on stderr, at most %d: %r" % (len(lines), case.lines, lines[:4]))
        if case.stderr and not (lines and re.search(case.stderr, lines[-1])):
            problems.append("stderr %r does not match %r" % (lines[-1] if lines else "", case.stderr))
        if not case.stderr and lines:
            problems.append("stderr not empty: %r" % lines[:2])
        for needle in case.stdout_not:
            if needle in out:
                problems.append("stdout holds %r" % needle)
        for needle in case.stdout_has:
            if needle not in out:
                problems.append("stdout lacks %r" % needle)
        if not asan and rss_kib > case.mem_mib * 1024:
            problems.append("peak memory %.0f MiB, at most %d" % (rss_kib / 1024, case.mem_mib))
        if before != after:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append("changed: %s" % ", ".join(changed[:8]))
        if case.check:
            why = case.check(ws, rc, out, err)
            if why:
                problems.append(why)
        return case.name, "FAIL" if problems else "ok", "; ".join(problems), rss_kib / 1024, secs
    except Exception as e:  # a setup that failed is the case's failure
        return case.name, "FAIL", "setup: %r" % e, 0, 0
    finally:
        if case.teardown:
            case.teardown(ws)
        if keep and problems:
            print("kept %s for %s" % (ws.root, case.name), file=sys.stderr)
        else:
            C.remove_tree(ws.root)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--spawner":
        return spawner_main()
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="", help="only the cases whose name holds this")
    ap.add_argument("-j", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the workspace of a failed case")
    a = ap.parse_args()
    placer = os.environ.get("PLACER_BIN")
    data = os.environ.get("PLACER_TEST_DATA")
    if not placer or not data:
        sys.exit("run.py: PLACER_BIN and PLACER_TEST_DATA must be set")
    asan = os.environ.get("PLACER_HOSTILE_ASAN") == "1"
    todo = [c for c in C.CASES if a.k in c.name]
    names = [c.name for c in C.CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("run.py: cases named twice: %s" % ", ".join(sorted(dup)))
    t0 = time.monotonic()
    failed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        for name, verdict, why, mib, secs in pool.map(lambda c: run_case(c, placer, data, asan, a.keep), todo):
            failed += verdict == "FAIL"
            skipped += verdict == "skip"
            if verdict != "ok" or a.v:
                print("%-4s %-44s %6.1f MiB %5.2f s  %s" % (verdict, name, mib, secs, why))
    for sp in SPAWNERS:
        sp.stdin.close()
        sp.wait()
    print("hostile: %d cases, %d failed, %d skipped, %.1f s%s" % (len(todo), failed, skipped, time.monotonic() - t0,
                                                               " (ASan: peak memory not checked)" if asan else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
