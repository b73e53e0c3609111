# Run a placer.fleet module as Ansible runs it on a node: the module file with its arguments in a
# JSON file, its module_utils found on PYTHONPATH as Ansible ships them. Shared by tests/ansible/.
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTIONS = os.path.join(HERE, "..", "..", "ansible", "collections")
MODULES = os.path.join(COLLECTIONS, "ansible_collections", "placer", "fleet", "plugins", "modules")
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [COLLECTIONS, os.environ.get("PYTHONPATH")])))


def run_module(name, args, check_mode=False):
    """(exit code, result) of one run of module NAME (placer_config) with ARGS, in --diff mode."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        a = dict(args, _ansible_check_mode=check_mode, _ansible_diff=True)
        json.dump({"ANSIBLE_MODULE_ARGS": a}, f)
    try:
        p = subprocess.run([sys.executable, os.path.join(MODULES, name + ".py"), f.name], capture_output=True,
                           text=True, env=ENV)
    finally:
        os.unlink(f.name)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        raise AssertionError("no JSON from the module: %r %r" % (p.stdout, p.stderr))
