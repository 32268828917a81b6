"""User code that ends the process: ``sys.exit`` and ``os._exit`` become the calling case's error.

A case, a sweep provider or a target that calls ``os._exit(0)`` used to end ``run`` and an inline
``sweep`` at once with exit status 0, the remaining cases never run and nothing said;
with ``--workers`` the worker dies and its point is stored as an error. Three ways to give the
inline path the same answer were weighed:

- **A child process per point.** Each child pays torch's import (seconds), a CUDA/HIP context of
  its own (0.3-1 s and its memory, beside the parent's), and the target's JIT and autotuning again
  (Triton's autotune cache lives in the process); a ``run`` case is often a closure that cannot be
  sent to a child at all. A user who wants that isolation asks for it: ``sweep --workers N`` or
  ``--gpus``. Inline stays inline.
- **Recording a claimed but unfinished point on resume.** The store already does this
  (``Store.claim_point``: a point that killed its process is retried once, then stored as an
  error), but only after the user has noticed a run that ended with status 0, and never for ``run``.
- **Intercepting the exit while user code runs** (this module). ``sys.exit`` is an exception and is
  caught where user code is called (``guard``, the target and spec loaders, a provider's factory).
  ``os._exit`` ends the process from C, so it is replaced by a function that, in the thread running
  user code inside :func:`exits_raise` and in this process, raises :class:`ProcessExit` instead; in
  any other thread, outside such a block, or in a forked child (``multiprocessing`` ends its
  children with ``os._exit``) it is the real ``os._exit``. The replacement stays installed once
  made, so a reference captured by ``from os import _exit`` behaves the same.

What no Python code can intercept (a C ``exit()``, ``abort()``, a segfault, SIGKILL) still ends the
process; a sweep's point is then left claimed, and ``--resume`` records it as described above.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Iterator

__all__ = ["ProcessExit", "exits_raise", "exit_call"]


class ProcessExit(BaseException):
    """``os._exit(code)`` called by user code inside :func:`exits_raise` (BaseException, like SystemExit)."""

    def __init__(self, code: Any) -> None:
        super().__init__(code)
        self.code = code


_real_exit = os._exit
_state = threading.local()
_install_lock = threading.Lock()


def _exit(code: int) -> None:  # the replacement of os._exit
    if getattr(_state, "depth", 0) > 0 and getattr(_state, "pid", None) == os.getpid():
        raise ProcessExit(code)
    _real_exit(code)


def exit_call(e: BaseException | Any) -> str:
    """How an exit reads in a message: ``sys.exit(3)``, ``sys.exit()``, ``os._exit(0)``; a bare code is
    a ``SystemExit``'s."""
    if isinstance(e, ProcessExit):
        return f"os._exit({e.code!r})"
    code = e.code if isinstance(e, SystemExit) else e
    return "sys.exit()" if code is None else f"sys.exit({code!r})"


@contextlib.contextmanager
def exits_raise() -> Iterator[None]:
    """While the block runs, ``os._exit(code)`` called from this thread raises :class:`ProcessExit`
    (``sys.exit`` raises SystemExit anyway): the caller turns either into the case's error."""
    if os._exit is not _exit:
        with _install_lock:
            if os._exit is not _exit:
                os._exit = _exit  # type: ignore[assignment]
    outer = getattr(_state, "depth", 0)
    _state.depth, _state.pid = outer + 1, os.getpid()
    try:
        yield
    finally:
        _state.depth = outer
