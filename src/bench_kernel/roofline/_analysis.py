"""Roofline analysis of one measured kernel/callable against the spec roof and the measured roof.

Units: FLOP and bytes as counts, times in microseconds, rates in TFLOP/s (1e12 FLOP/s) and TB/s
(1e12 bytes/s); arithmetic intensity in FLOP/byte, so a ridge point is ``peak_tflops / peak_tbps``.
"""

from __future__ import annotations

import math
from typing import Any

from bench_kernel.dtypes import peak_class
from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.hardware import (
    DeviceSpec,
    detect_device,
    get_device,
    load_calibration,
)
from bench_kernel.records import Bound, Calibration, Note, Roof, RoofAnalysis, RooflineResult, info, warning

__all__ = ["analyze", "measured_roof", "spec_roof"]

#: A kernel is launch-bound when launch cost is at least this share of its measured time (and
#: exceeds what the roof itself needs): "the time is dominated by launch cost".
LAUNCH_DOMINANT_SHARE = 0.5








def _number(name: str, value: Any, *, allow_zero: bool) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        need = ">= 0" if allow_zero else "> 0"
        raise UsageError(f"{name} must be a finite number {need}, got {value!r}")
    return v


def _optional(name: str, value: Any, *, allow_zero: bool) -> float | None:
    return None if value is None else _number(name, value, allow_zero=allow_zero)


def spec_roof(device: DeviceSpec, dtype: str) -> Roof:
    """The datasheet roof: dense peak for ``dtype`` and DRAM bandwidth (DeviceError if no peak)."""
    return Roof("spec", device.peak(dtype), device.memory_tbps)


def measured_roof(calibration: Calibration, dtype: str) -> Roof | None:
    """The calibrated roof for ``dtype``, or None when that dtype's GEMM was not measured."""
    peak = calibration.matmul_tflops.get(peak_class(dtype))
    return None if peak is None else Roof("measured", peak, calibration.dram_tbps)


def _analyse(roof: Roof, flops: float, n_bytes: float, time_us: float, launch_us: float | None) -> RoofAnalysis:
    memory_us = n_bytes / (roof.peak_tbps * 1e6)
    compute_us = flops / (roof.peak_tflops * 1e6)
    floor_us = max(memory_us, compute_us)
    bound: Bound = "memory" if memory_us >= compute_us else "compute"
    if launch_us is not None and launch_us >= LAUNCH_DOMINANT_SHARE * time_us and launch_us >= floor_us:
        bound = "launch"
    return RoofAnalysis(source=roof.source, peak_tflops=roof.peak_tflops, peak_tbps=roof.peak_tbps, memory_us=memory_us, compute_us=compute_us, floor_us=floor_us,
                        pct_of_roof=100.0 * floor_us / time_us, headroom=time_us / floor_us, bound=bound)


def _launch_cost(launch_overhead_us: float | None, events_us: float | None, graph_us: float | None,
                 cal: Calibration | None, timed_with: str, notes: list[Note]) -> tuple[float | None, str | None]:
    if launch_overhead_us is not None:
        return launch_overhead_us, "argument"
    if events_us is not None and graph_us is not None:
        if events_us < graph_us:
            notes.append(warning("launch-negative", f"events_us {events_us:g} < graph_us {graph_us:g}: launch overhead "
                                 "taken as 0", events_us=events_us, graph_us=graph_us))
        return max(events_us - graph_us, 0.0), "events-graph"
    if cal is not None:
        # Each timing method has its own floor: what events add around any kernel, or what one node of
        # a replayed graph costs. The graph floor is the lower: the safe default.
        if timed_with == "events":
            return cal.launch_events_us, "calibration-events"
        return cal.launch_graph_node_us, "calibration-graph"
    return None, None


def analyze(flops: float, bytes: float, time_us: float, *, device: str | DeviceSpec | None = None,
             dtype: str = "bf16", name: str | None = None, launch_overhead_us: float | None = None,
             events_us: float | None = None, graph_us: float | None = None,
             timed_with: str = "graph", calibration: Calibration | bool = True) -> RooflineResult:
    """Place one measurement under the roofs of ``device`` for ``dtype``.

    ``flops`` (>= 0; 0 for pure data movement) and ``bytes`` (> 0) are counts for ONE call, and
    ``time_us`` (> 0) its measured time in microseconds. ``device`` is a peak-table name or alias
    (default: the current GPU). ``calibration``: True looks up the cached calibration of the device
    (its newest), a :class:`Calibration` uses that one, False uses the spec roof only.

    ``floor_us = max(bytes / bandwidth, flops / peak)``. ``bound`` is ``memory`` or ``compute`` by
    the larger term, unless launch cost dominates: ``launch`` when the launch cost is at least half
    of ``time_us`` and exceeds the floor. The launch cost is ``launch_overhead_us`` if given, else
    ``events_us - graph_us`` if both are given (the same callable timed both ways), else the
    calibrated floor of the method ``time_us`` was measured with (``timed_with``: ``"graph"``, the
    per-node cost of a replayed CUDA graph, or ``"events"``, an empty kernel between events).
    Bad numbers raise UsageError; an unknown device or a dtype without a peak raise DeviceError.
    """
    f = _number("flops", flops, allow_zero=True)
    b = _number("bytes", bytes, allow_zero=False)
    t = _number("time_us", time_us, allow_zero=False)
    lo = _optional("launch_overhead_us", launch_overhead_us, allow_zero=True)
    ev = _optional("events_us", events_us, allow_zero=False)
    gr = _optional("graph_us", graph_us, allow_zero=False)
    if timed_with not in ("graph", "events"):
        raise UsageError(f"timed_with must be 'graph' or 'events', got {timed_with!r}")
    if (ev is None) != (gr is None):
        raise UsageError("events_us and graph_us go together: give both (the same callable timed "
                         "with events and in a CUDA graph) or neither")
    spec = detect_device() if device is None else get_device(device)
    dt = peak_class(dtype)
    notes: list[Note] = []

    cal: Calibration | None
    if isinstance(calibration, Calibration):
        if calibration.device != spec.name:
            raise DeviceError(f"the calibration given is of {calibration.device!r}, not {spec.name!r}; "
                              f"pass the calibration of this device, or calibration=False")
        cal = calibration
    else:
        cal = load_calibration(spec.name) if calibration else None
    m_roof = measured_roof(cal, dt) if cal is not None else None
    if cal is not None and m_roof is None:
        notes.append(info("no-measured-roof", f"calibration of {spec.name} ({cal.measured_at}) has no {dt} GEMM: "
                          "no measured roof", dtype=dt))

    launch_us, launch_source = _launch_cost(lo, ev, gr, cal, timed_with, notes)
    spec_a = _analyse(spec_roof(spec, dt), f, b, t, launch_us)
    meas_a = _analyse(m_roof, f, b, t, launch_us) if m_roof is not None else None
    if spec_a.pct_of_roof > 100.0:
        notes.append(warning("above-roof", "faster than the spec roof: the counts overstate the work (a wrong dtype, FLOPs "
                     "over-counted, sparse or causal work), the data was served from cache rather than DRAM, "
                     "or the roof is too low for this SKU/clock", pct_of_roof=spec_a.pct_of_roof))
    if f == 0:
        notes.append(info("zero-flops", "0 FLOPs: pure data movement, judged against the memory roof only"))
    return RooflineResult.placed(
        spec_a, device=spec.name, dtype=dt, flops=f, bytes=b, time_us=t, measured=meas_a, launch_us=launch_us, launch_source=launch_source,
        name=name, notes=tuple(notes),
    )
