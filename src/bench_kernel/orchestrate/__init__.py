"""Orchestration: measurement and the roofline together, profiling, and sweeps.

``bench()`` here is the one users call (``bench_kernel.bench``): it measures with
``bench_kernel.measure`` and places the result under the device's roofs with
``bench_kernel.roofline``. Nothing below this layer knows about the other.

``sweep(axes, providers, *, baseline=None, methods=None, cache=None, store=None, where=None, ...)
-> SweepResult`` times every provider at every point, checked against the baseline, committing
each point to the results store as it ends. ``load_spec("SPEC.py[:name]") -> SweepSpec`` and
``run_sweep(spec, workers=, gpus=, backend=, resume=, ...)`` are what ``bench-kernel sweep`` uses:
a spec from a file can be sharded over worker processes (one per GPU, or N on the host) or Ray
tasks, because each worker imports it again by its path.
"""

from bench_kernel.errors import Unsupported
from bench_kernel.orchestrate._bench import bench, bench_case, bench_many
from bench_kernel.orchestrate._count import CaseWork, count_work, infer_dtype
from bench_kernel.orchestrate._profile import (DEFAULT_STEPS, ProfileSummary, check_profile_options, profile,
                                             summarize_profile)
from bench_kernel.orchestrate._roofline import place, plot_results, resolve_device
from bench_kernel.orchestrate._spec import DEFAULT_SPEC_NAME, SweepSpec, load_spec
from bench_kernel.orchestrate._sweep import Progress, SweepResult, parse_gpus, run_sweep, sweep
from bench_kernel.orchestrate._unit import SweepOptions, run_unit

__all__ = [
    "DEFAULT_SPEC_NAME", "DEFAULT_STEPS", "CaseWork", "ProfileSummary", "Progress", "SweepOptions", "SweepResult",
    "SweepSpec", "Unsupported", "bench", "bench_case", "bench_many", "check_profile_options", "count_work",
    "infer_dtype", "load_spec", "parse_gpus", "place", "plot_results", "profile", "resolve_device", "run_sweep",
    "run_unit", "summarize_profile", "sweep",
]
