"""The ``events`` method: CUDA/HIP events around each sample, behind a backlog kernel.

As in ``triton.testing.do_bench``: per sample, [flush L2] -> backlog spin -> start event ->
calls -> end event. The backlog keeps the device busy while the host enqueues the sample, so
Python's time between calls is not timed; the device-side cost of each launch is. A cold sample's
flush is device work queued before the start event too, so the spin only adds what the flush does
not already cover.
"""

from __future__ import annotations

import time

from bench_kernel.gpu import EventTimer, sleep_us
from bench_kernel.measure._budget import SYNC_BATCH_US, calls_to_fill
from bench_kernel.measure._inputs import L2Flusher
from bench_kernel.measure._method import Timed
from bench_kernel.measure._runner import Runner
from bench_kernel.measure._stopping import StoppingRule, note_step
from bench_kernel.records import Measurement

__all__ = ["EventsMethod"]

#: Warm samples batch calls until a sample lasts this long (us): event resolution is ~0.5 us.
WARM_SAMPLE_US = 50.0
#: The backlog covers the host's enqueue time this many times over, plus a margin (us).
BACKLOG_FACTOR, BACKLOG_MARGIN_US, BACKLOG_MAX_US = 1.5, 20.0, 50_000.0


class EventsMethod:
    """Per-call device time between two events, host gaps hidden, launch cost included.

    flusher: flush L2 before every sample (cold), or None (warm).
    rotation_cache: the L2 state the input rotation alone gives the calls: ``"cold"`` when the sets
        are larger than L2, so a sample may hold several calls and still be cold.
    """

    name = "events"

    def __init__(self, flusher: L2Flusher | None, rotation_cache: str = "warm") -> None:
        self.flusher = flusher
        self.rotation_cache = rotation_cache
        self._timer: EventTimer | None = None  # kept for the next round: 2 x 200 events to make

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Sample until ``rule`` is finished; a cold sample holds one call unless the inputs rotate beyond L2."""
        flusher = self.flusher
        # Event timestamps resolve ~0.5 us: several calls per sample make a short kernel's time
        # exact, which keeps it cold only if the calls rotate over input sets beyond L2.
        batch = calls_to_fill(WARM_SAMPLE_US, runner.est_us, hi=1000)
        cps = batch if (flusher is None or self.rotation_cache == "cold") else 1
        backlog = min(BACKLOG_FACTOR * runner.host_us * cps + BACKLOG_MARGIN_US, BACKLOG_MAX_US)
        if flusher is not None:
            # The flush runs on the device while the host enqueues the start event and the calls:
            # only what it does not cover is spun (it was ~45% of a launch-bound cold sample).
            backlog = max(0.0, backlog - flusher.device_us())
        per_sync = calls_to_fill(SYNC_BATCH_US, runner.est_us * cps + backlog, hi=200)
        if self._timer is None or self._timer.n < per_sync:
            self._timer = EventTimer(per_sync)
        timer = self._timer
        t0 = time.perf_counter()

        def before() -> None:
            if flusher is not None:
                flusher.flush()
            sleep_us(backlog, runner.device_index)

        def calls() -> None:
            for _ in range(cps):
                runner.call()

        def loop() -> None:
            while not rule.is_finished():
                batch = [us / cps for us in timer.time(calls, rule.next_batch(per_sync), before)]
                rule.add(batch)
                note_step(rule, batch)  # the event timer's step

        runner.guarded("events timing", loop)
        return Timed(Measurement.of("events", rule.samples, calls_per_sample=cps,
                                 cache="cold" if flusher is not None else "warm", stop_reason=rule.reason,
                                 wall_s=time.perf_counter() - t0))
