"""What the tests of tests/export/ share: the placer binary and the test data
(ctest's environment), running placer, reading cpu lists and sizes, a module
the test needs, and a check over every fixture with every profile."""
import glob
import importlib
import json
import os
import re
import subprocess
import sys

BIN = os.environ.get("PLACER_BIN")
TESTS = os.environ.get("PLACER_TEST_DATA")
if not BIN or not TESTS:
    print("PLACER_BIN and PLACER_TEST_DATA must be set (ctest sets them)")
    sys.exit(77)

UNITS = {"": 1, "B": 1, "K": 1024, "KiB": 1024, "M": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30,
         "T": 1 << 40, "TiB": 1 << 40, "KB": 1000, "MB": 10**6, "GB": 10**9, "TB": 10**12}
# Kubernetes quantities (k8s.io/apimachinery resource.Quantity), the suffixes placer reads
QUANTITY = {"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "k": 10**3, "M": 10**6,
            "G": 10**9, "T": 10**12}


def size(text):
    m = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]*)", str(text))
    return int(float(m.group(1)) * UNITS[m.group(2)])


def quantity(text):
    m = re.fullmatch(r"([0-9]+)([A-Za-z]*)", str(text))
    return int(m.group(1)) * QUANTITY[m.group(2)]


def cpus(text):
    out = set()
    for part in filter(None, str(text).replace(" ", "").split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def run(*args):
    return subprocess.run([BIN, *args], cwd=TESTS, capture_output=True, text=True)


def plan_and_export(fixture, profile, *export_args):
    """`placer plan --json` of PROFILE on FIXTURE and `placer export EXPORT_ARGS` of it (its CompletedProcess):
    (plan, out), or (None, None) when the profile does not fit the fixture (exit 3)."""
    plan_run = run("plan", "--json", "--topology", fixture, profile)
    if plan_run.returncode == 3:
        return None, None
    assert plan_run.returncode == 0, f"{profile} on {fixture}: {plan_run.stderr}"
    return json.loads(plan_run.stdout), run("export", *export_args, "--topology", fixture, profile)


def fixtures():
    return [os.path.join("fixtures", os.path.basename(x))
            for x in sorted(glob.glob(os.path.join(TESTS, "fixtures", "*.xml")))]


def need(module):
    """MODULE imported, or the test skipped (exit 77) without it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        print(f"python3-{module} missing (sh ci/install-deps.sh all)")
        sys.exit(77)


def every_pair(check, profiles, what, least=20):
    """CHECK(fixture, profile) on every fixture with every profile of PROFILES: it returns 1 (or True) for a pair
    it checked, 0 for one the format does not apply to; at least LEAST must have been checked."""
    checked = sum(check(f, p) for f in fixtures() for p in profiles)
    assert checked >= least, f"{what}: only {checked} pairs checked"
    print(f"{what}: {checked} profile/fixture pairs")
