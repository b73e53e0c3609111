#!/usr/bin/python3
# The placer.fleet modules offer exactly the choices placer itself takes: every option of a module
# (placer_NAME drives `placer NAME`) whose argument_spec gives choices and which placer's command has
# as an option with a fixed set of words (--backend auto|cgroupfs|systemd, read by placer from its
# backends' table) has the same choices, in argument_spec and in DOCUMENTATION alike, plus only the
# module's own "not given" word where it has one (restart: none). A backend added to placer and not
# to placer_apply fails here. Reads the words from `placer help --bash-completion` (PLACER_BIN), the
# modules as ansible-doc does (their source). Exit 77 (skipped) without PLACER_BIN or PyYAML.
import ast
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = os.path.join(HERE, "..", "..", "ansible", "collections", "ansible_collections", "placer", "fleet",
                       "plugins", "modules")
BIN = os.environ.get("PLACER_BIN")
# A module's word for "leave the option out", which placer has no word for.
NOT_GIVEN = {("placer_apply", "restart"): {"none"}}


def placer_words():
    """{command: {option: [words]}} of every option whose value is one of fixed words."""
    script = subprocess.run([BIN, "help", "--bash-completion"], capture_output=True, text=True, check=True).stdout
    words = {}
    for cmd, opts in re.findall(r"^  ([a-z]+)\) REPLY='([^']*)' ;;$", script, re.M):
        for name, kind in re.findall(r"--([a-z-]+)=words:(\S+)", opts):
            words.setdefault(cmd, {})[name] = kind.split("|")
    return words


def module_choices(path):
    """{option: choices} of the module's argument_spec (NAME=dict(..., choices=[...]))."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) == "dict":
            for kw in node.value.keywords:
                if kw.arg == "choices":
                    out[node.arg] = [e.value for e in kw.value.elts]
    return out


def documented_choices(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DOCUMENTATION" for t in node.targets):
            doc = yaml.safe_load(node.value.value)
            return dict((k, v.get("choices")) for k, v in doc["options"].items() if v.get("choices"))
    return {}


class ModuleChoices(unittest.TestCase):
    def test_choices_are_placers(self):
        words = placer_words()
        self.assertIn("auto", words["apply"]["backend"])  # the parse itself works
        checked = 0
        for name in sorted(n[:-3] for n in os.listdir(MODULES) if n.endswith(".py")):
            path = os.path.join(MODULES, name + ".py")
            command = words.get(name[len("placer_"):], {})
            spec, documented = module_choices(path), documented_choices(path)
            for option, choices in sorted(spec.items()):
                theirs = command.get(option.replace("_", "-"))
                if theirs is None:
                    continue  # a module option placer has no word list for (state: present|absent)
                extra = NOT_GIVEN.get((name, option), set())
                self.assertEqual(sorted(set(choices) - extra), sorted(theirs),
                                 "%s: %s choices %s, placer %s takes %s" % (name, option, choices, name, theirs))
                self.assertEqual(documented.get(option), choices, "%s: %s documented otherwise" % (name, option))
                checked += 1
        self.assertGreaterEqual(checked, 2)  # placer_apply's backend and restart at least


if __name__ == "__main__":
    if not BIN:
        print("PLACER_BIN not set (ctest sets it)")
        sys.exit(77)
    try:
        import yaml
    except ImportError:
        print("PyYAML missing")
        sys.exit(77)
    unittest.main()
