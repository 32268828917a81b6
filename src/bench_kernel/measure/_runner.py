"""The callable under test with its input sets: calling in rotation, warm-up, time estimates."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from bench_kernel.errors import MeasurementError, TimeLimitError
from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._exits import ProcessExit, exit_call, exits_raise
from bench_kernel.measure._inputs import call_with
from bench_kernel.measure._limit import Expired, current_limit
from bench_kernel.records import Note, warning

__all__ = ["Runner", "guard", "user_error"]

#: Warm-up ends when two consecutive batches agree within this fraction ...
STABLE_FRACTION = 0.05
#: ... or after this long (seconds), not counting the first call (JIT, autotune). A GPU kernel's
#: time is stable within ms (1-12 ms on an H200); on a loaded CPU it may never be, and every second
#: spent here is time beyond the timing asked for (0.5 s once made the warm-up a case's largest cost).
WARMUP_MAX_S = 0.2
#: A warm-up batch grows towards this long (us), so one batch is long enough to time on the host.
WARMUP_BATCH_US = 5000.0


def _first_line(e: BaseException) -> str:
    """``": <first line of the message>"``, or nothing for an exception without one."""
    text = str(e).strip()
    return f": {text.splitlines()[0]}" if text else ""


def user_error(name: str, what: str, e: BaseException) -> BaseException:
    """What to raise for ``e``, raised by case ``name``'s code during ``what``: ONE MeasurementError.

    ``sys.exit()``, ``os._exit()`` (inside :func:`guard`) and BaseException subclasses too: user
    code must not end or crash the run.
    KeyboardInterrupt (Ctrl-C interrupts) and our own MeasurementErrors are returned unchanged; a
    time limit's :class:`Expired` becomes a TimeLimitError that says what the case was doing.
    """
    if isinstance(e, (MeasurementError, KeyboardInterrupt)):
        return e
    if isinstance(e, Expired):
        limit = current_limit()
        after = f" after {limit.seconds:g} s" if limit is not None else ""
        return TimeLimitError(f"case {name!r} timed out{after} during {what}")
    if isinstance(e, (SystemExit, ProcessExit)):
        return MeasurementError(f"case {name!r} called {exit_call(e)} during {what}")
    kind = type(e).__name__ if isinstance(e, Exception) else f"{type(e).__name__} (a BaseException)"
    err = MeasurementError(f"case {name!r} raised {kind} during {what}{_first_line(e)}")
    err.__cause__ = e
    return err


def guard(name: str, what: str, action: Callable[[], Any]) -> Any:
    """Run ``action`` (user code); whatever it raises becomes ONE MeasurementError naming the case
    (see :func:`user_error`)."""
    try:
        with exits_raise():
            return action()
    except BaseException as e:  # noqa: BLE001 - the user's code may raise (or exit) anything
        err = user_error(name, what, e)
        if err is e:
            raise
        raise err from (e if err.__cause__ is e else None)


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
    notes: list[Note] = field(default_factory=list)

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
                    self.notes.append(warning("warmup-unstable", f"warm-up did not stabilise within {max_s:g} s "
                                              f"({calls} calls)", calls=calls, max_s=max_s))
                    break
                prev = wall
                batch = min(batch * 2, calls_to_fill(WARMUP_BATCH_US, wall, hi=4096))
            self.est_us, self.host_us, self.warmup_calls = wall, host, calls

        self.guarded("warm-up", run)
