"""The profiler's first session of a process, started early in a thread of its own.

The first ``torch.profiler`` session with CUDA activity in a process costs seconds: 3.7 s and
4.8 s on the project's H200 (benchmarks/results/fidelity-h200.md, speed-h200.md), against ~5 ms
for each later one. ``bench-kernel run`` paid it inside its first case's ``kernel`` method. Its
preparation (``_prepare_profiler``, where CUPTI is brought up) releases the GIL, so an empty
session started in a thread as soon as a run knows it will use the ``kernel`` method overlaps it
with what comes first: loading the target, the device warm-up, the first case's inputs, warm-up
and other methods. The ``kernel`` method waits for that session before its own (two profiler
sessions at once are refused), and the time it waited is recorded (``env["profiler_start_s"]``).

The empty session records nothing of its own; CUDA work launched meanwhile by the main thread
(the warm-up's GEMMs) may be recorded by it and is dropped with it. A failure in the thread is
kept and the ``kernel`` method then simply opens its session itself.
"""

from __future__ import annotations

import threading
import time
import warnings
from typing import Any

__all__ = ["start_profiler", "wait_profiler"]

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {}


def _first_session() -> None:
    t0 = time.perf_counter()
    try:
        from torch.profiler import ProfilerActivity, profile

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "profiler cycle clears events", empty-trace warnings
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                pass
    except Exception as e:  # noqa: BLE001 - the kernel method starts its own session instead
        _STATE["error"] = f"{type(e).__name__}: {e}"
    _STATE["session_s"] = time.perf_counter() - t0


def start_profiler() -> None:
    """Start the process's first profiler session in a daemon thread (once; later calls do nothing)."""
    with _LOCK:
        if "thread" in _STATE:
            return
        thread = threading.Thread(target=_first_session, name="bench-kernel-profiler-start", daemon=True)
        _STATE["thread"] = thread
        thread.start()


def wait_profiler(timeout_s: float = 120.0) -> float:
    """Wait for the session :func:`start_profiler` started (if any); the seconds waited."""
    thread = _STATE.get("thread")
    if thread is None or not thread.is_alive():
        return 0.0
    t0 = time.perf_counter()
    thread.join(timeout_s)
    return time.perf_counter() - t0
