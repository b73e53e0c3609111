#!/usr/bin/python3
# placer.fleet.placer_config run as Ansible runs it on a node (the module file with its arguments
# in a JSON file), in a temporary directory: what it writes, when it says changed, check mode,
# modes, --diff, and the inputs it refuses. No root, no ansible-playbook: only ansible-core's
# module_utils (the ansible package). Exit 77 (skipped) without them.
import base64
import json
import os
import stat
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from module_run import run_module, run_module_measured  # noqa: E402


def run(args, check_mode=False):
    """(exit code, result) of one module run."""
    return run_module("placer_config", args, check_mode)


def b64(data):
    return base64.b64encode(data).decode()


class PlacerConfig(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "etc", "placer")

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()

    def mode(self, name):
        return stat.S_IMODE(os.stat(os.path.join(self.dir, name)).st_mode)

    def test_writes_then_changes_nothing(self):
        args = dict(dir=self.dir, files={"profile.yaml": "version: 1\nname: a\n", "topology.xml": "<x/>\n"})
        rc, r = run(args)
        self.assertEqual(rc, 0, r)
        self.assertTrue(r["changed"])
        self.assertEqual(sorted(r["written"]), ["profile.yaml", "topology.xml"])
        self.assertEqual(self.read("profile.yaml"), b"version: 1\nname: a\n")
        self.assertEqual(self.read("topology.xml"), b"<x/>\n")
        self.assertEqual(self.mode("profile.yaml"), 0o644)
        self.assertEqual(stat.S_IMODE(os.stat(self.dir).st_mode), 0o755)
        rc, r = run(args)
        self.assertEqual((rc, r["changed"], r["written"]), (0, False, []), r)
        # One file changed: only it is written, and the diff shows it.
        args["files"]["profile.yaml"] = "version: 1\nname: b\n"
        rc, r = run(args)
        self.assertEqual((rc, r["changed"], r["written"]), (0, True, ["profile.yaml"]), r)
        self.assertEqual(r["diff"][0]["before"], "version: 1\nname: a\n")
        self.assertEqual(r["diff"][0]["after"], "version: 1\nname: b\n")
        self.assertEqual(self.read("profile.yaml"), b"version: 1\nname: b\n")
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".")], [], "temporary file left")

    def test_check_mode_writes_nothing(self):
        rc, r = run(dict(dir=self.dir, files={"profile.yaml": "a: 1\n"}), check_mode=True)
        self.assertEqual((rc, r["changed"], r["written"]), (0, True, ["profile.yaml"]), r)
        self.assertFalse(os.path.exists(self.dir))

    def test_mode_only(self):
        run(dict(dir=self.dir, files={"p.yaml": "a: 1\n"}))
        # A mode of its own, same content: check mode says so and leaves it, a run sets it.
        for check_mode, want in ((True, 0o644), (False, 0o600)):
            rc, r = run(dict(dir=self.dir, files={"p.yaml": "a: 1\n"}, mode="0600"), check_mode=check_mode)
            self.assertEqual((rc, r["changed"], r["written"]), (0, True, ["p.yaml"]), r)
            self.assertEqual(r["diff"][0]["after"], "mode 0600\n")
            self.assertEqual(self.mode("p.yaml"), want)
        # YAML's 0600 (an int) is the same mode.
        rc, r = run(dict(dir=self.dir, files={"p.yaml": "a: 1\n"}, mode=0o600))
        self.assertEqual((rc, r["changed"]), (0, False), r)

    def test_base64_keeps_bytes(self):
        data = b"{ \"version\": 1 }\n\xff\x00tail"  # JSON-looking, not UTF-8, a NUL
        rc, r = run(dict(dir=self.dir, encoding="base64", files={"p.yaml": b64(data)}))
        self.assertEqual(rc, 0, r)
        self.assertEqual(self.read("p.yaml"), data)
        rc, r = run(dict(dir=self.dir, encoding="base64", files={"p.yaml": b64(data)}))
        self.assertFalse(r["changed"], r)

    def test_large_file_diff_by_size(self):
        run(dict(dir=self.dir, files={"t.xml": "a" * 100}))
        rc, r = run(dict(dir=self.dir, files={"t.xml": "b" * 100}, diff_max=10))
        self.assertEqual(rc, 0, r)
        self.assertRegex(r["diff"][0]["before"], r"^\(100 bytes, sha1 [0-9a-f]{40}\)\n$")
        self.assertNotEqual(r["diff"][0]["before"], r["diff"][0]["after"])

    def test_refused(self):
        os.makedirs(os.path.dirname(self.dir))
        with open(self.dir, "w") as f:
            f.write("a file")
        for check_mode in (True, False):
            rc, r = run(dict(dir=self.dir, files={"p.yaml": "a: 1\n"}), check_mode=check_mode)
            self.assertEqual(rc, 1, r)
            self.assertEqual(r["msg"], "%s exists and is not a directory" % self.dir)
        os.unlink(self.dir)
        cases = [
            (dict(files={"../p": "x"}), "files: '../p' is not a file name"),
            (dict(files={"": "x"}), "files: '' is not a file name"),
            (dict(files={"p.yaml": {"a": True}}), "files: p.yaml: the content is a dict, not text"),
            (dict(files={"p.yaml": "not base64!"}, encoding="base64"), "files: p.yaml: not base64"),
            (dict(files={"p.yaml": "x"}, mode="u+rw"), "mode 'u+rw' is not an octal mode"),
            (dict(files={"p.yaml": "x"}, mode="17777"), "mode '17777' is not an octal mode (0 to 07777)"),
        ]
        for args, msg in cases:
            args["dir"] = self.dir
            rc, r = run(args)
            self.assertEqual(rc, 1, (args, r))
            self.assertTrue(r["msg"].startswith(msg), (msg, r["msg"]))
        self.assertFalse(os.path.exists(self.dir), "a refused input wrote something")

    def test_no_symbolic_link_followed(self):
        """F17: a profile.yaml that is a link to another file (here a stand-in for /etc/shadow) had its
        target chmod-ed (same bytes, another mode) and its lines shown in --diff. Now the host fails:
        nothing written, chmod-ed or shown through the link, and the other files not written either."""
        shadow = os.path.join(self.tmp.name, "shadow")
        secret = "root:$6$secret-hash:19000:0:99999:7:::\n"
        with open(shadow, "w") as f:
            f.write(secret)
        os.chmod(shadow, 0o640)
        os.makedirs(self.dir)
        os.symlink(shadow, os.path.join(self.dir, "profile.yaml"))
        for files, check_mode in (({"profile.yaml": secret}, False), ({"profile.yaml": "a: 1\n"}, True),
                                  ({"profile.yaml": "a: 1\n", "topology.xml": "<x/>\n"}, False)):
            rc, r = run(dict(dir=self.dir, files=files), check_mode=check_mode)
            self.assertEqual(rc, 1, r)
            self.assertIn("profile.yaml is a symbolic link: placer_config writes regular files only", r["msg"])
            self.assertNotIn("secret-hash", json.dumps([r.get("msg"), r.get("diff")]))  # the arguments hold it
            self.assertEqual(stat.S_IMODE(os.stat(shadow).st_mode), 0o640)
            with open(shadow) as f:
                self.assertEqual(f.read(), secret)
            self.assertEqual(sorted(os.listdir(self.dir)), ["profile.yaml"])
        os.unlink(os.path.join(self.dir, "profile.yaml"))
        os.mkfifo(os.path.join(self.dir, "profile.yaml"))  # a FIFO: no hang, refused
        rc, r = run(dict(dir=self.dir, files={"profile.yaml": "a: 1\n"}))
        self.assertEqual(rc, 1, r)
        self.assertIn("profile.yaml is a FIFO: placer_config writes regular files only", r["msg"])

    def test_large_file_read_bounded(self):
        """An old file of 256 MiB where the profile goes: compared by its size, shown by its size and a
        checksum read in chunks: the module stays small."""
        os.makedirs(self.dir)
        with open(os.path.join(self.dir, "profile.yaml"), "wb") as f:
            f.truncate(256 << 20)
        rc, r, peak_kib = run_module_measured("placer_config", dict(dir=self.dir, files={"profile.yaml": "a: 1\n"}),
                                              check_mode=True)
        self.assertEqual((rc, r["written"]), (0, ["profile.yaml"]), r)
        self.assertRegex(r["diff"][0]["before"], r"^\(268435456 bytes, sha1 [0-9a-f]{40}\)\n$")
        self.assertLess(peak_kib, 100 << 10, "peak memory %d MiB" % (peak_kib >> 10))


if __name__ == "__main__":
    try:
        import ansible.module_utils.basic  # noqa: F401
    except ImportError:
        print("test_placer_config: SKIP: ansible-core is not installed (sh ci/install-deps.sh all)")
        sys.exit(77)
    unittest.main(verbosity=1)
