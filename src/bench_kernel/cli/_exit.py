"""Ending the ``bench-kernel`` process once its command has finished, without torch's teardown.

A process that imported torch spends 0.7-1.5 s exiting on the project's 2-core CPU machine (1.5 s
after ``bench-kernel run``, against a 9.5 s run): the interpreter tears down every module and torch's
C++ statics one by one, and a GPU process also tears its CUDA context down. None of it is the
command's work. So where torch was imported and no other non-daemon thread is alive (one that
would be waited for), :func:`leave` runs the ``atexit`` handlers (logging, multiprocessing's
children, temporary folders, coverage), flushes the standard streams and ends the process with
``os._exit``; the operating system frees the rest. Without torch, or with a thread still running,
it exits as Python does. Only the console entry (the ``bench-kernel`` script, ``python -m
bench_kernel``) leaves this way: ``main()`` called in a process returns its status as before.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

__all__ = ["leave"]


def _waited_threads() -> bool:
    """True when a thread other than the main one is alive and not a daemon: exit would wait for it."""
    main = threading.main_thread()
    return any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate())


def leave(code: int) -> NoReturn:
    """End the process with exit status ``code`` (the module docstring)."""
    if "torch" not in sys.modules or _waited_threads():
        sys.exit(code)
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):  # a closed pipe, a closed or replaced stream
                pass
        os._exit(code)
