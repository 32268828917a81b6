"""``bench(..., counters=True)``: after the timings (and the model's roofline), count the call's bytes and
FLOPs with the hardware counters and place them on the hierarchical roofline beside the model.

Counting happens after timing, in a child process under the counter tool (``measure.collect_counters``):
it cannot change what was timed. Anything the environment refuses (no tool, no permission, no GPU) is
one note on the result, never a lost case.
"""

from __future__ import annotations

from typing import Any, Callable

from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.measure import (
    Case,
    Expired,
    attach_counters,
    collect_counters,
    current_limit,
)
from bench_kernel.records import BenchResult, CounterReport, warning

__all__ = ["add_counters"]


def add_counters(case: Case, result: BenchResult, spec: Any, *, device_index: int = 0, timeout_s: float,
                 progress: Callable[[str], None] | None = None) -> BenchResult:
    """``result`` with ``counters`` (what the hardware counted for one call) and ``measured_roofline``
    (those counts on ``spec``'s DRAM/L2/L1 roofline, the model checked against them)."""
    from bench_kernel.roofline import place_measured

    if result.correct is False:
        return result
    try:
        report = collect_counters(case, result, device_index=device_index, timeout_s=timeout_s, progress=progress)
    except Expired:  # a caller's limit around the whole case (run --timeout): the timings stay
        limit = current_limit()
        after = f" ({limit.seconds:g} s)" if limit is not None else ""
        report = CounterReport("none", error=f"the case's time limit{after} ran out while counting; the counter "
                                             f"tool and its child were stopped")
    result = attach_counters(result, report)
    if not report.ok or spec is None or not result.time_us:
        return result
    try:
        placed = place_measured(report, result.time_us, device=spec, name=result.name,
                                time_method=result.primary_method or "graph", model_flops=result.flops,
                                model_bytes=result.bytes,
                                model_dtype=result.roofline.dtype if result.roofline is not None else None)
    except (UsageError, DeviceError) as e:
        return result.with_notes(warning("counters-not-placed", f"counters: not placed: {e}"))
    return result.replace(measured_roofline=placed, notes=result.notes + tuple(n.prefixed("counters") for n in placed.notes))
