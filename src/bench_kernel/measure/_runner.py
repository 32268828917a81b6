"""The callable under test with its input sets: calling in rotation, warm-up, time estimates."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from bench_kernel.errors import MeasurementError
from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._inputs import call_with

__all__ = ["Runner", "guard"]

#: Warm-up ends when two consecutive batches agree within this fraction ...
STABLE_FRACTION = 0.05
#: ... or after this long (seconds), not counting the first call (JIT, autotune).
WARMUP_MAX_S = 0.5
#: A warm-up batch grows towards this long (us), so one batch is long enough to time on the host.
WARMUP_BATCH_US = 5000.0


def guard(name: str, what: str, action: Callable[[], Any]) -> Any:
    """Run ``action``; anything the user's code raises becomes a MeasurementError naming ``name``."""
    try:
        return action()
    except MeasurementError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's callable may raise anything
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise MeasurementError(f"{name!r} raised {type(e).__name__} during {what}: {first}") from e


@dataclass
class Runner:
    """Calls ``fn`` on input set ``i mod K``; knows whether a GPU must be synchronised."""

    fn: Callable[..., Any]
    input_sets: Sequence[Any]
    name: str
    gpu: bool
    device_index: int = 0
    i: int = 0
    #: per-call wall time after warm-up, host and device included (microseconds)
    est_us: float = 0.0
    #: host time to enqueue one call without waiting for the device (microseconds)
    host_us: float = 0.0
    first_call_s: float = 0.0
    warmup_calls: int = 0
    notes: list[str] = field(default_factory=list)

    def call(self, index: int | None = None) -> Any:
        k = self.i if index is None else index
        self.i += 1
        return call_with(self.fn, self.input_sets[k % len(self.input_sets)])

    def sync(self) -> None:
        if self.gpu:
            import torch

            torch.cuda.synchronize(self.device_index)

    def guarded(self, what: str, action: Callable[[], Any]) -> Any:
        """:func:`guard` for this runner's callable."""
        return guard(self.name, what, action)

    def _timed_batch(self, calls: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        for _ in range(calls):
            self.call()
        t1 = time.perf_counter()
        self.sync()
        t2 = time.perf_counter()
        return (t1 - t0) / calls * 1e6, (t2 - t0) / calls * 1e6

    def warmup(self, max_s: float = WARMUP_MAX_S) -> None:
        """Call until the per-call time is stable: JIT, autotuning, lazy init happen here."""

        def run() -> None:
            t0 = time.perf_counter()
            self.call()
            self.sync()
            self.first_call_s = time.perf_counter() - t0
            start = time.perf_counter()
            batch, prev, calls = 1, None, 1
            while True:
                host, wall = self._timed_batch(batch)
                calls += batch
                if prev is not None and abs(wall - prev) <= STABLE_FRACTION * prev and calls >= 8:
                    break
                if time.perf_counter() - start > max_s:
                    self.notes.append(f"warm-up did not stabilise within {max_s:g} s ({calls} calls)")
                    break
                prev = wall
                batch = min(batch * 2, calls_to_fill(WARMUP_BATCH_US, wall, hi=4096))
            self.est_us, self.host_us, self.warmup_calls = wall, host, calls

        self.guarded("warm-up", run)
