#!/usr/bin/python3
"""What a state file placer writes for a directory in this boot records
(lib/statedir.h): "boot_id" and "state_id" ("DEV:INO:BIRTH", BIRTH the
directory's creation time in ns, hex), so that a test can craft a state file
placer takes for its own and check what placer does with it.
Usage: state_binding.py DIR  ->  "boot_id": "...", "state_id": "..."  (JSON members)"""
import ctypes
import json
import os
import sys

AT_EMPTY_PATH, STATX_BTIME = 0x1000, 0x800


def binding(path):
    """{"boot_id": ..., "state_id": ...} for the directory PATH."""
    with open("/proc/sys/kernel/random/boot_id") as f:
        boot = f.read().strip()
    st = os.stat(path)
    buf = ctypes.create_string_buffer(256)
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        rc = libc.statx(fd, b"", AT_EMPTY_PATH, STATX_BTIME, buf)
    finally:
        os.close(fd)
    mask = int.from_bytes(buf.raw[0:4], "little")
    if rc != 0 or not mask & STATX_BTIME:
        sys.exit("state_binding.py: no birth time of %s (placer then uses the inode's generation)" % path)
    sec = int.from_bytes(buf.raw[80:88], "little", signed=True)
    nsec = int.from_bytes(buf.raw[88:92], "little")
    return {"boot_id": boot, "state_id": "%d:%d:%x" % (st.st_dev, st.st_ino, sec * 1000000000 + nsec)}


if __name__ == "__main__":
    print(json.dumps(binding(sys.argv[1]))[1:-1])
