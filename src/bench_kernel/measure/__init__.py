"""How long does it take: timing methods, input rotation, L2 flush, stopping rule, statistics.

Only measurement lives here; ``bench_kernel.orchestrate`` adds the time limit, the loop over cases
and the roofline on top. What to measure and how is a :class:`bench_kernel.options.Options`.
"""

from bench_kernel.measure._agree import agreement_note
from bench_kernel.measure._case import (
                                        Case,
                                        CaseOrigin,
                                        as_cases,
                                        function_case,
                                        load_object,
                                        load_target,
                                        target_case,
                                        target_file,
                                        user_failure,
)
from bench_kernel.measure._check import check_tolerances
from bench_kernel.measure._counters import (
                                        DEFAULT_COUNTER_TIMEOUT_S,
                                        attach_counters,
                                        child_command,
                                        collect_counters,
                                        function_origin,
)
from bench_kernel.measure._env import capture_env, gpu_state
from bench_kernel.measure._exits import ProcessExit, exits_raise
from bench_kernel.measure._inputs import call_with, iter_tensors
from bench_kernel.measure._kernel import CALL_MARK
from bench_kernel.measure._limit import Expired, TimeLimit, current_limit
from bench_kernel.measure._measure import as_case, clone_inputs, measure_case
from bench_kernel.measure._method import Method, Timed
from bench_kernel.measure._profiler import (
                                        MAX_STEPS,
                                        check_steps,
                                        check_writable,
                                        record_trace,
)
from bench_kernel.measure._profiler_start import start_profiler
from bench_kernel.measure._rounds import merge_measurements, merge_results
from bench_kernel.measure._runner import guard, user_error
from bench_kernel.measure._steady import (
                                        Settle,
                                        clock_note,
                                        graph_floor_note,
                                        settled,
                                        stability_notes,
                                        trend_note,
)
from bench_kernel.measure._stopping import StoppingRule
from bench_kernel.measure._suite import builtin_case, builtin_suite, suite_options
from bench_kernel.measure._warmup import ensure_warm, mark_busy, warm_up_device

__all__ = [
    "DEFAULT_COUNTER_TIMEOUT_S", "CaseOrigin", "attach_counters", "builtin_case", "child_command", "collect_counters",
    "current_limit", "function_case", "function_origin", "target_case", "agreement_note", "check_tolerances", "merge_measurements", "merge_results", "warm_up_device",
    "ensure_warm", "mark_busy", "start_profiler",
    "CALL_MARK", "Case", "Expired", "Method", "ProcessExit", "Settle", "StoppingRule", "TimeLimit", "Timed", "as_case", "as_cases", "builtin_suite", "suite_options", "call_with",
    "capture_env", "check_steps", "check_writable", "MAX_STEPS", "clock_note", "clone_inputs", "exits_raise", "gpu_state", "graph_floor_note",
    "guard", "iter_tensors", "load_object", "load_target", "measure_case", "record_trace", "settled",
    "stability_notes", "target_file", "trend_note", "user_error", "user_failure",
]
