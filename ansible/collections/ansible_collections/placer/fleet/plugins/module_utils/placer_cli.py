# -*- coding: utf-8 -*-
# Run the placer CLI on a node for the placer.fleet modules: the node's binary,
# topology (an hwloc XML, or the live machine), cgroup prefix and state
# directory, the JSON it prints, and its exit codes (README.md of placer:
# 0 ok, 1 drift, 2 bad input, 3 does not fit, 4 the system refused a change).
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

EXIT_OK = 0
EXIT_DRIFT = 1
EXIT_USAGE = 2
EXIT_INFEASIBLE = 3
EXIT_SYSTEM = 4

EXIT_NAMES = {
    EXIT_OK: "ok",
    EXIT_DRIFT: "drift",
    EXIT_USAGE: "bad usage or input",
    EXIT_INFEASIBLE: "the profile does not fit the node",
    EXIT_SYSTEM: "the system refused a change (rolled back)",
}

# The options every placer.fleet module takes (doc fragment in each module).
COMMON_ARGS = dict(
    placer_bin=dict(type="str", default="placer"),
    topology=dict(type="str", default=None),
    prefix=dict(type="str", default=None),
    state_dir=dict(type="str", default=None),
)


class PlacerError(Exception):
    def __init__(self, cmd, rc, stderr, stdout=""):
        self.cmd = cmd
        self.rc = rc
        self.stderr = stderr
        self.stdout = stdout
        line = (stderr or stdout or "").strip().splitlines()
        text = line[-1] if line else "no output"
        Exception.__init__(
            self, "%s: exit %d (%s): %s" % (" ".join(cmd), rc, EXIT_NAMES.get(rc, "?"), text)
        )


class PlacerCLI(object):
    """placer on this node, with the module's common options."""

    def __init__(self, module):
        self.module = module
        p = module.params
        self.bin = p.get("placer_bin") or "placer"
        self.topology = p.get("topology")
        self.prefix = p.get("prefix")
        self.state_dir = p.get("state_dir")
        if "/" not in self.bin:
            found = module.get_bin_path(self.bin, required=False)
            if found is None:
                module.fail_json(msg="placer executable '%s' not found on the node (PATH)" % self.bin)
            self.bin = found

    # Which options each command takes (docs of the commands).
    def _args(self, command, extra):
        cmd = [self.bin, command]
        if command in ("topo", "plan", "apply", "run", "export") and self.topology:
            cmd += ["--topology", self.topology]
        if command in ("apply", "status", "reset", "run", "stop") and self.state_dir:
            cmd += ["--state-dir", self.state_dir]
        if command == "apply" and self.prefix:
            cmd += ["--cgroup-prefix", self.prefix]
        return cmd + list(extra)

    def run(self, command, extra=(), ok_rcs=(EXIT_OK,), env=None):
        """Run a command; (rc, stdout, stderr).  Raises PlacerError on any other rc."""
        cmd = self._args(command, extra)
        environ = {}
        if self.prefix:
            environ["PLACER_CGROUP_PREFIX"] = self.prefix
        if env:
            environ.update(env)
        rc, out, err = self.module.run_command(cmd, environ_update=environ)
        if rc not in ok_rcs:
            raise PlacerError(cmd, rc, err, out)
        return rc, out, err

    def json(self, command, extra=(), ok_rcs=(EXIT_OK,)):
        """Run a command with --json; (rc, document)."""
        rc, out, err = self.run(command, ["--json"] + list(extra), ok_rcs)
        try:
            return rc, json.loads(out)
        except ValueError as e:
            raise PlacerError(self._args(command, ["--json"] + list(extra)), rc,
                              "output is not JSON (%s): %s" % (e, out[:200]))

    def fail(self, error, **extra):
        self.module.fail_json(msg=str(error), rc=error.rc, stderr=error.stderr, **extra)


def instance_summary(inst, source):
    """An instance as cpus/mems/memory, from a plan instance or a status instance's planned or actual values."""
    if source == "plan":
        return dict(cpus=inst.get("cpus"), mems=inst.get("mems"), memory_bytes=inst.get("memory_bytes"),
                    cpu_weight=inst.get("cpu_weight"))
    values = inst.get(source) or {}
    if source == "actual" and not values.get("exists", True):
        return None
    return dict(cpus=values.get("cpus"), mems=values.get("mems"), memory_bytes=values.get("memory_bytes"),
                cpu_weight=values.get("cpu_weight"))


def status_by_instance(status):
    """{instance name: actual values} from a `placer status --json` document (empty when nothing is applied)."""
    out = {}
    if not status or not status.get("applied"):
        return out
    for inst in status.get("instances", []):
        out[inst["name"]] = dict(instance_summary(inst, "actual") or {}, group=inst.get("group"),
                                 ok=inst.get("ok"), drift=inst.get("drift", []))
    return out


def plan_by_instance(plan, prefix):
    """{instance name: planned values} from a `placer plan --json` document."""
    out = {}
    for inst in plan.get("instances", []):
        s = instance_summary(inst, "plan")
        s["group"] = "%s/%s/%s" % (prefix or "placer", inst.get("role"), inst.get("name"))
        out[inst["name"]] = s
    return out


def diff_text(before, after):
    """The before/after dicts as YAML-ish text lines for Ansible's --diff output."""
    def render(d):
        lines = []
        for name in sorted(d):
            v = d[name]
            lines.append("%s:" % name)
            for key in ("group", "cpus", "mems", "memory_bytes", "cpu_weight"):
                if key in v:
                    lines.append("  %s: %s" % (key, v[key]))
        return "\n".join(lines) + ("\n" if lines else "")
    return dict(before=render(before), after=render(after))
