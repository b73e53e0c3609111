#!/usr/bin/python3
# placer.fleet.placer_export run as Ansible runs it on a node (the module file with its arguments in
# a JSON file) with the real placer (PLACER_BIN) on a fixture topology, into a temporary directory:
# one subdirectory per format holding what `placer export --out` writes, changed only when a file
# differs, stale files removed, check mode, --map through `maps`, a format the profile cannot
# express failing with placer's line and writing nothing; and the role placer.fleet.node with
# placer_export_formats, run by ansible-playbook on localhost (tags plan, export; no root, nothing
# outside the temporary directory). Exit 77 (skipped) without ansible-core or PLACER_BIN.
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from module_run import COLLECTIONS, ENV, run_module  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..")
BIN = os.environ.get("PLACER_BIN")
FIXTURE = os.path.join(TESTS, "fixtures", "crafted-hci-2s16c-8nvme.xml")
PROFILE = os.path.join(TESTS, "..", "profiles", "hci-nvme.yaml")


def run(args, check_mode=False):
    """(exit code, result) of one module run with the real placer on the fixture."""
    return run_module("placer_export", dict(args, placer_bin=BIN, topology=FIXTURE), check_mode)


def tree(top):
    out = {}
    for root, _, names in os.walk(top):
        for n in names:
            path = os.path.join(root, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, top)] = f.read()
    return out


class PlacerExport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dest = os.path.join(self.tmp.name, "export")

    def tearDown(self):
        self.tmp.cleanup()

    def placer(self, *args):
        return subprocess.run([BIN, "export", "--topology", FIXTURE] + list(args), capture_output=True)

    def test_writes_what_placer_writes_then_nothing(self):
        args = dict(profile=PROFILE, formats=["nova", "systemd"], dest=self.dest)
        rc, r = run(args)
        self.assertEqual(rc, 0, r)
        self.assertTrue(r["changed"])
        files = tree(self.dest)
        self.assertIn("nova/nova.conf", files)
        self.assertIn("systemd/ceph-osd@0.service.d/50-placer.conf", files)
        self.assertEqual(sorted(r["written"]), sorted(files))
        # byte for byte what `placer export` prints
        self.assertEqual(files["nova/nova.conf"], self.placer("--format", "nova", PROFILE).stdout)
        self.assertTrue(any("vm.0: no systemd service known" in n for n in r["notes"]), r["notes"])
        rc, r = run(args)
        self.assertEqual((rc, r["changed"], r["written"], r["removed"]), (0, False, [], []), r)

    def test_stale_files_go_and_check_mode_writes_nothing(self):
        args = dict(profile=PROFILE, formats=["systemd"], dest=self.dest)
        self.assertEqual(run(args)[0], 0)
        stale = os.path.join(self.dest, "systemd", "ceph-osd@99.service.d", "50-placer.conf")
        os.makedirs(os.path.dirname(stale))
        with open(stale, "w") as f:
            f.write("[Service]\n")
        with open(os.path.join(self.dest, "systemd", "ceph-osd@0.service.d", "50-placer.conf"), "w") as f:
            f.write("edited\n")
        before = tree(self.dest)
        rc, r = run(args, check_mode=True)
        self.assertEqual((rc, r["changed"]), (0, True), r)
        self.assertEqual(r["written"], ["systemd/ceph-osd@0.service.d/50-placer.conf"])
        self.assertEqual(r["removed"], ["systemd/ceph-osd@99.service.d/50-placer.conf"])
        self.assertEqual(tree(self.dest), before, "check mode wrote something")
        rc, r = run(args)
        self.assertEqual((rc, r["changed"]), (0, True), r)
        self.assertFalse(os.path.exists(os.path.dirname(stale)))
        self.assertNotIn(b"edited", b"".join(tree(self.dest).values()))

    def test_maps_and_refusals(self):
        # hci-nvme's guests have no VMIDs: proxmox fails the host with placer's line, nothing written
        rc, r = run(dict(profile=PROFILE, formats=["nova", "proxmox"], dest=self.dest))
        self.assertNotEqual(rc, 0)
        self.assertTrue(r.get("failed"))
        self.assertIn("exit 2", r["msg"])
        self.assertIn("vm.0 has no Proxmox VMID", r["msg"])
        self.assertFalse(os.path.exists(self.dest))
        # with maps, the VMIDs come from the variables
        maps = {"proxmox": {"vm.0": 101, "vm.1": 102, "vm.2": 103}}
        rc, r = run(dict(profile=PROFILE, formats=["proxmox"], dest=self.dest, maps=maps))
        self.assertEqual(rc, 0, r)
        text = tree(self.dest)["proxmox/proxmox.sh"].decode()
        self.assertIn("qm set 101 --affinity 58-63 ", text)
        self.assertIn("qm set 103 --affinity 58-63 ", text)


class Role(unittest.TestCase):
    """The role with placer_export_formats, as ansible-playbook runs it (local connection)."""

    def test_role_writes_formats_next_to_the_profile(self):
        playbook_bin = subprocess.run(["sh", "-c", "command -v ansible-playbook"], capture_output=True, text=True)
        if playbook_bin.returncode != 0:
            self.skipTest("no ansible-playbook")
        with tempfile.TemporaryDirectory() as tmp:
            conf = os.path.join(tmp, "conf")
            with open(os.path.join(tmp, "play.yml"), "w") as f:
                f.write("- hosts: localhost\n  connection: local\n  gather_facts: false\n"
                        "  roles: [placer.fleet.node]\n")
            extra = dict(placer_install="none", placer_bin=BIN, placer_profile=PROFILE,
                         placer_topology_xml=FIXTURE, placer_conf_dir=conf,
                         placer_export_formats=["libvirt", "kubelet"],
                         ansible_python_interpreter=sys.executable)
            env = dict(ENV, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_LOCAL_TEMP=os.path.join(tmp, "ansible"),
                       ANSIBLE_REMOTE_TEMP=os.path.join(tmp, "ansible-remote"), ANSIBLE_NOCOLOR="1",
                       ANSIBLE_HOME=os.path.join(tmp, "ansible-home"))
            cmd = ["ansible-playbook", "-i", "localhost,", "--tags", "export", "-e", json.dumps(extra),
                   os.path.join(tmp, "play.yml")]
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            files = tree(os.path.join(conf, "export"))
            self.assertEqual(sorted(files), ["kubelet/kubelet-config.yaml", "libvirt/vm.0.xml", "libvirt/vm.1.xml",
                                             "libvirt/vm.2.xml"])
            self.assertIn(b"<vcpu placement='static' cpuset='58-63'>2</vcpu>", files["libvirt/vm.0.xml"])
            self.assertTrue(os.path.exists(os.path.join(conf, "profile.yaml")))
            # again: nothing changes
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"localhost\s*: ok=\d+\s+changed=0 ")


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
