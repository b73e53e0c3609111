#!/usr/bin/python3
# The role placer.fleet.node with placer_watch: true, run by ansible-playbook on localhost (tag
# watch, placer_watch_start: false: this machine's PID 1 is not systemd, so nothing is started):
# the drop-in of placer-watch.service holds the node's options (prefix, state directory,
# --on-drift, --interval, --metrics, the profile), every option of its ExecStart is one that
# `placer watch --help` lists, a second run changes nothing; with placer_watch: false (the
# default) no drop-in is written. The packaged unit (packaging/placer-watch.service) starts
# placer watch on /etc/placer/profile.yaml, restarts it on failure but not on bad input (2, 3).
# Exit 77 (skipped) without ansible-core or PLACER_BIN.
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from module_run import run_role  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..")
BIN = os.environ.get("PLACER_BIN")
PROFILE = os.path.join(SRC, "profiles", "hci-nvme.yaml")
UNIT = os.path.join(SRC, "packaging", "placer-watch.service")


class WatchRole(unittest.TestCase):
    def play(self, tmp, **extra):
        args = dict(placer_install="none", placer_bin=BIN, placer_profile=PROFILE,
                    placer_conf_dir=os.path.join(tmp, "conf"), placer_systemd_dir=os.path.join(tmp, "systemd"),
                    placer_state_dir=os.path.join(tmp, "state"), placer_cgroup_prefix="placer-t-role",
                    placer_watch_start=False)
        p = run_role(tmp, "watch", dict(args, **extra))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def test_dropin_holds_the_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.play(tmp, placer_watch=True, placer_watch_on_drift="report", placer_watch_metrics=":9101",
                      placer_watch_interval=500)
            dropin = os.path.join(tmp, "systemd", "placer-watch.service.d", "50-placer.conf")
            with open(dropin) as f:
                lines = f.read().splitlines()
            self.assertIn("Environment=PLACER_CGROUP_PREFIX=placer-t-role", lines)
            starts = [line[len("ExecStart="):] for line in lines if line.startswith("ExecStart=")]
            self.assertEqual(starts[0], "")  # the packaged ExecStart cleared first
            argv = shlex.split(starts[1])
            self.assertEqual(argv, [BIN, "watch", "--state-dir", os.path.join(tmp, "state"), "--on-drift", "report",
                                    "--interval", "500", "--metrics", ":9101",
                                    os.path.join(tmp, "conf", "profile.yaml")])
            helped = subprocess.run([BIN, "watch", "--help"], capture_output=True, text=True).stdout
            for opt in [a for a in argv if a.startswith("--")]:
                self.assertIn("  " + opt + " ", helped)
            self.assertTrue(os.path.exists(os.path.join(tmp, "conf", "profile.yaml")))
            out = self.play(tmp, placer_watch=True, placer_watch_on_drift="report", placer_watch_metrics=":9101",
                            placer_watch_interval=500)
            self.assertRegex(out, r"localhost\s*: ok=\d+\s+changed=0 ")

    def test_off_by_default(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.play(tmp)
            self.assertFalse(os.path.exists(os.path.join(tmp, "systemd")))

    def test_packaged_unit(self):
        with open(UNIT) as f:
            lines = f.read().splitlines()
        self.assertIn("ExecStart=/usr/bin/placer watch /etc/placer/profile.yaml", lines)
        self.assertIn("Restart=on-failure", lines)
        self.assertIn("RestartPreventExitStatus=2 3", lines)
        self.assertIn("StandardOutput=journal", lines)
        self.assertIn("ExecReload=/bin/kill -HUP $MAINPID", lines)


if __name__ == "__main__":
    try:
        import ansible.module_utils.basic  # noqa: F401
    except ImportError:
        print("ansible-core missing (sh ci/install-deps.sh all)")
        sys.exit(77)
    if not BIN:
        print("PLACER_BIN not set (ctest sets it)")
        sys.exit(77)
    unittest.main()
