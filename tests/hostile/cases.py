"""The hostile-input cases (run.py runs them): studies for `bench --dry-run`,
damaged results directories for `compare`, `size` and `report`, command
lines, topologies; what a careless or malicious user hands placer.  Each
case: a setup that makes its inputs in a workspace of its own, the command,
the exit code, a pattern for the one line on stderr, a peak memory bound,
and the paths it may change (none, but for the reports that succeed)."""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Optional

XML = "{data}/fixtures/24em64t-2n6c2t-pci.xml"
PROFILE = "{data}/../profiles/demo-local.yaml"
GOLDEN = "golden/bench/ab.json"
MIB = 1 << 20

# lib/jsoncost.c's weights, to build a summary.json just under (and over) the
# cost placer reads (PLACER_BENCH_SUMMARY_MAX_COST, 96 MiB)
COST = {"{": 256, "[": 144, ":": 128, ",": 16}
COST_STRING, COST_SCALAR, MAX_COST = 96, 48, 96 * MIB


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
SCALAR = re.compile(r'[^\s{}\[\]:,]+')


def json_cost(text):
    """What placer_json_cost says of TEXT (strings first, then the rest)."""
    strings = STRING.findall(text)
    rest = STRING.sub(" ", text)
    return (sum(COST_STRING + len(x) - 1 for x in strings) + sum(COST[ch] * rest.count(ch) for ch in COST) +
            COST_SCALAR * len(SCALAR.findall(rest)))


def remove_tree(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
    shutil.rmtree(root, ignore_errors=True)


class Workspace:
    def __init__(self, root, placer, data):
        self.root, self.placer, self.data = root, placer, data

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, content):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
        return p

    def fifo(self, rel):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        os.mkfifo(self.path(rel))

    def symlink(self, target, rel):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        os.symlink(target.format(w=self.root), self.path(rel))

    def decoy(self, rel, size=MIB):
        return self.write(rel, b"precious data\n" + os.urandom(size))

    def sparse(self, rel, size):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        with open(self.path(rel), "wb") as f:
            f.truncate(size)

    def study(self, body, rel="study.yaml"):
        """A cluster-none study for --dry-run, BODY's keys replacing the base's."""
        keys = {
            "cluster": "cluster: { type: none }",
            "variants": "variants: [ { name: a, profile: unpinned } ]",
            "workloads": "workloads:\n  path: target.img\n  size: 16MiB",
        }
        text = body.replace("{w}", self.root)
        for k in list(keys):
            if text.startswith(k + ":") or ("\n" + k + ":") in text:
                del keys[k]
        return self.write(rel, "version: 1\n" + "\n".join(keys.values()) + "\n" + text)

    def summary(self, rel_dir, mutate=None, src=GOLDEN):
        with open(os.path.join(self.data, src)) as f:
            s = json.load(f)
        if mutate:
            mutate(s)
        return self.write(os.path.join(rel_dir, "summary.json"), json.dumps(s))

    def results(self, rel_dir, src):
        shutil.copytree(os.path.join(self.data, src), self.path(rel_dir))

    def run_placer(self, *args, env=None):
        e = dict(os.environ)
        e.update(env or {})
        subprocess.run([self.placer] + [a.format(w=self.root, data=self.data) for a in args], cwd=self.root,
                       env=e, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@dataclass
class Case:
    name: str
    setup: Callable
    argv: list
    rc: int
    stderr: str  # a regex for the last line of stderr ("" : stderr must be empty)
    lines: int = 1  # at most this many lines on stderr
    mem_mib: int = 64
    changes: tuple = ()  # paths of the workspace it may change
    env: dict = field(default_factory=dict)
    stdout_not: tuple = ()
    stdout_has: tuple = ()
    check: Optional[Callable] = None
    needs: tuple = ()
    timeout: int = 30
    teardown: Optional[Callable] = None  # undoes what setup started (processes), pass or fail


CASES = []


def case(*args, **kw):
    CASES.append(Case(*args, **kw))


DRY = ["placer", "bench", "--dry-run", "--topology", XML, "{w}/study.yaml"]


def study_case(name, body, stderr, rc=2, setup=None):
    def s(ws):
        if setup:
            setup(ws)
        ws.study(body)

    case("study-" + name, s, DRY, rc, stderr)


# ---- studies: the design check, sweep.from, alpha (issue #28) ----------------------------------------

TWO = "variants: [ { name: a, profile: unpinned }, { name: p, profile: demo-local } ]\nneighbours: [ {} ]\n"
study_case("design-3-repeats", TWO + "repeats: 3",
           r"study\.yaml:\d+:10: repeats: 3 repeats: a paired p cannot go below 0\.25 and an unpaired one below "
           r"0\.10, so no change can be significant at alpha 0\.05; use at least 4 \(6 for the paired test\); or "
           r"--allow-inconclusive")
study_case("design-dynamic-min", TWO + "repeats: { min: 2, max: 9 }", r"repeats: 2 repeats: a paired p cannot go below")
study_case("design-strict-alpha", TWO + "repeats: 4\nalpha: 0.01", r"no change can be significant at alpha 0\.01; "
           r"use at least 5 \(8 for the paired test\)")
study_case("alpha-over-half", TWO + "alpha: 0.7", r"study\.yaml:\d+:\d+: alpha: expected a significance level in "
           r"\(0, 0\.5\]")
study_case("sweep-from-unknown", TWO + "sweep: { parameter: quota, values: [0.5], from: nope }",
           r"study\.yaml:\d+:\d+: sweep\.from: 'nope' is not one of the variants \(a, p\)")
study_case("sweep-from-unpinned-cores", TWO + "sweep: { parameter: cores, values: [2], from: a }",
           r"sweep\.from: a cores sweep pins, and variant 'a' has a profile with pin: false")
study_case("sweep-from-intensity", TWO + "sweep: { values: [1, 2], from: p }",
           r"sweep\.from: only goes with a placement sweep")
study_case("sweep-cores-exceed-node", TWO + "sweep: { parameter: cores, values: [2, 12] }\nrepeats: 6",
           r"study\.yaml:\d+:\d+: sweep\.values\[1\]: cores 12: the node has 12 cores \(reserve 0\) and the neighbours "
           r"need at least one: at most 11", rc=3)
# issue #35: a step's value wins over its variant's set of the same key; the neighbours are not the storage
case("sweep-step-wins", lambda ws: ws.study("variants: [ { name: a, profile: unpinned, set: [fio.cpu.quota=0.5] } ]\n"
                                            "neighbours: [ {} ]\nsweep: { parameter: quota, values: [1] }\nrepeats: 6"),
     DRY, 0, "", stdout_has=(b"variant quota-1: profile ", b"  --set fio.cpu.quota=0.5\n  --set fio.cpu.quota=1\n"))
study_case("sweep-roles-neighbour", TWO + "sweep: { parameter: quota, values: [1], roles: [fio, neighbour] }",
           r"study\.yaml:\d+:\d+: sweep\.roles: \[1\]: 'neighbour' is the neighbours' role \(neighbours\[0\]\): a split "
           r"sweep measures storage against the neighbours, so they cannot be the storage")
case("cli-allow-inconclusive-nothing", lambda ws: ws.study(TWO + "repeats: 6"),
     ["placer", "bench", "--dry-run", "--allow-inconclusive", "--topology", XML, "{w}/study.yaml"], 0,
     r"placer bench: note: --allow-inconclusive: nothing to allow \(6 repeats: the smallest p is 0\.0312 paired")
case("cli-allow-inconclusive-allowed", lambda ws: ws.study(TWO + "repeats: 2"),
     ["placer", "bench", "--dry-run", "--allow-inconclusive", "--topology", XML, "{w}/study.yaml"], 0,
     r"placer bench: note: --allow-inconclusive: 2 repeats: .*; every verdict will be inconclusive")
case("cli-repeats-design", lambda ws: ws.study(TWO + "repeats: 6"),
     ["placer", "bench", "--dry-run", "--repeats", "3", "--topology", XML, "{w}/study.yaml"], 2,
     r"placer: --repeats 3: 3 repeats: a paired p cannot go below 0\.25")


# ---- studies: what fio may be told ------------------------------------------------------------------

def fio_opt(name, option, stderr, target_file=True):
    body = "workloads:\n  path: target.img\n  fio_options:\n    - --randrepeat=0\n    - " + option
    if not target_file:
        body = "cluster: { type: local }\nworkloads:\n  fio_options:\n    - --randrepeat=0\n    - " + option
    study_case("fio-" + name, body, r"study\.yaml:\d+:\d+: workloads\.fio_options: \[1\]: .*" + stderr,
               setup=lambda ws: ws.decoy("decoy.bin"))


NOT_LISTED = "not one of the fio options a study may pass"
fio_opt("filename", "--filename={w}/decoy.bin", "placer sets it")
fio_opt("output", "--output={w}/decoy.bin", "placer sets it")
fio_opt("output-format", "--output-format=terse", "placer sets it")
fio_opt("directory", "--directory={w}", NOT_LISTED)
fio_opt("abbreviated", "--directo={w}", NOT_LISTED)
fio_opt("upper-case", "--FILENAME={w}/decoy.bin", NOT_LISTED)
fio_opt("bw-log", "--write_bw_log={w}/decoy.bin", NOT_LISTED)
fio_opt("exec", "--exec_prerun=rm -rf {w}", NOT_LISTED)
fio_opt("newline", '"--randrepeat=0\\n--filename={w}/decoy.bin"', "no option may hold a newline")
fio_opt("engine-external", "--ioengine=external:{w}/evil.so", "not an engine a study may use")
fio_opt("engine-ceph", "--ioengine=libaio", "placer sets it for a Ceph target", target_file=False)
fio_opt("single-dash", "-filename={w}/decoy.bin", "expected --key=value")
fio_opt("cpus", "--cpus_allowed=0", NOT_LISTED)
# issue #35: the eight ways round the old denylist, and their kin
fio_opt("unlink", "--unlink=1", NOT_LISTED)
fio_opt("engine-filedelete", "--ioengine=filedelete", "not an engine a study may use")
fio_opt("offset", "--offset=4k", NOT_LISTED)
fio_opt("filesize", "--filesize=64m", NOT_LISTED)
fio_opt("mem-mmap", "--mem=mmap:{w}/decoy.bin", NOT_LISTED)
fio_opt("iomem-mmapshared", "--iomem=mmapshared:{w}/decoy.bin", NOT_LISTED)
fio_opt("engine-exec", "--ioengine=exec", "not an engine a study may use")
fio_opt("program", "--program=/bin/true", NOT_LISTED)
fio_opt("timeout", "--timeout=99999", r"placer sets it \(fio's alias of runtime")
fio_opt("fallocate-truncate", "--fallocate=truncate", NOT_LISTED)
fio_opt("fill-device", "--fill_device=1", NOT_LISTED)
fio_opt("abbreviation-allowed", "--randrep=0", "no abbreviation")
fio_opt("rate-path", "--rate=1m/{w}/decoy.bin", "expected a number")
fio_opt("distribution-abs", "--random_distribution=zoned_abs:60/20g", "not one of the values")
study_case("fio-allowed", "workloads:\n  path: target.img\n  fio_options: [--randrepeat=0, --ioengine=psync, "
           "'--rate=1m,2m', --thinktime=10us, --sync=dsync, --blockalign=4k]", "", rc=0)

# ---- studies: the metadata workload where CephFS is not, and its counts (issue #38) -----------------------

MD = "cluster: { type: local, mds: true }\nvariants: [ { name: a, profile: cephfs-unpinned } ]\n"
study_case("metadata-target-rbd", MD + "workloads: { kind: metadata, target: rbd, files: 10 }",
           r"study\.yaml:\d+:\d+: workloads\.target: workloads of kind metadata needs a target with a file system "
           r"mounted \(cephfs\): target rbd does not serve them")
study_case("metadata-default-target", MD + "workloads: { kind: metadata, files: 10 }",
           r"study\.yaml:\d+:\d+: workloads\.kind: workloads of kind metadata needs a target with a file system")
study_case("metadata-no-mds", "cluster: { type: local }\nvariants: [ { name: a, profile: cephfs-unpinned } ]\n"
           "workloads: { kind: metadata, target: cephfs, files: 10 }",
           r"study\.yaml:\d+:\d+: workloads\.target: target cephfs needs an MDS: set cluster\.mds: true")
study_case("metadata-zero-files", MD + "workloads: { kind: metadata, target: cephfs, files: 0 }",
           r"study\.yaml:\d+:\d+: workloads\.files: 0 files: a run creates at least one file per job")
study_case("metadata-jobs-over-files", MD + "workloads: { kind: metadata, target: cephfs, files: 2, numjobs: 3 }",
           r"study\.yaml:\d+:\d+: workloads\.numjobs: 3 jobs for 2 files: every job creates at least one file")
study_case("metadata-path-format", MD + "workloads: { kind: metadata, target: cephfs, files: 4, path: 'x$jobnum' }",
           r"study\.yaml:\d+:\d+: workloads\.path: 'x\$jobnum': for kind metadata, the tree's directory in the mount")


# ---- studies: where placer writes -----------------------------------------------------------------

study_case("baseline-dotdot", "hardware_baseline: { path: ../../../../decoy.bin }",
           r"hardware_baseline\.path: '\.\./\.\./\.\./\.\./decoy\.bin': expected a path inside the results directory")
study_case("workloads-dotdot", "workloads:\n  path: a/../../decoy.bin", r"workloads\.path: .*'\.\.' is not allowed")
study_case("baseline-existing-file", "hardware_baseline: { path: {w}/decoy.bin }",
           r"hardware_baseline\.path: '.*/decoy\.bin' is an existing file \(1\.0 MiB\) that placer did not create, "
           r"and the study writes it \(prefill.*\): set hardware_baseline\.write: true",
           setup=lambda ws: ws.decoy("decoy.bin"))
study_case("workloads-existing-file", "workloads:\n  path: {w}/decoy.bin\n  size: 1MiB",
           r"workloads\.path: .* is an existing file \(1\.0 MiB\) that placer did not create, and the study writes "
           r"it \(prefill, randwrite\): set workloads\.write: true", setup=lambda ws: ws.decoy("decoy.bin"))
study_case("workloads-existing-file-read-only",
           "workloads:\n  path: {w}/decoy.bin\n  size: 1MiB\n  patterns: [randread]\n  prefill: false", "", rc=0,
           setup=lambda ws: ws.decoy("decoy.bin"))
study_case("workloads-existing-file-short", "workloads:\n  path: {w}/decoy.bin\n  patterns: [randread]\n  prefill: false",
           r"\(fio lays out a file shorter than the region\)", setup=lambda ws: ws.decoy("decoy.bin"))
study_case("workloads-char-device", "workloads:\n  path: /dev/null", r"'/dev/null' is a character device: expected a "
           r"file or a block device")
study_case("workloads-directory", "workloads:\n  path: {w}", r"is a directory: expected a file or a block device")
study_case("workloads-fifo", "workloads:\n  path: {w}/fifo", r"is a FIFO: expected a file or a block device",
           setup=lambda ws: ws.fifo("fifo"))
study_case("workloads-no-directory", "workloads:\n  path: {w}/missing/t.img", r"its directory '.*/missing' does not exist")
study_case("write-with-rbd", "cluster: { type: local }\nworkloads:\n  write: true",
           r"workloads\.write: only goes with target file")

# ---- studies: the results directory's own files are never a study's file (issue #35) -----------------

OWN = r"is placer's own %s in the results directory: give the study's file another name"
study_case("workloads-summary-json", "workloads:\n  path: summary.json", r"workloads\.path: 'summary\.json' " + OWN % r"summary\.json")
study_case("workloads-runs-csv", "workloads:\n  path: ./runs.csv", r"workloads\.path: 'runs\.csv' " + OWN % r"runs\.csv")
study_case("workloads-report-txt", "workloads:\n  path: report.txt", OWN % r"report\.txt")
study_case("workloads-plan", "workloads:\n  path: plans/pinned.txt", OWN % "plans/")
study_case("workloads-fio-json", "workloads:\n  path: fio/a-r0-alone-4k-randwrite.json", OWN % "fio/")
study_case("workloads-logs", "workloads:\n  path: logs", OWN % "logs/")
study_case("workloads-temporary", "workloads:\n  path: .summary.json.tmp", OWN % r"temporary files \('\.summary\.json\.tmp'\)")
study_case("baseline-summary-json", "hardware_baseline: { path: summary.json }",
           r"hardware_baseline\.path: 'summary\.json' " + OWN % r"summary\.json")
case("study-workloads-absolute-own", lambda ws: ws.study("workloads:\n  path: {w}/r/./runs.csv"),
     ["placer", "bench", "--dry-run", "--out", "{w}/r", "--topology", XML, "{w}/study.yaml"], 2,
     r"workloads\.path: '.*/r/\./runs\.csv' is placer's own runs\.csv in the results directory \('.*/r/runs\.csv'\)")
case("study-baseline-through-link", lambda ws: (os.mkdir(ws.path("r")), ws.symlink("{w}/r", "link"),
                                                ws.study("hardware_baseline: { path: {w}/link/summary.json }")),
     ["placer", "bench", "--dry-run", "--out", "{w}/r", "--topology", XML, "{w}/study.yaml"], 2,
     r"hardware_baseline\.path: '.*/link/summary\.json' is placer's own summary\.json in the results directory")
case("study-workloads-results-dir", lambda ws: ws.study("workloads:\n  path: {w}/r"),
     ["placer", "bench", "--dry-run", "--out", "{w}/r/", "--topology", XML, "{w}/study.yaml"], 2,
     r"workloads\.path: '.*/r' is the results directory itself")

# ---- --resume: a results directory is data; nothing is written through a link in it (issue #35) -------

RESUME_STUDY = ("version: 1\ncluster: { type: none }\nvariants: [ { name: a, profile: unpinned } ]\n"
                "workloads: { path: %s, size: 16MiB, patterns: [randwrite], runtime: 1, ramp: 0 }\n"
                "repeats: 1\nwarmup: 0\n")


def resumable(path="target.img", after=None, write=False, study=None):
    """A results directory r/ of a one-run cluster-none study that stopped
    before its run (summary.json naming study.yaml), for --resume; AFTER
    plants what the case is about."""
    def setup(ws):
        text = RESUME_STUDY % path.replace("{w}", ws.root)
        ws.write("study.yaml", text.replace("ramp: 0", "ramp: 0, write: true") if write else text)
        ws.decoy("decoy.bin")
        with open(os.path.join(ws.data, "fixtures/results/interrupted-early/summary.json")) as f:
            s = json.load(f)
        s.update(variants=["a"], workloads=s["workloads"][:1], conditions=s["conditions"][:1], runs=[], solo=[],
                 csv_bytes={"runs.csv": 10, "solo.csv": 10})
        s["study"].update(study_file=ws.path("study.yaml"), repeats=1, repeats_max=1, warmup=0, runtime_s=1)
        s["study"].update(study or {})
        ws.write("r/summary.json", json.dumps(s))
        for d in ("fio", "logs", "plans"):
            os.makedirs(ws.path("r/" + d), exist_ok=True)
        if after:
            after(ws)
    return setup


RESUME = ["placer", "bench", "--quiet", "--prefix", "placer-t-hostile", "--resume", "{w}/r"]
LINK = r"placer: --resume: results directory '.*/r': %s is a symbolic link, expected anything but %s"


def resume_case(name, after, stderr, rc=2, path="target.img", needs=(), lines=1, write=False, study=None):
    case("resume-" + name, resumable(path, after, write, study), RESUME, rc, stderr, needs=needs, lines=lines)


resume_case("link-runs-csv", lambda ws: ws.symlink("{w}/decoy.bin", "r/runs.csv"), LINK % (r"runs\.csv", "a symbolic link"))
resume_case("link-summary-tmp", lambda ws: ws.symlink("{w}/decoy.bin", "r/.summary.json.tmp"),
            LINK % (r"\.summary\.json\.tmp", "a symbolic link"))
resume_case("link-fio-json", lambda ws: ws.symlink("{w}/decoy.bin", "r/fio/a-r0-alone-4k-randwrite.json"),
            LINK % (r"fio/a-r0-alone-4k-randwrite\.json", "one"))
resume_case("link-plan", lambda ws: ws.symlink("{w}/decoy.bin", "r/plans/a.txt"), LINK % (r"plans/a\.txt", "one"))
resume_case("link-log", lambda ws: ws.symlink("{w}/decoy.bin", "r/logs/fio-a-r0-alone-4k-randwrite.log"),
            LINK % (r"logs/fio-a-r0-alone-4k-randwrite\.log", "one"))
resume_case("link-logs-dir", lambda ws: (shutil.rmtree(ws.path("r/logs")), os.mkdir(ws.path("elsewhere")),
                                         ws.symlink("{w}/elsewhere", "r/logs")), LINK % ("logs", "a symbolic link"))
resume_case("link-cluster", lambda ws: (ws.write("victim/.ceph-cluster", ""), ws.decoy("victim/data"),
                                        ws.symlink("{w}/victim", "r/cluster")), LINK % ("cluster", "a symbolic link"))
resume_case("link-irq-state", lambda ws: (ws.write("state/irq.json", "{}"), ws.symlink("{w}/state", "r/irq-state")),
            LINK % ("irq-state", "a symbolic link"))
resume_case("csv-is-fifo", lambda ws: ws.fifo("r/roles.csv"),
            r"results directory '.*/r': roles\.csv is a FIFO, expected a regular file")
resume_case("target-link-in-subdir", lambda ws: (os.mkdir(ws.path("elsewhere")), ws.symlink("{w}/elsewhere", "r/hw")),
            LINK % ("hw", "a symbolic link"), path="hw/t.img")
resume_case("target-hardlink-of-runs-csv", lambda ws: (ws.write("r/runs.csv", "variant,repeat\n"),
                                                       os.link(ws.path("r/runs.csv"), ws.path("hl.csv"))),
            r"workloads\.path: '.*/hl\.csv' is the results directory's own runs\.csv \(the same file\)",
            path="{w}/hl.csv", needs=("fio",), lines=2, write=True)
# what --resume takes over from summary.json is range-checked (-1 was a 136-year fio runtime)
RANGE = r"placer: --resume '.*/r': summary\.json: study\.%s"
resume_case("runtime-negative", None, RANGE % r"runtime_s: -1 is less than 1", study={"runtime_s": -1})
resume_case("runtime-huge", None, RANGE % r"runtime_s: 4294967297 is more than 86400", study={"runtime_s": 2 ** 32 + 1})
resume_case("repeats-zero", None, RANGE % r"repeats: 0 is less than 1", study={"repeats": 0})
resume_case("warmup-string", None, RANGE % r"warmup: expected a whole number, got a string", study={"warmup": "1"})
resume_case("repeats-max-below", None, RANGE % r"repeats_max: 0 is less than 1", study={"repeats_max": 0})
resume_case("study-file-relative", None, RANGE % r"study_file: '\.\./study\.yaml' is not a study file's absolute path",
            study={"study_file": "../study.yaml"})
# a refusal writes nothing: not even the page of the directory it refused (report.html)
resume_case("refused-draws-no-page", lambda ws: ws.write("study.yaml", RESUME_STUDY.replace("patterns: [randwrite]",
                                                                                            "patterns: [randread]") %
                                                         "target.img"),
            r"--resume '.*/r': the study file no longer makes the same variants", needs=("fio", "gnuplot"), lines=2)

# ---- studies: what is read, and the limits --------------------------------------------------------

case("study-empty", lambda ws: ws.write("study.yaml", "# nothing\n"), DRY, 2,
     r"study\.yaml:1:1: empty study \(expected a mapping with 'variants'\)")
case("study-fifo", lambda ws: ws.fifo("study.yaml"), DRY, 2, r"study '.*/study\.yaml': a FIFO, not a regular file",
     timeout=10)
case("study-directory", lambda ws: os.mkdir(ws.path("study.yaml")), DRY, 2,
     r"study '.*': a directory, not a regular file")
case("study-dev-zero", lambda ws: ws.symlink("/dev/zero", "study.yaml"), DRY, 2,
     r"study '.*': a character device, not a regular file")
case("study-symlink-loop", lambda ws: ws.symlink("{w}/study.yaml", "study.yaml"), DRY, 2,
     r"study '.*': Too many levels of symbolic links")
case("study-too-large", lambda ws: ws.write("study.yaml", "# " + "x" * (2 * MIB)), DRY, 2,
     r"study '.*': larger than 1 MiB")
case("study-alias-bomb", lambda ws: ws.write("study.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n" % ((chr(98 + i), chr(98 + i)) + (chr(97 + i),) * 10)
    for i in range(8))), DRY, 2, r"study\.yaml:\d+:\d+: .*alias")
case("study-deep-nesting", lambda ws: ws.write("study.yaml", "variants: " + "[" * 100000), DRY, 2,
     r"study\.yaml:1:\d+: .*nest")
study_case("sweep-1e8", "neighbours: [ {} ]\nsweep: { values: [1e8] }",
           r"sweep\.values: \[0\]: 1e\+08: expected an intensity, a whole number 1\.\.1024")
study_case("sweep-negative", "neighbours: [ {} ]\nsweep: { values: [-1] }", r"expected a positive number, got '-1'")
study_case("unknown-key", "workloads:\n  path: t.img\n  pathh: x", r"study\.yaml:\d+:\d+: workloads\.pathh: unknown key")
study_case("profile-fifo", "variants: [ { name: a, profile: ./p.yaml } ]", r"profile '.*p\.yaml': a FIFO, not a regular file",
           setup=lambda ws: ws.fifo("p.yaml"))
case("bench-topology-fifo", lambda ws: (ws.fifo("t.xml"), ws.study("")),
     ["placer", "bench", "--dry-run", "--topology", "{w}/t.xml", "{w}/study.yaml"], 2,
     r"topology '.*t\.xml': a FIFO, not a regular file", timeout=10)

# ---- studies: load steps, SLOs, max_time (issue #39) ----------------------------------------------------

LOAD = "workloads:\n  path: target.img\n  size: 16MiB\n  patterns: [randwrite]\n  load: "
study_case("load-not-increasing", LOAD + "{ iodepth: [1, 8, 4] }",
           r"study\.yaml:\d+:\d+: workloads\.load\.iodepth: \[2\]: load steps must increase: iodepth 4 after 8")
study_case("load-repeated", LOAD + "{ rate_iops: [100, 100] }",
           r"workloads\.load\.rate_iops: \[1\]: load steps must increase: rate_iops 100 after 100")
study_case("load-huge-number", LOAD + "{ iodepth: [1, 99999999999999999999999] }",
           r"workloads\.load\.iodepth: \[1\]: expected a whole number 1\.\.4096, got '9+'")
study_case("load-1000-steps", LOAD + "{ iodepth: [" + ", ".join(str(i) for i in range(1, 1001)) + "] }",
           r"workloads\.load\.iodepth: expected a list of 1 to 16 steps")
study_case("load-map-step", LOAD + "{ iodepth: [1, { a: b }] }",
           r"workloads\.load\.iodepth: \[1\]: expected a whole number 1\.\.4096, got 'a mapping'")
study_case("load-two-knobs", LOAD + "{ iodepth: [1], numjobs: [1] }",
           r"workloads\.load: expected one of iodepth, numjobs or rate_iops")
SLO = LOAD + "{ iodepth: [1, 4] }\nslo:\n  storage: "
study_case("slo-no-unit", SLO + "{ p99: 20 }",
           r"study\.yaml:\d+:\d+: slo\.storage\.p99: a latency needs its unit: ns, us, ms or s \(2ms, 500us\), got '20'")
study_case("slo-negative", SLO + "{ p99: -20ms }", r"slo\.storage\.p99: must not be negative, got '-20ms'")
study_case("slo-exponent", SLO + "{ p99: 1e999ms }", r"slo\.storage\.p99: unknown unit \(use ns, us, ms or s\), got '1e999ms'")
study_case("slo-nul-in-unit", SLO + "{ p99: \"2\\0ms\" }", r"slo\.storage\.p99: expected a value such as 2ms")
study_case("slo-at-above-steps", "workloads:\n  path: target.img\n  size: 16MiB\n  patterns: [randwrite]\n"
           "  load: { rate_iops: [100, 200] }\nslo:\n  storage: { p99: 2ms, at: 500 iops }",
           r"slo\.storage\.at: at 500 iops is above every load step \(the last, rate_iops 200\): no step reaches it")
study_case("slo-without-steps", "slo:\n  storage: { p99: 2ms }", r"slo: an SLO is read off response curves")
study_case("max-time-exceeded", TWO + LOAD + "{ iodepth: [1, 4, 16, 64] }\nrepeats: 6\nmax_time: 30s",
           r"study\.yaml:\d+:11: max_time: 30s is less than the study takes: \d+ runs of 2\+10 s: 16 cells \(2 variants x 1 "
           r"workload x 4 load steps x 2 conditions\) x 6 repeats")
study_case("max-time-no-unit", "max_time: 720", r"max_time: a time needs its unit: s, min or h \(720s, 12min\), got '720'")


# ---- command lines -----------------------------------------------------------------------------------

case("cli-prefix-100k", lambda ws: ws.study(""), ["placer", "bench", "--dry-run", "--prefix", "p" * 100000,
                                                 "{w}/study.yaml"], 2,
     r"--prefix: 100000 bytes, more than the 255 a cgroup's name may have")
case("cli-prefix-slash", lambda ws: ws.study(""), ["placer", "bench", "--dry-run", "--prefix", "a/b", "{w}/study.yaml"],
     2, r"--prefix 'a/b' is not a valid group name")
case("cli-repeats-zero", lambda ws: ws.study(""), ["placer", "bench", "--dry-run", "--repeats", "0", "{w}/study.yaml"],
     2, r"--repeats")
case("cli-compare-one-dir", lambda ws: ws.summary("a"), ["placer", "compare", "{w}/a"], 2,
     r"expected BASELINE_DIR CANDIDATE_DIR")
case("cli-compare-threshold", lambda ws: ws.summary("a"), ["placer", "compare", "--threshold", "x", "{w}/a", "{w}/a"],
     2, r"--threshold wants a percentage")
HCI = "{data}/fixtures/crafted-hci-2s16c-8nvme.xml"
case("cli-size-target-1e12", lambda ws: ws.summary("a"),
     ["placer", "size", "--topology", HCI, "--target-iops", "1e12", "{w}/a"], 3,
     r"size: 1e\+12 IOPS per OSD needs .* threads .*: more than .* has \(\d+ CPUs\)")
case("cli-size-target-1e6", lambda ws: ws.summary("a"),
     ["placer", "size", "--topology", HCI, "--target-iops", "1e6", "{w}/a"], 3,
     r"size: \d+ threads per OSD")
case("cli-size-target-negative", lambda ws: ws.summary("a"),
     ["placer", "size", "--topology", XML, "--target-iops", "-5", "{w}/a"], 2, r"--target-iops")
case("cli-report-two-dirs", lambda ws: (ws.summary("a"), ws.summary("b")), ["placer", "report", "{w}/a", "{w}/b"], 2,
     r"unexpected argument")

# ---- topologies --------------------------------------------------------------------------------------


def topo_case(name, setup, stderr, rc=2, cmd="plan"):
    argv = ["placer", "plan", "--topology", "{w}/t.xml", PROFILE] if cmd == "plan" else \
        ["placer", "topo", "--topology", "{w}/t.xml"]
    case("topology-" + name, setup, argv, rc, stderr, timeout=10)


def no_allowed_cpu(ws):
    with open(os.path.join(ws.data, "fixtures/24em64t-2n6c2t-pci.xml")) as f:
        ws.write("t.xml", f.read().replace('allowed_cpuset="0x00ffffff"', 'allowed_cpuset="0x0"'))


topo_case("no-allowed-cpu", no_allowed_cpu, r"topology '.*t\.xml': no CPU is allowed here", rc=3)
topo_case("fifo", lambda ws: ws.fifo("t.xml"), r"topology '.*t\.xml': a FIFO, not a regular file")
topo_case("fifo-topo", lambda ws: ws.fifo("t.xml"), r"a FIFO, not a regular file", cmd="topo")
topo_case("directory", lambda ws: os.mkdir(ws.path("t.xml")), r"a directory, not a regular file")
topo_case("dev-zero", lambda ws: ws.symlink("/dev/zero", "t.xml"), r"a character device, not a regular file", cmd="topo")
topo_case("empty", lambda ws: ws.write("t.xml", ""), r"topology '.*': empty file")
topo_case("not-xml", lambda ws: ws.write("t.xml", "{ \"json\": 1 }\n"), r"not an hwloc XML topology")
topo_case("too-large", lambda ws: ws.sparse("t.xml", 70 * MIB), r"topology '.*': larger than 64 MiB")
case("profile-fifo-plan", lambda ws: ws.fifo("p.yaml"), ["placer", "plan", "--topology", XML, "{w}/p.yaml"], 2,
     r"profile '.*p\.yaml': a FIFO, not a regular file", timeout=10)

# ---- planning: bounded and near-linear in instances (issue #35) ---------------------------------------
BIG = "{data}/fixtures/192em64t-24n8c2t.xml"
POOL = ("version: 1\nname: pool\nroles:\n  - name: w\n    kind: generic\n    %s\n"
        "    cpu: { threads: 1, pool: shared }\n    memory: 1MiB\n")


def plan_case(name, count, rc, stderr, extra=(), **kw):
    case("plan-" + name, lambda ws: ws.write("p.yaml", POOL % count),
         ["placer", "plan"] + list(extra) + ["--topology", BIG, "{w}/p.yaml"], rc, stderr, **kw)


plan_case("count-100000", "count: 100000", 2, r"p\.yaml:6:12: roles\[0\]\.count: '100000' is too large \(at most 4096\)")
plan_case("per-numa-huge", "per_numa: 100000", 2, r"roles\[0\]\.per_numa: '100000' is too large \(at most 4096\)")
plan_case("set-count-5000", "count: 8", 2, r"--set 'w\.count=5000': expected a count 1\.\.4096",
          extra=("--set", "w.count=5000"))
plan_case("per-numa-4096", "per_numa: 4096", 3, r"role 'w': more than 4096 instances \(at most 4096 per role\)",
          timeout=20, mem_mib=128)
# 4096 instances in one pool: seconds at most (it took minutes: 353 s on the reporter's machine)
plan_case("count-4096", "count: 4096", 0, "", extra=("--json",), timeout=20, mem_mib=128,
          stdout_has=(b'"name": "w.4095"',))

# ---- results directories: compare, size ---------------------------------------------------------------

CMP = ["placer", "compare", "{w}/a", "{w}/b"]
SIZE = ["placer", "size", "--topology", "{data}/fixtures/crafted-hci-2s16c-8nvme.xml", "{w}/b"]


def damaged(mutate):
    return lambda ws: (ws.summary("a"), ws.summary("b", mutate))


def results_case(name, mutate, stderr, cmds=("compare", "size")):
    for cmd in cmds:
        case("%s-%s" % (cmd, name), damaged(mutate), CMP if cmd == "compare" else SIZE, 2,
             r"/b/summary\.json: " + stderr)


def set_run(i, key, value, sub=None):
    def m(s):
        run = s["runs"][i]
        (run[sub] if sub else run)[key] = value
    return m


results_case("alpha-over-half", lambda s: s.update(alpha=0.9), r"alpha: 0\.9 is not a significance level in \(0, 0\.5\]")
results_case("split-from-unknown", lambda s: s.update(split={"parameter": "quota", "workload": "4k-randwrite",
                                                           "storage_min_fraction": 0.5, "knobs": [None, 1],
                                                           "from": "nope"}),
             r"split\.from: 'nope' is not one of the variants")
results_case("negative-iops", set_run(3, "iops", -1000, "write"), r"runs\[3\]\.write\.iops: -1000 is negative")
results_case("iops-string", set_run(0, "iops", "fast", "read"), r"runs\[0\]\.read\.iops: expected a number, got a string")
results_case("runs-string", lambda s: s.update(runs="many"), r"runs: expected an array, got a string")
results_case("read-missing", lambda s: s["runs"][2].pop("read"), r"runs\[2\]\.read: missing \(expected an object\)")
results_case("cpu-busy-over-1", lambda s: s["runs"][1]["cpu_busy"].__setitem__(0, 1.5),
             r"runs\[1\]\.cpu_busy\[0\]: 1\.5 is more than 1", cmds=("compare",))
results_case("share-over-1", lambda s: s["runs"][1]["roles"][0].__setitem__("local_mem_share", 2),
             r"runs\[1\]\.roles\[0\]\.local_mem_share: 2 is more than 1", cmds=("size",))
results_case("cpu-negative", lambda s: s["runs"][4]["roles"][0].__setitem__("cpu_ns", -5),
             r"runs\[4\]\.roles\[0\]\.cpu_ns: -5 is negative", cmds=("size",))
results_case("repeat-out-of-range", set_run(0, "repeat", 99), r"runs\[0\]\.repeat: 99 is more than 2", cmds=("compare",))
results_case("fio-json-escapes", set_run(0, "fio_json", "../../../etc/shadow"),
             r"runs\[0\]\.fio_json: '\.\./\.\./\.\./etc/shadow' is not a path inside the results directory",
             cmds=("compare",))
results_case("name-control-byte", lambda s: s["variants"].__setitem__(1, "pinned\x1b[2J"),
             r"variants\[1\]: the name 'pinned\\x1b\[2J' has a control byte", cmds=("compare",))
results_case("too-many-runs", lambda s: s["runs"].append(dict(s["runs"][0])),
             r"runs: 37 entries, more than the 36 runs of the study", cmds=("compare",))
results_case("version-2", lambda s: s.update(version=2), r"version 2, expected 1", cmds=("compare",))
results_case("format", lambda s: s.update(format="fio"), r"\"format\" is not \"placer-bench-results\"", cmds=("size",))
results_case("repeats-zero", lambda s: s.update(repeats=0), r"repeats: 0 is less than 1", cmds=("compare",))
results_case("solo-negative", lambda s: s["solo"][0].__setitem__("neighbour_rate", -1),
             r"solo\[0\]\.neighbour_rate: -1 is negative", cmds=("compare",))
results_case("study-runtime-negative", lambda s: s.update(study={"runtime_s": -1}), r"study\.runtime_s: -1 is less than 1",
             cmds=("compare",))


def shape_bomb(s):
    names = ["v%d" % i for i in range(64)]
    s.update(variants=names, workloads=[{"name": n, "pattern": "randread", "block_size_bytes": 4096} for n in names],
             conditions=[{"name": n, "neighbour_level": i} for i, n in enumerate(names)], repeats=64, runs=[],
             solo=[], sweep=None, split=None)


results_case("shape-16m-runs", shape_bomb, r"bench results: 64 variants x 64 conditions x 64 workloads x 64 repeats: more than 65536 "
             r"runs", cmds=("compare",))
# cells are matched by name: a name that is another workload in the other results is refused (issue #35)


def workload_as(name, **kw):
    def m(s):
        for w in s["workloads"]:
            if w["name"] == name:
                w.update(kw)
    return m


case("compare-pattern-differs", damaged(workload_as("4k-randwrite", pattern="randread")), CMP, 2,
     r"compare: workload '4k-randwrite' is randwrite of 4096 B \(IOPS\) in the baseline and randread of 4096 B "
     r"\(IOPS\) in the candidate: not the same cell")
case("compare-metric-differs", damaged(workload_as("4k-randwrite", block_size_bytes=1 << 20)), CMP, 2,
     r"is randwrite of 4096 B \(IOPS\) in the baseline and randwrite of 1048576 B \(MB/s\) in the candidate")
results_case("split-parameter-bogus", lambda s: s.update(split={"parameter": "bogus", "workload": "4k-randwrite",
                                                               "storage_min_fraction": 0.5, "knobs": [None, 1]}),
             r"split\.parameter: 'bogus' is not a split sweep's parameter \(quota, cores, weight\)")
# a results directory's curves are data too: a load step, an SLO, a variant's CPU out of range is one line
results_case("load-value-negative", workload_as("4k-randwrite", curve="4k-randwrite", load={"name": "iodepth", "value": -4}),
             r"workloads\[0\]\.load\.value: -4 is less than 1", cmds=("compare",))
results_case("load-name-bogus", workload_as("4k-randwrite", curve="4k-randwrite", load={"name": "rm -rf", "value": 4}),
             r"workloads\[0\]\.load\.name: 'rm -rf' is not what a load step sets", cmds=("size",))
results_case("slo-negative", lambda s: s.update(slo={"p99_ns": -1}), r"slo\.p99_ns: -1 is less than 1e-09")
results_case("storage-cpus-string", lambda s: s.update(storage_cpus=["one", None]),
             r"storage_cpus\[0\]: expected a number or null, got a string", cmds=("compare",))
results_case("storage-cpus-long", lambda s: s.update(storage_cpus=[1] * 100000),
             r"storage_cpus: 100000 entries, more than the 2 variants of the study", cmds=("size",))
case("compare-runs-empty", damaged(lambda s: s.update(runs=[])), CMP, 2,
     r"compare: no cell \(variant, condition, workload\) has runs in both results")
case("compare-truncated-json", lambda ws: (ws.summary("a"), ws.write("b/summary.json", '{ "runs": [')), CMP, 2,
     r"b/summary\.json:1: ")
case("compare-empty-file", lambda ws: (ws.summary("a"), ws.write("b/summary.json", "")), CMP, 2, r"b/summary\.json:1: ")
case("compare-no-summary", lambda ws: (ws.summary("a"), os.mkdir(ws.path("b"))), CMP, 2,
     r"results '.*/b/summary\.json': No such file or directory")
case("compare-summary-fifo", lambda ws: (ws.summary("a"), ws.fifo("b/summary.json")), CMP, 2,
     r"results '.*/b/summary\.json': a FIFO, not a regular file", timeout=10)
case("compare-summary-directory", lambda ws: (ws.summary("a"), os.makedirs(ws.path("b/summary.json"))), CMP, 2,
     r"a directory, not a regular file")
case("compare-summary-dev-zero", lambda ws: (ws.summary("a"), ws.symlink("/dev/zero", "b/summary.json")), CMP, 2,
     r"a character device, not a regular file")
case("compare-summary-loop", lambda ws: (ws.summary("a"), ws.symlink("{w}/b/summary.json", "b/summary.json")), CMP, 2,
     r"Too many levels of symbolic links")
case("compare-dir-is-a-file", lambda ws: (ws.summary("a"), ws.write("b", "x")), CMP, 2,
     r"results '.*/b': a regular file, not a results directory")
case("size-summary-fifo", lambda ws: ws.fifo("b/summary.json"), SIZE, 2, r"a FIFO, not a regular file", timeout=10)
case("compare-summary-64mb", lambda ws: (ws.summary("a"), ws.sparse("b/summary.json", 64 * MIB)), CMP, 2,
     r"results '.*/b/summary\.json': larger than 32 MiB")
case("compare-long-string", damaged(lambda s: s.update(title="x" * (100 << 10))), CMP, 2,
     r"b/summary\.json:\d+: a string longer than 64 KiB")


def costly(target, filler):
    """The golden summary with FILLER values added to every run's cpu_busy
    (FILLER "0.5") or threads (FILLER "{}") until it costs TARGET bytes."""
    def mutate(s):
        runs = s["runs"]
        key = "cpu_busy" if filler == "0.5" else "threads"
        base = json_cost(json.dumps(s))
        per = COST_SCALAR + COST[","] if filler == "0.5" else COST["{"] + COST[","]
        n = (target - base) // per // len(runs)
        for r in runs:
            r[key] = r[key] + ([0.5] * n if filler == "0.5" else [{}] * n)
    return mutate


def check_cost(limit_ok):
    def check(ws, rc, out, err):
        with open(ws.path("b/summary.json")) as f:
            c = json_cost(f.read())
        if (c <= MAX_COST) != limit_ok:
            return "the file costs %.1f MiB: not %s the limit" % (c / MIB, "under" if limit_ok else "over")
    return check


# jansson's worst shapes just under the cost placer reads: read, and well under 256 MiB; two of them compared
case("compare-near-limit-numbers", lambda ws: (ws.summary("a"), ws.summary("b", costly(MAX_COST - 2 * MIB, "0.5"))),
     CMP, 0, r"", mem_mib=256, stdout_has=(b"No regression",), check=check_cost(True), timeout=120)
case("compare-two-near-limit", lambda ws: (ws.summary("a", costly(MAX_COST - 2 * MIB, "0.5")),
                                           ws.summary("b", costly(MAX_COST - 2 * MIB, "0.5"))),
     CMP, 0, r"", mem_mib=256, stdout_has=(b"No regression",), timeout=120)
case("compare-near-limit-objects", lambda ws: (ws.summary("a"), ws.summary("b", costly(MAX_COST - 2 * MIB, "{}"))),
     CMP, 2, r"runs\[0\]\.threads\[\d+\]\.instance: missing", mem_mib=256, check=check_cost(True), timeout=120)
case("compare-over-limit", lambda ws: (ws.summary("a"), ws.summary("b", costly(MAX_COST + 8 * MIB, "0.5"))),
     CMP, 2, r"b/summary\.json: its \d+ bytes would take about \d+ MiB of memory to read \(at most 96 MiB",
     mem_mib=96, check=check_cost(False), timeout=60)

# ---- size --validate: bench/size-validate.sh's JSON, checked like summary.json (issue #35) ------------


def validation(mutate):
    def setup(ws):
        with open(os.path.join(ws.data, "fixtures/results/quota-sweep.json")) as f:
            s = json.load(f)
        mutate(s)
        ws.write("v.json", json.dumps(s))
    return setup


def validate_case(name, mutate, stderr, rc=2, **kw):
    case("size-validate-" + name, validation(mutate), ["placer", "size", "--validate", "{w}/v.json"], rc, stderr, **kw)


def vrun(i, key, value):
    return lambda s: s["runs"][i].__setitem__(key, value)


validate_case("iops-negative", vrun(3, "iops", -5), r"v\.json: runs\[3\]\.iops: -5 is negative")
validate_case("iops-string", vrun(0, "iops", "fast"), r"v\.json: runs\[0\]\.iops: expected a number, got a string")
validate_case("quota-zero", vrun(2, "quota_cores", 0), r"runs\[2\]\.quota_cores: 0 is not more than 0")
validate_case("runtime-zero", vrun(1, "runtime_s", 0), r"runs\[1\]\.runtime_s: 0 is not more than 0")
validate_case("osds-zero", lambda s: s.update(osds=0), r"v\.json: osds: 0 is not more than 0")
validate_case("osds-missing", lambda s: s.pop("osds"), r"v\.json: osds: missing \(expected a whole number\)")
validate_case("version-2", lambda s: s.update(version=2), r"v\.json: version: 2 is more than 1")
validate_case("workload-missing", lambda s: s["runs"][4].pop("workload"),
              r"runs\[4\]\.workload: expected a name \(a string of 1 to 255 bytes\)")
validate_case("workload-escape", vrun(0, "workload", "evil\x1b[2J\x1b]0;owned\x07"),
              r"runs\[0\]\.workload: the name 'evil\\x1b\[2J\\x1b\]0;owned\\x07' has a control byte")
validate_case("run-not-object", lambda s: s["runs"].__setitem__(0, 7), r"runs\[0\]: expected an object")
validate_case("zero-cpu", lambda s: [r.__setitem__("osd_cpu_s", 0) for r in s["runs"]],
              "", rc=0, stdout_not=(b"nan",), stdout_has=(b"nothing predicted: the fit allotments give no cost per I/O",))

# ---- the terminal, and different studies ---------------------------------------------------------------

case("compare-title-escape", damaged(lambda s: s.update(title="evil\x1b[2J\x1b]0;owned\x07")), CMP, 0,
     r"warning: the two studies differ: the titles \('.*' and 'evil\\x1b\[2J\\x1b\]0;owned\\x07'\)",
     stdout_not=(b"\x1b", b"\x07"), stdout_has=(b"evil\\x1b[2J",))


def renamed(s):
    s["variants"][1] = "tuned"
    for r in s["runs"] + s["solo"]:
        if r["variant"] == "pinned":
            r["variant"] = "tuned"
    s["workloads"] = s["workloads"][:2]
    s["runs"] = [r for r in s["runs"] if r["workload"] != "128k-write"]


case("compare-different-studies", damaged(renamed), CMP, 0,
     r"warning: the two studies differ: variants only in the baseline: pinned; variants only in the candidate: "
     r"tuned; workloads only in the baseline: 128k-write")

# ---- report: atomic, or nothing --------------------------------------------------------------------------


def reported(mutate=None, after=None):
    """A results directory with its page drawn, then damaged."""
    def setup(ws):
        ws.results("r", "fixtures/results/sweep-2osd")
        ws.write("r/report/notes.txt", "mine\n")
        ws.run_placer("report", "{w}/r")
        if mutate:
            with open(ws.path("r/summary.json")) as f:
                s = json.load(f)
            mutate(s)
            ws.write("r/summary.json", json.dumps(s))
        if after:
            after(ws)
    return setup


REPORT = ["placer", "report", "{w}/r"]


def report_case(name, setup, rc, stderr, **kw):
    case("report-" + name, setup, REPORT, rc, stderr, needs=("gnuplot",), **kw)


report_case("runs-string", reported(lambda s: s.update(runs="many")), 2, r"r/summary\.json: runs: expected an array")
report_case("negative-iops", reported(set_run(3, "iops", -1000, "write")), 2, r"runs\[3\]\.write\.iops: -1000 is negative")
report_case("html-is-directory", reported(after=lambda ws: (os.unlink(ws.path("r/report.html")),
                                                            os.mkdir(ws.path("r/report.html")))), 4,
            r"report: .*/report\.html is a directory, not the page placer writes there: nothing written")
report_case("plots-is-file", reported(after=lambda ws: (shutil.rmtree(ws.path("r/report")), ws.write("r/report", "x"))),
            4, r"report: .*/report is a regular file, not the plots' directory placer writes there")
report_case("gnuplot-fails", reported(), 2, r"report: /bin/false could not draw the .* plot \(exit 1\): no message "
            r"\(its data: \d+ rows, \d+ numbers\)", env={"PLACER_GNUPLOT": "/bin/false"})
report_case("gnuplot-missing", reported(), 2, r"report: gnuplot not found \(exec '/nonexistent/gnuplot': No such file",
            env={"PLACER_GNUPLOT": "/nonexistent/gnuplot"})
report_case("summary-fifo", reported(after=lambda ws: (os.unlink(ws.path("r/summary.json")), ws.fifo("r/summary.json"))),
            2, r"a FIFO, not a regular file", timeout=10)
report_case("summary-64mb", reported(after=lambda ws: ws.sparse("r/summary.json", 64 * MIB)), 2, r"larger than 32 MiB")
# A recorded metadata study (Ceph's counters of every run) whose counters file is damaged: report and
# compare refuse it as they refuse a damaged summary.json (issue #38), nothing written.
MDFIX = "fixtures/results/cephfs-metadata"


def counters_damaged(edit):
    def setup(ws):
        ws.results("r", MDFIX)
        with open(ws.path("r/ceph-counters.csv")) as f:
            text = f.read()
        ws.write("r/ceph-counters.csv", edit(text))
    return setup


def counter_edited(text):
    at = text.index(",mds.a,ok,mds.request,") + len(",mds.a,ok,mds.request,")
    return text[:at] + ("8" if text[at] == "9" else "9") + text[at + 1:]


report_case("counters-edited", counters_damaged(counter_edited), 2,
            r"r/ceph-counters\.csv: run unpinned-r0 alone metadata: mds\.a's mds\.request is \d+ \(0 ns\) here and "
            r"mds\.request \d+ \(0 ns\) in summary\.json")
report_case("counters-cut", counters_damaged(lambda t: t[:len(t) // 2]), 2,
            r"r/ceph-counters\.csv: \d+ bytes, but summary\.json recorded \d+")
report_case("counters-empty", counters_damaged(lambda t: ""), 2, r"r/ceph-counters\.csv: 0 bytes, but summary")
report_case("counters-missing", lambda ws: (ws.results("r", MDFIX), os.unlink(ws.path("r/ceph-counters.csv"))), 2,
            r"r/ceph-counters\.csv: missing, but summary\.json holds Ceph's counters of its runs")
case("compare-counters-edited", lambda ws: (counters_damaged(counter_edited)(ws), ws.results("b", MDFIX)),
     ["placer", "compare", "{w}/b", "{w}/r"], 2, r"r/ceph-counters\.csv: run unpinned-r0 alone metadata: ")
report_case("compare-damaged", lambda ws: (reported()(ws), ws.summary("b", set_run(0, "iops", -1, "write"))), 2,
            r"b/summary\.json: runs\[0\]\.write\.iops: -1 is negative")
CASES[-1].argv = ["placer", "report", "--compare", "{w}/b", "{w}/r"]
report_case("compare-no-common-cell", lambda ws: (reported()(ws), ws.summary("b", lambda s: s.update(runs=[]))), 2,
            r"report --compare: no cell \(variant, condition, workload\) has runs in both results")
CASES[-1].argv = ["placer", "report", "--compare", "{w}/b", "{w}/r"]
report_case("compare-other-workload", lambda ws: (reported()(ws), ws.results("b", "fixtures/results/sweep-2osd"),
                                                  ws.run_placer("report", "{w}/b"),
                                                  ws.summary("b", workload_as("4k-randwrite", pattern="randread"),
                                                             src="fixtures/results/sweep-2osd/summary.json")), 2,
            r"report --compare: compare: workload '4k-randwrite' is randwrite of 4096 B \(IOPS\) in the baseline")
CASES[-1].argv = ["placer", "report", "--compare", "{w}/b", "{w}/r"]


def page_without_plots(ws, rc, out, err):
    with open(ws.path("r/report.html")) as f:
        html = f.read()
    plots = os.listdir(ws.path("r/report"))
    if "No plot" not in html or [p for p in plots if p.endswith(".svg")]:
        return "the page of a study with no run: %s, %s" % (plots, "No plot" in html)
    if sorted(plots) != ["notes.txt", "report.txt"]:
        return "report/ holds %s, expected only the text report and the user's notes.txt" % plots


# gnuplot that hangs, and placer stopped while it draws (issue #35): a real process first in PATH that
# records its pid and its child's, closes its output (the old wait took that for its end) and sleeps;
# placer kills its whole group after PLACER_GNUPLOT_TIMEOUT, or on the SIGTERM/SIGINT the fake sends
# placer itself, removes its temporary directory and leaves the results directory as it was.
HANG = """#!/bin/sh
echo $$ >>"$HANG_PIDS"
sleep 1000 &
echo $! >>"$HANG_PIDS"
%s
exec >&- 2>&-
wait
"""


def hanging(signal_placer=""):
    def setup(ws):
        reported()(ws)
        ws.write("bin/gnuplot", HANG % signal_placer)
        os.chmod(ws.path("bin/gnuplot"), 0o755)
    return setup


def gnuplot_gone(ws, rc, out, err):
    with open(ws.path("pids")) as f:
        pids = [int(x) for x in f.read().split()]
    alive = [p for p in pids if os.path.exists("/proc/%d" % p) and
             not open("/proc/%d/stat" % p).read().split(") ")[1].startswith("Z")]
    for p in alive:
        os.kill(p, signal.SIGKILL)
    if alive or len(pids) != 2:
        return "gnuplot's processes %s: %s still running" % (pids, alive)
    if [p for p in os.listdir(ws.path("r")) if p.startswith(".report")]:
        return "a temporary directory left in r/"


HANG_ENV = {"PATH": "{w}/bin:/usr/bin:/bin", "HANG_PIDS": "{w}/pids", "PLACER_GNUPLOT_TIMEOUT": "2"}
case("report-gnuplot-hangs", hanging(), REPORT, 4,
     r"report: gnuplot did not draw the .* plot in 2 s \(hung\?\): killed", env=HANG_ENV, changes=("pids",),
     check=gnuplot_gone, timeout=20, needs=("gnuplot",))
case("report-sigterm", hanging("kill -TERM $PPID"), REPORT, 130, r"gnuplot: stopped \(interrupted\)", env=HANG_ENV,
     changes=("pids",), check=gnuplot_gone, timeout=20, needs=("gnuplot",))
case("report-sigint", hanging("kill -INT $PPID"), REPORT, 130, r"gnuplot: stopped \(interrupted\)", env=HANG_ENV,
     changes=("pids",), check=gnuplot_gone, timeout=20, needs=("gnuplot",))
report_case("runs-empty", reported(lambda s: s.update(runs=[])), 0, r"", changes=("r/report.html", "r/report"),
            stdout_has=(b"/r/report.html",), check=page_without_plots)


def page_redrawn(ws, rc, out, err):
    plots = sorted(os.listdir(ws.path("r/report")))
    if "notes.txt" not in plots or "sweep.svg" not in plots or [p for p in plots if p.startswith(".")]:
        return "report/ after a redraw: %s" % plots
    if [p for p in os.listdir(ws.path("r")) if p.startswith(".report")]:
        return "a temporary directory left in r/"


report_case("redraw", reported(), 0, r"", changes=("r/report.html", "r/report"), check=page_redrawn)

# ---- state directories: tests/hostile/cases_state.py -------------------------------------------------------
import cases_state  # noqa: E402,F401  (its cases join CASES)
