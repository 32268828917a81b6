"""Hardware counters: what a kernel actually moved and computed, from Nsight Compute (ncu) or rocprofv3.

CONTRACT (used by measure/, which collects, and roofline/, which places):
``collect_ncu(child_argv, chip=, timeout_s=) -> CounterReport`` and ``collect_rocprof(...)`` run the tool
around a child process that makes one call inside the NVTX range :data:`RANGE_NAME`; ``join(kernels,
breakdown)`` matches the launches to bench-kernel's per-kernel breakdown; ``read_counters(path)`` reads
an ncu or rocprofv3 CSV a user already has; ``parse_ncu_csv`` / ``parse_rocprof_csv`` the raw formats;
``metric_table(tool)`` the formulas (``data/*.tsv``, every factor with its source).

Counts only: no record here holds a time. Durations come from bench-kernel's methods, never from the
profiler's replays. Nothing here imports torch.
"""

from bench_kernel.counters._collect import (
    CHILD_ERROR,
    RANGE_NAME,
    collect_ncu,
    collect_rocprof,
    ncu_command,
)
from bench_kernel.counters._files import read_counters
from bench_kernel.counters._join import base_name, in_range, join, signature, to_kernels
from bench_kernel.counters._ncu import Launch, parse_ncu_csv
from bench_kernel.counters._rocprof import parse_rocprof_csv
from bench_kernel.counters._table import (
    FIELDS,
    PRECISIONS,
    Formula,
    MetricTable,
    metric_table,
)

__all__ = [
    "CHILD_ERROR", "FIELDS", "PRECISIONS", "RANGE_NAME", "Formula",
    "Launch", "MetricTable", "base_name", "collect_ncu", "collect_rocprof", "in_range", "join", "metric_table",
    "ncu_command", "parse_ncu_csv", "parse_rocprof_csv", "read_counters", "signature", "to_kernels",
]
