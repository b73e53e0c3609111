#!/usr/bin/env python3
"""check_placement.py [--tree] PID GROUP CPUS MEMS [TID=CPUS ...]: every
thread of PID (with --tree: of PID and every descendant process) is in GROUP in the cpuset, memory and cpu hierarchies (cgroup v1, or the v2
line) and has Cpus_allowed_list CPUS (or the given per-thread CPUS) and
Mems_allowed_list MEMS.  Threads are read twice, 0.2 s apart, so ones born
after the move are seen too.  A thread that exits while it is read, or is in
do_exit() (the kernel does not migrate it, v1 shows it in the root), is
skipped; one that is wrong is read again a few times (a thread just created
shows the root group for a moment).  Prints one line; exit 1 with every
mismatch."""
import os
import sys
import time


def expand(text):
    out = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
    return out


PF_EXITING = 0x4


def exiting(pid, tid):
    """True when the thread is gone, a zombie, or in do_exit()."""
    try:
        stat = open(f"/proc/{pid}/task/{tid}/stat").read()
    except (FileNotFoundError, ProcessLookupError):
        return True
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[0] in "ZXx" or int(fields[6]) & PF_EXITING != 0


def descendants(pid):
    """PID's descendant processes now, from every thread's children file."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except (FileNotFoundError, ProcessLookupError):
            continue
        for tid in tids:
            try:
                kids = open(f"/proc/{p}/task/{tid}/children").read().split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            for k in kids:
                if k not in out:
                    out.append(k)
                    todo.append(k)
    return out


argv = sys.argv[1:]
tree = argv[:1] == ["--tree"]
if tree:
    argv = argv[1:]
pid, group, cpus, mems = argv[0], argv[1], expand(argv[2]), expand(argv[3])
per_thread = {int(k): expand(v) for k, v in (a.split("=") for a in argv[4:])}
bad, seen, procs = [], set(), set()


def thread_problems(pid, tid):
    """What is wrong with thread TID of PID; None when it is gone or going."""
    try:
        status = open(f"/proc/{pid}/task/{tid}/status").read()
        cgroup = open(f"/proc/{pid}/task/{tid}/cgroup").read()
    except (FileNotFoundError, ProcessLookupError):
        return None  # exited meanwhile
    if exiting(pid, tid):
        return None
    bad = []
    fields = dict(l.split(":", 1) for l in status.splitlines() if ":" in l)
    want = per_thread.get(int(tid), cpus)
    have = expand(fields["Cpus_allowed_list"])
    if have != want:
        bad.append(f"pid {pid} thread {tid}: Cpus_allowed_list {fields['Cpus_allowed_list'].strip()}, want {sorted(want)}")
    if expand(fields["Mems_allowed_list"]) != mems:
        bad.append(f"pid {pid} thread {tid}: Mems_allowed_list {fields['Mems_allowed_list'].strip()}, want {sorted(mems)}")
    lines = [l.split(":", 2) for l in cgroup.splitlines()]
    v1 = {c: p for _, ctrls, p in lines for c in ctrls.split(",") if c}
    if v1:
        for c in ("cpuset", "memory", "cpu"):
            if v1.get(c) != "/" + group:
                bad.append(f"pid {pid} thread {tid}: {c} group {v1.get(c)}, want /{group}")
    else:
        v2 = [p for h, c, p in lines if h == "0"]
        if v2 != ["/" + group]:
            bad.append(f"pid {pid} thread {tid}: cgroup {v2}, want /{group}")
    return bad


def check_process(pid):
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return  # exited meanwhile
    if exiting(pid, pid) and len(tids) == 1:
        return  # a process on its way out
    procs.add(pid)
    for tid in tids:
        problems = thread_problems(pid, tid)
        # A thread is in /proc a moment before the kernel puts it in its
        # creator's groups (it shows the root meanwhile): look again.
        for pause in (0.005, 0.02, 0.08):
            if not problems:
                break
            time.sleep(pause)
            problems = thread_problems(pid, tid)
        if problems is None:
            continue
        seen.add(tid)
        bad.extend(problems)


for attempt in range(2):
    for p in [pid] + (descendants(pid) if tree else []):
        check_process(p)
    time.sleep(0.2)
if bad:
    print(f"pid {pid}: FAIL\n  " + "\n  ".join(sorted(set(bad))[:40]))
    sys.exit(1)
what = f"{len(procs)} processes, " if tree else ""
print(f"pid {pid}: {what}{len(seen)} threads in /{group}, cpus {argv[2]}, mems {argv[3]}: ok")
