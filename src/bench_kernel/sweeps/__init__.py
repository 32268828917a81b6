"""Sweeps: every provider at every point of a grid, checked against a baseline, timed, stored.

``sweep(axes, providers, *, baseline=None, methods=None, cache=None, store=None, where=None, ...)
-> SweepOutput`` (``bench_kernel.records``: the run, its points, the best per point) times every provider at every point, checked against the baseline, committing
each point to the results store as it ends. ``load_spec("SPEC.py[:name]") -> SweepSpec`` and
``run_sweep(spec, workers=, gpus=, backend=, resume=, ...)`` are what ``bench-kernel sweep`` uses:
a spec from a file can be sharded over worker processes (one per GPU, or N on the host) or Ray
tasks, because each worker imports it again by its path.

One point of a sweep is one case measured by ``bench_kernel.orchestrate`` (the path ``run`` and
the pytest plugin take too); this package owns only the grid, the store's bookkeeping and where
the points run.
"""

from bench_kernel.errors import Unsupported
from bench_kernel.sweeps._driver import Progress, check_sharding, parse_gpus, run_sweep, sweep
from bench_kernel.sweeps._spec import DEFAULT_SPEC_NAME, SweepSpec, load_spec, spec_file
from bench_kernel.sweeps._unit import point_case, run_unit

__all__ = [
    "DEFAULT_SPEC_NAME", "Progress", "SweepSpec", "Unsupported", "check_sharding", "load_spec",
    "parse_gpus", "point_case", "run_sweep", "run_unit", "spec_file", "sweep",
]
