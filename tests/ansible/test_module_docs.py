#!/usr/bin/python3
# Every placer.fleet module's DOCUMENTATION, EXAMPLES and RETURN are YAML that ansible-doc can read
# (a ": " inside a plain scalar made placer_export's unreadable: `ansible-doc -t module
# placer.fleet.placer_export` failed), and every option the module's argument_spec takes is
# documented. Reads the files as ansible-doc does (the string literals, not an import). Exit 77
# (skipped) without PyYAML (ansible-core brings it).
import ast
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = os.path.join(HERE, "..", "..", "ansible", "collections", "ansible_collections", "placer", "fleet",
                       "plugins", "modules")


def literals(path):
    """The module's top-level string assignments."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


class ModuleDocs(unittest.TestCase):
    def test_every_module(self):
        names = sorted(n for n in os.listdir(MODULES) if n.endswith(".py"))
        self.assertGreaterEqual(len(names), 7)
        for name in names:
            path = os.path.join(MODULES, name)
            docs = literals(path)
            for key in ("DOCUMENTATION", "EXAMPLES", "RETURN"):
                self.assertIn(key, docs, name)
                try:
                    yaml.safe_load(docs[key])
                except yaml.YAMLError as e:
                    self.fail("%s: %s is not YAML: %s" % (name, key, e))
            doc = yaml.safe_load(docs["DOCUMENTATION"])
            self.assertEqual(doc["module"], name[:-3])
            with open(path) as f:
                source = f.read()
            # the options its argument_spec takes: NAME=dict(type=...), and module_utils' COMMON_ARGS
            spec = set(re.findall(r"\b([a-z_]+)=dict\(type=", source))
            if "COMMON_ARGS" in source:
                spec |= {"placer_bin", "topology", "prefix", "state_dir"}
            self.assertTrue(spec, name)
            self.assertEqual(sorted(spec - set(doc["options"])), [], "%s: options not documented" % name)


if __name__ == "__main__":
    try:
        import yaml
    except ImportError:
        print("PyYAML missing")
        sys.exit(77)
    unittest.main()
