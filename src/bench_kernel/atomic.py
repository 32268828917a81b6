"""Whole-or-nothing file writes: the one helper behind every file bench-kernel writes.

``-o`` outputs, ``--plot`` images, ``record_trace``'s trace, the calibration cache and the HTML report
all go through here, so each keeps the same promise: a failure (a full disk, a crash, Ctrl-C) leaves
the old file as it was, never half a file. The new content goes to a temporary file in the target's
folder (a rename is atomic only within one file system) and is renamed over the target once complete.
A symlink is written through, not replaced; an existing file keeps its permissions; a new one gets
0o666 through the umask, like any file.

Only a regular file (or a new path) is ever renamed over. A character device (``/dev/null``), a FIFO,
and a process's own descriptors (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``) are written to
as a stream: renaming over ``/dev/full`` as root once turned it into a regular file, and
renaming over the file behind ``/dev/stdout`` would leave the shell's descriptor on the unlinked old
one. A block device, a directory or a socket is refused (``OSError``): writing a report over a disk
is never what was meant.

Errors are ``OSError`` as the system gives them: callers say what failed in their own words.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["replacing", "write_atomic", "is_stream"]

#: Paths that name a descriptor of this process (a pipe, a terminal, or a file the shell opened).
_DESCRIPTOR = re.compile(r"/dev/(?:std(?:in|out|err)|fd/\d+)|/proc/(?:self|thread-self|\d+)/fd/\d+")


def _names_a_descriptor(path: Path) -> bool:
    """Whether ``path``, or a symlink on the way to its file, is one of ``_DESCRIPTOR``."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        if _DESCRIPTOR.fullmatch(p):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return False


def _kind(path: Path) -> str:
    """``"new"``, ``"file"``, ``"stream"``; OSError for what is never written (a block device, ...)."""
    try:
        st = os.stat(path)  # through symlinks: what a write would reach
    except FileNotFoundError:
        return "new"
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    if stat.S_ISREG(mode):
        # /dev/stdout -> /proc/self/fd/1 -> the file a shell's `>` opened: rewrite it in place
        return "stream" if _names_a_descriptor(path) else "file"
    what = ("a directory" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    raise OSError(code, f"it is {what}; bench-kernel writes only regular files, character devices "
                        f"(/dev/null) and pipes", str(path))


def is_stream(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is written as a stream (a character device, a FIFO, a process's descriptor),
    not replaced; OSError for a block device, a directory or a socket."""
    return _kind(Path(path)) == "stream"


def _stream_into(src: Path, path: Path) -> None:
    with open(src, "rb") as fh_in, open(path, "wb") as fh_out:
        shutil.copyfileobj(fh_in, fh_out, 1 << 20)


@contextmanager
def replacing(path: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """A fresh temporary path (ending in ``suffix``: ``.json.gz`` for a writer that picks its format
    by name); once the block ends without error its content replaces ``path``, else it is removed.
    The caller writes the temporary file however it likes.

    For a regular file or a new path the temporary file sits beside ``path`` and is renamed over it;
    for a stream (see the module docstring) it sits in the temporary folder and is copied into
    ``path`` at the end. OSError before the block runs when ``path`` is never written.
    """
    path = Path(path)
    kind = _kind(path)
    if kind == "stream":
        folder = Path(tempfile.mkdtemp(prefix="bench-kernel-"))
        try:
            tmp = folder / f"out{suffix}"
            yield tmp
            _stream_into(tmp, path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    target = Path(os.path.realpath(path))  # through a symlink, not over it
    mode = stat.S_IMODE(os.stat(target).st_mode) if kind == "file" else None
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp{suffix}")
    try:
        yield tmp
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:  # renamed: nothing left behind
            pass


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all (see the module docstring);
    flushed to disk before the rename, so a crash cannot leave an empty file in its place."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    path = Path(path)
    if _kind(path) == "stream":
        with open(path, "wb") as fh:
            fh.write(body)
        return
    with replacing(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
