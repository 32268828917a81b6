"""Whole-or-nothing file writes: the one helper behind every file bench-kernel writes over.

``-o`` outputs, ``record_trace``'s trace, the calibration cache and the HTML report all go through
here, so each keeps the same promise: a failure (a full disk, a crash, Ctrl-C) leaves the old file as
it was, never half a file. The new content goes to a temporary file in the target's folder (a rename
is atomic only within one file system) and is renamed over the target once complete. A symlink is
written through, not replaced; an existing file keeps its permissions; a new one gets 0o666 through
the umask, like any file. A target that is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO)
cannot be renamed over and is written directly.

Errors are ``OSError`` as the system gives them: callers say what failed in their own words.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["replacing", "write_atomic"]


@contextmanager
def replacing(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """A fresh temporary path beside ``path`` (ending in ``suffix``: ``.json.gz`` for a writer
    that picks its format by name); once the block ends without error it is renamed over
    ``path``, else removed. The caller writes the temporary file however it likes."""
    target = Path(os.path.realpath(path))  # through a symlink, not over it
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
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


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all (see the module docstring);
    flushed to disk before the rename, so a crash cannot leave an empty file in its place."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(os.path.realpath(path))
    try:
        regular = stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        regular = True
    if not regular:
        with open(target, "wb") as fh:
            fh.write(body)
        return
    with replacing(target) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
