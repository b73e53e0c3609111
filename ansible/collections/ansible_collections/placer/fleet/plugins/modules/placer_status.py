#!/usr/bin/python
# -*- coding: utf-8 -*-
# placer status --json on the node; the host fails on drift.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_status
short_description: Verify what is in force on the node with C(placer status --json); fail the host on drift
description:
  - Compares, for every applied instance, the planned against the actual group values and every thread of
    every bound process (C(placer status --json), docs/apply.md).
  - On drift (placer exit 1) the host fails (unless O(fail_on_drift=false)) with one line per drifted
    instance; the other hosts go on.
  - O(profile), when given, must be the profile in force (its C(name:)), else the host fails too.
options:
  fail_on_drift: {description: fail the host when anything drifted, type: bool, default: true}
  require_applied: {description: fail when nothing is applied, type: bool, default: false}
  profile_name: {description: the profile name that must be in force, type: str}
  placer_bin: {description: placer executable on the node, type: str, default: placer}
  topology: {description: unused here, type: str}
  prefix: {description: unused here, type: str}
  state_dir: {description: placer state directory on the node, type: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_status:
    state_dir: /run/placer
    require_applied: true
"""

RETURN = r"""
status: {description: the placer status --json document, returned: always, type: dict}
drift: {description: anything drifted, returned: always, type: bool}
drifted: {description: "instance name: its drift lines", returned: always, type: dict}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import (
    COMMON_ARGS, EXIT_DRIFT, PlacerCLI, PlacerError)


def main():
    spec = dict(COMMON_ARGS,
                fail_on_drift=dict(type="bool", default=True),
                require_applied=dict(type="bool", default=False),
                profile_name=dict(type="str"))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    cli = PlacerCLI(module)
    try:
        rc, status = cli.json("status", ok_rcs=(0, EXIT_DRIFT))
    except PlacerError as e:
        cli.fail(e)
    drifted = dict((i["name"], i.get("drift", [])) for i in status.get("instances", []) if i.get("drift"))
    problems = status.get("problems", [])
    drift = rc == EXIT_DRIFT or bool(status.get("drift"))
    result = dict(changed=False, status=status, drift=drift, drifted=drifted, problems=problems,
                  profile=status.get("profile"), applied=bool(status.get("applied")))
    if module.params["require_applied"] and not status.get("applied"):
        module.fail_json(msg="nothing applied in %s" % status.get("state_dir"), **result)
    want = module.params["profile_name"]
    if want and status.get("applied") and status.get("profile") != want:
        module.fail_json(msg="profile %s is in force, expected %s" % (status.get("profile"), want), **result)
    if drift and module.params["fail_on_drift"]:
        lines = ["%s: %s" % (name, "; ".join(d)) for name, d in sorted(drifted.items())] + list(problems)
        module.fail_json(msg="placement drift: " + (" | ".join(lines) or "placer status exit 1"), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
