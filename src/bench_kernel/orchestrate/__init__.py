"""Orchestration: measurement and the roofline together, and profiling.

``bench()`` here is the one users call (``bench_kernel.bench``): it measures with
``bench_kernel.measure`` and places the result under the device's roofs with
``bench_kernel.roofline``. Nothing below this layer knows about the other.
"""

from bench_kernel.orchestrate._bench import bench, bench_case, bench_many
from bench_kernel.orchestrate._count import CaseWork, count_work, infer_dtype
from bench_kernel.orchestrate._profile import (DEFAULT_STEPS, ProfileSummary, check_profile_options, profile,
                                             summarize_profile)
from bench_kernel.orchestrate._roofline import place, plot_results, resolve_device

__all__ = [
    "DEFAULT_STEPS", "CaseWork", "ProfileSummary", "bench", "bench_case", "bench_many", "check_profile_options",
    "count_work", "infer_dtype", "place", "plot_results", "profile", "resolve_device", "summarize_profile",
]
