"""A counter file a user already has: an ncu CSV export or a rocprofv3 counter-collection CSV."""

from __future__ import annotations

from pathlib import Path

from bench_kernel.counters._join import in_range, to_kernels
from bench_kernel.counters._ncu import parse_ncu_csv
from bench_kernel.counters._rocprof import parse_rocprof_csv
from bench_kernel.counters._table import metric_table
from bench_kernel.datafile import user_file_text
from bench_kernel.errors import InputError
from bench_kernel.records import CounterReport, CounterTool, info

__all__ = ["read_counters"]


def read_counters(path: str | Path, *, nvtx_range: str | None = None) -> CounterReport:
    """The launches of an ncu CSV (``--csv [--page raw]``, or ``--import REPORT --csv``) or a rocprofv3
    ``counter_collection.csv``, as a report; ``nvtx_range`` keeps only the launches inside that NVTX
    push/pop range (ncu). InputError for a missing file, another kind of file, or no launch."""
    text = user_file_text(path, "counter file")
    tool: CounterTool
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("==")), "")
    if "counter_name" in first.lower():
        tool, launches = "rocprofv3", parse_rocprof_csv(text, str(path))
    else:
        tool, launches = "ncu", parse_ncu_csv(text, str(path))
    if nvtx_range is not None:
        launches = in_range(launches, nvtx_range)
    if not launches:
        where = f" in the NVTX range {nvtx_range!r}" if nvtx_range else ""
        raise InputError(f"{path}: no kernel launch{where}")
    kernels, formulas = to_kernels(launches, metric_table(tool))
    return CounterReport(tool, notes=(info("counters-file", f"read from {path}", path=str(path)),), kernels=tuple(kernels),
                         formulas=dict(formulas))
