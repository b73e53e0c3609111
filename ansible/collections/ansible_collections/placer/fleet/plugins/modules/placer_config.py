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
  - Creates O(dir) (mode 0755) when missing and writes each file of O(files) there, atomically,
    only when its content or mode differs; the task is C(changed) exactly when something was
    written. An existing directory is left as it is.
  - A file there is looked at without following a symbolic link and read bounded (its size first,
    then at most its new length; --diff above O(diff_max) by chunks for the checksum). A symbolic
    link (or a directory, a FIFO) where a file goes fails the host before anything is written; it
    is never written, chmod-ed or shown through.
  - One module run for all the files, where M(ansible.builtin.copy) takes three per file (stat,
    copy or file); the contents travel in the module's arguments (shown at -vvv only).
  - In check mode nothing is written and the result says what would be.
options:
  dir: {description: the directory on the node, type: path, required: true}
  files:
    description:
      - file name (no C(/)) to its content, a string (text, or base64 with O(encoding=base64))
    type: dict
    required: true
  encoding:
    description:
      - C(base64) when the contents are base64 (C(lookup(...) | b64encode)), which Ansible passes
        as they are; text that starts with C({) or C([) may reach a module as a dict or a list
        (refused).
    type: str
    choices: [text, base64]
    default: text
  mode: {description: mode of the files written (an octal string such as C("0644")), type: raw, default: "0644"}
  diff_max:
    description: files larger than this many bytes are shown in --diff by their size and sha1 only
    type: int
    default: 16384
"""

EXAMPLES = r"""
- placer.fleet.placer_config:
    dir: /etc/placer
    encoding: base64
    files:
      profile.yaml: "{{ lookup('ansible.builtin.file', 'profiles/hci.yaml', rstrip=false) | b64encode }}"
"""

RETURN = r"""
written:
  description: the names of the files written or whose mode was set (or that would be, in check mode)
  returned: always
  type: list
"""

import base64
import binascii
import os
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native
from ansible_collections.placer.fleet.plugins.module_utils.placer_files import (kind_of, lstat_or_none, open_regular,
                                                                              same_bytes, shown, shown_file,
                                                                              write_atomically)


def parse_mode(module, value):
    """ "0644" or an int (YAML's 0644 is already 420); 0 to 07777."""
    if isinstance(value, bool):
        module.fail_json(msg="mode %r is not an octal mode" % value)
    if isinstance(value, int):
        mode = value
    else:
        try:
            mode = int(str(value), 8)
        except ValueError:
            module.fail_json(msg="mode %r is not an octal mode" % value)
    if not 0 <= mode <= 0o7777:
        module.fail_json(msg="mode %r is not an octal mode (0 to 07777)" % value)
    return mode


def contents(module, files, encoding):
    """Each file's bytes, the names and values checked."""
    out = {}
    for name, value in files.items():
        if not name or "/" in name or "\0" in name or name in (".", ".."):
            module.fail_json(msg="files: %r is not a file name" % name)
        if value is None:
            value = ""
        if not isinstance(value, str):
            module.fail_json(msg="files: %s: the content is a %s, not text (pass it with | b64encode and "
                                 "encoding: base64)" % (name, type(value).__name__))
        if encoding == "base64":
            try:
                out[name] = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError) as e:
                module.fail_json(msg="files: %s: not base64: %s" % (name, e))
        else:
            out[name] = to_bytes(value, errors="surrogate_or_strict")
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            dir=dict(type="path", required=True),
            files=dict(type="dict", required=True),
            encoding=dict(type="str", default="text", choices=["text", "base64"]),
            mode=dict(type="raw", default="0644"),
            diff_max=dict(type="int", default=16384),
        ),
        supports_check_mode=True,
    )
    p = module.params
    mode = parse_mode(module, p["mode"])
    files = contents(module, p["files"], p["encoding"])
    directory = p["dir"]

    changed = False
    written = []
    diffs = []
    if os.path.lexists(directory) and not os.path.isdir(directory):
        module.fail_json(msg="%s exists and is not a directory" % directory)
    if not os.path.isdir(directory):
        changed = True
        diffs.append(dict(before_header=directory, after_header=directory,
                          before="(absent)\n", after="(directory)\n"))
        if not module.check_mode:
            try:
                os.makedirs(directory, 0o755)
            except OSError as e:
                module.fail_json(msg="%s: %s" % (directory, to_native(e)))
    # every file's place first: a link or a non-file there fails the host before anything is written
    for name in sorted(files):
        st = lstat_or_none(os.path.join(directory, name))
        if st is not None and kind_of(st.st_mode):
            module.fail_json(msg="%s is %s: placer_config writes regular files only, and through no link (remove it)"
                             % (os.path.join(directory, name), kind_of(st.st_mode)))
    for name in sorted(files):
        path = os.path.join(directory, name)
        data = files[name]
        if same_bytes(path, data):
            try:
                fd, st = open_regular(path)
            except OSError as e:
                module.fail_json(msg="%s: %s" % (path, to_native(e)))
            try:
                old_mode = stat.S_IMODE(st.st_mode)
                if old_mode == mode:
                    continue
                changed = True
                written.append(name)
                diffs.append(dict(before_header=path, after_header=path,
                                  before="mode %04o\n" % old_mode, after="mode %04o\n" % mode))
                if not module.check_mode:
                    os.fchmod(fd, mode)  # the file opened without following a link, not a path
            except OSError as e:
                module.fail_json(msg="%s: %s" % (path, to_native(e)))
            finally:
                os.close(fd)
            continue
        changed = True
        written.append(name)
        diffs.append(dict(before_header=path, after_header=path,
                          before=shown_file(path, p["diff_max"]), after=shown(data, p["diff_max"])))
        if not module.check_mode:
            write_atomically(module, path, data, mode)
    module.exit_json(changed=changed, written=written, diff=diffs)


if __name__ == "__main__":
    main()
