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


def run_module_measured(name, args, check_mode=False):
    """(exit code, result, peak memory in KiB) of one run of module NAME: the largest resident size of
    the module's process and every process it ran (placer), measured in a process of its own."""
    code = ("import json, resource, sys\n"
            "sys.dont_write_bytecode = True\n"
            "sys.path.insert(0, %r)\n"
            "from module_run import run_module\n"
            "rc, r = run_module(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == '1')\n"
            "print(json.dumps([rc, r, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n" % HERE)
    p = subprocess.run([sys.executable, "-c", code, name, json.dumps(args), "1" if check_mode else "0"],
                       capture_output=True, text=True, check=True)
    return tuple(json.loads(p.stdout))


def run_role(tmp, tags, extra):
    """The completed process of ansible-playbook running the role placer.fleet.node on localhost
    (local connection, no facts) with TAGS and the extra variables EXTRA, its files under TMP."""
    with open(os.path.join(tmp, "play.yml"), "w") as f:
        f.write("- hosts: localhost\n  connection: local\n  gather_facts: false\n  roles: [placer.fleet.node]\n")
    env = dict(ENV, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_LOCAL_TEMP=os.path.join(tmp, "ansible"),
               ANSIBLE_REMOTE_TEMP=os.path.join(tmp, "ansible-remote"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_HOME=os.path.join(tmp, "ansible-home"))
    cmd = ["ansible-playbook", "-i", "localhost,", "--tags", tags, "-e",
           json.dumps(dict(extra, ansible_python_interpreter=sys.executable)), os.path.join(tmp, "play.yml")]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
