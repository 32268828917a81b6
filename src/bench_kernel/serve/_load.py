"""The load: when each request is due (``--request-rate``, ``--burstiness``) and how many may be
in flight (``--max-concurrency``), for ``--num-prompts`` requests or ``--duration`` seconds.

Arrivals are vLLM's: the gaps between requests are gamma-distributed with shape ``burstiness`` and
mean ``1 / rate`` (``burstiness`` 1 is a Poisson process; below 1 burstier, above 1 more regular;
vllm/benchmarks/serve.py, ``get_request``). The first request is due at 0. ``rate`` inf sends
every request at once (as concurrency allows). The same seed gives the same arrivals.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterator

import numpy as np

from bench_kernel.errors import UsageError

__all__ = ["Load", "arrivals"]


@dataclass(frozen=True)
class Load:
    """One load point: the request rate (req/s, inf = all at once), its burstiness, the cap on
    requests in flight, and how long to keep sending (``None``: until the prompts are used)."""

    request_rate: float = math.inf
    burstiness: float = 1.0
    max_concurrency: int | None = None
    duration_s: float | None = None

    def __post_init__(self) -> None:
        if not (self.request_rate > 0):
            raise UsageError(f"--request-rate {self.request_rate:g}: must be > 0 (inf: all at once)")
        if not (self.burstiness > 0) or math.isinf(self.burstiness):
            raise UsageError(f"--burstiness {self.burstiness:g}: must be a finite number > 0")
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise UsageError(f"--max-concurrency {self.max_concurrency}: must be at least 1")
        if self.duration_s is not None and not (0 < self.duration_s < math.inf):
            raise UsageError(f"--duration {self.duration_s:g}: must be a finite number of seconds > 0")
        if self.duration_s is not None and math.isinf(self.request_rate) and self.max_concurrency is None:
            raise UsageError("--duration with --request-rate inf needs --max-concurrency (else it would send "
                             "without end)")

    def describe(self) -> str:
        rate = "inf" if math.isinf(self.request_rate) else f"{self.request_rate:g}/s"
        parts = [f"rate {rate}"]
        if self.burstiness != 1.0:
            parts.append(f"burstiness {self.burstiness:g}")
        if self.max_concurrency is not None:
            parts.append(f"concurrency {self.max_concurrency}")
        if self.duration_s is not None:
            parts.append(f"{self.duration_s:g} s")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["request_rate"] = None if math.isinf(self.request_rate) else self.request_rate
        return d


def arrivals(load: Load, seed: int = 0) -> Iterator[float]:
    """Due times in seconds from the start, endless: the driver stops after ``--num-prompts`` or
    at ``duration_s``."""
    if math.isinf(load.request_rate):
        while True:
            yield 0.0
    rng = np.random.default_rng(seed)
    theta = 1.0 / (load.request_rate * load.burstiness)
    t = 0.0
    yield t
    while True:
        for gap in rng.gamma(load.burstiness, theta, size=256):
            t += float(gap)
            yield t
