"""``ops``: how fast each op ran against its roof, from the shapes a trace recorded.

Each kernel belongs to the op that launched it (kernel -> launch -> op, the trace's links); an op
call's time is the sum of its kernels' device time. Its FLOPs and bytes come from the op's
recorded ``Input Dims``/``Input type``/``Concrete Inputs``/``Input Strides`` through the roofline
package's formulas -- the same ones ``run --roofline`` counts a live call with. Kernels replayed
from a CUDA/HIP graph have no op: with a capture trace, ``attribute`` matches them to the launches
that were captured, whose ops carry the shapes. Nothing here imports torch.

A row's rates are over the calls that could be counted (``counted_us``), so a row where some calls
have no formula is not diluted; its % of roof is against the device's peak for the row's dtype
(the memory roof alone for a dtype without a compute peak, or when FLOPs are not counted).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench_kernel.errors import DeviceError, TraceError, UsageError
from bench_kernel.roofline import OVER_ROOF_MARK, Work, analyze, from_trace, op_work, over_roof
from bench_kernel.trace._attribute import attribute
from bench_kernel.trace._foreign import require_data
from bench_kernel.trace._steps import require_links
from bench_kernel.trace._trace import Trace

__all__ = ["OpsRow", "OpsReport", "ops", "BY"]

BY = ("op", "shape")
_OPAQUE = re.compile(r"OpaqueType<(\d+)>")
_BY_SIZE = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


@dataclass(frozen=True)
class OpsRow:
    """One op (``--by op``) or one op with one set of recorded shapes (``--by shape``)."""

    op: str
    shapes: str | None
    """``--by shape``: the recorded input shapes and dtypes, as text."""
    dtype: str | None
    calls: int
    kernels: int
    kernel_us: float
    """Device time of every kernel of these calls."""
    counted_us: float
    """Device time of the calls whose FLOPs and bytes were counted: the rates' denominator."""
    flops: float | None
    bytes: float | None
    achieved_tflops: float | None
    achieved_tbps: float | None
    intensity: float | None
    pct_of_roof: float | None
    bound: str | None
    formula: str | None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class OpsReport:
    """Per-op performance of one trace."""

    trace: str
    device: str | None
    """The peak-table row the roofs come from; None when neither the trace nor ``--device`` gave one."""
    device_source: str | None
    """``trace`` (its ``deviceProperties``) or ``--device``."""
    by: str
    rows: tuple[OpsRow, ...]
    total_kernel_us: float
    unlinked_kernels: int
    unlinked_us: float
    """Kernels with no op (graph replays without a capture, unlinked launches)."""
    counted_share: float
    """Share of the kernel time whose FLOPs and bytes were counted, 0..1."""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "device": self.device, "device_source": self.device_source, "by": self.by,
                "total_kernel_us": self.total_kernel_us, "unlinked_kernels": self.unlinked_kernels,
                "unlinked_us": self.unlinked_us, "counted_share": self.counted_share,
                "rows": [r.to_dict() for r in self.rows], "notes": list(self.notes)}


def _trace_device(trace: Trace) -> tuple[str | None, int | None]:
    """(name, SM/CU count) from ``deviceProperties`` for the device the kernels ran on."""
    props = trace.metadata.get("deviceProperties")
    if not isinstance(props, list):
        return None, None
    ids = trace.kernels.device
    dev = int(np.bincount(ids[ids >= 0]).argmax()) if len(ids) and (ids >= 0).any() else 0
    entries = [p for p in props if isinstance(p, dict)]
    match = next((p for p in entries if p.get("id") == dev), entries[0] if entries else None)
    if not match or not isinstance(match.get("name"), str) or not match["name"].strip():
        return None, None
    sms = match.get("numSms")
    return match["name"].strip(), sms if isinstance(sms, int) else None


def _resolve_device(trace: Trace, name: str | None) -> tuple[Any, str | None, list[str]]:
    from bench_kernel.hardware import get_device, resolve_reported

    notes: list[str] = []
    reported, sms = _trace_device(trace)
    if reported is not None:
        try:
            spec = resolve_reported(reported, sms)
            if name is not None and get_device(name).name != spec.name:
                notes.append(f"the trace was recorded on {reported!r} ({spec.name}): --device {name} is not used")
            return spec, "trace", notes
        except DeviceError as e:
            if name is None:
                notes.append(f"no roofs: {e}")
                return None, None, notes
            notes.append(f"the trace's device {reported!r} is not usable ({e}); roofs of --device {name}")
    if name is not None:
        return get_device(name), "--device", notes
    notes.append("no roofs: the trace names no device (deviceProperties); pass --device NAME")
    return None, None, notes


def _hint(trace: Trace, kernel_index: int) -> str | None:
    """The element type a kernel's name reveals, for ops whose tensor lists carry no dtype."""
    name = trace.names[int(trace.kernels.name[kernel_index])]
    m = _OPAQUE.search(name)
    if m:
        return _BY_SIZE.get(int(m.group(1)))
    from bench_kernel.dtypes import lookup

    return lookup(trace.decoded(int(trace.kernels.name[kernel_index])).fields.get("dtype"))


def _shape_text(dims: Any, types: Any) -> str:
    dims = dims if isinstance(dims, tuple) else ()
    types = types if isinstance(types, tuple) else ()
    parts = []
    for i in range(max(len(dims), len(types))):
        d = dims[i] if i < len(dims) else None
        t = types[i] if i < len(types) else ""
        if isinstance(d, tuple) and d and isinstance(t, str) and t not in ("Scalar", "ScalarList"):
            parts.append(f"{list(d)} {t.removeprefix('c10::')}".strip())
    return ", ".join(parts)


#: An op call: (source trace: 0 the trace, 1 the capture; op row; graph launch) -> [us, kernels, first kernel]
_Calls = dict[tuple[int, int, int], list[Any]]


def _collect(trace: Trace, capture: Trace | None) -> tuple[_Calls, float, int, list[str]]:
    """The op calls of ``trace`` (and of its graph replays through ``capture``), the unlinked time."""
    K, ko = trace.kernels, trace.kernel_op
    linked = ko >= 0
    idx = np.flatnonzero(linked)
    op_rows, first, inverse, counts = np.unique(ko[idx], return_index=True, return_inverse=True, return_counts=True)
    us = np.bincount(inverse, weights=K.dur_us[idx], minlength=len(op_rows))
    calls: _Calls = {(0, int(k), 0): [float(t), int(n), int(idx[f])]
                     for k, t, n, f in zip(op_rows.tolist(), us.tolist(), counts.tolist(), first.tolist())}
    rest = ~linked
    notes = []
    if capture is not None and trace.graph_launched.any():
        att = attribute(trace, capture)
        for a in att.kernels:
            if a.op_index is not None and rest[a.kernel_index]:
                entry = calls.setdefault((1, a.op_index, a.launch), [0.0, 0, a.kernel_index])
                entry[0] += float(K.dur_us[a.kernel_index])
                entry[1] += 1
                rest[a.kernel_index] = False
        notes.append(f"graph replays: {att.matched} of {att.replayed_kernels} replayed kernels matched to the "
                     f"capture's launches ({att.match_rate:.0%}); their shapes come from {capture.path.name}")
    elif capture is not None:
        notes.append(f"--capture {capture.path.name} is not used: no kernel of {trace.path.name} was replayed "
                     f"from a CUDA/HIP graph")
    elif trace.graph_launched.any():
        notes.append(f"{int(trace.graph_launched.sum())} kernels were replayed from a CUDA/HIP graph and have no op: "
                     f"pass the capture trace with --capture to count them")
    return calls, float(K.dur_us[rest].sum()), int(rest.sum()), notes


def _has_shapes(t: Trace) -> bool:
    # Recorded with record_shapes=True, every op carries its Input Dims, empty lists included
    # (aten::empty's arguments are sizes, not tensors): the key's presence is what tells.
    dims = t.ops.input_dims
    return dims is not None and any(isinstance(d, tuple) for d in dims)


def ops(trace: Trace, *, device: str | None = None, by: str = "op", capture: Trace | None = None) -> OpsReport:
    """Per-op device time, FLOPs, bytes, TFLOP/s, TB/s, intensity, % of roof and bound (module docstring).

    ``trace`` (and ``capture``) must be loaded with ``shapes=True``. ``device``: a peak-table name,
    used when the trace's ``deviceProperties`` name none. ``by``: ``op`` or ``shape``. Raises
    TraceError for a trace recorded without shapes (``record_shapes=True``).
    """
    if by not in BY:
        raise UsageError(f"by must be one of {', '.join(BY)}, got {by!r}")
    require_links(trace, "ops")
    for t in (trace,) + ((capture,) if capture is not None else ()):
        require_data(t, "shapes", "ops")  # Nsight Systems, rocprofv3: one line saying so, not an empty table
        if not t.shapes:
            raise UsageError(f"{t.path.name}: load the trace with shapes=True for ops")
    sources = [trace] + ([capture] if capture is not None else [])
    if not any(_has_shapes(t) for t in sources):
        raise TraceError(f"{trace.path.name} records no op shapes: record it with torch.profiler.profile("
                         f"record_shapes=True) (bench-kernel profile does); FLOPs and bytes are not guessed")
    spec, device_source, notes = _resolve_device(trace, device)
    calls, unlinked_us, unlinked, more = _collect(trace, capture)
    notes += more
    works: dict[tuple, Work | None] = {}
    groups: dict[tuple[str, str | None], list[Any]] = defaultdict(list)
    for (src, k, _), (us, n, first) in calls.items():
        t = sources[src]
        o = t.ops
        cols = (o.input_dims[k], o.input_types[k], o.concrete_inputs[k], o.input_strides[k])
        name = t.names[int(o.name[k])]
        # The loader shares one object per distinct recorded value, so identities are a cheap key.
        key = (src, int(o.name[k]), *map(id, cols))
        work = works[key] if key in works else works.setdefault(key, op_work(name, from_trace(*cols)))
        if work is not None and work.bytes is None and work.reason and "tensor list" in work.reason:
            hinted = key + (int(trace.kernels.name[first]),)
            if hinted not in works:
                works[hinted] = op_work(name, from_trace(*cols), dtype_hint=_hint(trace, first))
            work = works[hinted]
        groups[(name, _shape_text(cols[0], cols[1]) if by == "shape" else None)].append((us, n, work))
    rows = [_row(name, shapes, members, spec) for (name, shapes), members in groups.items()]
    rows.sort(key=lambda r: -r.kernel_us)
    total = float(trace.kernels.dur_us.sum())
    counted = sum(r.counted_us for r in rows)
    assert abs(sum(r.kernel_us for r in rows) + unlinked_us - total) <= 1e-6 * max(total, 1.0)
    if unlinked and capture is None and not trace.graph_launched.any():
        notes.append(f"{unlinked} kernels ({unlinked_us:.1f} us) have no op in the trace: launched directly "
                     f"(Triton, custom extensions), they have no recorded shapes to count; "
                     f"'bench-kernel inventory' lists them")
    uncounted = [r.op for r in rows if r.flops is None and r.bytes is None]
    if uncounted:
        notes.append(f"no FLOPs/bytes for {len(uncounted)} ops ({', '.join(uncounted[:6])}"
                     f"{' ...' if len(uncounted) > 6 else ''}): no formula, or their arguments cannot tell")
    over = [r.op for r in rows if r.pct_of_roof is not None and r.pct_of_roof > 100]
    if over:
        notes.append(f"{OVER_ROOF_MARK} above 100% of the roof: {', '.join(over[:6])}{' ...' if len(over) > 6 else ''}; "
                     f"each row's notes name the likely causes")
    return OpsReport(str(trace.path), spec.name if spec else None, device_source, by, tuple(rows), total,
                     unlinked, unlinked_us, counted / total if total else 0.0, tuple(notes))


def _row(name: str, shapes: str | None, members: list[tuple[float, int, Work | None]], spec: Any) -> OpsRow:
    us = sum(m[0] for m in members)
    kernels = sum(m[1] for m in members)
    done = [(u, w) for u, _, w in members if w is not None and w.flops is not None and w.bytes is not None]
    bytes_only = [(u, w) for u, _, w in members if w is not None and w.flops is None and w.bytes is not None]
    formula = next((w.formula for _, _, w in members if w is not None), None)
    notes = list(dict.fromkeys(n for _, _, w in members if w is not None for n in w.notes))
    reasons = list(dict.fromkeys(w.reason for _, _, w in members if w is not None and w.reason))
    if not done and not bytes_only:
        return OpsRow(name, shapes, None, len(members), kernels, us, 0.0, None, None, None, None, None, None, None,
                      formula, tuple(notes + reasons[:1]))
    use = done or bytes_only
    counted_us = sum(u for u, _ in use)
    flops = float(sum(w.flops for _, w in use)) if done else None
    nbytes = float(sum(w.bytes for _, w in use))
    weight: Counter[str] = Counter()  # the dtype carrying most FLOPs, else most bytes
    by_flops = any(w.flops for _, w in use)
    for _, w in use:
        if w.dtype:
            weight[w.dtype] += (w.flops or 0) if by_flops else w.bytes
    dtype = weight.most_common(1)[0][0] if weight else None
    if len(use) < len(members):
        notes.append(f"{len(use)} of {len(members)} calls counted; rates are over their time")
    if not done:
        notes.append("FLOPs not counted: judged against the memory roof")
    if counted_us <= 0:  # issue 24: kernels recorded at 0 us (a clock tick) have work but no rate
        notes.append("its kernels were recorded at 0 µs: no rate")
    pct = bound = None
    if spec is not None and counted_us > 0 and nbytes > 0:
        pct, bound, verdict = _judge(flops or 0.0, nbytes, counted_us, spec, dtype, use, notes)
        if verdict:
            notes.append(verdict)
    timed = counted_us > 0
    return OpsRow(name, shapes, dtype, len(members), kernels, us, counted_us, flops, nbytes,
                  (flops / counted_us / 1e6) if flops is not None and timed else None,
                  nbytes / counted_us / 1e6 if timed else None,
                  (flops / nbytes) if flops is not None and nbytes else None, pct, bound, formula,
                  tuple(notes + (reasons[:1] if done else [])))


def _judge(flops: float, nbytes: float, us: float, spec: Any, dtype: str | None, use: list,
           notes: list[str]) -> tuple[float, str, str | None]:
    """% of roof, bound and (above 100%) the verdict, for one row's counted work."""
    try:
        r = analyze(flops, nbytes, us, device=spec, dtype=dtype or "fp32", calibration=False)
    except (DeviceError, UsageError):  # a dtype without a compute peak (int64, bool): the memory roof
        r = analyze(0.0, nbytes, us, device=spec, dtype="fp32", calibration=False)
        if flops:
            notes.append(f"no {dtype} compute peak: judged against the memory roof")
        return r.pct_of_roof, r.bound, None
    verdict = over_roof(r, spec, dtype_source="ops", flops_source="counted", bytes_source="counted",
                        causal=any(w.causal for _, w in use), estimated=any(w.estimate for _, w in use))
    return r.pct_of_roof, r.bound, verdict
