#!/usr/bin/python
# -*- coding: utf-8 -*-
# The node's plan in the formats of the systems that own its workloads (placer export): libvirt,
# virsh, Nova, Proxmox, kubelet, OpenShift, Ceph, systemd, tuned, irqbalance; written next to its profile.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_export
short_description: Write the node's plan in other systems' formats with C(placer export)
description:
  - For each format of O(formats), makes O(dest)/FORMAT hold the files C(placer export --format FORMAT
    --out DEST/FORMAT) writes for the node's profile (and topology). placer itself writes them, as one
    set (all or none), and removes only the files it wrote there before and no longer writes (an
    instance gone from the plan), which DEST/FORMAT/.placer-export.FORMAT lists. Nothing else in
    DEST/FORMAT is ever removed or read (C(dest=/etc) with C(formats=[ceph]) writes
    /etc/ceph/ceph-config.sh and leaves ceph.conf and the keyrings alone).
  - DEST/FORMAT is made when missing; a symbolic link there (or in it where a file goes) fails the host
    and nothing is written through it.
  - The task is C(changed) exactly when a file was written or removed; in check mode nothing is
    (C(placer export --dry-run)), and the result says what would be. With --diff a file is shown
    read bounded (above 16 KiB only its size and sha1).
  - Every format is checked first (C(--dry-run)), so a format the profile cannot express (C(libvirt)
    without a vm role, C(proxmox) without VMIDs, ...) fails the host with placer's one-line reason
    (exit 2) before anything is written.
  - Formats and their files are described in placer's docs/export.md.
options:
  profile: {description: placement profile YAML on the node, type: path, required: true}
  formats: {description: "placer export formats: libvirt, virsh, nova, proxmox, kubelet, openshift, ceph, systemd, tuned, irqbalance", type: list, elements: str, required: true}
  dest: {description: directory on the node that gets one subdirectory per format, type: path, required: true}
  maps:
    description:
      - "per format, the instances' names in that system (C(placer export --map)), e.g.
        C({proxmox: {vm.0: 101}}) for VMIDs, C({systemd: {osd.0: ceph-FSID@osd.0.service}})."
      - A name with a control character (a newline), an instance with C(=), blanks around either or a
        leading C(#) is refused (the map file has no quoting).
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
removed: {description: "files removed, FORMAT/NAME (placer no longer writes them; or that would be)", returned: always, type: list}
notes: {description: what placer export said it left out (its notes), returned: always, type: list}
"""

import os
import re
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native
from ansible_collections.placer.fleet.plugins.module_utils.placer_cli import COMMON_ARGS, PlacerCLI, PlacerError
from ansible_collections.placer.fleet.plugins.module_utils.placer_files import kind_of, lstat_or_none, shown_file

FORMAT = re.compile(r"^[a-z]+$")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
DIFF_MAX = 16384
CHANGE = re.compile(r"^(?:would )?(write|wrote|remove|removed) (.+)$")


def map_text(module, fmt, mapping):
    """MAPPING as placer export --map lines; what a line could not say as it is, refused."""
    lines = []
    for instance in sorted(mapping, key=str):
        value = mapping[instance]
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            module.fail_json(msg="maps: %s: %s: expected a name or a number, got %r" % (fmt, instance, value))
        for what, text in (("instance", str(instance)), ("name", str(value))):
            why = None
            if text == "":
                why = "empty"
            elif CONTROL.search(text):
                why = "a control character (a newline would start another mapping)"
            elif text != text.strip():
                why = "blanks around it (the map drops them)"
            elif what == "instance" and ("=" in text or text.startswith("#")):
                why = "'=' or a leading '#' (the map would read another instance, or a comment)"
            if why:
                module.fail_json(msg="maps: %s: %s %r has %s" % (fmt, what, text, why))
        lines.append("%s=%s\n" % (instance, value))
    return "".join(lines)


def changes(out):
    """placer export --out's stdout: ([written], [removed])."""
    written, removed = [], []
    for line in out.splitlines():
        m = CHANGE.match(line)
        if m:
            (written if m.group(1).startswith("wr") else removed).append(m.group(2))
    return written, removed


def format_dir(module, top):
    """Is DEST/FORMAT there (True), missing (False)?  A symbolic link or anything but a directory
    fails the host: nothing is written through it."""
    st = lstat_or_none(top)
    if st is None:
        return False
    what = kind_of(st.st_mode)
    if what != "a directory":
        module.fail_json(msg="%s is %s, not a directory placer_export writes into (it follows no link)"
                         % (top, what or "a regular file"))
    return True


def run_export(cli, fmt, args, out_dir, dry, profile):
    try:
        _, out, err = cli.run("export", ["--format", fmt] + args + ["--out", out_dir] + (["--dry-run"] if dry else [])
                              + [profile])
    except PlacerError as e:
        cli.fail(e, format=fmt)
    notes = [line.split("note: ", 1)[1] for line in err.splitlines() if line.startswith("placer export: note: ")]
    return changes(out), notes


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
    if len(set(p["formats"])) != len(p["formats"]):
        module.fail_json(msg="formats: a format named twice")
    for fmt, mapping in p["maps"].items():
        if not isinstance(mapping, dict):
            module.fail_json(msg="maps: %s: expected instance: name pairs" % fmt)
    cli = PlacerCLI(module)
    tmp = tempfile.mkdtemp(prefix=".placer-export.")
    try:
        args, plans = {}, {}
        for fmt in p["formats"]:
            args[fmt] = []
            if p["maps"].get(fmt):
                path = os.path.join(tmp, fmt + ".map")
                with open(path, "w") as f:
                    f.write(map_text(module, fmt, p["maps"][fmt]))
                args[fmt] = ["--map", path]
        # every format first, dry: one that fails (or a link in its directory) writes nothing anywhere
        for fmt in p["formats"]:
            top = os.path.join(p["dest"], fmt)
            there = format_dir(module, top)
            empty = os.path.join(tmp, "empty-" + fmt)
            if not there:
                os.mkdir(empty)
            plans[fmt] = run_export(cli, fmt, args[fmt], top if there else empty, True, p["profile"])
        diffs = []
        if module._diff:
            for fmt in p["formats"]:
                (will_write, will_remove), _ = plans[fmt]
                if not (will_write or will_remove):
                    continue
                fresh = os.path.join(tmp, "new-" + fmt)
                os.mkdir(fresh)
                run_export(cli, fmt, args[fmt], fresh, False, p["profile"])
                top = os.path.join(p["dest"], fmt)
                for rel in will_write:
                    path = os.path.join(top, rel)
                    diffs.append(dict(before_header=path, after_header=path, before=shown_file(path, DIFF_MAX),
                                      after=shown_file(os.path.join(fresh, rel), DIFF_MAX)))
                for rel in will_remove:
                    path = os.path.join(top, rel)
                    diffs.append(dict(before_header=path, after_header=path, before=shown_file(path, DIFF_MAX),
                                      after=""))
        written, removed, notes = [], [], []
        for fmt in sorted(p["formats"]):
            (fmt_written, fmt_removed), fmt_notes = plans[fmt]
            notes += ["%s: %s" % (fmt, n) for n in fmt_notes]
            if not module.check_mode and (fmt_written or fmt_removed):
                top = os.path.join(p["dest"], fmt)
                try:
                    if not os.path.isdir(p["dest"]):
                        os.makedirs(p["dest"], 0o755)
                    if lstat_or_none(top) is None:
                        os.mkdir(top, 0o755)
                except OSError as e:
                    module.fail_json(msg="%s: %s" % (top, to_native(e)))
                (fmt_written, fmt_removed), _ = run_export(cli, fmt, args[fmt], top, False, p["profile"])
            written += [os.path.join(fmt, rel) for rel in fmt_written]
            removed += [os.path.join(fmt, rel) for rel in fmt_removed]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    module.exit_json(changed=bool(written or removed), written=written, removed=removed, notes=notes, diff=diffs)


if __name__ == "__main__":
    main()
