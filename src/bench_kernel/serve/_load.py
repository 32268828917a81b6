"""The load: when each request is due (``--request-rate``, ``--burstiness``) and how many may be
in flight (``--max-concurrency``), for ``--num-prompts`` requests or ``--duration`` seconds.

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
    #: vLLM's ramp-up (module docstring): ``None``, ``"linear"`` or ``"exponential"``, from/to req/s
    ramp_up_strategy: str | None = None
    ramp_up_start_rps: float | None = None
    ramp_up_end_rps: float | None = None

    def __post_init__(self) -> None:
        if self.ramp_up_strategy is not None:
            self._check_ramp()
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

    def _check_ramp(self) -> None:
        s, e = self.ramp_up_start_rps, self.ramp_up_end_rps
        if self.ramp_up_strategy not in ("linear", "exponential"):
            raise UsageError(f"--ramp-up-strategy {self.ramp_up_strategy!r}: expected linear or exponential")
        if s is None or e is None:
            raise UsageError("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps")
        if not (0 < s < math.inf) or not (0 < e < math.inf):
            raise UsageError(f"--ramp-up-start-rps {s:g} / --ramp-up-end-rps {e:g}: each must be a finite rate > 0 "
                             f"(a rate of 0 has no next request)")
        if s > e:
            raise UsageError(f"--ramp-up-start-rps {s:g} is above --ramp-up-end-rps {e:g}: a ramp goes up")
        if not math.isinf(self.request_rate):
            raise UsageError("--ramp-up-strategy sets the rate: leave --request-rate out")
        if self.duration_s is not None:
            raise UsageError("--ramp-up-strategy spreads the ramp over --num-prompts requests: leave --duration out")

    def rate_at(self, i: int, n: int) -> float:
        """The request rate (req/s) request ``i`` of ``n`` is sent at."""
        if self.ramp_up_strategy is None:
            return self.request_rate
        s, e = float(self.ramp_up_start_rps), float(self.ramp_up_end_rps)  # type: ignore[arg-type]
        p = i / max(n - 1, 1)
        return s + (e - s) * p if self.ramp_up_strategy == "linear" else s * (e / s) ** p

    def describe(self) -> str:
        rate = "inf" if math.isinf(self.request_rate) else f"{self.request_rate:g}/s"
        parts = [f"rate {rate}"]
        if self.ramp_up_strategy is not None:
            parts = [f"{self.ramp_up_strategy} ramp {self.ramp_up_start_rps:g}-{self.ramp_up_end_rps:g}/s"]
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
        if self.ramp_up_strategy is None:  # the stored key of a plain load is unchanged (compare matches on it)
            for k in ("ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps"):
                del d[k]
        return d


def arrivals(load: Load, seed: int = 0, n: int | None = None) -> Iterator[float]:
    """Due times in seconds from the start, endless: the driver stops after ``--num-prompts`` or
    at ``duration_s``. A ramp needs ``n``, the requests it spreads over (after them, the end rate)."""
    if load.ramp_up_strategy is not None:
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
