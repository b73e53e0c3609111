# -*- coding: utf-8 -*-
# Files the placer.fleet modules read and write on a node (placer_config's inputs, placer_export's
# outputs): looked at without following a symbolic link and read bounded (a file's first bytes, or
# in chunks for its checksum), written atomically by a rename in the same directory, only when they
# differ.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import hashlib
import os
import stat
import tempfile

from ansible.module_utils.common.text.converters import to_native, to_text

CHUNK = 1 << 20
KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
         (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind_of(mode):
    """'a symbolic link', 'a directory', ... for what is not a regular file; None for one."""
    for test, name in KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a file"


def lstat_or_none(path, dir_fd=None):
    """The path's own stat (a link's, not its target's); None when nothing is there."""
    try:
        return os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_regular(path, dir_fd=None):
    """A regular file opened for reading: never through a symbolic link (ELOOP), never blocking on a
    FIFO; another kind of file raises OSError saying what it is."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY, dir_fd=dir_fd)
    st = os.fstat(fd)
    what = kind_of(st.st_mode)
    if what:
        os.close(fd)
        raise OSError(errno.EINVAL, "%s, not a regular file" % what)
    return fd, st


def read_head(fd, limit):
    """At most LIMIT bytes from FD."""
    parts, left = [], limit
    while left > 0:
        b = os.read(fd, min(left, CHUNK))
        if not b:
            break
        parts.append(b)
        left -= len(b)
    return b"".join(parts)


def same_bytes(path, data, dir_fd=None):
    """Does the regular file PATH hold exactly DATA?  Reads at most len(DATA) + 1 bytes of it."""
    try:
        fd, st = open_regular(path, dir_fd)
    except OSError:
        return False
    try:
        return st.st_size == len(data) and read_head(fd, len(data) + 1) == data
    finally:
        os.close(fd)


def shown(data, limit):
    """DATA as --diff shows it: the text, or its size and sha1 above LIMIT bytes."""
    if data is None:
        return ""
    if len(data) > limit:
        return "(%d bytes, sha1 %s)\n" % (len(data), hashlib.sha1(data).hexdigest())
    return to_text(data, errors="surrogate_or_replace")


def shown_file(path, limit, dir_fd=None):
    """The regular file PATH as --diff shows it, read bounded: its text up to LIMIT bytes, else its
    size and sha1 (read in chunks); "" when nothing is there, what it is when it is no file."""
    try:
        fd, st = open_regular(path, dir_fd)
    except FileNotFoundError:
        return ""
    except OSError as e:
        return "(%s)\n" % to_native(e.strerror or e)
    try:
        if st.st_size <= limit:
            return shown(read_head(fd, limit + 1), limit)
        h = hashlib.sha1()
        for chunk in iter(lambda: os.read(fd, CHUNK), b""):
            h.update(chunk)
        return "(%d bytes, sha1 %s)\n" % (st.st_size, h.hexdigest())
    finally:
        os.close(fd)


def write_atomically(module, path, data, mode):
    """data into path by a rename in the same directory (module.atomic_move keeps an existing
    file's owner and SELinux context), then the mode.  The caller has made sure that PATH is no
    symbolic link (atomic_move and chmod would follow it)."""
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
