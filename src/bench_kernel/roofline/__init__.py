"""FLOP/byte counting, roofline analysis and the roofline plot.

CONTRACT (used by ``bench-kernel run --roofline`` and the CLI):
``analyze(flops, bytes, time_us, device=, dtype=) -> RooflineResult``,
``count(fn, *inputs) -> Counts`` and ``plot_roofline(points, device, dtype, path, measured=None)``.
"""

from __future__ import annotations

from bench_kernel.roofline._analysis import Roof, RoofAnalysis, RooflineResult, analyze, measured_roof, spec_roof
from bench_kernel.roofline._count import Counts, count
from bench_kernel.roofline._plot import build_figure, plot_roofline

__all__ = [
    "Counts",
    "Roof",
    "analyze",
    "build_figure",
    "RoofAnalysis",
    "RooflineResult",
    "count",
    "measured_roof",
    "plot_roofline",
    "spec_roof",
]
