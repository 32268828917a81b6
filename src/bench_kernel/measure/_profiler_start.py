"""The profiler's first session of a process: paid once, apart from any samples, and named in the cost.

The first ``torch.profiler`` session with CUDA activity in a process costs seconds: 5.9 s on the
project's H200, all of it in ``prepare_trace`` (CUPTI starting), against ~5 ms for each later
session (benchmarks/results/speed-h200.md). Paid inside the ``kernel`` method's first session it
used up that round's time bound and hid in its wall time. :func:`start_profiler` opens and closes
an empty session before the method's first one, once per process, and says how long it took: the
method records it (``env["profiler_start_s"]``) and ``run``'s footer names it.

Why not in a background thread, overlapped with the load and the first methods (``prepare_trace``
releases the GIL): tried on the H200, it saved 2.5-3.5 s of ``bench-kernel run``'s ~12 s, but
Kineto printed "ERROR: External init callback must run in same thread as registerClient" on every
run, the first case's ``events`` round that ran while CUPTI started read +/-211%, and a
memory-bound add's ``graph`` read 21% above its kernels in that process (15% is the test's bound).
A measurement that is wrong is not worth 3 s.
"""

from __future__ import annotations

import threading
import time
import warnings

__all__ = ["start_profiler"]

_LOCK = threading.Lock()
_STARTED: list[float] = []


def start_profiler() -> float:
    """Open and close one empty profiler session if none was opened in this process yet; the
    seconds it took (0.0 when one already was). A failure is left for the real session to raise."""
    with _LOCK:
        if _STARTED:
            return 0.0
        t0 = time.perf_counter()
        try:
            from torch.profiler import ProfilerActivity, profile

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # empty-trace warnings
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                    pass
        except Exception:  # noqa: BLE001 - the kernel method's own session reports what is wrong
            pass
        _STARTED.append(time.perf_counter() - t0)
        return _STARTED[0]
