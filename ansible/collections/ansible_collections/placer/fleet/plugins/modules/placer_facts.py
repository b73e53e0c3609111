#!/usr/bin/python
# -*- coding: utf-8 -*-
# placer topo --json on the node, as facts.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_facts
short_description: The node's topology from C(placer topo --json) as facts
description:
  - Runs C(placer topo --json) (from the hwloc XML in O(topology) when given, else the live machine)
    and returns it as the fact C(placer_topology), with a short C(placer_topology_summary).
options:
  placer_bin: {description: placer executable on the node, type: str, default: placer}
  topology: {description: hwloc XML file on the node to read instead of the live machine, type: str}
  prefix: {description: unused here (accepted so every placer module takes the same options), type: str}
  state_dir: {description: unused here, type: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_facts:
    topology: /etc/placer/topology.xml
- ansible.builtin.debug:
    msg: "{{ placer_topology_summary }}"
"""

RETURN = r"""
ansible_facts:
  description: placer_topology (the whole document) and placer_topology_summary (packages, numa_nodes, cores, pus)
  returned: success
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import (
    COMMON_ARGS, PlacerCLI, PlacerError)


def main():
    module = AnsibleModule(argument_spec=dict(COMMON_ARGS), supports_check_mode=True)
    cli = PlacerCLI(module)
    try:
        _, topo = cli.json("topo")
    except PlacerError as e:
        cli.fail(e)
    totals = topo.get("totals", {})
    summary = dict(source=topo.get("source"), totals=totals,
                   numa_nodes=[dict(os_index=n.get("os_index"), cpus=n.get("cpus"))
                               for n in topo.get("numa_nodes", [])])
    module.exit_json(changed=False, ansible_facts=dict(placer_topology=topo, placer_topology_summary=summary))


if __name__ == "__main__":
    main()
