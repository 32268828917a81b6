"""The ``graph`` method: N calls captured in one CUDA/HIP graph, replayed, time / N.

The seed's method and ``triton.testing.do_bench_cudagraph``'s: launch overhead vanishes, so
what is left is the kernels plus the small gaps between graph nodes. Capture happens on a side
stream after a warm-up on that stream (cuBLAS and friends allocate workspaces lazily). Calls
inside the graph rotate over the input sets, so a cold-cache graph is possible.
"""

from __future__ import annotations

import math
import time
from typing import Any

from bench_kernel.gpu import EventTimer
from bench_kernel.measure._budget import SYNC_BATCH_US, calls_to_fill
from bench_kernel.measure._method import Timed
from bench_kernel.measure._runner import Runner, user_error
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.records import Measurement

__all__ = ["GraphMethod", "explain_capture_error", "reset_capture_state"]

#: One replay should last about this long (us) so event resolution (~0.5 us) does not matter (0.05%);
#: each round takes at least min_samples replays, so a longer one only makes rounds longer (2 ms made
#: a round of a 270 us attention kernel 40 ms on the H200; 1 ms halves it) ...
REPLAY_TARGET_US = 1000.0
#: ... with at most this many calls captured.
MAX_CALLS = 1000

_CAPTURE_HINTS = (
    ("operation not permitted when stream is capturing",
     "it synchronises with the host while captured (.item(), .cpu(), .tolist(), printing a tensor, torch.cuda.synchronize)"),
    ("capture",
     "it performs an operation that cannot be captured (a host sync, a pageable copy, a non-capturable allocation)"),
)


def _root_cause(exc: BaseException) -> BaseException:
    # Leaving torch.cuda.graph() after a failure raises "operation failed due to a previous
    # error during capture", hiding the real one in __context__: report the first error.
    seen = {id(exc)}
    while exc.__context__ is not None and id(exc.__context__) not in seen:
        exc = exc.__context__
        seen.add(id(exc))
    return exc


def explain_capture_error(exc: BaseException) -> str:
    """One sentence: why capture failed, and what to do about it."""
    root = _root_cause(exc)
    text = " ".join(str(root).split())
    # CUDA error texts append a long "Search for ... in https://..." hint: keep the first sentence.
    first = text.split(" Search for ")[0].split("CUDA kernel errors might")[0].strip()[:160]
    for needle, hint in _CAPTURE_HINTS:
        if needle in text.lower():
            return f"cannot capture in a CUDA graph: {hint} ({type(root).__name__}: {first})"
    return f"cannot capture in a CUDA graph: {type(root).__name__}: {first}"


def reset_capture_state(device_index: int = 0) -> None:
    """Undo what a failed capture leaves behind in torch.

    ``CUDAGraph.capture_end`` raises before it takes torch's CUDA generators out of capture
    mode, and every later random op then fails ("Offset increment outside graph capture").
    Seen on an H200 with torch 2.11. An empty capture runs the prologue/epilogue pair again.
    """
    import warnings

    import torch

    side = torch.cuda.Stream(device=device_index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the CUDA Graph is empty"
        with torch.cuda.graph(torch.cuda.CUDAGraph(), stream=side):
            pass
    torch.cuda.synchronize(device_index)


class GraphMethod:
    """Per-call time = replay time / captured calls.

    rotation_sets: input sets the calls rotate over (a graph holds whole rotations).
    cache: the L2 state that rotation gives (``"cold"`` when the sets exceed L2).
    """

    name = "graph"

    def __init__(self, rotation_sets: int = 1, cache: str = "warm") -> None:
        self.rotation_sets = rotation_sets
        self.cache = cache
        # Captured once, replayed in every round of the case: a capture costs ~20 ms for 1000
        # small calls on an H200, and the graph is the same whatever the round. A capture that
        # failed is not tried again.
        self._graph: Any = None
        self._calls = 0
        self._failed: str | None = None

    def calls_to_capture(self, est_us: float) -> int:
        """Calls in one graph: enough for a replay of ``REPLAY_TARGET_US``, rounded up to whole input rotations."""
        k = self.rotation_sets
        n = calls_to_fill(REPLAY_TARGET_US, est_us, hi=MAX_CALLS)
        # A whole number of rotations: otherwise the next replay's first call would reuse the
        # set the previous replay's last call just touched, warm in L2.
        return int(max(math.ceil(n / k), 1) * k)

    def _capture(self, runner: Runner) -> None:
        """Capture ``calls_to_capture`` calls into ``self._graph``, or set ``self._failed``."""
        import torch

        n_calls = self.calls_to_capture(runner.est_us)
        graph = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream(device=runner.device_index)
        try:
            side.wait_stream(torch.cuda.current_stream(runner.device_index))
            with torch.cuda.stream(side):
                for _ in range(2):
                    runner.call()
            torch.cuda.current_stream(runner.device_index).wait_stream(side)
            torch.cuda.synchronize(runner.device_index)
            with torch.cuda.graph(graph, stream=side):
                for j in range(n_calls):
                    runner.call(j)
            torch.cuda.synchronize(runner.device_index)
        except Exception as e:  # noqa: BLE001 - any capture failure is a result, not a crash
            reason = explain_capture_error(e)
            try:
                torch.cuda.synchronize(runner.device_index)
                reset_capture_state(runner.device_index)
            except Exception as e2:  # noqa: BLE001
                reason += f"; the device is unusable afterwards ({type(e2).__name__})"
            self._failed = reason
            return
        except BaseException as e:  # sys.exit(), a time limit, Ctrl-C: leave capture mode, then go up
            try:
                torch.cuda.synchronize(runner.device_index)
                reset_capture_state(runner.device_index)
            except Exception:  # noqa: BLE001 - the original error is the one to report
                pass
            err = user_error(runner.name, "graph capture", e)
            if err is e:
                raise
            raise err from None
        graph.replay()  # first replay uploads the graph: keep it out of the samples
        torch.cuda.synchronize(runner.device_index)
        self._graph, self._calls = graph, n_calls

    def run(self, runner: Runner, rule: StoppingRule) -> Timed:
        """Capture (in the first round), replay until ``rule`` is finished; a capture failure becomes the result."""
        t0 = time.perf_counter()
        if self._graph is None and self._failed is None:
            self._capture(runner)
        if self._failed is not None:
            return Timed(Measurement.failed("graph", self._failed, cache=self.cache, wall_s=time.perf_counter() - t0))
        graph, n_calls = self._graph, self._calls
        per_sync = calls_to_fill(SYNC_BATCH_US, runner.est_us * n_calls, hi=100)
        timer = EventTimer(per_sync)

        def loop() -> None:
            while not rule.is_finished():
                rule.add([us / n_calls for us in timer.time(graph.replay, rule.next_batch(per_sync))])

        runner.guarded("graph replay", loop)
        return Timed(Measurement.of("graph", rule.samples, calls_per_sample=n_calls, cache=self.cache,
                                 stop_reason=rule.reason, wall_s=time.perf_counter() - t0))
