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
  - Results fetched from nodes are data, never trusted further than checked. A node's name is one
    directory name (no C(/), not C(.) or C(..), no leading C(.), no control character); its
    directory, a directory one level down and C(summary.json) are taken only when they are what they
    seem (no symbolic link is followed); C(summary.json) must be a regular file of at most 32 MiB that
    would take at most 256 MiB to read (estimated before it is parsed, from its brackets and
    separators), JSON without C(NaN) or C(Infinity), and of placer's shape (C(format),
    C(version), the cells' names and numbers). Every node that fails a check is named with why, in
    one message (and RV(bad_nodes)); nothing is written then.
  - fleet.json and fleet.md are written by a rename of a new file in O(dest) (never through a
    symbolic link, and one there fails the task), only when their bytes differ; in check mode
    nothing is written and C(changed) says whether it would be.
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
bad_nodes: {description: "per node whose results could not be merged, why (the task fails)", returned: failure, type: dict}
cells: {description: across-node statistics per (variant, condition, workload), returned: success, type: list}
report: {description: path of fleet.md, returned: success, type: str}
"""

import json
import math
import os
import re
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native
from ansible_collections.placer.fleet.plugins.module_utils.placer_files import (kind_of, lstat_or_none, open_regular,
                                                                              read_head, same_bytes, write_atomically)

# placer's own limit for a summary.json (placer report, placer compare)
MAX_BYTES = 32 << 20
# what json.loads may take for one node's summary, estimated from the text before parsing it: a dict
# costs Python about 232 bytes, a list 72, each value and key 56, plus the text twice (measured:
# the estimate is 1.2x to 3.9x tracemalloc's peak for every shape, 2-2.7x for placer's summaries)
MAX_COST = 256 << 20
NODE_NAME = re.compile(r"^[^/.\x00-\x1f\x7f][^/\x00-\x1f\x7f]{0,254}$")


class Bad(Exception):
    """A node's results that cannot be merged, and why."""


def parse_cost(text):
    return (232 * text.count(b"{") + 72 * text.count(b"[") + 56 * (text.count(b",") + text.count(b":")) +
            2 * len(text))


def no_constant(name):
    raise ValueError("%s is not a number JSON has" % name)


def finite(text):
    x = float(text)
    if math.isinf(x):
        raise ValueError("%s is out of range" % text)
    return x


def real_dir(path):
    st = lstat_or_none(path)
    return st is not None and stat.S_ISDIR(st.st_mode)


def find_summary(path):
    """NODE/summary.json, or NODE/X/summary.json (the first X, sorted): a regular file reached through
    no symbolic link; None when none is there."""
    for rel in ["summary.json"] + [os.path.join(e, "summary.json") for e in sorted(os.listdir(path))
                                   if not e.startswith(".") and real_dir(os.path.join(path, e))]:
        st = lstat_or_none(os.path.join(path, rel))
        if st is None:
            continue
        if kind_of(st.st_mode):
            raise Bad("%s is %s, not a results file (no link is followed)" % (os.path.join(path, rel),
                                                                               kind_of(st.st_mode)))
        return os.path.join(path, rel)
    return None


def read_summary(path):
    """The summary, read bounded, or Bad."""
    try:
        fd, st = open_regular(path)
    except OSError as e:
        raise Bad("%s: %s" % (path, to_native(e.strerror or e)))
    try:
        if st.st_size > MAX_BYTES:
            raise Bad("%s: %d bytes, more than the %d MiB placer writes" % (path, st.st_size, MAX_BYTES >> 20))
        text = read_head(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    cost = parse_cost(text)
    if cost > MAX_COST:
        raise Bad("%s: its %d bytes would take about %d MiB to read (at most %d MiB)" % (
            path, len(text), cost >> 20, MAX_COST >> 20))
    try:
        return json.loads(text, parse_constant=no_constant, parse_float=finite)
    except (ValueError, RecursionError) as e:
        raise Bad("%s is not JSON: %s" % (path, e))


def check_number(where, x):
    if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x)):
        raise Bad("%s: expected a number, got %r" % (where, x))
    return x


def check_name(where, x):
    if not isinstance(x, str) or not x or re.search(r"[\x00-\x1f\x7f]", x):
        raise Bad("%s: expected a name, got %r" % (where, x))
    return x


def node_results(path):
    """What the merge takes from one node's summary: (shape, cells, repeats, interrupted), checked."""
    s = read_summary(path)
    if not isinstance(s, dict):
        raise Bad("%s: expected a JSON object" % path)
    if s.get("format") != "placer-bench-results" or s.get("version") != 1:
        raise Bad("%s: not placer's bench results (format %r, version %r)" % (path, s.get("format"), s.get("version")))
    title = s.get("title")
    if not isinstance(title, str):
        raise Bad("%s: title: expected text" % path)
    variants, workloads = s.get("variants"), s.get("workloads")
    if not isinstance(variants, list) or not isinstance(workloads, list):
        raise Bad("%s: variants and workloads: expected arrays" % path)
    names = [check_name("%s: variants[%d]" % (path, i), v if isinstance(v, str) else
                        v.get("name") if isinstance(v, dict) else None) for i, v in enumerate(variants)]
    wnames = [check_name("%s: workloads[%d].name" % (path, i), w.get("name") if isinstance(w, dict) else None)
              for i, w in enumerate(workloads)]
    summary = s.get("summary")
    cells = summary.get("cells") if isinstance(summary, dict) else None
    if not isinstance(cells, list):
        raise Bad("%s: summary.cells: expected an array" % path)
    for i, cell in enumerate(cells):
        where = "%s: summary.cells[%d]" % (path, i)
        if not isinstance(cell, dict):
            raise Bad("%s: expected an object" % where)
        for key in ("variant", "condition", "workload"):
            check_name("%s.%s" % (where, key), cell.get(key))
        if cell.get("main_metric") is not None:
            check_name(where + ".main_metric", cell["main_metric"])
        check_number(where + ".repeats_done", cell.get("repeats_done"))
        main = cell.get("main")
        if main is not None and not isinstance(main, dict):
            raise Bad("%s.main: expected an object" % where)
        for key in ("median", "min", "max"):
            check_number("%s.main.%s" % (where, key), (main or {}).get(key))
    repeats = check_number(path + ": repeats", s.get("repeats"))
    return (title, names, wnames), cells, repeats, bool(s.get("interrupted"))


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    # halves first: (a + b) / 2 of two numbers near the largest float is inf
    return v[n // 2] if n % 2 else v[n // 2 - 1] / 2.0 + v[n // 2] / 2.0


def spread(vals):
    """max/min of the nodes' medians; None where it is no finite number."""
    if not vals or min(vals) <= 0:
        return None
    r = max(vals) / min(vals)
    return r if math.isfinite(r) else None


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
    for node, node_cells, _, _ in per_node:
        for cell in node_cells:
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
                 spread=spread(vals))
        out.append(c)
    return out


def report_md(title, per_node, cells):
    lines = ["# placer fleet study: %s" % title, "",
             "%d nodes: %s" % (len(per_node), ", ".join(n for n, _, _, _ in per_node)), ""]
    for node, node_cells, _, _ in per_node:
        lines += ["## %s" % node, "", "| variant | condition | workload | metric | repeats | median | min | max |",
                  "|---|---|---|---|---|---|---|---|"]
        for cell in node_cells:
            m = cell.get("main") or {}
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                cell["variant"], cell["condition"], cell["workload"], cell.get("main_metric"),
                cell.get("repeats_done"), fmt(m.get("median")), fmt(m.get("min")), fmt(m.get("max"))))
        lines.append("")
    nodes = [n for n, _, _, _ in per_node]
    lines += ["## Across nodes (median of each node's median)", "",
              "| variant | condition | workload | metric | " + " | ".join(nodes) + " | median | min | max | max/min |",
              "|---|---|---|---|" + "---|" * len(nodes) + "---|---|---|---|"]
    for c in cells:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["variant"], c["condition"], c["workload"], c["metric"],
            " | ".join(fmt(c["nodes"].get(n)) for n in nodes), fmt(c["median"]), fmt(c["min"]), fmt(c["max"]),
            "%.2f" % c["spread"] if c["spread"] else "-"))
    return "\n".join(lines) + "\n"


def write_if_changed(module, path, text):
    """TEXT into PATH when its bytes differ (check mode: whether they do).  PATH must be a regular file
    or nothing: a symbolic link there is neither written through nor replaced."""
    st = lstat_or_none(path)
    if st is not None and kind_of(st.st_mode):
        module.fail_json(msg="%s is %s: not written (no link is followed; remove it)" % (path, kind_of(st.st_mode)))
    data = to_bytes(text)
    if same_bytes(path, data):
        return False
    if not module.check_mode:
        write_atomically(module, path, data, 0o644)
    return True


def node_names(module, src, dest):
    names = module.params["nodes"]
    if names is None:
        dest_real = os.path.realpath(dest)
        names = sorted(e for e in os.listdir(src) if not e.startswith(".") and real_dir(os.path.join(src, e)) and
                       os.path.realpath(os.path.join(src, e)) != dest_real)
    bad = [n for n in names if not isinstance(n, str) or not NODE_NAME.match(n) or n == ".."]
    if bad:
        module.fail_json(msg="nodes: %s: not a node's name (one directory name in src: no '/', no leading '.', "
                             "no control character)" % ", ".join(repr(n) for n in bad))
    if len(set(names)) != len(names):
        module.fail_json(msg="nodes: a node named twice")
    return names


def main():
    module = AnsibleModule(argument_spec=dict(src=dict(type="path", required=True),
                                              dest=dict(type="path", required=True),
                                              nodes=dict(type="list", elements="str")),
                           supports_check_mode=True)
    src, dest = module.params["src"], module.params["dest"]
    if not os.path.isdir(src):
        module.fail_json(msg="%s: no such directory" % src)
    nodes = node_names(module, src, dest)
    per_node, bad = [], {}
    shape = None
    for node in nodes:
        path = os.path.join(src, node)
        try:
            if not real_dir(path):
                st = lstat_or_none(path)
                raise Bad("%s is %s, not the node's results directory" % (
                    path, "missing" if st is None else kind_of(st.st_mode) or "a regular file"))
            summary = find_summary(path)
            if summary is None:
                raise Bad("no summary.json in %s" % path)
            this, cells, repeats, interrupted = node_results(summary)
        except Bad as e:
            bad[node] = str(e)
            continue
        if shape is not None and this != shape:
            bad[node] = "ran another study (%s) than %s (%s)" % (this, per_node[0][0], shape)
            continue
        shape = this
        per_node.append((node, cells, repeats, interrupted))
    if bad:
        module.fail_json(msg="%d of %d nodes' results cannot be merged: %s" % (
            len(bad), len(nodes), "; ".join("%s: %s" % (n, bad[n]) for n in nodes if n in bad)), bad_nodes=bad)
    if not per_node:
        module.fail_json(msg="no node results in %s" % src)
    cells = merge(per_node)
    doc = dict(format="placer-fleet-results", version=1, title=shape[0], nodes=nodes,
               interrupted=[n for n, _, _, i in per_node if i],
               per_node=dict((n, dict(cells=c, repeats=r)) for n, c, r, _ in per_node),
               across_nodes=cells)
    try:
        text = json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"
    except ValueError as e:  # every number was checked finite: a guard, not a path
        module.fail_json(msg="fleet.json: %s" % e)
    changed = False
    if not module.check_mode and not os.path.isdir(dest):
        os.makedirs(dest)
    if os.path.isdir(dest):
        changed |= write_if_changed(module, os.path.join(dest, "fleet.json"), text)
        changed |= write_if_changed(module, os.path.join(dest, "fleet.md"), report_md(shape[0], per_node, cells))
    else:
        changed = True
    module.exit_json(changed=changed, nodes=nodes, cells=cells, report=os.path.join(dest, "fleet.md"))


if __name__ == "__main__":
    main()
