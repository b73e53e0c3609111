# -*- coding: utf-8 -*-
# Files the placer.fleet modules write on a node (placer_config's inputs, placer_export's outputs):
# atomically, by a rename in the same directory, only when they differ.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os
import tempfile

from ansible.module_utils.common.text.converters import to_native, to_text


def read_or_none(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (IOError, OSError):
        return None


def shown(data, limit):
    """DATA as --diff shows it: the text, or its size and sha1 above LIMIT bytes."""
    if data is None:
        return ""
    if len(data) > limit:
        return "(%d bytes, sha1 %s)\n" % (len(data), hashlib.sha1(data).hexdigest())
    return to_text(data, errors="surrogate_or_replace")


def write_atomically(module, path, data, mode):
    """data into path by a rename in the same directory (module.atomic_move keeps an existing
    file's owner and SELinux context), then the mode."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".placer-config.")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        module.atomic_move(tmp, path)
        tmp = None
        os.chmod(path, mode)
    except (IOError, OSError) as e:
        module.fail_json(msg="%s: %s" % (path, to_native(e)))
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
