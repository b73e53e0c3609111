#!/usr/bin/python
# -*- coding: utf-8 -*-
# The node's plan in the formats of the systems that own its workloads (placer export): libvirt,
# Nova, Proxmox, kubelet, Ceph, systemd, tuned, irqbalance; written next to its profile.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_export
short_description: Write the node's plan in other systems' formats with C(placer export)
description:
  - For each format of O(formats), runs C(placer export --format FORMAT --out DIR) for the node's
    profile (and topology), then makes O(dest)/FORMAT hold exactly the files placer wrote there:
    each file whose bytes differ is replaced atomically, a file placer no longer writes (an
    instance gone from the plan) is removed. The task is C(changed) exactly when something was
    written or removed; in check mode nothing is, and the result says what would be.
  - A format the profile cannot express (C(libvirt) without a vm role, C(proxmox) without VMIDs,
    ...) fails the host with placer's one-line reason (exit 2), before anything is written.
  - Formats and their files are described in placer's docs/export.md.
options:
  profile: {description: placement profile YAML on the node, type: path, required: true}
  formats: {description: "placer export formats: libvirt, virsh, nova, proxmox, kubelet, ceph, systemd, tuned, irqbalance", type: list, elements: str, required: true}
  dest: {description: directory on the node that gets one subdirectory per format, type: path, required: true}
  maps:
    description:
      - per format, the instances' names in that system (C(placer export --map)), e.g.
        C({proxmox: {vm.0: 101}}) for VMIDs, C({systemd: {osd.0: ceph-FSID@osd.0.service}})
    type: dict
    default: {}
  placer_bin: {description: placer executable on the node, type: str, default: placer}
  topology: {description: hwloc XML on the node to plan for instead of the live machine, type: str}
  prefix: {description: unused (the modules' common option), type: str}
  state_dir: {description: unused (the modules' common option), type: str}
"""

EXAMPLES = r"""
- placer.fleet.placer_export:
    profile: /etc/placer/profile.yaml
    formats: [libvirt, nova, ceph]
    dest: /etc/placer/export
"""

RETURN = r"""
written: {description: "files written or replaced, FORMAT/NAME (or that would be, in check mode)", returned: always, type: list}
removed: {description: "files removed, FORMAT/NAME (placer no longer writes them)", returned: always, type: list}
notes: {description: what placer export said it left out (its notes), returned: always, type: list}
"""

import os
import re
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import COMMON_ARGS, PlacerCLI, PlacerError
from ansible_collections.placer.fleet.plugins.module_utils.placer_files import read_or_none, shown, write_atomically

FORMAT = re.compile(r"^[a-z]+$")


def files_under(top):
    """{relative path: bytes} of every regular file below TOP."""
    out = {}
    for root, _, names in os.walk(top):
        for name in names:
            path = os.path.join(root, name)
            out[os.path.relpath(path, top)] = read_or_none(path)
    return out


def render(module, cli, tmp, fmt, profile, mapping):
    """placer export FMT into TMP/FMT: (files, notes)."""
    out = os.path.join(tmp, fmt)
    os.mkdir(out)
    args = ["--format", fmt, "--out", out]
    if mapping:
        path = os.path.join(tmp, fmt + ".map")
        with open(path, "w") as f:
            for instance in sorted(mapping):
                f.write("%s=%s\n" % (instance, mapping[instance]))
        args += ["--map", path]
    try:
        _, _, err = cli.run("export", args + [profile])
    except PlacerError as e:
        cli.fail(e, format=fmt)
    notes = [line.split("note: ", 1)[1] for line in err.splitlines() if "placer export: note: " in line]
    return files_under(out), notes


def main():
    spec = dict(COMMON_ARGS,
                profile=dict(type="path", required=True),
                formats=dict(type="list", elements="str", required=True),
                dest=dict(type="path", required=True),
                maps=dict(type="dict", default={}))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    for fmt in p["formats"]:
        if not FORMAT.match(fmt or ""):
            module.fail_json(msg="formats: %r is not a format name" % fmt)
    for fmt, mapping in p["maps"].items():
        if not isinstance(mapping, dict):
            module.fail_json(msg="maps: %s: expected instance: name pairs" % fmt)
    cli = PlacerCLI(module)
    tmp = tempfile.mkdtemp(prefix=".placer-export.")
    try:
        # every format first: one that fails writes nothing anywhere
        rendered = dict((fmt, render(module, cli, tmp, fmt, p["profile"], p["maps"].get(fmt) or {}))
                        for fmt in p["formats"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    written, removed, notes, diffs = [], [], [], []
    for fmt in sorted(rendered):
        files, fmt_notes = rendered[fmt]
        notes += ["%s: %s" % (fmt, n) for n in fmt_notes]
        top = os.path.join(p["dest"], fmt)
        old = files_under(top) if os.path.isdir(top) else {}
        for rel in sorted(files):
            if old.get(rel) == files[rel]:
                continue
            path = os.path.join(top, rel)
            written.append(os.path.join(fmt, rel))
            diffs.append(dict(before_header=path, after_header=path, before=shown(old.get(rel), 16384),
                              after=shown(files[rel], 16384)))
            if not module.check_mode:
                try:
                    os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
                except OSError as e:
                    module.fail_json(msg="%s: %s" % (os.path.dirname(path), to_native(e)))
                write_atomically(module, path, files[rel], 0o644)
        for rel in sorted(set(old) - set(files)):
            path = os.path.join(top, rel)
            removed.append(os.path.join(fmt, rel))
            diffs.append(dict(before_header=path, after_header=path, before=shown(old[rel], 16384), after=""))
            if not module.check_mode:
                try:
                    os.unlink(path)
                    d = os.path.dirname(path)
                    if d != top and not os.listdir(d):
                        os.rmdir(d)  # a systemd UNIT.d this module made
                except OSError as e:
                    module.fail_json(msg="%s: %s" % (path, to_native(e)))
    module.exit_json(changed=bool(written or removed), written=written, removed=removed, notes=notes, diff=diffs)


if __name__ == "__main__":
    main()
