"""Orchestration: the time limit, the measurement and the roofline together; the loop over cases;
profiling.

``bench()`` here is the one users call (``bench_kernel.bench``): it measures with
``bench_kernel.measure`` and places the result under the device's roofs with
``bench_kernel.roofline``. Nothing below this layer knows about the other. ``run_cases`` (and
:class:`CaseRunner`, one case at a time) is the one loop over cases that ``run``, ``run --save``
and the pytest plugin share; a sweep point is measured by the same ``bench_case``.
"""

from bench_kernel.orchestrate._bench import bench, bench_case, run_env
from bench_kernel.orchestrate._cases import (
                                             SHOWN_FAILURES,
                                             CaseError,
                                             CaseRunner,
                                             CasesRun,
                                             Progress,
                                             RunCost,
                                             run_cases,
)
from bench_kernel.orchestrate._count import CaseWork, count_work, infer_dtype
from bench_kernel.orchestrate._counters import add_counters
from bench_kernel.orchestrate._profile import (
                                             DEFAULT_STEPS,
                                             check_profile_options,
                                             profile,
                                             profile_and_summarize,
                                             summarize_profile,
)
from bench_kernel.orchestrate._roofline import place, plot_results, resolve_device

__all__ = [
    "DEFAULT_STEPS", "SHOWN_FAILURES", "add_counters", "CaseError", "CaseRunner", "CaseWork", "CasesRun", "Progress", "bench",
    "bench_case", "check_profile_options", "count_work", "infer_dtype", "place", "plot_results", "profile",
    "profile_and_summarize",
    "resolve_device", "RunCost", "run_cases", "run_env", "summarize_profile",
]
