"""The two ways to get a Source Trace: run a callable under the profiler, or read a trace.

Both select kernel launches the same way (``--kernel REGEX`` over raw or short names, ``--module
NAME`` over the ``nn.Module`` markers around the launch) and hand them to ``build``.
"""

from __future__ import annotations

import inspect
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from bench_kernel.errors import MeasurementError, TraceError, UsageError
from bench_kernel.gpu import require_gpu
from bench_kernel.measure import call_with, guard, record_trace
from bench_kernel.source_trace._build import build
from bench_kernel.source_trace._collect import Launch, matches_module
from bench_kernel.source_trace._links import check_link_style
from bench_kernel.source_trace._model import SourceTrace
from bench_kernel.source_trace._text import short_dtype

if TYPE_CHECKING:
    from bench_kernel.userregex import UserRegex

__all__ = ["document_call", "document_trace"]


def _paths(root: str | Path | None, doc_path: str | Path | None) -> tuple[Path, Path]:
    root_p = Path(root or ".").resolve()
    doc_dir = Path(doc_path).resolve().parent if doc_path else root_p
    return root_p, doc_dir


def _kernel_rx(kernel: str | None) -> UserRegex | None:
    from bench_kernel.trace import kernel_regex

    return None if kernel is None else kernel_regex(kernel, "--kernel")


def _keep(trace: Any, idx: list[int], rx: UserRegex | None) -> list[int]:
    if rx is None:
        return idx
    hit = set(trace.find_kernels(rx).tolist())  # the one rule: raw OR short name (trace/_match.py)
    return [i for i in idx if i in hit]


def _selection(kernel: str | None, module: str | None, top: int | None) -> str | None:
    parts = ([f"--kernel `{kernel}`"] if kernel else []) + ([f"--module `{module}`"] if module else []) \
        + ([f"--top {top}"] if top else [])
    return ", ".join(parts) or None


def _records(trace: Any, chosen: list[int], module: str | None, where: str) -> list[Any]:
    records = [trace.kernel(i, stack=True) for i in chosen]
    if module is not None:
        records = [r for r in records if matches_module(r, module)]
        if not records:
            raise TraceError(f"--module {module!r}: no selected kernel ran under a module of that class or "
                             f"instance{where} (the trace needs nn.Module markers: with_modules=True)")
    return records


def document_trace(path: str | Path, *, kernel: str | None = None, step: int | None = None,
                   module: str | None = None, top: int | None = None, flow: str = "auto",
                   link_style: str = "path", torch_ref: str | None = None, rank: int | None = None,
                   root: str | Path | None = None, doc_path: str | Path | None = None,
                   keep_all_frames: bool = False) -> SourceTrace:
    """The document for the kernels of a Kineto trace recorded with Python stacks.

    ``kernel``: a regex over kernel names (raw or short); ``step``: the 0-based step (ProfilerStep
    or engine annotation); ``module``: only kernels under this ``nn.Module`` class or instance.
    One site per distinct (kernel, call site); its count is launches per step (or per step spanned,
    without ``step``), and with ``module`` per call of that module. ``top``/``flow``/``link_style``/``torch_ref``: see ``build``. Raises
    TraceError when the kernels carry no Python stack.
    """
    from bench_kernel.trace import find_steps, kernel_steps, load_trace

    style = check_link_style(link_style)
    if kernel is None and step is None and module is None:
        raise UsageError("give --kernel REGEX, --module NAME and/or --step N: a whole trace is too many kernels "
                         "for one document")
    rx = _kernel_rx(kernel)
    trace = load_trace(path, rank, shapes=True, stacks=True)
    if trace.kernel_count == 0:
        raise TraceError(f"{path}: the trace holds no kernels")
    steps = find_steps(trace)
    ks = kernel_steps(trace, steps) if steps else None
    idx = list(range(trace.kernel_count))
    if step is not None:
        if ks is None:  # no steps
            raise UsageError("--step: no steps found in this trace (no ProfilerStep or engine step annotations)")
        if not 0 <= step < len(steps):
            raise UsageError(f"--step {step}: the trace has steps 0..{len(steps) - 1}")
        idx = [i for i in idx if ks[i] == step]
    chosen = _keep(trace, idx, rx)
    where = f" in step {step}" if step is not None else ""
    if not chosen:
        raise TraceError(f"--kernel {kernel!r} matches no kernel{where} of the trace's {trace.kernel_count} kernels")
    records = _records(trace, chosen, module, where)
    # A replayed graph's kernels all carry the stack of the graph launch, which says where the
    # graph was replayed, not where each kernel came from: show no path rather than a wrong one.
    records = [replace(r, stack=()) if r.graph_launched else r for r in records]
    if not any(r.stack for r in records):
        if all(r.graph_launched for r in records):
            raise TraceError("the selected kernels were replayed from a CUDA/HIP graph and carry no Python stack; "
                             "run 'bench-kernel attribute GRAPH_TRACE --capture TRACE' to recover them from a capture trace")
        raise TraceError(f"{path}: no Python stacks around the selected kernels' launches "
                         "(record the trace with torch.profiler.profile(with_stack=True))")
    calls = _module_calls(trace, records, module) if module is not None else None
    if calls is not None:
        # counts are per call of the module: a step may call it several times (two layers of one class,
        # a generate loop), and per step would say 34 kernels where one call runs 17
        n_calls = max(len(set(calls)), 1)
        launches = [Launch(r, c) for r, c in zip(records, calls)]
    else:
        # counts are per step: one step when --step picked it, else the steps the launches span
        n_calls = 1
        if step is None and ks is not None:
            n_calls = max(len({int(ks[r.index]) for r in records} - {-1}), 1)
        launches = [Launch(r, int(ks[r.index]) if ks is not None else 0) for r in records]
    root_p, doc_dir = _paths(root, doc_path)
    notes = []
    if any(r.graph_launched for r in records):
        notes.append("some kernels were replayed from a CUDA/HIP graph: they carry no Python stack")
    return build(_subject(records, kernel, module, step), launches, n_calls, root=root_p, doc_dir=doc_dir,
                 device=trace.device_name, backend="hip" if trace.backend == "hip" else "cuda",  # Trace.backend: one of the two, typed str
                 keep_all_frames=keep_all_frames, notes=notes, top=top, flow=flow, link_style=style, torch_ref=torch_ref,
                 selection=_selection(kernel, module, top))


def _module_calls(trace: Any, records: list[Any], module: str) -> list[int] | None:
    """For each record, which call of ``module`` it ran under: the ordinal (in time order) of the
    outermost ``nn.Module`` event of that class or instance around its launch. None when a launch
    is not linked to such an event (then counts stay per step, as without ``--module``)."""
    from bench_kernel.trace import MODULE_PREFIX

    ids: list[int] = []
    for r in records:
        row = next((k for k in trace.module_chain(r.index)
                    if _is_module(trace.names[trace.python.name[k]][len(MODULE_PREFIX):].strip(), module)), None)
        if row is None:
            return None
        ids.append(row)
    order = {k: n for n, k in enumerate(sorted(set(ids), key=lambda k: float(trace.python.start_us[k])))}
    return [order[i] for i in ids]


def _is_module(text: str, name: str) -> bool:
    """The marker ``LlamaAttention_3`` is an instance of ``LlamaAttention`` and is ``LlamaAttention_3``."""
    return name in (text, re.sub(r"_\d+$", "", text))


def _subject(records: list[Any], kernel: str | None, module: str | None, step: int | None) -> str:
    """What the document is about: the module asked for, else the costliest kernel of a kernel
    selection, else the outermost module of the step."""
    if module is not None:
        return module
    if kernel is not None:
        by: dict[str, float] = {}
        for r in records:
            by[r.short] = by.get(r.short, 0.0) + r.dur_us
        return max(by, key=by.__getitem__)
    for f in records[0].stack or ():
        if f.is_module:
            return re.sub(r"_\d+$", "", f.function.split(":", 1)[1].strip())
    # no modules: the deepest function every selected launch passes through
    stacks = [[f for f in r.stack or () if f.file] for r in records]
    shared = None
    for frames in zip(*stacks):
        if any(f != frames[0] for f in frames[1:]):
            break
        shared = frames[0]
    return shared.function if shared is not None else f"step {step}"


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


def check_call(*, kernel: str | None = None, link_style: str = "path", gpu: bool = True) -> Any:
    """What :func:`document_call` needs before anything runs, checked in the order the CLI promises:
    the options (UsageError, exit 2: wrong on any machine), then a GPU (DeviceError, exit 1: the
    command is right, this machine is not). ``gpu=False``: the options only -- ``source-trace
    TARGET`` checks them before it imports the target, then picks the target's case (``--case``:
    wrong on any machine too), and only then asks for a GPU. Returns ``torch`` (None without ``gpu``)."""
    check_link_style(link_style)
    _kernel_rx(kernel)
    return require_gpu("source-trace of a callable", "use --trace for a recorded trace") if gpu else None


def document_call(fn: Callable[..., Any], *, make_inputs: Callable[[], Any] | None = None,
                  name: str | None = None, root: str | Path | None = None,
                  doc_path: str | Path | None = None, calls: int = 3, keep_all_frames: bool = False,
                  kernel: str | None = None, module: str | None = None, top: int | None = None,
                  flow: str = "auto", link_style: str = "path", torch_ref: str | None = None) -> SourceTrace:
    """Run ``fn`` (``fn(*make_inputs())``) under the PyTorch profiler, ``calls`` recorded calls after a
    warm-up (``bench_kernel.measure.record_trace``: shapes, stacks, module markers), and document
    how it reaches each of its kernels. Times are means over the calls. The filters and options
    are those of :func:`document_trace`.

    Raises MeasurementError when the call raises or launches no kernel.
    """
    from bench_kernel.trace import find_steps, kernel_steps, load_trace

    torch = check_call(kernel=kernel, link_style=link_style)
    style = check_link_style(link_style)
    rx = _kernel_rx(kernel)
    label: str = name if name else getattr(fn, "__name__", "call")  # not `or`: mypy keeps name's None in that
    inputs = guard(label, "make_inputs", make_inputs) if make_inputs else None
    out = guard(label, "warm-up", lambda: call_with(fn, inputs))
    torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = record_trace(lambda: call_with(fn, inputs), Path(tmp) / "source_trace.json", steps=calls,
                            warmup=1, label=label)
        trace = load_trace(path, shapes=True, stacks=True)
    steps = find_steps(trace)
    ks = kernel_steps(trace, steps) if steps else None
    idx = [i for i in range(trace.kernel_count) if ks is None or ks[i] >= 0]
    if not idx:
        raise MeasurementError(f"{label!r} launched no kernel: nothing to trace")
    chosen = _keep(trace, idx, rx)
    if not chosen:
        raise MeasurementError(f"--kernel {kernel!r} matches none of the {len(idx)} kernels {label!r} launched")
    records = _records(trace, chosen, module, "")
    launches = [Launch(r, int(ks[r.index]) if ks is not None else 0) for r in records]
    root_p, doc_dir = _paths(root, doc_path)
    return build(label, launches, max(len(steps), 1), root=root_p, doc_dir=doc_dir,
                 device=torch.cuda.get_device_name(), backend="hip" if torch.version.hip else "cuda",
                 keep_all_frames=keep_all_frames, live=True, inputs=_input_labels(fn, inputs),
                 output=_describe(out), top=top, flow=flow, link_style=style, torch_ref=torch_ref,
                 selection=_selection(kernel, module, top))
