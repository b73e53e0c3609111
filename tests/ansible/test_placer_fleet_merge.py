#!/usr/bin/python3
# placer.fleet.placer_fleet_merge run as Ansible runs it on the controller (the module file with its
# arguments in a JSON file), on results directories made from tests/golden/bench/ab.json in a
# temporary directory: the merge of two nodes and a second run that changes nothing, and what nodes
# can send back (issue #35 F16): malformed summaries named one by one (they crashed with
# tracebacks), NaN and 1e999 (NaN went into fleet.json), a node name leaving src ("../secret" was
# read), symbolic links for a node, its summary.json, fleet.json or fleet.json.tmp (written
# through), and summaries too large or too costly to parse (150 MB took 1.7 GB): the module stays
# under 100 MiB. Exit 77 (skipped) without ansible-core.
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from module_run import run_module, run_module_measured  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "bench", "ab.json")


def run(args, check_mode=False):
    return run_module("placer_fleet_merge", args, check_mode)


class FleetMerge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, "results")
        self.dest = os.path.join(self.src, "fleet")
        with open(GOLDEN) as f:
            self.summary = json.load(f)
        for node in ("n1", "n2"):
            self.node(node)

    def tearDown(self):
        self.tmp.cleanup()

    def node(self, name, mutate=None, text=None, sub=""):
        d = os.path.join(self.src, name, sub)
        os.makedirs(d, exist_ok=True)
        s = json.loads(json.dumps(self.summary))
        if mutate:
            mutate(s)
        with open(os.path.join(d, "summary.json"), "w") as f:
            f.write(text if text is not None else json.dumps(s))

    def decoy(self, rel, text="precious\n"):
        path = os.path.join(self.tmp.name, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def read(self, path):
        with open(path) as f:
            return f.read()

    def test_merges_then_changes_nothing(self):
        self.node("n3", sub="study-1")  # one level down, as an unpacked archive may be
        rc, r = run(dict(src=self.src, dest=self.dest), check_mode=True)
        self.assertEqual((rc, r["changed"]), (0, True), r)
        self.assertFalse(os.path.exists(self.dest))
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual((rc, r["changed"], r["nodes"]), (0, True, ["n1", "n2", "n3"]), r)
        doc = json.loads(self.read(os.path.join(self.dest, "fleet.json")))
        self.assertEqual(sorted(doc["per_node"]), ["n1", "n2", "n3"])
        cell = doc["across_nodes"][0]
        want = self.summary["summary"]["cells"][0]["main"]["median"]
        self.assertEqual((cell["n_nodes"], cell["median"], cell["spread"]), (3, want, 1.0))
        self.assertIn("## n3", self.read(os.path.join(self.dest, "fleet.md")))
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual((rc, r["changed"]), (0, False), r)
        rc, r = run(dict(src=self.src, dest=self.dest), check_mode=True)
        self.assertEqual((rc, r["changed"]), (0, False), r)

    def test_bad_nodes_named_one_by_one(self):
        """Every node that cannot be merged is named with why, in one message; no traceback, nothing
        written."""
        def cells(value):
            return lambda s: s["summary"].__setitem__("cells", value)

        def median(value):
            return lambda s: s["summary"]["cells"][0]["main"].__setitem__("median", value)

        self.node("b1", text="{ not json")
        self.node("b2", cells("x"))
        self.node("b3", cells([7]))
        self.node("b4", text=json.dumps(self.summary).replace('"median": 2388.0', '"median": NaN', 1))
        self.node("b5", text=json.dumps(self.summary).replace('"median": 2388.0', '"median": 1e999', 1))
        self.node("b6", median("fast"))
        self.node("b7", lambda s: s.update(format="fio"))
        self.node("b8", lambda s: s.__setitem__("variants", ["pinned\x1b[2J", "x"]))
        self.node("b9", text="[" * 100000)
        os.makedirs(os.path.join(self.src, "b10"))
        self.node("b11", text="[]")
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual(rc, 1, r)
        self.assertTrue(r["msg"].startswith("11 of 13 nodes' results cannot be merged: b1: "), r["msg"])
        bad = r["bad_nodes"]
        says = {"b1": "is not JSON", "b2": "summary.cells: expected an array",
                "b3": "summary.cells[0]: expected an object", "b4": "is not JSON: NaN is not a number JSON has",
                "b5": "is not JSON: 1e999 is out of range", "b6": "summary.cells[0].main.median: expected a number, "
                "got 'fast'", "b7": "not placer's bench results (format 'fio', version 1)",
                "b8": "variants[0]: expected a name, got 'pinned\\x1b[2J'", "b9": "is not JSON",
                "b10": "no summary.json in", "b11": "expected a JSON object"}
        self.assertEqual(sorted(bad), sorted(says))
        for node, text in says.items():
            self.assertIn(text, bad[node], node)
            self.assertIn(node + ": ", r["msg"])
        self.assertFalse(os.path.exists(self.dest))

    def test_node_names_and_links(self):
        secret = self.decoy("secret/summary.json", json.dumps(self.summary))
        for nodes in (["n1", "../secret"], ["n1", "/etc"], ["n1", ".hidden"], ["n1", "n1"]):
            rc, r = run(dict(src=self.src, dest=self.dest, nodes=nodes))
            self.assertEqual(rc, 1, (nodes, r))
            self.assertIn("nodes: ", r["msg"])
        # a node's directory, a directory one level down and summary.json: links are not followed
        os.symlink(os.path.dirname(secret), os.path.join(self.src, "n3"))
        os.makedirs(os.path.join(self.src, "n4"))
        os.symlink(os.path.dirname(secret), os.path.join(self.src, "n4", "study"))
        os.makedirs(os.path.join(self.src, "n5"))
        os.symlink(secret, os.path.join(self.src, "n5", "summary.json"))
        rc, r = run(dict(src=self.src, dest=self.dest, nodes=["n1", "n3", "n4", "n5"]))
        self.assertEqual(rc, 1, r)
        self.assertIn("n3 is a symbolic link, not the node's results directory", r["bad_nodes"]["n3"])
        self.assertIn("no summary.json in", r["bad_nodes"]["n4"])
        self.assertIn("summary.json is a symbolic link, not a results file", r["bad_nodes"]["n5"])
        # without nodes, src's own directories only (n3, a link, is not one)
        shutil.rmtree(os.path.join(self.src, "n4"))
        shutil.rmtree(os.path.join(self.src, "n5"))
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual((rc, r["nodes"]), (0, ["n1", "n2"]), r)

    def test_outputs_not_written_through_links(self):
        decoy = self.decoy("decoy.txt")
        os.makedirs(self.dest)
        os.symlink(decoy, os.path.join(self.dest, "fleet.json.tmp"))
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual(rc, 0, r)
        self.assertEqual(self.read(decoy), "precious\n")
        self.assertTrue(os.path.islink(os.path.join(self.dest, "fleet.json.tmp")))
        os.unlink(os.path.join(self.dest, "fleet.md"))
        os.symlink(decoy, os.path.join(self.dest, "fleet.md"))
        for check_mode in (True, False):
            rc, r = run(dict(src=self.src, dest=self.dest), check_mode=check_mode)
            self.assertEqual(rc, 1, r)
            self.assertIn("fleet.md is a symbolic link: not written", r["msg"])
        self.assertEqual(self.read(decoy), "precious\n")

    def test_no_nan_in_fleet_json(self):
        """Numbers near the largest float: their median and spread stay finite or are left out."""
        self.node("n2", lambda s: s["summary"]["cells"][0]["main"].update(median=1.7e308))
        self.node("n1", lambda s: s["summary"]["cells"][0]["main"].update(median=1.6e308))
        rc, r = run(dict(src=self.src, dest=self.dest))
        self.assertEqual(rc, 0, r)
        text = self.read(os.path.join(self.dest, "fleet.json"))
        self.assertNotIn("NaN", text)
        self.assertNotIn("Infinity", text)
        cell = json.loads(text)["across_nodes"][0]
        self.assertTrue(math.isfinite(cell["median"]), cell)

    def test_bounded(self):
        """A summary over placer's 32 MiB, and one under it that would take gigabytes to parse: each
        refused by its size or its estimated cost, before it is parsed."""
        self.node("big", text="{}")
        with open(os.path.join(self.src, "big", "summary.json"), "ab") as f:
            f.truncate(150 << 20)
        self.node("costly", text="[" + "[]," * (8 << 20) + "[]]")
        rc, r, peak_kib = run_module_measured("placer_fleet_merge", dict(src=self.src, dest=self.dest))
        self.assertEqual(rc, 1, r)
        self.assertIn("157286400 bytes, more than the 32 MiB placer writes", r["bad_nodes"]["big"])
        self.assertRegex(r["bad_nodes"]["costly"], r"its 25165828 bytes would take about \d+ MiB to read "
                                                   r"\(at most 256 MiB\)")
        self.assertLess(peak_kib, 100 << 10, "peak memory %d MiB" % (peak_kib >> 10))


if __name__ == "__main__":
    try:
        import ansible.module_utils.basic  # noqa: F401
    except ImportError:
        print("ansible-core missing (sh ci/install-deps.sh all)")
        sys.exit(77)
    unittest.main()
