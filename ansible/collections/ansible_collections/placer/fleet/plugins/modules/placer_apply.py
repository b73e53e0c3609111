#!/usr/bin/python
# -*- coding: utf-8 -*-
# placer apply --json / placer reset --json on the node, idempotent, with check and diff mode.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_apply
short_description: Put a placement profile in force on the node (C(placer apply)), or take it back (C(placer reset))
description:
  - O(state=present) runs C(placer apply --json PROFILE); C(changed) is placer's own flag, false exactly
    when everything was already in force, so a second run reports no change.
  - In check mode it runs C(placer apply --dry-run --json) and reports what would change; nothing changes.
  - In diff mode the diff is the instances in force before (C(placer status --json)) against after.
  - "O(state=absent) runs C(placer reset --json) (check mode: reports whether anything is applied)."
  - An apply that fails is rolled back by placer and fails the host with its one-line reason and exit code.
options:
  profile: {description: placement profile YAML on the node (required with state=present), type: path}
  state: {description: present (apply) or absent (reset), type: str, choices: [present, absent], default: present}
  strict: {description: an instance with no running process is an error, type: bool, default: false}
  pids: {description: "instance: pid, bound instead of the profile's matcher (--pid)", type: dict, default: {}}
  backend: {description: "--backend: auto (systemd when PID 1 is systemd), cgroupfs or systemd", type: str, choices: [auto, cgroupfs, systemd], default: auto}
  persist: {description: "systemd backend: also drop-ins that survive a daemon restart and a reboot (--persist)", type: bool, default: false}
  restart: {description: "systemd backend: rolling restarts the placed units one at a time, healthy in between (--restart rolling)", type: str, choices: [none, rolling], default: none}
  health_cmd: {description: "with restart=rolling: sh -c CMD must exit 0 before and after each restart (--health-cmd)", type: str}
  health_timeout: {description: "with restart=rolling: seconds to wait for health and for each unit (--health-timeout)", type: int}
  placer_bin: {description: placer executable on the node, type: str, default: placer}
  topology: {description: hwloc XML on the node to plan for instead of the live machine, type: str}
  prefix: {description: "top cgroup (--cgroup-prefix; default placer)", type: str}
  state_dir: {description: "placer state directory (--state-dir; default /run/placer)", type: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_apply:
    profile: /etc/placer/profile.yaml
    prefix: placer
    state_dir: /run/placer
- placer.fleet.placer_apply:
    state: absent
    state_dir: /run/placer
"""

RETURN = r"""
result: {description: the document of placer apply --json or placer reset --json (docs/apply.md), returned: success, type: dict}
groups_created: {description: groups created (check mode - would be), returned: state=present, type: list}
groups_changed: {description: groups whose values were set, returned: state=present, type: list}
pids_bound: {description: processes bound now, returned: state=present, type: list}
groups_removed: {description: groups reset removed (cgroupfs backend), returned: state=absent, type: list}
pids_restored: {description: processes reset moved back (cgroupfs backend), returned: state=absent, type: list}
units_restored: {description: units whose properties reset set back (systemd backend), returned: state=absent, type: list}
dropins_removed: {description: drop-ins of apply --persist that reset removed (systemd backend), returned: state=absent, type: list}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import (
    COMMON_ARGS, EXIT_DRIFT, PlacerCLI, PlacerError, diff_text, status_by_instance)


def in_force(cli):
    _, status = cli.json("status", ok_rcs=(0, EXIT_DRIFT))
    return status


def keep(d):
    return dict((name, dict((k, v) for k, v in vals.items()
                            if k in ("group", "cpus", "mems", "memory_bytes")))
                for name, vals in d.items())


def present(module, cli):
    args = []
    if module.check_mode:
        args.append("--dry-run")
    if module.params["strict"]:
        args.append("--strict")
    for inst, pid in sorted(module.params["pids"].items()):
        args += ["--pid", "%s=%s" % (inst, pid)]
    args += ["--backend", module.params["backend"]]
    if module.params["persist"]:
        args.append("--persist")
    if module.params["restart"] == "rolling" and not module.check_mode:
        args += ["--restart", "rolling"]
        if module.params["health_cmd"]:
            args += ["--health-cmd", module.params["health_cmd"]]
        if module.params["health_timeout"] is not None:
            args += ["--health-timeout", str(module.params["health_timeout"])]
    args.append(module.params["profile"])
    before = status_by_instance(in_force(cli)) if module._diff else None
    _, doc = cli.json("apply", args)
    result = dict(changed=bool(doc.get("changed")), result=doc, profile=doc.get("profile"),
                  groups_created=doc.get("groups_created", []), groups_changed=doc.get("groups_changed", []),
                  pids_bound=doc.get("pids_bound", []), actions=doc.get("actions", []))
    if before is not None:
        after = dict((i["name"], dict(group=i.get("group"), cpus=i.get("cpus"), mems=i.get("mems"),
                                      memory_bytes=i.get("memory_bytes")))
                     for i in doc.get("instances", []))
        result["diff"] = dict(diff_text(keep(before), after), before_header="in force", after_header="applied")
    return result


def absent(module, cli):
    if module.check_mode:
        status = in_force(cli)
        return dict(changed=bool(status.get("applied")), result=status)
    _, doc = cli.json("reset")
    own = doc.get(doc.get("backend"), {})  # what only the backend reports sits under its name
    return dict(changed=bool(doc.get("changed")), result=doc, groups_removed=own.get("groups_removed", []),
                pids_restored=own.get("pids_restored", []), units_restored=own.get("units_restored", []),
                dropins_removed=own.get("dropins_removed", []))


def main():
    spec = dict(COMMON_ARGS,
                profile=dict(type="path"),
                state=dict(type="str", choices=["present", "absent"], default="present"),
                strict=dict(type="bool", default=False),
                pids=dict(type="dict", default={}),
                backend=dict(type="str", choices=["auto", "cgroupfs", "systemd"], default="auto"),
                persist=dict(type="bool", default=False),
                restart=dict(type="str", choices=["none", "rolling"], default="none"),
                health_cmd=dict(type="str"),
                health_timeout=dict(type="int"))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True,
                           required_if=[("state", "present", ["profile"])])
    cli = PlacerCLI(module)
    try:
        result = present(module, cli) if module.params["state"] == "present" else absent(module, cli)
    except PlacerError as e:
        cli.fail(e)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
