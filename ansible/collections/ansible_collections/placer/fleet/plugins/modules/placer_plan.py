#!/usr/bin/python
# -*- coding: utf-8 -*-
# placer plan --json on the node; with --diff, what would change against placer status --json.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_plan
short_description: Plan a placement profile for the node with C(placer plan --json)
description:
  - Returns the plan (every instance's cpus, mems, memory limit, CPU weight) as C(plan); changes nothing.
  - In diff mode (C(--diff)) also compares the plan with what is in force now (C(placer status --json)
    in O(state_dir)) and returns it as the task's diff; C(would_change) says whether an apply would
    change anything (a different profile, values, or drift). In check mode C(changed) is C(would_change)
    (Ansible prints a task's diff only when it is changed); otherwise it is always false.
  - A profile that does not fit the node fails the host with placer's one-line reason (exit 3).
options:
  profile: {description: placement profile YAML on the node, type: path, required: true}
  placer_bin: {description: placer executable on the node, type: str, default: placer}
  topology: {description: hwloc XML on the node to plan for instead of the live machine, type: str}
  prefix: {description: cgroup prefix the groups will be under (for the diff), type: str}
  state_dir: {description: placer state directory on the node (for the diff), type: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_plan:
    profile: /etc/placer/profile.yaml
  register: plan
"""

RETURN = r"""
plan: {description: the plan document (docs/profiles.md), returned: success, type: dict}
instances: {description: "instance name: group, cpus, mems, memory_bytes, cpu_weight", returned: success, type: dict}
would_change: {description: an apply would change something (only computed in diff mode), returned: diff mode, type: bool}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import (
    COMMON_ARGS, EXIT_DRIFT, PlacerCLI, PlacerError, diff_text, plan_by_instance, status_by_instance)


def compare(planned, actual):
    """before/after restricted to what the plan sets; True when they differ."""
    before, after, differ = {}, {}, set(planned) != set(actual)
    for name, p in planned.items():
        a = actual.get(name)
        after[name] = dict((k, v) for k, v in p.items() if v is not None)
        if a is None:
            continue
        before[name] = dict((k, a.get(k)) for k in after[name])
        if before[name] != after[name] or a.get("drift"):
            differ = True
    for name, a in actual.items():
        if name not in planned:
            before[name] = dict((k, v) for k, v in a.items() if k in ("group", "cpus", "mems", "memory_bytes"))
    return before, after, differ


def main():
    spec = dict(COMMON_ARGS, profile=dict(type="path", required=True))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    cli = PlacerCLI(module)
    try:
        _, plan = cli.json("plan", [module.params["profile"]])
    except PlacerError as e:
        cli.fail(e)
    planned = plan_by_instance(plan, module.params["prefix"])
    result = dict(changed=False, plan=plan, instances=planned, profile=plan.get("profile"))
    if module._diff:
        try:
            _, status = cli.json("status", ok_rcs=(0, EXIT_DRIFT))
        except PlacerError as e:
            cli.fail(e)
        before, after, differ = compare(planned, status_by_instance(status))
        if status.get("applied") and status.get("profile") != plan.get("profile"):
            differ = True
        result["would_change"] = differ
        # In check mode "changed" means "would change" (and Ansible shows a diff only then).
        result["changed"] = differ and module.check_mode
        result["diff"] = dict(diff_text(before, after),
                              before_header="in force (%s)" % (status.get("profile") or "nothing applied"),
                              after_header="plan (%s)" % plan.get("profile"))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
