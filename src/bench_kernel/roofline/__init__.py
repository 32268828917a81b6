"""FLOP/byte counting, roofline analysis and the roofline plot.

CONTRACT (used by ``bench-kernel run --roofline`` and the CLI):
``analyze(flops, bytes, time_us, device=, dtype=) -> RooflineResult``,
``count(fn, *inputs) -> Counts`` (live), ``op_work(op, args) -> Work`` (one op from its shapes: the
formulas both share; ``from_trace`` turns a trace's recorded arguments into ``args``),
``formula_kind(op)``/``formula_context(op)``/``formula_source(op)`` (which formula counts ``op``, what
it needs from the trace around a call, where an engine op's kernel is), ``over_roof(result, device,
...)`` (why a result is above its roof) and ``plot_roofline(points, device, dtype, path, measured=None)``; for counted work (``run --counters``)
``place_measured(report, time_us, device=) -> MeasuredRoofline`` (the DRAM/L2/L1 hierarchical roofline,
the model checked against the counts) and ``plot_measured(points, path)``.
"""

from __future__ import annotations

from bench_kernel.roofline._analysis import analyze, measured_roof, spec_roof
from bench_kernel.roofline._count import Counts, OpCount, count
from bench_kernel.roofline._formulas import (
    formula_context,
    formula_kind,
    formula_source,
    op_work,
)
from bench_kernel.roofline._judge import OVER_ROOF_MARK, over_roof
from bench_kernel.roofline._measured import (
    LEVELS,
    MODEL_TOLERANCE,
    check_model,
    place_measured,
)
from bench_kernel.roofline._opargs import UNKNOWN, TensorArg, from_trace
from bench_kernel.roofline._plot import (
    build_figure,
    build_measured_figure,
    plot_measured,
    plot_roofline,
)
from bench_kernel.roofline._work import Work

__all__ = [
    "LEVELS", "MODEL_TOLERANCE", "build_measured_figure",
    "check_model", "place_measured", "plot_measured",
    "OVER_ROOF_MARK",
    "UNKNOWN",
    "Counts",
    "OpCount",
    "TensorArg",
    "Work",
    "formula_context",
    "formula_kind",
    "formula_source",
    "from_trace",
    "op_work",
    "over_roof",
    "analyze",
    "build_figure",
    "count",
    "measured_roof",
    "plot_roofline",
    "spec_roof",
]
