"""Work per call (FLOPs, bytes) and the roofline placement of a result (``run --roofline``).

Given counts win; missing ones come from ``bench_kernel.roofline.count`` on one input set.
The device is resolved BEFORE anything is timed, so an unknown device fails in a second, not
after a whole suite.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from bench_kernel.errors import DeviceError
from bench_kernel.measure._case import Case
from bench_kernel.measure._inputs import iter_tensors
from bench_kernel.measure._records import BenchResult

__all__ = ["resolve_device", "infer_dtype", "with_counts", "place", "plot_results"]


def resolve_device(name: str | None, gpu: bool) -> Any:
    """The peak-table spec for ``name``, else the current GPU's; DeviceError without either."""
    from bench_kernel.hardware import detect_device, get_device

    if name:
        return get_device(name)
    if not gpu:
        raise DeviceError("--roofline needs a GPU to detect, or --device NAME (see 'bench-kernel devices')")
    return detect_device()


def infer_dtype(case: Case, inputs: Any) -> str:
    """The case's ``params["dtype"]``, else the floating dtype holding most input bytes."""
    if case.params.get("dtype"):
        return str(case.params["dtype"])
    weight: Counter[str] = Counter()
    for t in iter_tensors(inputs):
        if t.dtype.is_floating_point:
            weight[str(t.dtype)] += t.numel() * t.element_size()
    return weight.most_common(1)[0][0] if weight else "fp32"


def with_counts(case: Case, inputs: Any) -> tuple[Case, list[str]]:
    """``case`` with FLOPs/bytes filled in by counting one call where they were not given."""
    if case.flops is not None and case.bytes is not None:
        return case, []
    from bench_kernel.roofline import count

    if isinstance(inputs, dict):
        counts = count(case.fn, **inputs)
    elif isinstance(inputs, (list, tuple)):
        counts = count(case.fn, *inputs)
    elif inputs is None:
        counts = count(case.fn)
    else:
        counts = count(case.fn, inputs)
    notes = []
    flops, nbytes = case.flops, case.bytes
    if flops is None:
        flops = float(counts.flops)
        notes.append(f"FLOPs counted by torch's FlopCounterMode: {counts.flops:.4g}")
    if nbytes is None:
        nbytes = float(counts.bytes)
        notes.append(f"bytes counted as each distinct tensor read once and written once: {counts.bytes:.4g}")
    return replace(case, flops=flops, bytes=nbytes), notes


def place(result: BenchResult, spec: Any, dtype: str) -> BenchResult:
    """``result`` with its ``roofline`` filled in (a note says why when it cannot be)."""
    from bench_kernel.roofline import roofline

    t = result.time_us
    if t is None or not result.bytes:
        return replace(result, notes=result.notes + ("roofline: no time or no bytes to place",))
    method = result.primary_method
    try:
        r = roofline(result.flops or 0.0, result.bytes, t, device=spec, dtype=dtype, name=result.name,
                     events_us=result.median_us("events"), graph_us=result.median_us("graph"),
                     timed_with=method if method in ("graph", "events") else "graph")
    except DeviceError as e:
        return replace(result, notes=result.notes + (f"roofline: {e}",))
    return replace(result, roofline=r)


def plot_results(results: list[BenchResult], path: str) -> list[str]:
    """Roofline plot(s) of the results that were placed: one file per dtype (``name-<dtype>.png``
    when there are several). Returns the paths written."""
    from pathlib import Path

    from bench_kernel.hardware import load_calibration
    from bench_kernel.roofline import plot_roofline

    placed = [r.roofline for r in results if r.roofline is not None]
    if not placed:
        raise DeviceError("nothing to plot: no result could be placed under a roofline")
    by_dtype: dict[str, list[Any]] = {}
    for r in placed:
        by_dtype.setdefault(r.dtype, []).append(r)
    out = Path(path)
    written = []
    for dtype, points in by_dtype.items():
        target = out if len(by_dtype) == 1 else out.with_name(f"{out.stem}-{dtype}{out.suffix}")
        device = points[0].device
        written.append(str(plot_roofline({p.name: p for p in points}, device, dtype, target,
                                         measured=load_calibration(device))))
    return written
