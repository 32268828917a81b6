"""The ``host`` method: wall clock around batches of calls, synchronised at the end.

The only method without a GPU, and on a GPU the cost a Python caller sees, launch included.
"""

from __future__ import annotations

import time

from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._method import Timed
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.records import Measurement

__all__ = ["HostMethod"]

#: One sample lasts at least this long (us), so timer resolution and call jitter average out.
SAMPLE_TARGET_US = 1000.0


class HostMethod:
    """Per-call wall time: ``perf_counter`` around ``calls_per_sample`` calls plus one sync.

    cache: the L2 state the input rotation gives the calls (``"cold"`` when the sets exceed L2).
    """

    name = "host"

    def __init__(self, cache: str) -> None:
        self.cache = cache

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Sample until ``rule`` is finished."""
        cps = calls_to_fill(SAMPLE_TARGET_US, runner.est_us, hi=100_000)
        t_start = time.perf_counter()

        def loop() -> None:
            while not rule.is_finished():
                t0 = time.perf_counter()
                for _ in range(cps):
                    runner.call()
                runner.sync()
                rule.add([(time.perf_counter() - t0) / cps * 1e6])

        runner.guarded("host timing", loop)
        return Timed(Measurement.of("host", rule.samples, calls_per_sample=cps, cache=self.cache,
                                 stop_reason=rule.reason, wall_s=time.perf_counter() - t_start))
