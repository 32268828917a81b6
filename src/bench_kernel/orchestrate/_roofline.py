"""A measured result under the device's roofs: which device, where the result lands, the plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.orchestrate._count import CaseWork
from bench_kernel.records import BenchResult, warning

__all__ = ["resolve_device", "place", "plot_results"]


def resolve_device(name: str | None, gpu: bool) -> Any:
    """The peak-table spec for ``name``, else the current GPU's; DeviceError without either.

    Called BEFORE anything is timed, so an unknown device fails in a second, not after a suite.
    """
    from bench_kernel.hardware import detect_device, get_device

    if name:
        return get_device(name)
    if not gpu:
        raise DeviceError("--roofline needs a GPU to detect, or --device NAME (see 'bench-kernel devices')")
    return detect_device()


def place(result: BenchResult, spec: Any, work: CaseWork, *, warm_cache: bool = False) -> BenchResult:
    """``result`` with its ``roofline`` filled in (a note says why when it cannot be), judged: a
    result above 100% of its roof gets a note naming the likely causes (``roofline.over_roof``).

    ``work``: the case's counted work and where its dtype, FLOPs and bytes came from.
    ``warm_cache``: the inputs were warm in L2 while timed.
    """
    from bench_kernel.roofline import analyze, over_roof

    t = result.time_us
    if t is None or not result.bytes:
        why = "no time to place" if t is None else "no bytes to place"
        if t is not None and work.counts is not None and not work.counts.bytes:
            why += ": one call read and wrote no tensor data (0 bytes counted)"
        return result.with_notes(warning("roofline-not-placed", f"roofline: {why}"))
    method = result.primary_method
    # The launch floor needs the same call timed both ways; with one of the two methods only, none.
    ev, gr = result.median_us("events"), result.median_us("graph")
    if ev is None or gr is None:
        ev = gr = None
    try:
        r = analyze(result.flops or 0.0, result.bytes, t, device=spec, dtype=work.dtype, name=result.name,
                    events_us=ev, graph_us=gr,
                    timed_with=method if method in ("graph", "events") else "graph")
    except (DeviceError, UsageError) as e:  # UsageError: a dtype without a peak rate (int32, ...)
        return result.with_notes(warning("roofline-failed", f"roofline: {e}"))
    verdict = over_roof(r, spec, dtype_source=work.dtype_source, flops_source=work.flops_source,
                        bytes_source=work.bytes_source, causal=work.causal, estimated=work.estimated,
                        warm_cache=warm_cache)
    notes = (warning("over-roof", verdict),) if verdict else ()
    cpu = timed_on_cpu(result)
    if cpu is not None:  # --device names a GPU, but this machine timed its CPU
        notes += (warning("roofline-cpu-times", f"roofline: these are host wall-clock times of this machine's CPU "
                          f"({cpu}) placed under the {spec.name}'s roofs: how far a CPU run is from the "
                          f"{spec.name}'s peaks, not how fast the {spec.name} runs it", device=spec.name, timed_on=cpu),)
    return result.replace(roofline=r, notes=result.notes + notes)


def timed_on_cpu(result: BenchResult) -> str | None:
    """The CPU a result was timed on when no GPU measured it (its env's device), else None."""
    return str(result.env.get("device") or "the CPU") if result.env.get("backend") == "cpu" else None


def plot_results(results: list[BenchResult], path: str) -> list[str]:
    """Roofline plot(s) of the results that were placed: one file per dtype (``name-<dtype>.png``
    when there are several). With counted work (``--counters``) the one hierarchical roofline of the
    counted cases instead: DRAM/L2/L1 points beside each modelled point. Returns the paths written."""
    from bench_kernel.hardware import load_calibration
    from bench_kernel.roofline import plot_measured, plot_roofline

    placed_counts = [r for r in results if r.measured_roofline is not None]
    names = [r.name for r in placed_counts]
    counted = {(r.name if names.count(r.name) == 1 else
                f"{r.name} {' '.join(f'{k}={v}' for k, v in r.params.items())}"): r.measured_roofline
               for r in placed_counts}
    if counted:
        return [str(plot_measured(counted, path))]
    placed = [r.roofline for r in results if r.roofline is not None]
    if not placed:
        raise DeviceError("nothing to plot: no result could be placed under a roofline")
    cpus = sorted({c for r in results if r.roofline is not None and (c := timed_on_cpu(r))})
    timed_on = ", ".join(cpus) or None
    by_dtype: dict[str, list[Any]] = {}
    for r in placed:
        by_dtype.setdefault(r.dtype, []).append(r)
    out = Path(path)
    written = []
    for dtype, points in by_dtype.items():
        target = out if len(by_dtype) == 1 else out.with_name(f"{out.stem}-{dtype}{out.suffix}")
        device = points[0].device
        written.append(str(plot_roofline({p.name: p for p in points}, device, dtype, target,
                                         measured=load_calibration(device), timed_on=timed_on)))
    return written
