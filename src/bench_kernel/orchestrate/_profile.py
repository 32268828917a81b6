"""``profile``: record a trace of a case with what every trace command needs, and summarise it.

Replaces the hand-written profiling script that starts every analysis: the recording itself is
``bench_kernel.measure.record_trace`` (shared with the live Source Trace); this layer builds the
case's inputs, then reads the written trace back with the trace package for the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_kernel.atomic import replacing
from bench_kernel.errors import OutputError
from bench_kernel.measure import (
    Case,
    call_with,
    check_steps,
    check_writable,
    guard,
    record_trace,
)
from bench_kernel.records import ProfileOutput

__all__ = ["profile", "profile_and_summarize", "check_profile_options", "summarize_profile",
           "DEFAULT_STEPS"]

DEFAULT_STEPS = 5


def check_profile_options(*, steps: int, warmup: int, output: str | Path) -> Path:
    """The options of :func:`profile`, checked before anything is loaded or run; returns ``output``."""
    check_steps(steps, warmup)
    return check_writable(Path(output))


def profile(case: Case, *, steps: int = DEFAULT_STEPS, warmup: int = 1,
            output: str | Path = "trace.json.gz") -> Path:
    """Run ``case`` ``warmup + steps`` times under the PyTorch profiler and write its trace.

    The trace (gzipped when ``output`` ends in ``.gz``) holds one ``ProfilerStep#N`` per recorded
    call, input shapes, Python stacks and ``nn.Module`` markers. Arguments are checked, and
    ``output``'s folder too, before the case's inputs are built. Returns the path written.
    """
    out = check_profile_options(steps=steps, warmup=warmup, output=output)
    inputs = guard(case.label, "make_inputs", case.make_inputs) if case.make_inputs else None
    return record_trace(lambda: call_with(case.fn, inputs), out, steps=steps, warmup=warmup, label=case.label)


def _diagnosis(trace: Any) -> str | None:
    """The timeline's one-line diagnosis of the whole recording (is the GPU busy, and if not, why)."""
    from bench_kernel.trace import timeline

    return timeline(trace).overall.diagnosis or None


def summarize_profile(path: str | Path, *, top: int = 10) -> ProfileOutput:
    """Read the trace at ``path`` back: steps, kernels and device time (microseconds) per step, the
    ``top`` kernels: what ``bench-kernel profile --json`` prints."""
    from bench_kernel.trace import find_steps, inventory, load_trace

    trace = load_trace(path)
    steps = len(find_steps(trace)) or 1
    inv = inventory(trace, top=top, per_step=True) if trace.kernel_count else None
    return ProfileOutput(
        path=str(path), steps=steps, events=trace.event_total,
        kernels_per_step=float(inv.kernel_count) if inv else 0.0,
        device_us_per_step=float(inv.total_kernel_us) if inv else 0.0, top=inv,
        diagnosis=_diagnosis(trace) if trace.kernel_count else None)


def profile_and_summarize(case: Case, *, steps: int = DEFAULT_STEPS, warmup: int = 1,
                          output: str | Path = "trace.json.gz", top: int = 10) -> ProfileOutput:
    """:func:`profile` then :func:`summarize_profile`, the summary read from the trace BEFORE it
    replaces ``output``: a FIFO or ``/dev/stdout`` cannot be read back (a FIFO would block), and a
    trace that cannot be summarised leaves an existing ``output`` as it was."""
    out = check_profile_options(steps=steps, warmup=warmup, output=output)
    suffix = ".json.gz" if out.name.endswith(".gz") else ".json"
    try:
        with replacing(out, suffix) as tmp:
            profile(case, steps=steps, warmup=warmup, output=tmp)
            summary = summarize_profile(tmp, top=top)
    except OSError as e:  # streaming into a device or a FIFO, or the final rename
        raise OutputError(f"cannot write {out}: {e.strerror or e}") from None
    # the inventory names the trace it read: the temporary file, until now
    inv = summary.top.replace(trace=str(out)) if summary.top is not None else None
    return summary.replace(path=str(out), top=inv)
