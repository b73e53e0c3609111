#!/usr/bin/python
# -*- coding: utf-8 -*-
# Merge the results directories of one placer bench study run on many nodes.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_fleet_merge
short_description: Merge C(placer bench) results fetched from many nodes into one report
description:
  - "Runs where the results were fetched to (the controller, C(delegate_to: localhost))."
  - O(src) holds one directory per node (named after the node), each a C(placer bench --out) results
    directory (its C(summary.json), docs/bench.md), possibly one level down.
  - Writes O(dest)/fleet.json (per node, every cell's median and repeats; across nodes, per cell, the
    median, min and max of the nodes' medians and which node was lowest) and O(dest)/fleet.md (the same as
    tables). C(changed) when either file's content changed.
  - Fails when a node's directory has no C(summary.json), or when the nodes ran different studies.
options:
  src: {description: directory with one results directory per node, type: path, required: true}
  dest: {description: where fleet.json and fleet.md go (created), type: path, required: true}
  nodes: {description: the nodes to take (default every directory in src), type: list, elements: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_fleet_merge:
    src: results/study-1
    dest: results/study-1/fleet
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
nodes: {description: the nodes merged, returned: success, type: list}
cells: {description: across-node statistics per (variant, condition, workload), returned: success, type: list}
report: {description: path of fleet.md, returned: success, type: str}
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule


def find_summary(path):
    direct = os.path.join(path, "summary.json")
    if os.path.isfile(direct):
        return direct
    for entry in sorted(os.listdir(path)):
        candidate = os.path.join(path, entry, "summary.json")
        if os.path.isfile(candidate):
            return candidate
    return None


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def fmt(x):
    if x is None:
        return "-"
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


def key_of(cell):
    return (cell["variant"], cell["condition"], cell["workload"])


def merge(per_node):
    """Across nodes: per cell, the nodes' medians."""
    cells = {}
    order = []
    for node, summary in per_node:
        for cell in summary.get("summary", {}).get("cells", []):
            k = key_of(cell)
            if k not in cells:
                cells[k] = dict(variant=k[0], condition=k[1], workload=k[2], metric=cell.get("main_metric"),
                                nodes={})
                order.append(k)
            cells[k]["nodes"][node] = (cell.get("main") or {}).get("median")
    out = []
    for k in order:
        c = cells[k]
        vals = [v for v in c["nodes"].values() if v is not None]
        lowest = min((v, n) for n, v in c["nodes"].items() if v is not None)[1] if vals else None
        c.update(n_nodes=len(vals), median=median(vals), min=min(vals) if vals else None,
                 max=max(vals) if vals else None, lowest_node=lowest,
                 spread=(max(vals) / min(vals)) if vals and min(vals) > 0 else None)
        out.append(c)
    return out


def report_md(title, per_node, cells):
    lines = ["# placer fleet study: %s" % title, "", "%d nodes: %s" % (len(per_node), ", ".join(n for n, _ in per_node)),
             ""]
    for node, summary in per_node:
        lines += ["## %s" % node, "", "| variant | condition | workload | metric | repeats | median | min | max |",
                  "|---|---|---|---|---|---|---|---|"]
        for cell in summary.get("summary", {}).get("cells", []):
            m = cell.get("main") or {}
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                cell["variant"], cell["condition"], cell["workload"], cell.get("main_metric"),
                cell.get("repeats_done"), fmt(m.get("median")), fmt(m.get("min")), fmt(m.get("max"))))
        lines.append("")
    nodes = [n for n, _ in per_node]
    lines += ["## Across nodes (median of each node's median)", "",
              "| variant | condition | workload | metric | " + " | ".join(nodes) + " | median | min | max | max/min |",
              "|---|---|---|---|" + "---|" * len(nodes) + "---|---|---|---|"]
    for c in cells:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["variant"], c["condition"], c["workload"], c["metric"],
            " | ".join(fmt(c["nodes"].get(n)) for n in nodes), fmt(c["median"]), fmt(c["min"]), fmt(c["max"]),
            "%.2f" % c["spread"] if c["spread"] else "-"))
    return "\n".join(lines) + "\n"


def write_if_changed(path, text):
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old == text:
        return False
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)
    return True


def main():
    module = AnsibleModule(argument_spec=dict(src=dict(type="path", required=True),
                                              dest=dict(type="path", required=True),
                                              nodes=dict(type="list", elements="str")),
                           supports_check_mode=True)
    src, dest = module.params["src"], module.params["dest"]
    if not os.path.isdir(src):
        module.fail_json(msg="%s: no such directory" % src)
    dest_name = os.path.basename(os.path.normpath(dest))
    nodes = module.params["nodes"] or sorted(
        e for e in os.listdir(src) if os.path.isdir(os.path.join(src, e)) and
        os.path.normpath(os.path.join(src, e)) != os.path.normpath(dest) and e != dest_name)
    per_node = []
    shape = None
    for node in nodes:
        path = find_summary(os.path.join(src, node)) if os.path.isdir(os.path.join(src, node)) else None
        if path is None:
            module.fail_json(msg="%s: no summary.json in %s" % (node, os.path.join(src, node)))
        try:
            with open(path) as f:
                summary = json.load(f)
        except ValueError as e:
            module.fail_json(msg="%s: %s is not JSON: %s" % (node, path, e))
        this = (summary.get("title"), [v if isinstance(v, str) else v.get("name") for v in summary.get("variants", [])],
                [w.get("name") for w in summary.get("workloads", [])])
        if shape is not None and this != shape:
            module.fail_json(msg="%s ran another study (%s) than %s (%s)" % (node, this, per_node[0][0], shape))
        shape = this
        per_node.append((node, summary))
    if not per_node:
        module.fail_json(msg="no node results in %s" % src)
    cells = merge(per_node)
    doc = dict(format="placer-fleet-results", version=1, title=shape[0], nodes=nodes,
               interrupted=[n for n, s in per_node if s.get("interrupted")],
               per_node=dict((n, dict(cells=s.get("summary", {}).get("cells", []), repeats=s.get("repeats")))
                             for n, s in per_node),
               across_nodes=cells)
    changed = False
    if not module.check_mode:
        if not os.path.isdir(dest):
            os.makedirs(dest)
        changed |= write_if_changed(os.path.join(dest, "fleet.json"), json.dumps(doc, indent=2, sort_keys=True) + "\n")
        changed |= write_if_changed(os.path.join(dest, "fleet.md"), report_md(shape[0], per_node, cells))
    module.exit_json(changed=changed, nodes=nodes, cells=cells, report=os.path.join(dest, "fleet.md"))


if __name__ == "__main__":
    main()
