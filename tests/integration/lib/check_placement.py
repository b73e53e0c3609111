#!/usr/bin/env python3
"""check_placement.py PID GROUP CPUS MEMS [TID=CPUS ...]: every thread of PID
is in GROUP in the cpuset, memory and cpu hierarchies (cgroup v1, or the v2
line) and has Cpus_allowed_list CPUS (or the given per-thread CPUS) and
Mems_allowed_list MEMS.  Threads are read twice, 0.2 s apart, so ones born
after the move are seen too.  A thread that exits while it is read, or is in
do_exit() (the kernel does not migrate it, v1 shows it in the root), is
skipped.  Prints one line; exit 1 with every mismatch."""
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


pid, group, cpus, mems = sys.argv[1], sys.argv[2], expand(sys.argv[3]), expand(sys.argv[4])
per_thread = {int(k): expand(v) for k, v in (a.split("=") for a in sys.argv[5:])}
bad, seen = [], set()
for attempt in range(2):
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            status = open(f"/proc/{pid}/task/{tid}/status").read()
            cgroup = open(f"/proc/{pid}/task/{tid}/cgroup").read()
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited meanwhile
        if exiting(pid, tid):
            continue
        seen.add(tid)
        fields = dict(l.split(":", 1) for l in status.splitlines() if ":" in l)
        want = per_thread.get(int(tid), cpus)
        have = expand(fields["Cpus_allowed_list"])
        if have != want:
            bad.append(f"thread {tid}: Cpus_allowed_list {fields['Cpus_allowed_list'].strip()}, want {sorted(want)}")
        if expand(fields["Mems_allowed_list"]) != mems:
            bad.append(f"thread {tid}: Mems_allowed_list {fields['Mems_allowed_list'].strip()}, want {sorted(mems)}")
        lines = [l.split(":", 2) for l in cgroup.splitlines()]
        v1 = {c: p for _, ctrls, p in lines for c in ctrls.split(",") if c}
        if v1:
            for c in ("cpuset", "memory", "cpu"):
                if v1.get(c) != "/" + group:
                    bad.append(f"thread {tid}: {c} group {v1.get(c)}, want /{group}")
        else:
            v2 = [p for h, c, p in lines if h == "0"]
            if v2 != ["/" + group]:
                bad.append(f"thread {tid}: cgroup {v2}, want /{group}")
    time.sleep(0.2)
if bad:
    print(f"pid {pid}: FAIL\n  " + "\n  ".join(sorted(set(bad))[:40]))
    sys.exit(1)
print(f"pid {pid}: {len(seen)} threads in /{group}, cpus {sys.argv[3]}, mems {sys.argv[4]}: ok")
