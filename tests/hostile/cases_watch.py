"""The hostile cases of `placer watch` (issue #40): its command line (--on-drift, --interval,
--backend,
--metrics, --metrics-file, the operand), a profile that is not YAML, not there, or does not
fit, and a state directory placer may not trust.  Each is refused before anything is applied:
one line on stderr with its exit code, nothing on stdout (the lines the watcher says before the
plan is in force are held back), and no file of the workspace made or changed."""
import os

from cases import case

WATCH = ["placer", "watch", "--state-dir", "{w}/st"]
P = "{w}/p.yaml"
PROFILE = """version: 1
name: hostile-watch
reserve: { cores: 0 }
roles:
  - name: app
    kind: generic
    count: 1
    cpu: { threads: %s, pool: one }
    match: { cmdline: "placer-hostile-watch-nothing *" }
"""


def profile(text):
    return lambda ws: ws.write("p.yaml", text)


FITS = profile(PROFILE % 1)


def watch_case(name, args, rc, stderr, setup=FITS, **kw):
    case("watch-" + name, setup, WATCH + args, rc, stderr, **kw)


# ---- the command line ----------------------------------------------------------------------------
watch_case("no-profile", [], 2, r"placer watch: missing PROFILE \(see 'placer watch --help'\)")
watch_case("two-profiles", [P, P], 2, r"placer watch: unexpected argument '.*/p\.yaml'")
watch_case("on-drift-unknown", ["--on-drift", "repair", P], 2, r"placer watch: --on-drift wants fix or report, got 'repair'")
for bad in ("0", "9", "3600001", "2s", "-5", ""):
    watch_case("interval-" + (bad or "empty"), ["--interval", bad, P], 2,
               r"placer watch: --interval wants milliseconds from 10 to 3600000, got '%s'" % bad)
watch_case("unknown-option", ["--pid", "app.0=1", P], 2, r"placer watch: unknown option '--pid'")
watch_case("backend-unknown", ["--backend", "podman", P], 2,
           r"placer watch: --backend wants one of auto\|cgroupfs\|systemd, got 'podman'")

# ---- the metrics: checked (the listener opened) before anything else ------------------------------
for name, addr in (("port-too-large", "127.0.0.1:99999"), ("no-port", "[::1]9101"), ("name", "node.example:9101"),
                   ("empty", "")):
    watch_case("metrics-" + name, ["--metrics", addr, P], 2, r"metrics")
watch_case("metrics-file-no-dir", ["--metrics-file", "{w}/none/m.prom", P], 2, r"metrics")
# the metrics before the profile: a bad address is said even with a profile that is not there
watch_case("metrics-before-profile", ["--metrics", "127.0.0.1:99999", "{w}/none.yaml"], 2, r"metrics")

# ---- the profile ---------------------------------------------------------------------------------
watch_case("profile-missing", ["{w}/none.yaml"], 2, r"none\.yaml")
watch_case("profile-not-yaml", [P], 2, r"p\.yaml:\d+:\d+: ", setup=profile("version: 1\nroles: [\n"))
watch_case("profile-does-not-fit", [P], 3, r"app", setup=profile(PROFILE % 64))


# ---- the state directory -------------------------------------------------------------------------
def untrusted_state(ws):
    FITS(ws)
    os.makedirs(ws.path("st"))
    os.chmod(ws.path("st"), 0o777)


# (as root, as the suite runs here: a user who is not root is refused before the lock, exit 4)
watch_case("state-dir-writable", [P], 2, r"state directory '.*/st': writable by others", setup=untrusted_state)
