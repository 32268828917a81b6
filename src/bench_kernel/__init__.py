"""bench-kernel: measure, explain and document GPU kernel performance.

The public API is re-exported here and imported lazily, so ``import bench_kernel`` costs
nothing and pulls in neither torch nor numpy until a measuring function is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it. Every capability adds its names here.
_EXPORTS: dict[str, str] = {
    "bench": "bench_kernel.measure",
    "BenchResult": "bench_kernel.measure",
    "Case": "bench_kernel.measure",
    "Measurement": "bench_kernel.measure",
    "Samples": "bench_kernel.measure",
    "load_target": "bench_kernel.measure",
    "decode": "bench_kernel.kernels",
    "KernelName": "bench_kernel.kernels",
    "Calibration": "bench_kernel.hardware",
    "DeviceSpec": "bench_kernel.hardware",
    "calibrate": "bench_kernel.hardware",
    "detect_device": "bench_kernel.hardware",
    "get_device": "bench_kernel.hardware",
    "list_devices": "bench_kernel.hardware",
    "load_calibration": "bench_kernel.hardware",
    "Counts": "bench_kernel.roofline",
    "RooflineResult": "bench_kernel.roofline",
    "count": "bench_kernel.roofline",
    "plot_roofline": "bench_kernel.roofline",
    "roofline": "bench_kernel.roofline",
    "source_trace": "bench_kernel.source_trace",
    "SourceTrace": "bench_kernel.source_trace",
    "KernelRecord": "bench_kernel.trace",
    "Trace": "bench_kernel.trace",
    "load_trace": "bench_kernel.trace",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bench_kernel' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
