#!/usr/bin/env python3
"""A forking service for placer's process-tree tests: TAG (on the command
line, for matching and pgrep -f); CHILDREN long-lived children, each with one
grandchild and a thread that keeps creating and joining short-lived threads;
and the main process forks a short-lived child every --churn-ms (one that
starts a few threads and exits), so processes appear and exit while placer
moves the tree.  --pidfile gets "CHILD GRANDCHILD" lines of the long-lived
ones once they run.  Start it with setsid and end it by killing its process
group: every process here stays in it."""
import argparse
import os
import signal
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("tag")
ap.add_argument("children", type=int)
ap.add_argument("--churn-ms", type=int, default=50)
ap.add_argument("--pidfile")
args = ap.parse_args()


def churn_threads():
    while True:
        t = threading.Thread(target=lambda: time.sleep(0.002))
        t.start()
        t.join()


def sleeper():
    while True:
        time.sleep(3600)


def long_lived(w):
    """A child: one grandchild (two sleeping threads), thread churn."""
    grandchild = os.fork()
    if grandchild == 0:
        os.close(w)
        for _ in range(2):
            threading.Thread(target=sleeper, daemon=True).start()
        while True:
            signal.pause()
    os.write(w, b"%d %d\n" % (os.getpid(), grandchild))
    os.close(w)
    threading.Thread(target=churn_threads, daemon=True).start()
    threading.Thread(target=sleeper, daemon=True).start()
    while True:
        signal.pause()


def short_lived():
    for _ in range(3):
        threading.Thread(target=lambda: time.sleep(0.05), daemon=True).start()
    time.sleep(0.1)
    os._exit(0)


# The main process stays single-threaded: it only forks.
lines = []
for _ in range(args.children):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        long_lived(w)
    os.close(w)
    with os.fdopen(r) as f:
        lines.append(f.readline())
if args.pidfile:
    with open(args.pidfile + ".tmp", "w") as f:
        f.writelines(lines)
    os.rename(args.pidfile + ".tmp", args.pidfile)
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
while True:
    if os.fork() == 0:
        short_lived()
    time.sleep(args.churn_ms / 1000.0)
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
sys.exit(0)
