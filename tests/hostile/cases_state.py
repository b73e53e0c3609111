"""The hostile-input cases of what placer reads back from a state directory
(cases.py imports them; run.py runs them): status, reset and stop on state
directories placer may not trust (others can write them, links, FIFOs, files
of another owner, too large), state files it did not write (a program, a file
or an IRQ they name; a copy from another directory), a journal of 10,000
records; apply's command lines that would bind PID 1 or every process.  Each
refusal is one line with its exit code, and nothing in the workspace changes:
a decoy file to be deleted stays, a decoy program that would leave a marker
file never runs (docs/apply.md, "What placer trusts")."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from cases import XML, case

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration", "lib"))
from state_binding import binding  # noqa: E402

STATUS = ["placer", "status", "--state-dir", "{w}/st"]
RESET = ["placer", "reset", "--state-dir", "{w}/st"]
NO_IRQ = 999999  # an IRQ this machine does not have: a case that got through would only note it


def state(files, mode=0o755, bind=True):
    """A setup: {w}/st holding FILES (name -> a JSON document, bound to {w}/st
    unless BIND is False, or raw text), the directory at MODE."""
    def setup(ws):
        d = ws.path("st")
        os.makedirs(d, exist_ok=True)
        for name, doc in files.items():
            if isinstance(doc, dict):
                doc = json.dumps(dict(binding(d), **doc) if bind else doc)
            ws.write("st/" + name, doc)
        os.chmod(d, mode)
        ws.decoy("decoy.bin")
        ws.write("evil.sh", "#!/bin/sh\ntouch %s/ran\n" % ws.root)
        os.chmod(ws.path("evil.sh"), 0o755)
    return setup


def irq_state(journal=(), irqs=(), **extra):
    doc = {"schema": 1, "profile": "p", "applied_at": "2025-01-02T03:04:05Z", "last_txn": 1, "irqs": list(irqs),
           "journal": list(journal)}
    doc.update(extra)
    return doc


def cgroupfs_state(journal=(), **extra):
    doc = {"schema": 1, "backend": "cgroupfs", "cgroup_mode": "v1", "cgroup_root": "/sys/fs/cgroup",
           "prefix": "placer-hostile-none", "last_txn": 1, "instances": [], "journal": list(journal)}
    doc.update(extra)
    return doc


# ---- the state directory and its files: trusted only while root alone can change them ------------------

JUNK = {"irq.json": irq_state([{"txn": 1, "op": "affinity", "irq": NO_IRQ, "name": "x", "previous": "0"}])}
for cmd, argv in (("status", STATUS), ("reset", RESET)):
    case("state-%s-dir-writable" % cmd, state(JUNK, mode=0o777), argv, 2,
         r"state directory '.*/st': writable by others \(mode 0777\): placer keeps state only where root alone can")
    case("state-%s-dir-group-writable" % cmd, state(JUNK, mode=0o775), argv, 2,
         r"state directory '.*/st': writable by its group \(mode 0775\)")
case("state-reset-dir-symlink", lambda ws: (state(JUNK)(ws), os.rename(ws.path("st"), ws.path("real")),
                                            ws.symlink("{w}/real", "st")), RESET, 2,
     r"state directory '.*/st': a symbolic link \(placer never follows one to its state\)")
case("state-apply-dir-writable", state({}, mode=0o777),
     ["placer", "apply", "--dry-run", "--topology", XML, "--state-dir", "{w}/st", "{data}/../profiles/demo-local.yaml"],
     2, r"state directory '.*/st': writable by others \(mode 0777\)")
for name in ("state.json", "irq.json", "systemd.json", "lock"):
    for cmd, argv in (("status", STATUS), ("reset", RESET)):
        case("state-%s-fifo-%s" % (cmd, name.split(".")[0]), lambda ws, n=name: (state({})(ws), ws.fifo("st/" + n)),
             argv, 2, r"state file '.*/st/%s': a FIFO, not a regular file placer wrote" % name.replace(".", r"\."),
             timeout=10)


def chmod_file(name, mode):
    return lambda ws: (state({name: cgroupfs_state() if name == "state.json" else JUNK["irq.json"]})(ws),
                       os.chmod(ws.path("st/" + name), mode))


def chown_file(name):
    return lambda ws: (state({name: JUNK["irq.json"]})(ws), os.chown(ws.path("st/" + name), 65534, 65534))


case("state-reset-file-writable", chmod_file("irq.json", 0o666), RESET, 2,
     r"state file '.*/st/irq\.json': writable by others \(mode 0666\)")
if os.geteuid() == 0:
    case("state-reset-file-other-owner", chown_file("irq.json"), RESET, 2,
         r"state file '.*/st/irq\.json': owned by uid 65534, not by root: placer did not write it")
case("state-status-file-symlink", lambda ws: (state({})(ws), ws.write("elsewhere.json", json.dumps(irq_state())),
                                              ws.symlink("{w}/elsewhere.json", "st/irq.json")), STATUS, 2,
     r"state file '.*/st/irq\.json': a symbolic link")
case("state-reset-file-17mib", lambda ws: (state({})(ws), ws.sparse("st/state.json", 17 << 20)), RESET, 2,
     r"state file '.*/st/state\.json': larger than 16 MiB")

# ---- what a state file may name: never a program, a path or a group placer does not write -------------

for field, action, what in (("systemctl", "daemon-reload", "systemctl"),
                            ("irqbalance_script", "restart-irqbalance-script", "irqbalance's init script")):
    def crafted_program(ws, field=field, action=action):
        doc = irq_state([{"txn": 1, "op": "action", "action": action}])
        doc[field] = ws.path("evil.sh")  # would leave {w}/ran behind: the workspace check sees it
        state({"irq.json": doc})(ws)
    case("state-reset-irq-program-" + field, crafted_program, RESET, 4,
         r"irq\.json: it names %s '.*/evil\.sh', not the one placer uses \('.*'\): placer never runs a program or "
         r"writes a path a state file names; nothing done" % what)


def crafted_file(op, previous):
    def setup(ws):
        rec = {"txn": 1, "op": op, "path": ws.path("decoy.bin"), "dir_created": ws.root}
        if op == "file":
            rec["previous"] = previous
        state({"irq.json": irq_state([rec])})(ws)
    return setup


case("state-reset-irq-file-delete", crafted_file("file", None), RESET, 4,
     r"a file record of '.*/decoy\.bin', which is not a file placer writes: nothing done")
case("state-reset-irq-file-overwrite", crafted_file("file", "owned\n"), RESET, 4,
     r"a file record of '.*/decoy\.bin', which is not a file placer writes")
case("state-reset-irq-link-remove", crafted_file("link", None), RESET, 4,
     r"a link record of '.*/decoy\.bin', which is not a file placer writes")
case("state-reset-irq-nameless", state({"irq.json": irq_state([{"txn": 1, "op": "affinity", "irq": NO_IRQ,
                                                                 "previous": "0"}])}), RESET, 4,
     r"an affinity record of IRQ %d without a name, which placer never writes: nothing done" % NO_IRQ)
case("state-reset-group-outside-prefix",
     state({"state.json": cgroupfs_state([{"txn": 1, "op": "create", "group": "placer-hostile-decoy-group"}])}),
     RESET, 4, r"journal\[0\]: a create record of group 'placer-hostile-decoy-group' that placer never writes for "
     r"prefix 'placer-hostile-none'")
def logged(records, seq=7):
    """A state.json that names log_seq SEQ and the state.log it goes with: its head, then RECORDS,
    one line each (placer watch appends its journal's records there)."""
    def setup(ws):
        state({"state.json": cgroupfs_state(log_seq=seq)})(ws)
        head = dict(binding(ws.path("st")), log_seq=seq)
        ws.write("st/state.log", "".join(json.dumps(r) + "\n" for r in [head] + list(records)))
    return setup


# A record appended to the log is held to what state.json's own may name; the log is a state file.
case("state-reset-log-group-outside-prefix",
     logged([{"txn": 2, "op": "create", "group": "placer-hostile-decoy-group"}]), RESET, 4,
     r"journal\[0\]: a create record of group 'placer-hostile-decoy-group' that placer never writes for "
     r"prefix 'placer-hostile-none'")
case("state-reset-log-fifo", lambda ws: (state({"state.json": cgroupfs_state(log_seq=7)})(ws), ws.fifo("st/state.log")),
     RESET, 2, r"state file '.*/st/state\.log': a FIFO, not a regular file placer wrote", timeout=10)
case("state-reset-copied", state({"state.json": dict(cgroupfs_state([{"txn": 1, "op": "create",
                                                                      "group": "placer-hostile-none"}]),
                                                     state_id="1:2")}), RESET, 4,
     r"st/state\.json was written for another directory \(1:2; this one is \d+:\d+:[0-9a-f]+\): a copy is not a placement "
     r"placer made; nothing done")
case("state-reset-unbound", state({"irq.json": JUNK["irq.json"]}, bind=False), RESET, 4,
     r"st/irq\.json records no boot and directory: this placer did not write it")


def long_journal(ws):
    rec = {"txn": 1, "op": "affinity", "irq": NO_IRQ, "name": "x", "previous": "0"}
    state({"irq.json": irq_state([rec] * 10000)})(ws)


case("state-reset-journal-10000", long_journal, RESET, 0, r"", changes=("st",), timeout=20,
     stdout_has=(b"irqs: IRQ %d (x) is gone: nothing to set back\n" % NO_IRQ,),
     check=lambda ws, rc, out, err: None if not os.path.exists(ws.path("st")) else "the state directory is left")

# ---- what status prints of a state: names escaped, no "nothing applied" beside IRQs ---------------------

ESCAPE = irq_state(irqs=[{"irq": NO_IRQ, "name": "evil\x1b[2J\x1b]0;owned\x07", "device": "vda\x1b[1m",
                          "instance": None, "planned": "0\x1b[5m", "managed": False, "counts": [0, 0]}])
case("state-status-irq-names-escaped", state({"irq.json": ESCAPE}), STATUS, 1, r"",
     stdout_not=(b"\x1b", b"\x07", b"nothing applied"),
     stdout_has=(b"no groups applied (state ", b"IRQ 999999 evil\\x1b[2J\\x1b]0;owned\\x07 (vda\\x1b[1m)",
                 b"planned 0\\x1b[5m"))

# ---- stop: only what run made ---------------------------------------------------------------------------


def run_record(ws):
    d = ws.path("st/run/p")
    os.makedirs(d)
    rec = {"schema": 1, "profile": "p", "instance": "a.0", "role": "a", "backend": "exec", "pid": 1,
           "start_time": 1, "group": "placer-hostile-decoy/a/a.0", "container_name": None, "container_id": None,
           "container_cgroup": None, "log": None, "accel": None, "joined_by": "clone3", "argv": ["sleep"],
           "stop_timeout": 1, "started_at": 0, "seq": 0}
    ws.write("st/run/p/a.0.json", json.dumps(dict(binding(d), **rec)))
    ws.decoy("decoy.bin")


STOP = ["placer", "stop", "--state-dir", "{w}/st", "p"]
case("state-stop-record-foreign-group", run_record, STOP, 4,
     r"a\.0: its run record names group 'placer-hostile-decoy/a/a\.0', not placer/a/a\.0 where placer runs it: "
     r"nothing stopped", env={"PLACER_CGROUP_PREFIX": "placer"})
case("state-stop-record-fifo", lambda ws: (os.makedirs(ws.path("st/run/p")), ws.fifo("st/run/p/a.0.json")), STOP, 2,
     r"state file '.*/st/run/p/a\.0\.json': a FIFO, not a regular file placer wrote", timeout=10)

# ---- apply's command line: never PID 1, never every process, never an empty prefix ----------------------

APP = """version: 1
name: hostile-app
roles:
  - name: a
    kind: generic
    cpu: { threads: 1 }
    match: { cmdline: "%s" }
"""
DRY_APPLY = ["placer", "apply", "--dry-run", "--topology", XML, "--state-dir", "{w}/st"]
case("apply-pid-1", lambda ws: ws.write("p.yaml", APP % "no-such-process-here"), DRY_APPLY + ["--pid", "a.0=1",
                                                                                               "{w}/p.yaml"], 2,
     r"--pid a\.0=1: that is PID 1, the init of the whole system, which placer never binds")
case("apply-match-everything", lambda ws: ws.write("p.yaml", APP % "*"), DRY_APPLY + ["{w}/p.yaml"], 2,
     r"p\.yaml:7:23: roles\[0\]\.match\.cmdline: '\*' names no character of a command line, so it matches every process: "
     r"name the program")
case("apply-match-wildcards", lambda ws: ws.write("p.yaml", APP % "?*?"), DRY_APPLY + ["{w}/p.yaml"], 2,
     r"p\.yaml:7:23: roles\[0\]\.match\.cmdline: '\?\*\?' names no character")


def running(argv0):
    """How many processes run with ARGV0 (from /proc: the suite runs before procps may be installed)."""
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                n += f.read().split(b"\0")[0] == argv0.encode()
        except OSError:
            pass
    return n


def two_unrelated_trees(ws):
    """Two processes whose command line says MARK, in two trees (one a child of
    the runner, one below an interpreter whose own command line does not say it):
    more unrelated trees than the profile's one instance wherever the suite runs,
    a node of a thousand processes or a container of three (CI's).  The case's
    teardown kills them."""
    mark = "placer-hostile-broad-%d" % os.getpid()
    sleep = shutil.which("sleep")
    ws.procs = [subprocess.Popen([mark, "60"], executable=sleep, start_new_session=True),
                subprocess.Popen([sys.executable, "-c", "import os, subprocess; subprocess.run([os.environ['M'], '60'], "
                                  "executable=os.environ['S'])"], env={"M": mark, "S": sleep}, start_new_session=True)]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and running(mark) < 2:  # until the second tree's sleep runs
        time.sleep(0.02)
    ws.write("p.yaml", APP % ("*" + mark + "*"))


def kill_trees(ws):
    for p in getattr(ws, "procs", []):
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


case("apply-match-broad", two_unrelated_trees, DRY_APPLY + ["{w}/p.yaml"], 2,
     r"a\.0: cmdline '\*placer-hostile-broad-\d+\*' finds 2 unrelated processes \(pids \d+ \d+\), more than the "
     r"profile's 1 instance: a match that broad would bind much of the node; narrow it, or bind with --pid",
     teardown=kill_trees)
case("apply-cgroup-prefix-empty", lambda ws: ws.write("p.yaml", APP % "no-such-process-here"),
     DRY_APPLY + ["--cgroup-prefix", "", "{w}/p.yaml"], 2,
     r"placer apply: --cgroup-prefix is empty; name the top group \(the default is placer\)")
if not os.path.exists("/run/systemd/system"):
    case("apply-systemd-not-pid-1", lambda ws: ws.write("p.yaml", APP % "no-such-process-here"),
         DRY_APPLY + ["--backend", "systemd", "{w}/p.yaml"], 3,
         r"--backend systemd: PID 1 is not systemd here \(no /run/systemd/system\): there is no unit to place through")
