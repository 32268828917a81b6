"""How long does it take: timing methods, input rotation, L2 flush, stopping rule, statistics.

Only measurement lives here; ``bench_kernel.orchestrate`` adds the roofline on top.
"""

from bench_kernel.measure._bench import (DEFAULT_METHODS, GPU_METHODS, as_case, bench, bench_case, bench_many,
                                         clone_inputs, validate_options)
from bench_kernel.measure._case import Case, as_cases, load_object, load_target
from bench_kernel.measure._env import capture_env, gpu_state
from bench_kernel.measure._inputs import call_with, iter_tensors
from bench_kernel.measure._kernel import CALL_MARK
from bench_kernel.measure._method import Method, Timed
from bench_kernel.measure._record import check_writable, record_trace
from bench_kernel.measure._records import METHODS, BenchResult, KernelStat, Measurement
from bench_kernel.measure._runner import guard
from bench_kernel.measure._stats import Samples
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.measure._suite import builtin_suite

__all__ = [
    "CALL_MARK", "DEFAULT_METHODS", "GPU_METHODS", "METHODS", "BenchResult", "Case", "KernelStat", "Measurement",
    "Method", "Samples", "StoppingRule", "Timed", "as_case", "as_cases", "bench", "bench_case", "bench_many",
    "builtin_suite", "call_with", "capture_env", "check_writable", "clone_inputs", "gpu_state", "guard",
    "iter_tensors", "load_object", "load_target", "record_trace", "validate_options",
]
