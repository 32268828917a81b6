"""bench-kernel: measure, explain and document GPU kernel performance.

The public API is re-exported here and imported lazily, so ``import bench_kernel`` costs
nothing and pulls in neither torch nor numpy until a measuring function is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> (module that defines it, attribute). Every capability adds its names here.
_EXPORTS: dict[str, tuple[str, str]] = {
    "bench": ("bench_kernel.orchestrate", "bench"),
    "Options": ("bench_kernel.options", "Options"),
    "run_cases": ("bench_kernel.orchestrate", "run_cases"),
    "BenchResult": ("bench_kernel.records", "BenchResult"),
    "Case": ("bench_kernel.measure", "Case"),
    "Measurement": ("bench_kernel.records", "Measurement"),
    "Samples": ("bench_kernel.records", "Samples"),
    "Note": ("bench_kernel.records", "Note"),
    "KernelStat": ("bench_kernel.records", "KernelStat"),
    "load_target": ("bench_kernel.measure", "load_target"),
    "record_trace": ("bench_kernel.measure", "record_trace"),
    "profile": ("bench_kernel.orchestrate", "profile"),
    "summarize_profile": ("bench_kernel.orchestrate", "summarize_profile"),
    "decode": ("bench_kernel.kernels", "decode"),
    "KernelName": ("bench_kernel.kernels", "KernelName"),
    "Calibration": ("bench_kernel.records", "Calibration"),
    "DeviceSpec": ("bench_kernel.hardware", "DeviceSpec"),
    "calibrate": ("bench_kernel.hardware", "calibrate"),
    "detect_device": ("bench_kernel.hardware", "detect_device"),
    "get_device": ("bench_kernel.hardware", "get_device"),
    "list_devices": ("bench_kernel.hardware", "list_devices"),
    "load_calibration": ("bench_kernel.hardware", "load_calibration"),
    "CounterReport": ("bench_kernel.records", "CounterReport"),
    "read_counters": ("bench_kernel.counters", "read_counters"),
    "collect_counters": ("bench_kernel.measure", "collect_counters"),
    "MeasuredRoofline": ("bench_kernel.records", "MeasuredRoofline"),
    "place_measured": ("bench_kernel.roofline", "place_measured"),
    "plot_measured": ("bench_kernel.roofline", "plot_measured"),
    "Counts": ("bench_kernel.roofline", "Counts"),
    "RooflineResult": ("bench_kernel.records", "RooflineResult"),
    "analyze_roofline": ("bench_kernel.roofline", "analyze"),
    "count": ("bench_kernel.roofline", "count"),
    "plot_roofline": ("bench_kernel.roofline", "plot_roofline"),
    "op_work": ("bench_kernel.roofline", "op_work"),
    "Work": ("bench_kernel.roofline", "Work"),
    "document_call": ("bench_kernel.source_trace", "document_call"),
    "document_trace": ("bench_kernel.source_trace", "document_trace"),
    "SourceTrace": ("bench_kernel.source_trace", "SourceTrace"),
    "KernelRecord": ("bench_kernel.trace", "KernelRecord"),
    "Trace": ("bench_kernel.trace", "Trace"),
    "load_trace": ("bench_kernel.trace", "load_trace"),
    "sample_trace": ("bench_kernel.trace", "sample_trace"),
    "sweep": ("bench_kernel.sweeps", "sweep"),
    "SweepOutput": ("bench_kernel.records", "SweepOutput"),
    "SweepSpec": ("bench_kernel.sweeps", "SweepSpec"),
    "load_spec": ("bench_kernel.sweeps", "load_spec"),
    "Unsupported": ("bench_kernel.errors", "Unsupported"),
    "open_store": ("bench_kernel.results", "open_store"),
    "Store": ("bench_kernel.results", "Store"),
    "RunInfo": ("bench_kernel.records", "RunInfo"),
    "PointResult": ("bench_kernel.records", "PointResult"),
    "history": ("bench_kernel.results", "history"),
    "HistoryOutput": ("bench_kernel.records", "HistoryOutput"),
    "compare": ("bench_kernel.results", "compare"),
    "Comparison": ("bench_kernel.results", "Comparison"),
    "timeline": ("bench_kernel.trace", "timeline"),
    "serve_benchmark": ("bench_kernel.serve", "benchmark"),
    "ServeOptions": ("bench_kernel.serve", "ServeOptions"),
    "ServeOutput": ("bench_kernel.records", "ServeOutput"),
    "TimelineReport": ("bench_kernel.trace", "TimelineReport"),
    "ops": ("bench_kernel.trace", "ops"),
    "OpsReport": ("bench_kernel.trace", "OpsReport"),
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'bench_kernel' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
