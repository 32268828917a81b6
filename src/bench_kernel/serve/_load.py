"""The load (``records.Load``): when each request is due (``--request-rate``, ``--burstiness``) and
how many may be in flight (``--max-concurrency``), for ``--num-prompts`` requests or ``--duration``
seconds.

Arrivals are vLLM's: the gaps between requests are gamma-distributed with shape ``burstiness`` and
mean ``1 / rate`` (``burstiness`` 1 is a Poisson process; below 1 burstier, above 1 more regular;
vllm/benchmarks/serve.py, ``get_request``). The first request is due at 0. ``rate`` inf sends
every request at once (as concurrency allows). The same seed gives the same arrivals.

Ramp-up is vLLM's too (``--ramp-up-strategy linear|exponential --ramp-up-start-rps S
--ramp-up-end-rps E``, vllm/benchmarks/serve.py ``_get_current_request_rate``): request ``i`` of
``n`` is sent at the rate ``S + (E - S) * p`` (linear) or ``S * (E / S) ** p`` (exponential), with
``p = i / (n - 1)``; the gap before it is drawn at that rate. It needs a request count (not
``--duration``), replaces ``--request-rate``, and, unlike vLLM, refuses a start of 0 for both
strategies (vLLM accepts it for linear and then fails its own assert: a rate of 0 has no next
request).
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from bench_kernel.errors import UsageError
from bench_kernel.records import Load

__all__ = ["arrivals"]


def arrivals(load: Load, seed: int = 0, n: int | None = None) -> Iterator[float]:
    """Due times in seconds from the start, endless: the driver stops after ``--num-prompts`` or
    at ``duration_s``. A ramp needs ``n``, the requests it spreads over (after them, the end rate)."""
    if load.ramp is not None:
        if n is None:
            raise UsageError("--ramp-up-strategy needs a request count (--num-prompts)")
        rng = np.random.default_rng(seed)
        t, i = 0.0, 0
        yield t
        while True:
            i += 1
            rate = load.rate_at(min(i, n - 1), n)
            t += float(rng.gamma(load.burstiness, 1.0 / (rate * load.burstiness)))
            yield t
    if math.isinf(load.rate_rps):
        while True:
            yield 0.0
    rng = np.random.default_rng(seed)
    theta = 1.0 / (load.rate_rps * load.burstiness)
    t = 0.0
    yield t
    while True:
        for gap in rng.gamma(load.burstiness, theta, size=256):
            t += float(gap)
            yield t
