"""The ``events`` method: CUDA/HIP events around each sample, behind a backlog kernel.

As in ``triton.testing.do_bench``: per sample, [flush L2] -> backlog spin -> start event ->
calls -> end event. The backlog keeps the device busy while the host enqueues the sample, so
Python's time between calls is not timed; the device-side cost of each launch is.
"""

from __future__ import annotations

import math
import time

from bench_kernel.measure._backlog import sleep_us
from bench_kernel.measure._inputs import L2Flusher
from bench_kernel.measure._records import Measurement
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule

__all__ = ["EventsMethod"]

#: Warm samples batch calls until a sample lasts this long (us): event resolution is ~0.5 us.
WARM_SAMPLE_US = 50.0
#: Samples enqueued between two synchronisations: about this much device time (us).
SYNC_BATCH_US = 20_000.0
#: The backlog covers the host's enqueue time this many times over, plus a margin (us).
BACKLOG_FACTOR, BACKLOG_MARGIN_US, BACKLOG_MAX_US = 1.5, 20.0, 50_000.0


class EventsMethod:
    """Per-call device time between two events, host gaps hidden, launch cost included."""

    name = "events"

    def __init__(self, flusher: L2Flusher | None, rotated_cold: bool = False) -> None:
        self.flusher = flusher
        #: Inputs rotate beyond L2: a sample may hold several calls and still be cold.
        self.rotated_cold = rotated_cold

    def run(self, runner: Runner, rule: StoppingRule, cache: str) -> Measurement:
        """Sample until ``rule`` is finished; cold = L2 flushed before every sample, and a sample
        holds one call unless the inputs rotate beyond L2."""
        import torch

        cold = cache == "cold" and self.flusher is not None
        # Event timestamps resolve ~0.5 us: several calls per sample make a short kernel's time
        # exact, which keeps it cold only if the calls rotate over input sets beyond L2.
        batch = int(min(max(math.ceil(WARM_SAMPLE_US / max(runner.est_us, 1e-3)), 1), 1000))
        cps = batch if (not cold or self.rotated_cold) else 1
        backlog = min(BACKLOG_FACTOR * runner.host_us * cps + BACKLOG_MARGIN_US, BACKLOG_MAX_US)
        per_batch = int(min(max(SYNC_BATCH_US // (runner.est_us * cps + backlog), 1), 200))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(per_batch)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(per_batch)]
        t0 = time.perf_counter()

        def loop() -> None:
            while not rule.is_finished():
                n = rule.remaining(per_batch)
                for s in range(n):
                    if cold:
                        self.flusher.flush()
                    sleep_us(backlog, runner.device_index)
                    starts[s].record()
                    for _ in range(cps):
                        runner.call()
                    ends[s].record()
                ends[n - 1].synchronize()
                rule.add([starts[s].elapsed_time(ends[s]) * 1e3 / cps for s in range(n)])

        runner.guarded("events timing", loop)
        return Measurement("events", rule.samples, calls_per_sample=cps,
                           cache="cold" if cold else cache, stop_reason=rule.reason,
                           wall_s=time.perf_counter() - t0)
