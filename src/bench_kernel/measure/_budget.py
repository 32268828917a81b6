"""How many calls fill a time budget: the one helper every method sizes its batches with.

A method wants a sample, a graph, a profiler session or a batch between synchronisations to last
about some target time, so short kernels are timed over several calls and long ones one at a time.
"""

from __future__ import annotations

import math

__all__ = ["SYNC_BATCH_US", "calls_to_fill"]

#: Device time (us) enqueued between two host synchronisations: long enough that the sync's own
#: cost is amortised, short enough that a precision check comes every ~20 ms.
SYNC_BATCH_US = 20_000.0
#: A per-call estimate is never taken below this (us), so a zero estimate cannot divide by zero.
_MIN_PER_CALL_US = 1e-3


def calls_to_fill(target_us: float, per_call_us: float, lo: int = 1, hi: int = 1_000_000) -> int:
    """The number of calls of ``per_call_us`` each that fill ``target_us``, rounded up, within ``[lo, hi]``."""
    n = math.ceil(target_us / max(per_call_us, _MIN_PER_CALL_US))
    return int(min(max(n, lo), hi))
