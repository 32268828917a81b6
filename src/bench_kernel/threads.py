"""Background threads that leave the process's signals to the main thread.

Python runs every signal handler in the main thread, but the kernel delivers a signal sent to the
process to any of its threads that does not block it. When it picks a background thread, the
handler's flag is set while the main thread stays inside its blocking call (a case's
``time.sleep``, a lock wait), and Ctrl-C waits for that call to return: a case that sleeps for ten
minutes would hold a Ctrl-C for ten minutes. So the library's own threads (the time-limit
watchdog, the serving samplers) start with the signals the CLI answers blocked: they are created
inside a ``pthread_sigmask`` block and inherit the mask from their first instruction, with no
moment in which one could take the signal.
"""

from __future__ import annotations

import signal
import threading

__all__ = ["MAIN_THREAD_SIGNALS", "start_background"]

#: Ctrl-C and a polite kill: the signals the CLI turns into an exit (130, 143), main thread only.
MAIN_THREAD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


def start_background(thread: threading.Thread) -> threading.Thread:
    """Start ``thread`` with :data:`MAIN_THREAD_SIGNALS` blocked in it (where the platform has
    ``pthread_sigmask``; elsewhere a plain start); the caller's own mask is left as it was."""
    if not hasattr(signal, "pthread_sigmask"):
        thread.start()
        return thread
    before = signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    return thread
