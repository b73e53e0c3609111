#!/usr/bin/python
# -*- coding: utf-8 -*-
# The node's placer inputs (profile, hwloc XML) written into its configuration directory in one
# task: one module run per node, where ansible.builtin.copy takes three per file.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: placer_config
short_description: Write placer's input files (profile, topology XML) into a directory on the node
description:
  - Creates O(dir) when missing and writes each file of O(files) there, atomically, only when its
    content differs; the task is C(changed) exactly when a file (or the directory) was written.
  - One module run for all the files, where M(ansible.builtin.copy) takes three per file (stat,
    copy or file); the contents travel in the module's arguments (shown at -vvv only).
  - In check mode nothing is written and the result says what would be.
options:
  dir: {description: the directory on the node, type: path, required: true}
  files:
    description: file name (no C(/)) to its content
    type: dict
    required: true
  mode: {description: mode of the files written, type: raw, default: "0644"}
  diff_max: {description: files larger than this many bytes are shown in --diff by size only, type: int, default: 16384}
"""

EXAMPLES = r"""
- placer.fleet.placer_config:
    dir: /etc/placer
    files:
      profile.yaml: "{{ lookup('ansible.builtin.file', 'profiles/hci.yaml', rstrip=false) }}"
"""

RETURN = r"""
written:
  description: the names of the files written (or that would be, in check mode)
  returned: always
  type: list
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_text


def read_or_none(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (IOError, OSError):
        return None


def shown(data, limit):
    if data is None:
        return ""
    if len(data) > limit:
        return "(%d bytes)\n" % len(data)
    return to_text(data, errors="surrogate_or_strict")


def write_atomically(module, path, data, mode):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".placer-config.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.rename(tmp, path)
    except (IOError, OSError) as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        module.fail_json(msg="%s: %s" % (path, e))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            dir=dict(type="path", required=True),
            files=dict(type="dict", required=True),
            mode=dict(type="raw", default="0644"),
            diff_max=dict(type="int", default=16384),
        ),
        supports_check_mode=True,
    )
    p = module.params
    mode = p["mode"]
    if not isinstance(mode, int):  # "0644"; an int is taken as it is (YAML's 0644 is 420)
        try:
            mode = int(str(mode), 8)
        except ValueError:
            module.fail_json(msg="mode %r is not an octal mode" % p["mode"])
    for name in p["files"]:
        if not name or "/" in name or name in (".", ".."):
            module.fail_json(msg="files: %r is not a file name" % name)

    changed = False
    written = []
    diffs = []
    if not os.path.isdir(p["dir"]):
        changed = True
        diffs.append(dict(before_header=p["dir"], after_header=p["dir"],
                          before="(absent)\n", after="(directory)\n"))
        if not module.check_mode:
            try:
                os.makedirs(p["dir"], 0o755)
            except OSError as e:
                module.fail_json(msg="%s: %s" % (p["dir"], e))
    for name in sorted(p["files"]):
        path = os.path.join(p["dir"], name)
        data = to_bytes(p["files"][name] or "", errors="surrogate_or_strict")
        old = read_or_none(path)
        if old == data:
            if not module.check_mode and (os.stat(path).st_mode & 0o7777) != mode:
                os.chmod(path, mode)
                changed = True
            continue
        changed = True
        written.append(name)
        diffs.append(dict(before_header=path, after_header=path,
                          before=shown(old, p["diff_max"]), after=shown(data, p["diff_max"])))
        if not module.check_mode:
            write_atomically(module, path, data, mode)
    module.exit_json(changed=changed, written=written, diff=diffs)


if __name__ == "__main__":
    main()
