#!/usr/bin/python3
# placer.fleet.placer_export run as Ansible runs it on a node (the module file with its arguments in
# a JSON file) with the real placer (PLACER_BIN) on a fixture topology, into a temporary directory:
# one subdirectory per format holding what `placer export --out` writes, changed only when a file
# differs, the files of an earlier export placer no longer writes removed and nothing else (a tree
# standing in for /etc: ceph.conf and the keyrings kept), no symbolic link followed, files read
# bounded (a 256 MiB file there: the module stays small, in check mode too), check mode, --map
# through `maps` (a value with a newline refused), a format the profile cannot express failing
# with placer's line and writing nothing; and the role placer.fleet.node with
# placer_export_formats, run by ansible-playbook on localhost (tags plan, export; no root, nothing
# outside the temporary directory). Exit 77 (skipped) without ansible-core or PLACER_BIN.
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from module_run import run_module, run_module_measured, run_role  # noqa: E402

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
        self.assertEqual(sorted(r["written"]), sorted(f for f in files if "/.placer-export." not in f))
        self.assertIn("systemd/.placer-export.systemd", files)  # what placer wrote there, for the next run
        # byte for byte what `placer export` prints
        self.assertEqual(files["nova/nova.conf"], self.placer("--format", "nova", PROFILE).stdout)
        self.assertTrue(any("vm.0: no systemd service known" in n for n in r["notes"]), r["notes"])
        rc, r = run(args)
        self.assertEqual((rc, r["changed"], r["written"], r["removed"]), (0, False, [], []), r)

    def test_stale_files_go_and_check_mode_writes_nothing(self):
        # an earlier export with osd.7 in a unit of its own (a map), then one without: that unit is
        # stale; a file of someone else's beside it is not, whatever it looks like
        maps = {"systemd": {"osd.7": "other@7.service"}}
        self.assertEqual(run(dict(profile=PROFILE, formats=["systemd"], dest=self.dest, maps=maps))[0], 0)
        top = os.path.join(self.dest, "systemd")
        stale = os.path.join(top, "other@7.service.d", "50-placer.conf")
        self.assertTrue(os.path.exists(stale))
        theirs = os.path.join(top, "ceph-osd@99.service.d", "50-placer.conf")
        os.makedirs(os.path.dirname(theirs))
        with open(theirs, "w") as f:
            f.write("[Service]\n")
        with open(os.path.join(top, "ceph-osd@0.service.d", "50-placer.conf"), "w") as f:
            f.write("edited\n")
        args = dict(profile=PROFILE, formats=["systemd"], dest=self.dest)
        before = tree(self.dest)
        rc, r = run(args, check_mode=True)
        self.assertEqual((rc, r["changed"]), (0, True), r)
        self.assertEqual(r["written"], ["systemd/ceph-osd@0.service.d/50-placer.conf",
                                        "systemd/ceph-osd@7.service.d/50-placer.conf"])
        self.assertEqual(r["removed"], ["systemd/other@7.service.d/50-placer.conf"])
        self.assertEqual(tree(self.dest), before, "check mode wrote something")
        diffs = dict((d["before_header"], d) for d in r["diff"])
        self.assertEqual(diffs[os.path.join(top, "ceph-osd@0.service.d", "50-placer.conf")]["before"], "edited\n")
        self.assertIn("AllowedCPUs=", diffs[os.path.join(top, "ceph-osd@0.service.d", "50-placer.conf")]["after"])
        rc, r = run(args)
        self.assertEqual((rc, r["changed"], r["removed"]), (0, True, ["systemd/other@7.service.d/50-placer.conf"]), r)
        self.assertFalse(os.path.exists(os.path.dirname(stale)))
        self.assertNotIn(b"edited", b"".join(tree(self.dest).values()))
        with open(theirs) as f:
            self.assertEqual(f.read(), "[Service]\n")
        rc, r = run(args)
        self.assertEqual((rc, r["changed"]), (0, False), r)

    def test_dest_etc_keeps_what_placer_did_not_write(self):
        """F5: dest /etc with formats ceph and tuned deleted ceph.conf, the keyrings, the rest of
        /etc/tuned. Here a tree stands in for /etc."""
        etc = os.path.join(self.tmp.name, "etc")
        decoys = {"ceph/ceph.conf": b"[global]\nfsid = 1\n", "ceph/ceph.client.admin.keyring": b"[client.admin]\n",
                  "ceph/rbdmap": b"# rbd\n", "tuned/active_profile": b"virtual-guest\n",
                  "tuned/cpu-partitioning-variables.conf.orig": b"isolated_cores=1\n",
                  "tuned/virtual-guest/tuned.conf": b"[main]\n"}
        for rel, data in decoys.items():
            os.makedirs(os.path.dirname(os.path.join(etc, rel)), exist_ok=True)
            with open(os.path.join(etc, rel), "wb") as f:
                f.write(data)
        args = dict(profile=PROFILE, formats=["ceph", "tuned"], dest=etc)
        # What hci-nvme's 8 OSDs make: the ceph script and a cephadm spec per OSD group; tuned's
        # child profile and a CPUAffinity drop-in per isolated OSD.
        written = (["ceph/ceph-config.sh"] + ["ceph/cephadm-osd.%d.yaml" % i for i in range(8)] +
                   ["tuned/ceph-osd@%d.service.d/51-placer-tuned.conf" % i for i in range(8)] +
                   ["tuned/placer-hci-nvme/tuned.conf"])
        for check_mode in (True, False):
            rc, r = run(args, check_mode=check_mode)
            self.assertEqual(rc, 0, r)
            self.assertEqual(r["written"], written)
            self.assertEqual(r["removed"], [])
        files = tree(etc)
        for rel, data in decoys.items():
            self.assertEqual(files.get(rel), data, rel)
        self.assertEqual(sorted(set(files) - set(decoys)),
                         sorted(written + ["ceph/.placer-export.ceph", "tuned/.placer-export.tuned"]))

    def test_no_symbolic_link_followed(self):
        """A symbolic link for DEST/FORMAT, or for a unit's directory in it: the host fails, nothing
        is written through it, nothing there removed."""
        elsewhere = os.path.join(self.tmp.name, "elsewhere")
        os.makedirs(elsewhere)
        with open(os.path.join(elsewhere, "precious"), "w") as f:
            f.write("mine\n")
        os.makedirs(self.dest)
        os.symlink(elsewhere, os.path.join(self.dest, "nova"))
        rc, r = run(dict(profile=PROFILE, formats=["nova"], dest=self.dest))
        self.assertNotEqual(rc, 0)
        self.assertIn("nova is a symbolic link, not a directory placer_export writes into", r["msg"])
        self.assertEqual(sorted(os.listdir(elsewhere)), ["precious"])
        os.makedirs(os.path.join(self.dest, "systemd"))
        os.symlink(elsewhere, os.path.join(self.dest, "systemd", "ceph-osd@0.service.d"))
        for check_mode in (True, False):
            rc, r = run(dict(profile=PROFILE, formats=["systemd"], dest=self.dest), check_mode=check_mode)
            self.assertNotEqual(rc, 0)
            self.assertIn("exit 2", r["msg"])
            self.assertIn("ceph-osd@0.service.d is a symbolic link (placer writes through none)", r["msg"])
        self.assertEqual(sorted(os.listdir(elsewhere)), ["precious"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.dest, "systemd"))), ["ceph-osd@0.service.d"])

    def test_reads_bounded(self):
        """A 256 MiB file where a unit goes and another beside it: the module reads neither whole
        (it read every file there whole: 638 MB for a 600 MB one), in check mode with --diff too."""
        top = os.path.join(self.dest, "nova")
        os.makedirs(top)
        for name in ("nova.conf", "big.img"):
            with open(os.path.join(top, name), "wb") as f:
                f.truncate(256 << 20)
        for check_mode in (True, False):
            rc, r, peak_kib = run_module_measured("placer_export", dict(profile=PROFILE, formats=["nova"], dest=self.dest,
                                                                     placer_bin=BIN, topology=FIXTURE), check_mode)
            self.assertEqual((rc, r["written"]), (0, ["nova/nova.conf"]), r)
            self.assertLess(peak_kib, 100 << 10, "peak memory %d MiB" % (peak_kib >> 10))
            if check_mode:
                self.assertRegex(r["diff"][0]["before"], r"^\(268435456 bytes, sha1 [0-9a-f]{40}\)")
                self.assertEqual(os.path.getsize(os.path.join(top, "nova.conf")), 256 << 20)
        self.assertEqual(os.path.getsize(os.path.join(top, "big.img")), 256 << 20)
        self.assertEqual(tree(top)["nova.conf"], self.placer("--format", "nova", PROFILE).stdout)

    def test_map_values_cannot_add_mappings(self):
        """F19: a value with a newline added a mapping of its own."""
        maps = {"systemd": {"osd.0": "a.service\nosd.1=evil.service"}}
        rc, r = run(dict(profile=PROFILE, formats=["systemd"], dest=self.dest, maps=maps))
        self.assertNotEqual(rc, 0)
        self.assertIn("has a control character (a newline would start another mapping)", r["msg"])
        self.assertFalse(os.path.exists(self.dest))
        for bad, says in (({"osd.0=x": "a.service"}, "'=' or a leading '#'"), ({"osd.0": " a.service"}, "blanks"),
                          ({"osd.0": ""}, "empty")):
            rc, r = run(dict(profile=PROFILE, formats=["systemd"], dest=self.dest, maps={"systemd": bad}))
            self.assertNotEqual(rc, 0)
            self.assertIn(says, r["msg"])
        self.assertFalse(os.path.exists(self.dest))

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
            extra = dict(placer_install="none", placer_bin=BIN, placer_profile=PROFILE,
                         placer_topology_xml=FIXTURE, placer_conf_dir=conf,
                         placer_export_formats=["libvirt", "kubelet"])
            p = run_role(tmp, "export", extra)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            files = tree(os.path.join(conf, "export"))
            self.assertEqual(sorted(files), ["kubelet/.placer-export.kubelet", "kubelet/kubelet-config.yaml",
                                             "libvirt/.placer-export.libvirt", "libvirt/vm.0.xml", "libvirt/vm.1.xml",
                                             "libvirt/vm.2.xml"])
            self.assertIn(b"<vcpu placement='static' cpuset='58-63'>2</vcpu>", files["libvirt/vm.0.xml"])
            self.assertTrue(os.path.exists(os.path.join(conf, "profile.yaml")))
            # again: nothing changes
            p = run_role(tmp, "export", extra)
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
