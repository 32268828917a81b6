"""The two ways to get a Source Trace: run a callable under the profiler, or read a trace."""

from __future__ import annotations

import inspect
import re
import tempfile
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from statistics import fmean
from typing import Any, Callable

from bench_kernel.errors import MeasurementError, TraceError, UsageError
from bench_kernel.gpu import require_gpu
from bench_kernel.measure import CALL_MARK, call_with, guard
from bench_kernel.source_trace._build import build
from bench_kernel.source_trace._model import SourceTrace
from bench_kernel.source_trace._render import short_dtype

__all__ = ["document_call", "document_trace"]


def _paths(root: str | Path | None, doc_path: str | Path | None) -> tuple[Path, Path]:
    root_p = Path(root or ".").resolve()
    doc_dir = Path(doc_path).resolve().parent if doc_path else root_p
    return root_p, doc_dir


def _select(trace: Any, kernel: str | None, step: int | None, n_steps: int, ks: Any) -> list[int]:
    """Kernel indices in ``step`` (``ks``: each kernel's step, of ``n_steps``) matching ``kernel``."""
    import numpy as np

    idx = np.arange(trace.kernel_count)
    if step is not None:
        if not n_steps:
            raise UsageError("--step: no steps found in this trace (no ProfilerStep or engine step annotations)")
        if not 0 <= step < n_steps:
            raise UsageError(f"--step {step}: the trace has steps 0..{n_steps - 1}")
        idx = idx[ks == step]
    if kernel is not None:
        try:
            pat = re.compile(kernel)
        except re.error as e:
            raise UsageError(f"--kernel {kernel!r} is not a valid regular expression: {e}") from e
        idx = [int(i) for i in idx if pat.search(trace.names[trace.kernels.name[i]])
               or pat.search(trace.decoded(int(trace.kernels.name[i])).short)]
        if not idx:
            raise TraceError(f"--kernel {kernel!r} matches no kernel" + (f" in step {step}" if step is not None else "")
                             + f" of the trace's {trace.kernel_count} kernels")
    return [int(i) for i in idx]


def document_trace(path: str | Path, *, kernel: str | None = None, step: int | None = None,
               rank: int | None = None, root: str | Path | None = None,
               doc_path: str | Path | None = None, keep_all_frames: bool = False) -> SourceTrace:
    """The document for the kernels of a Kineto trace recorded with Python stacks.

    ``kernel``: a regex over kernel names (raw or short); ``step``: the 0-based step (ProfilerStep
    or engine annotation). One site per distinct kernel, at its first launch in the selection;
    its time is the mean over all its launches there, its count the launches per step (or in
    all, without ``step``). Raises TraceError when the kernels carry no Python stack.
    """
    from bench_kernel.trace import find_steps, kernel_steps, load_trace

    if kernel is None and step is None:
        raise UsageError("give --kernel REGEX and/or --step N: a whole trace is too many kernels for one document")
    trace = load_trace(path, rank, shapes=True, stacks=True)
    if trace.kernel_count == 0:
        raise TraceError(f"{path}: the trace holds no kernels")
    steps = find_steps(trace)
    ks = kernel_steps(trace, steps) if steps else None
    chosen = _select(trace, kernel, step, len(steps), ks)
    by_name: dict[int, list[int]] = defaultdict(list)
    for i in chosen:
        by_name[int(trace.kernels.name[i])].append(i)
    firsts = sorted(v[0] for v in by_name.values())
    # A replayed graph's kernels all carry the stack of the graph launch, which says where the
    # graph was replayed, not where each kernel came from: show no path rather than a wrong one.
    records = [trace.kernel(i, stack=True) for i in firsts]
    records = [replace(r, stack=()) if r.graph_launched else r for r in records]
    if not any(r.stack for r in records):
        if all(r.graph_launched for r in records):
            raise TraceError("the selected kernels were replayed from a CUDA/HIP graph and carry no Python stack; "
                             "run 'bench-kernel attribute GRAPH_TRACE --capture TRACE' to recover them from a capture trace")
        raise TraceError(f"{path}: no Python stacks around the selected kernels' launches "
                         "(record the trace with torch.profiler.profile(with_stack=True))")
    # counts are per step: one step when --step picked it, else the steps the launches span
    steps_seen = 1
    if step is None and ks is not None:
        steps_seen = max(len(set(ks[chosen].tolist()) - {-1}), 1)
    entries = []
    for r in records:
        launches = by_name[int(trace.kernels.name[r.index])]
        us = fmean(float(trace.kernels.dur_us[i]) for i in launches)
        entries.append((r, us, len(launches) / steps_seen))
    subject = max(entries, key=lambda e: e[1] * e[2])[0].short  # the kernel with the most time
    root_p, doc_dir = _paths(root, doc_path)
    notes = []
    if any(r.graph_launched for r in records):
        notes.append("some kernels were replayed from a CUDA/HIP graph: they carry no Python stack")
    return build(subject, entries, root=root_p, doc_dir=doc_dir, device=trace.device_name,
                 backend=trace.backend, keep_all_frames=keep_all_frames, notes=notes)


def _describe(x: Any) -> str:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return f"({', '.join(str(d) for d in x.shape)}) {short_dtype(x.dtype)}"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_describe(v) for v in x) + "]"
    return type(x).__name__


def _input_labels(fn: Callable[..., Any], inputs: Any) -> tuple[tuple[str, str], ...]:
    if inputs is None:
        return ()
    if isinstance(inputs, dict):
        return tuple((k, _describe(v)) for k, v in inputs.items())
    args = inputs if isinstance(inputs, (list, tuple)) else (inputs,)
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        names = []
    return tuple((names[i] if i < len(names) else f"arg{i}", _describe(a)) for i, a in enumerate(args))


def document_call(fn: Callable[..., Any], *, make_inputs: Callable[[], Any] | None = None,
                 name: str | None = None, root: str | Path | None = None,
                 doc_path: str | Path | None = None, calls: int = 3,
                 keep_all_frames: bool = False) -> SourceTrace:
    """Run ``fn`` (``fn(*make_inputs())``) under the PyTorch profiler with Python stacks and
    shapes, and document how it reaches each of its kernels. Times are means over ``calls``.

    Raises MeasurementError when the call raises or launches no kernel.
    """
    from bench_kernel.trace import load_trace

    torch = require_gpu("source-trace of a callable", "use --trace for a recorded trace")
    from torch.profiler import ProfilerActivity, profile, record_function

    label = name or getattr(fn, "__name__", "call")
    inputs = guard(label, "make_inputs", make_inputs) if make_inputs else None
    out = guard(label, "warm-up", lambda: [call_with(fn, inputs) for _ in range(2)][-1])
    torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        trace_path = Path(tmp) / "source_trace.json"

        def profiled() -> None:
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                         with_stack=True) as prof:
                for _ in range(calls):
                    with record_function(CALL_MARK):
                        call_with(fn, inputs)
                    torch.cuda.synchronize()
            prof.export_chrome_trace(str(trace_path))

        guard(label, "profiling", profiled)
        trace = load_trace(trace_path, shapes=True, stacks=True)
    per_call = _split_calls(trace)
    if not per_call or not per_call[0]:
        raise MeasurementError(f"{label!r} launched no kernel: nothing to trace")
    first = [trace.kernel(i, stack=True) for i in per_call[0]]
    entries = []
    for pos, r in enumerate(first):
        durs = [float(trace.kernels.dur_us[c[pos]]) for c in per_call
                if len(c) > pos and trace.kernels.name[c[pos]] == trace.kernels.name[r.index]]
        entries.append((r, fmean(durs), 1.0))
    root_p, doc_dir = _paths(root, doc_path)
    return build(label, entries, root=root_p, doc_dir=doc_dir, device=torch.cuda.get_device_name(),
                 backend="hip" if torch.version.hip else "cuda", keep_all_frames=keep_all_frames,
                 live=True, inputs=_input_labels(fn, inputs), output=_describe(out))


def _split_calls(trace: Any) -> list[list[int]]:
    """Kernel indices per ``bk::call`` range (host side), by the time each kernel was launched."""
    ann = trace.annotations
    spans = sorted((float(ann.start_us[j]), float(ann.start_us[j] + ann.dur_us[j]))
                   for j in range(len(ann)) if trace.names[ann.name[j]] == CALL_MARK and not ann.gpu[j])
    host = trace.host_time_us
    calls: list[list[int]] = [[] for _ in spans]
    for i in range(trace.kernel_count):
        t = float(host[i])
        for c, (a, b) in enumerate(spans):
            if a <= t <= b:
                calls[c].append(i)
                break
    return calls
