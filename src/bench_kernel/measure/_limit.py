"""A per-case time limit: stop a callable that never returns, and move on to the next case.

A Python thread cannot be killed, and a process that holds a GPU context cannot be forked safely,
so the case runs in the calling thread and a watchdog thread interrupts it. One watchdog serves
every limit of the process (a heap of deadlines): a thread started per case cost ~1 ms of every
case (the start waits for the new thread to run), a quarter of a trivial case's time in a 10,000-case
run.

1. On expiry the watchdog sends SIGALRM to the case's thread (``signal.pthread_kill``); our
   handler raises :class:`Expired` there. A signal reaches pure-Python loops at the next bytecode
   AND wakes blocking calls that return on a signal (``time.sleep``, ``select``, lock waits).
   Outside the main thread (no signal handlers there) or without SIGALRM (Windows) the watchdog
   uses ``PyThreadState_SetAsyncExc`` instead, which reaches pure-Python code only.
2. :class:`Expired` derives from BaseException, so a callable's ``except Exception`` cannot
   swallow it; :func:`~bench_kernel.measure.guard` turns it into a TimeLimitError that names the
   case and what it was doing.
3. What neither can interrupt: a C call that retries on EINTR or spins without returning to the
   interpreter (a busy GPU kernel behind ``torch.cuda.synchronize()``, a C extension's loop).
   If the case has not stopped ``grace_s`` after expiry, the watchdog calls ``on_stuck`` from its
   own thread: the CLI writes the results so far and exits 1; the API default says so on stderr
   and lets the call run on (the exception lands if the call ever returns).
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import signal
import sys
import threading
import time
from typing import Any, Callable

from bench_kernel.errors import TimeLimitError
from bench_kernel.threads import start_background

__all__ = ["Expired", "TimeLimit", "current_limit"]


_current: contextvars.ContextVar["TimeLimit | None"] = contextvars.ContextVar("bench_kernel_limit", default=None)


class Expired(BaseException):
    """Raised inside a case that ran past its limit (BaseException: ``except Exception`` misses it)."""


def current_limit() -> "TimeLimit | None":
    """The innermost active limit of this thread, if any."""
    return _current.get()


def _limit_s(seconds: float | None) -> float | None:
    """``seconds`` if it is a real limit; None for None, 0 or inf (no limit)."""
    return seconds if seconds is not None and 0 < seconds < float("inf") else None


def _warn_stuck(limit: "TimeLimit") -> None:
    sys.stderr.write(f"bench-kernel: {limit.subject} is past its {limit.seconds:g} s time limit in code "
                     f"that cannot be interrupted (a C call or a GPU wait); waiting for it to return\n")
    sys.stderr.flush()


class TimeLimit:
    """``with TimeLimit(seconds, label): ...`` raises :class:`Expired` inside the block after ``seconds``.

    seconds: None, 0 or inf means no limit.
    on_stuck: called (from the watchdog thread, with this limit) when the block has not stopped
        ``grace_s`` after expiry; default: one line on stderr.
    grace_s: default ``min(30, max(2, seconds / 10))``.
    subject: how messages name what runs (default ``case 'label'``; ``loading 'x.py:cases'``).
    """

    def __init__(self, seconds: float | None, label: str, *, on_stuck: Callable[["TimeLimit"], Any] | None = None,
                 grace_s: float | None = None, subject: str | None = None) -> None:
        self.seconds = seconds
        self.label = label
        self.subject = subject or f"case {label!r}"
        self.on_stuck = on_stuck or _warn_stuck
        limit_s = _limit_s(seconds)
        self.grace_s = grace_s if grace_s is not None else (min(30.0, max(2.0, limit_s / 10))
                                                            if limit_s is not None else 0.0)
        self.expired = False
        self._active = False
        self._sent = False
        self._finished = False
        #: set once the watchdog is done with this limit: it will never act on it again (tests wait on it)
        self.retired = threading.Event()
        self._lock = threading.Lock()
        self._old_handler: Any = None
        self._uses_signal = False
        self._token: Any = None

    @property
    def enabled(self) -> bool:
        return _limit_s(self.seconds) is not None

    def __enter__(self) -> "TimeLimit":
        limit_s = _limit_s(self.seconds)
        if limit_s is None:
            return self
        self._thread_id = threading.get_ident()
        self._uses_signal = (hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")
                             and threading.current_thread() is threading.main_thread())
        if self._uses_signal:
            self._old_handler = signal.signal(signal.SIGALRM, self._on_signal)
        self._active = True
        self._token = _current.set(self)
        _WATCHDOG.add(time.monotonic() + limit_s, self, "expire")
        return self

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self._active and self.expired:
            self._active = False  # raise once
            raise Expired()

    def _expire(self) -> bool:
        """(The watchdog, at the deadline.) Interrupt the block; False when it had already ended."""
        with self._lock:
            if self._finished:
                return False
            self.expired = True
            self._sent = True
            if self._uses_signal:
                signal.pthread_kill(self._thread_id, signal.SIGALRM)
            else:
                import ctypes

                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id),
                                                           ctypes.py_object(Expired))
        return True

    def _still_running(self) -> bool:
        with self._lock:
            return not self._finished

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self.enabled:
            return None
        self._active = False  # from here our handler never raises
        with self._lock:
            self._finished = True  # its deadline is skipped when it comes: nothing to wake for now
        _current.reset(self._token)
        if self._uses_signal:
            if self._sent and hasattr(signal, "sigtimedwait"):
                # A SIGALRM still queued for this thread must not meet the restored handler
                # (SIG_DFL would end the process): take it off the queue first.
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                try:
                    signal.sigtimedwait({signal.SIGALRM}, 0)
                finally:
                    signal.signal(signal.SIGALRM, self._old_handler)
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
            else:
                signal.signal(signal.SIGALRM, self._old_handler)
        # No PyThreadState_SetAsyncExc(tid, NULL) to clear an exception that has not landed: on
        # CPython 3.11 that leaves the interpreter's async-exception flag set, every bytecode then
        # takes the slow path, and torch's profiler (with_stack) never finished starting. The race
        # it would close needs the block to end within the few bytecodes after expiry.
        if exc_type is not None and issubclass(exc_type, Expired):
            # It landed outside guard() (in bench-kernel's own code between two user calls).
            raise TimeLimitError(f"{self.subject} timed out after {self.seconds:g} s") from None
        return None


class _Watchdog:
    """One daemon thread for every :class:`TimeLimit` of the process: it sleeps until the earliest
    deadline, interrupts that block, and ``grace_s`` later calls its ``on_stuck`` (in a thread of its
    own: the CLI's writes the results and exits, which must not hold up other limits).

    It is woken only by a deadline earlier than the one it sleeps towards: waking it per case made
    it compete with the case for the GIL (1.5 ms of each trivial case, measured). A limit that ends
    leaves its entry to be skipped when its deadline comes; ended entries are pruned every
    ``_PRUNE`` additions so the heap stays small.
    """

    _PRUNE = 1024

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, TimeLimit, str]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, when: float, limit: TimeLimit, phase: str) -> None:
        with self._cond:
            order = next(self._order)
            if order % self._PRUNE == self._PRUNE - 1:
                kept = [e for e in self._heap if e[2]._still_running()]
                for e in self._heap:
                    if not e[2]._still_running():
                        e[2].retired.set()
                self._heap = kept
                heapq.heapify(self._heap)
            earliest = self._heap[0][0] if self._heap else None
            heapq.heappush(self._heap, (when, order, limit, phase))
            if self._thread is None or not self._thread.is_alive():  # first use, or a forked child
                self._thread = threading.Thread(target=self._run, name="bench-kernel time limits", daemon=True)
                start_background(self._thread)
            elif earliest is None or when < earliest:
                self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and not self._heap[0][2]._still_running():
                    heapq.heappop(self._heap)[2].retired.set()
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                _, _, limit, phase = heapq.heappop(self._heap)
                if phase == "expire" and limit._expire():
                    heapq.heappush(self._heap, (time.monotonic() + limit.grace_s, next(self._order), limit,
                                                "stuck"))
                    continue
                if phase == "stuck" and limit._still_running():
                    threading.Thread(target=limit.on_stuck, args=(limit,), name="bench-kernel stuck case",
                                     daemon=True).start()
                limit.retired.set()


_WATCHDOG = _Watchdog()
