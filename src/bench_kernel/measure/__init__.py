"""How long does it take: timing methods, input rotation, L2 flush, stopping rule, statistics."""

from bench_kernel.measure._bench import DEFAULT_METHODS, bench, bench_case, bench_many
from bench_kernel.measure._case import Case, as_cases, load_target
from bench_kernel.measure._records import METHODS, BenchResult, KernelStat, Measurement
from bench_kernel.measure._stats import Samples
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.measure._suite import builtin_suite

__all__ = [
    "DEFAULT_METHODS", "METHODS", "BenchResult", "Case", "KernelStat", "Measurement", "Samples",
    "StoppingRule", "as_cases", "bench", "bench_case", "bench_many", "builtin_suite", "load_target",
]
