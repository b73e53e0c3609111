#!/bin/sh
# The static half of "a test never touches what it does not own" (the dynamic half is
# ci/leftovers.py after the suite): no script of tests/, ci/, containers/ or ansible/ may redirect
# onto a path under /dev, /etc, /proc or /sys written out literally, and none may use '<>' at all.
# A shell redirection creates a missing file: `(exec 3<>/dev/kvm)` made /dev/kvm a regular file
# on a machine without KVM.  Probe devices as placer does (stat, then open without O_CREAT:
# python's os.open, or ask placer).  /dev/null, /dev/stdout and /dev/stderr are fine; libexec/vm/init
# is the test guests' PID 1 and writes only inside the guest; comment lines are skipped.  Writes
# into a test's own cgroups go through its variables ($CG/$TAG/...) and are checked at teardown
# (tests/integration/lib/common.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 - "$root" <<'PY'
import os, re, sys
root = sys.argv[1]
redir = re.compile(r'<>|(?<![<0-9&])[0-9]?>>?\s*"?(/(?:dev|etc|proc|sys)/[^\s"\';)|&]*)')
fine = re.compile(r'^/dev/(null|stdout|stderr)$')
bad = []
for top in ("tests", "ci", "containers", "ansible"):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            if rel in ("libexec/vm/init", "ci/check-test-writes.sh") or not (
                    f.endswith((".sh", ".py", ".yml", ".j2")) or f == "init"):
                continue
            for n, line in enumerate(open(path, errors="replace"), 1):
                if line.lstrip().startswith("#"):
                    continue
                for m in redir.finditer(line):
                    if m.group(0) != "<>" and fine.match(m.group(1)):
                        continue
                    bad.append(f"{rel}:{n}: {line.strip()}")
for b in bad:
    print(f"check-test-writes: {b}", file=sys.stderr)
if bad:
    print("check-test-writes: a redirection onto a system path (or '<>'): see ci/check-test-writes.sh",
          file=sys.stderr)
    sys.exit(1)
print("check-test-writes: no script redirects onto /dev, /etc, /proc or /sys, none uses '<>'")
PY
