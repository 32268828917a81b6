"""Counting a timed case's bytes and FLOPs with the GPU's hardware counters, after its timings are taken.

The case runs again in a child process under the vendor's counter tool (``ncu`` on NVIDIA,
``rocprofv3`` on AMD; ``bench_kernel.counters``), rebuilt from its :class:`CaseOrigin`, and the counted
launches are joined to the ``kernel`` method's per-kernel breakdown. The timings are never touched:
the counts describe the kernels bench-kernel timed, the times stay bench-kernel's.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

from bench_kernel.counters import RANGE_NAME, collect_ncu, collect_rocprof, join
from bench_kernel.measure._case import Case, CaseOrigin
from bench_kernel.records import BenchResult, CounterReport, CounterTool, warning

__all__ = ["collect_counters", "attach_counters", "child_command", "DEFAULT_COUNTER_TIMEOUT_S", "function_origin"]

#: The longest one collection may take (the child's start, its warm-up and every replay pass).
DEFAULT_COUNTER_TIMEOUT_S = 300.0
#: Calls made before the counted one: JIT compilation, autotuning and library heuristics happen there.
WARMUP_CALLS = 3
#: ncu's chip names (``ncu --query-metrics --chip NAME``) by compute capability; others get the metrics
#: every chip has (bytes, CUDA-core FLOPs, speed of light), and no tensor FLOPs.
_NVIDIA_CHIPS = {(9, 0): "gh100", (8, 0): "ga100", (10, 0): "gb100"}


def function_origin(fn: Any, make_inputs: Any) -> CaseOrigin | None:
    """An origin for ``bench(fn, make_inputs=...)`` when both are importable module-level functions
    (a child can import them by name); None for a lambda, a closure or a ``__main__`` function."""
    def ref(obj: Any) -> str | None:
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
        if not module or module == "__main__" or not qualname or "<" in qualname:
            return None
        return f"{module}:{qualname}"

    fn_ref = ref(fn)
    inputs_ref = ref(make_inputs) if make_inputs is not None else None
    if fn_ref is None or (make_inputs is not None and inputs_ref is None) or "." in fn_ref.partition(":")[2]:
        return None
    return CaseOrigin("bench_kernel.measure:function_case", {"fn": fn_ref, "make_inputs": inputs_ref})


def child_command(origin: CaseOrigin, device_index: int = 0, warmup: int = WARMUP_CALLS) -> list[str]:
    """The command of the child process that makes the counted call (``measure._counters_child``)."""
    spec = {**origin.to_dict(), "warmup": warmup, "range": RANGE_NAME, "device_index": device_index}
    return [sys.executable, "-m", "bench_kernel.measure._counters_child", json.dumps(spec)]


def _child_env() -> dict[str, str]:
    # The child imports what this process imports: the same package and the target's folder.
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths + env.get("PYTHONPATH", "").split(os.pathsep)))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _device(device_index: int) -> tuple[CounterTool, str | None]:
    """(vendor tool, chip) of the current GPU: ``("ncu", "gh100")`` or ``("rocprofv3", "gfx942")``."""
    import torch

    if getattr(torch.version, "hip", None):
        arch = getattr(torch.cuda.get_device_properties(device_index), "gcnArchName", "") or ""
        return "rocprofv3", arch.split(":")[0] or None
    major, minor = torch.cuda.get_device_capability(device_index)
    return "ncu", _NVIDIA_CHIPS.get((major, minor))


def collect_counters(case: Case, result: BenchResult, *, device_index: int = 0,
                     timeout_s: float = DEFAULT_COUNTER_TIMEOUT_S,
                     progress: Callable[[str], None] | None = None) -> CounterReport:
    """The hardware counts of one call of ``case`` (whose timings are ``result``), joined to
    ``result.kernels``. Never raises for the environment: no GPU, no tool, counters not permitted,
    a failing or slow child all come back as a report with ``error`` set."""
    from bench_kernel.gpu import has_gpu

    if not has_gpu():
        return CounterReport("none", error="no GPU: hardware counters need a CUDA or ROCm device")
    tool, chip = _device(device_index)
    if case.origin is None:
        return CounterReport(tool, chip=chip, error=(
            "this case cannot be rebuilt in another process (a lambda or closure given to bench(), or a sweep "
            "defined in code): load it from a file (bench_kernel.load_target('file.py:func'), a sweep spec file) "
            "or run 'bench-kernel run TARGET --counters'"))
    if progress:
        progress(f"{case.label}: counting bytes and FLOPs with {tool}")
    child = child_command(case.origin, device_index)
    ours = [(k.name, k.count_per_call) for k in result.kernels if k.kind == "kernel"]
    if tool == "ncu":
        report = collect_ncu(child, chip=chip, timeout_s=timeout_s, env=_child_env())
    else:
        last_n = round(sum(n for _, n in ours))
        report = collect_rocprof(child, chip=chip, timeout_s=timeout_s, env=_child_env(), last_n=last_n)
    if not report.ok or not ours:
        return report
    joined, notes = join(report.kernels, ours)
    return report.replace(joined=tuple(joined), notes=report.notes + tuple(notes))


def attach_counters(result: BenchResult, report: CounterReport) -> BenchResult:
    """``result`` with ``report`` attached, and one note when no counts could be taken."""
    notes = result.notes
    if report.error:
        notes += (warning("counters-failed", f"counters: {report.error} (the timings above are unaffected)"),)
    return result.replace(counters=report, notes=notes)
