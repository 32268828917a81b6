"""FLOP/byte counting, roofline analysis and the roofline plot.

CONTRACT (used by ``bench-kernel run --roofline`` and the CLI):
``roofline(flops, bytes, time_us, device=, dtype=) -> RooflineResult``,
``count(fn, *inputs) -> Counts`` and ``plot_roofline(points, device, dtype, path, measured=None)``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from bench_kernel.roofline._analysis import Roof, RoofAnalysis, RooflineResult, measured_roof, roofline, spec_roof
from bench_kernel.roofline._count import Counts, count
from bench_kernel.roofline._plot import plot_roofline

__all__ = [
    "Counts",
    "Roof",
    "RoofAnalysis",
    "RooflineResult",
    "count",
    "measured_roof",
    "plot_roofline",
    "roofline",
    "spec_roof",
]


class _CallableModule(types.ModuleType):
    # `bench_kernel.roofline` is both this package and the public function of the same name: once the
    # package is imported, Python binds the *module* to that attribute of `bench_kernel`, hiding the
    # lazily exported function. Making the module callable keeps `bench_kernel.roofline(...)` working
    # whichever import happened first.
    def __call__(self, *args: Any, **kwargs: Any) -> RooflineResult:
        return roofline(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
