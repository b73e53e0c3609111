#!/usr/bin/env python3
"""A test process for placer's apply tests: TAG (on the command line, for
matching) and N threads that sleep (--spin: that burn CPU); with --churn one more thread keeps
creating and joining short-lived threads (threads born while placer moves the
process); SIGUSR1 makes it allocate and touch --alloc-mb MiB (memory limit
tests); SIGTERM ends it."""
import argparse
import os
import signal
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("tag")
ap.add_argument("threads", type=int)
ap.add_argument("--churn", action="store_true")
ap.add_argument("--alloc-mb", type=int, default=0)
ap.add_argument("--hold-mb", type=int, default=0, help="allocate and touch this much at start")
ap.add_argument("--pidfile")
ap.add_argument("--spin", action="store_true", help="the threads burn CPU instead of sleeping (one core at most: the GIL)")
args = ap.parse_args()

stop = threading.Event()
held = []


def sleeper():
    while not stop.wait(3600):
        pass


def spinner():
    while not stop.is_set():
        pass


def churn():
    while not stop.is_set():
        t = threading.Thread(target=lambda: time.sleep(0.002))
        t.start()
        t.join()


def touch(mb):
    chunk = 1 << 20
    for _ in range(mb):
        b = bytearray(chunk)
        for i in range(0, chunk, 4096):
            b[i] = 1
        held.append(b)


def on_usr1(signum, frame):
    touch(args.alloc_mb)
    sys.stdout.write("allocated %d MiB\n" % args.alloc_mb)
    sys.stdout.flush()


signal.signal(signal.SIGUSR1, on_usr1)
signal.signal(signal.SIGTERM, lambda s, f: (stop.set(), os._exit(0)))
if args.hold_mb:
    touch(args.hold_mb)
for _ in range(args.threads):
    threading.Thread(target=spinner if args.spin else sleeper, daemon=True).start()
if args.churn:
    threading.Thread(target=churn, daemon=True).start()
if args.pidfile:
    with open(args.pidfile + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(args.pidfile + ".tmp", args.pidfile)
while True:
    signal.pause()
