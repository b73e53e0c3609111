#!/usr/bin/env python3
"""QMP from a test's host side: qmp.py SOCKET COMMAND [ARGUMENTS-JSON]: connects to
qemu's QMP unix socket, negotiates (qmp_capabilities), runs COMMAND with the
arguments and prints its answer; exit 1 when qemu answers with an error (printed)."""
import json
import socket
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: qmp.py SOCKET COMMAND [ARGUMENTS-JSON]")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(sys.argv[1])
    reader = sock.makefile("r")

    def answer():
        # events (DEVICE_DELETED, ...) may come before the answer: skipped
        while True:
            line = reader.readline()
            if not line:
                sys.exit("qmp.py: qemu closed the socket")
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    json.loads(reader.readline())  # the greeting
    sock.sendall(b'{"execute": "qmp_capabilities"}\n')
    answer()
    cmd = {"execute": sys.argv[2]}
    if len(sys.argv) == 4:
        cmd["arguments"] = json.loads(sys.argv[3])
    sock.sendall(json.dumps(cmd).encode() + b"\n")
    msg = answer()
    print(json.dumps(msg))
    sys.exit(1 if "error" in msg else 0)


main()
