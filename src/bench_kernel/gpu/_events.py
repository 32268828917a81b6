"""The one event timer: enqueue N timed iterations between CUDA/HIP event pairs, sync once.

Everything in bench-kernel that times with events goes through :func:`time_each_us`: the
``events`` and ``graph`` methods and calibration. Recording all pairs before one synchronisation
keeps the host off the timeline; a caller that also needs host gaps hidden queues a backlog
(:func:`~bench_kernel.gpu.sleep_us`) in ``before``.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["EventTimer", "time_each_us"]


class EventTimer:
    """``n`` reusable event pairs; :meth:`time` enqueues up to ``n`` iterations and returns their us."""

    def __init__(self, n: int) -> None:
        import torch

        self.n = n
        self._starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        self._ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]

    def time(self, body: Callable[[], Any], count: int | None = None,
             before: Callable[[], Any] | None = None) -> list[float]:
        """Per-iteration device time (us) of ``count`` (default ``n``) iterations of
        ``[before()] start body() end``, all enqueued before one wait on the last end event."""
        count = self.n if count is None else count
        if not 0 < count <= self.n:
            raise ValueError(f"count must be in 1..{self.n}, got {count}")
        for s in range(count):
            if before is not None:
                before()
            self._starts[s].record()
            body()
            self._ends[s].record()
        self._ends[count - 1].synchronize()
        return [self._starts[s].elapsed_time(self._ends[s]) * 1e3 for s in range(count)]


def time_each_us(body: Callable[[], Any], n: int, before: Callable[[], Any] | None = None) -> list[float]:
    """Device time (us) of each of ``n`` iterations of ``body``; see :meth:`EventTimer.time`."""
    return EventTimer(n).time(body, n, before)
