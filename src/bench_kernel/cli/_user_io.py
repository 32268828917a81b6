"""User code prints to stderr: stdout belongs to ``--json``/``--csv``/``--md`` output.

A target that prints at import, in its factory or in ``fn`` would otherwise corrupt the output a
script parses. Python-level redirection (``contextlib.redirect_stdout``) catches ``print`` and
``sys.stdout.write``, but not what C code writes to file descriptor 1 (a C extension's
``printf``, ``os.write(1, ...)``, a CUDA kernel's ``printf`` flushed at a sync). So when stdout is
the process's fd 1, fd 1 itself is pointed at stderr (``dup2``) while user code runs, and put back
after C's stdio buffers are flushed (else text C buffered would reach the real stdout later).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from typing import Any

__all__ = ["UserOutputToStderr"]


def _flush_c_stdio() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no libc to ask (Windows), or no fflush
        pass


class UserOutputToStderr:
    """``with UserOutputToStderr() as io: ...``: everything written to stdout inside goes to stderr.

    :meth:`restore` may be called early (from another thread too) to write real output.
    """

    def __init__(self) -> None:
        self._saved_fd: int | None = None
        self._redirect: Any = None
        self._stdout: Any = None

    def __enter__(self) -> "UserOutputToStderr":
        self._stdout = sys.stdout
        try:
            is_fd1 = sys.stdout is not None and sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2
        except (AttributeError, OSError, ValueError):  # a StringIO stdout (tests, notebooks)
            is_fd1 = False
        if is_fd1:
            sys.stdout.flush()
            _flush_c_stdio()
            self._saved_fd = os.dup(1)
            os.dup2(2, 1)
        self._redirect = contextlib.redirect_stdout(sys.stderr)
        self._redirect.__enter__()
        return self

    def restore(self) -> None:
        """Point stdout back where it was (idempotent)."""
        if self._redirect is not None:
            redirect, self._redirect = self._redirect, None
            with contextlib.suppress(Exception):
                if self._stdout is not None:
                    self._stdout.flush()  # whatever user code wrote to the real sys.stdout: to stderr
            redirect.__exit__(None, None, None)
        if self._saved_fd is not None:
            fd, self._saved_fd = self._saved_fd, None
            _flush_c_stdio()
            os.dup2(fd, 1)
            os.close(fd)

    def __exit__(self, *exc: Any) -> None:
        self.restore()
