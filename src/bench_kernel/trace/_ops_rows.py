"""From op calls to ``ops`` rows: each call's work (a formula, or the collective it is), the calls
summed per op (or op and shapes), judged against the roof, and the time no formula counted, by reason.

A call whose kernels are all communication kernels is a collective: its bytes are the message size
and its rates algbw and busbw as nccl-tests defines them (``_collectives``, which ``timeline`` uses
too); it has no FLOPs and no roof (the peak table has no link bandwidth).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench_kernel.errors import DeviceError, UsageError
from bench_kernel.roofline import Work, analyze, formula_context, formula_source, from_trace, op_work, over_roof
from bench_kernel.trace._collectives import CollectiveCall
from bench_kernel.trace._ops_calls import Call
from bench_kernel.trace._ops_context import ServingContext
from bench_kernel.trace._trace import Trace

__all__ = ["Priced", "UncountedSum", "price_calls", "build_row", "NO_FORMULA", "NO_SIZE"]

_OPAQUE = re.compile(r"OpaqueType<(\d+)>")
_BY_SIZE = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}
NO_FORMULA = "no formula for the op"
NO_SIZE = "a collective with no recorded message size"


@dataclass(slots=True)
class Priced:
    """One call with its work."""

    name: str
    shapes: str | None
    us: float
    kernels: int
    work: Work | None
    origin: str
    collective: tuple[str, float | None] | None = None
    """(collective, busbw/algbw factor) for a communication call."""


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


def _collective_work(name: str, calls: list[CollectiveCall]) -> tuple[Work, tuple[str, float | None]]:
    sizes = [c.msg_bytes for c in calls]
    known = None if None in sizes else int(sum(sizes))  # type: ignore[arg-type]
    c0 = calls[0]
    factor = c0.busbw_gbps / c0.algbw_gbps if c0.busbw_gbps is not None and c0.algbw_gbps else None
    return (Work(name, "collective", None, known, c0.dtype, (), None if known is not None else NO_SIZE),
            (c0.collective, factor))


def _shape_columns(t: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ops' Input Dims, Input type, Concrete Inputs and Input Strides columns (``shapes=True``)."""
    o = t.ops
    if o.input_dims is None or o.input_types is None or o.concrete_inputs is None or o.input_strides is None:
        raise UsageError(f"{t.path.name}: load the trace with shapes=True for ops")
    return o.input_dims, o.input_types, o.concrete_inputs, o.input_strides


def price_calls(calls: list[Call], sources: list[Trace], by: str, ctx: ServingContext,
                comm: dict[int, CollectiveCall]) -> list[Priced]:
    """The work of every call: collectives from ``comm`` (kernel index -> call), the rest by formula."""
    trace = sources[0]
    shape_columns = [_shape_columns(t) for t in sources]
    cache: dict[tuple[Hashable, ...], Work | None] = {}
    kinds: dict[tuple[int, int], str | None] = {}
    out: list[Priced] = []
    for call in calls:
        t = sources[call.src]
        k = call.op
        nid = int(t.ops.name[k])
        name = t.names[nid]
        dims, types, concrete, strides = shape_columns[call.src]
        cols = (dims[k], types[k], concrete[k], strides[k])
        shapes = _shape_text(cols[0], cols[1]) if by == "shape" else None
        n = len(call.kernels)
        if comm:
            colls = [comm[i] for i in call.kernels if i in comm]
            if colls and len(colls) == n:
                if call.like:  # launched before the trace's host events: the matched later call's metadata
                    colls = [comm.get(j, c) if c.msg_bytes is None else c for c, j in zip(colls, call.like)]
                coll_work, coll = _collective_work(name, colls)
                out.append(Priced(f"{coll[0]} ({name})", shapes, call.us, n, coll_work, call.origin, coll))
                continue
        kind = kinds.get((call.src, nid), "?")
        if kind == "?":
            kind = kinds[(call.src, nid)] = formula_context(name)
        context = _context(kind, ctx, trace, t, call) if kind is not None else {}
        # The loader shares one object per distinct recorded value, so identities are a cheap key.
        key: tuple[Hashable, ...] = (call.src, nid, id(cols[0]), id(cols[1]), id(cols[2]), id(cols[3]))
        if context:
            key += tuple(sorted(context.items()))
        if key not in cache:
            cache[key] = op_work(name, from_trace(*cols), context=context)
        work = cache[key]
        if work is not None and work.bytes is None and work.reason and "tensor list" in work.reason and n:
            hinted = key + (int(trace.kernels.name[call.kernels[0]]),)
            if hinted not in cache:
                cache[hinted] = op_work(name, from_trace(*cols), dtype_hint=_hint(trace, call.kernels[0]),
                                        context=context)
            work = cache[hinted]
        out.append(Priced(name, shapes, call.us, n, work, call.origin))
    return out


def _context(kind: str, ctx: ServingContext, trace: Trace, src: Trace, call: Call) -> dict[str, Any]:
    if kind == "attention":
        # the step around the call's host time: its op's start, or the graph launch that replayed it
        host = float(src.ops.start_us[call.op]) if call.origin != "capture" else \
            float(trace.host_time_us[call.kernels[0]])
        return ctx.attention(host)
    if kind == "moe":
        names = [trace.names[int(trace.kernels.name[i])] for i in call.kernels]
        return ctx.moe(src, call.op, names)
    return {}


@dataclass(frozen=True)
class RowParts:
    """A row's numbers before they become an ``OpsRow``, and what it left uncounted."""

    values: dict[str, Any]
    uncounted: list[tuple[str, float, int]]
    """(reason, us, kernels) of its calls that were not counted."""


@dataclass(slots=True)
class UncountedSum:
    """One reason's uncounted time over the rows, as it is summed: microseconds, kernels, the ops concerned."""

    us: float = 0.0
    kernels: int = 0
    ops: list[str] = field(default_factory=list)


def build_row(name: str, shapes: str | None, members: list[Priced], spec: Any) -> RowParts:
    """One row's fields (``OpsRow``'s names) from the calls that share its op (and shapes)."""
    us = sum(m.us for m in members)
    kernels = sum(m.kernels for m in members)
    done = [m for m in members if m.work is not None and m.work.flops is not None and m.work.bytes is not None]
    bytes_only = [m for m in members if m.work is not None and m.work.flops is None and m.work.bytes is not None]
    use = done or bytes_only
    used = {id(m) for m in use}
    left: dict[str, list[Priced]] = defaultdict(list)
    for m in members:
        if id(m) not in used:
            reason = (m.work.reason if m.work is not None else None) or NO_FORMULA
            left[reason].append(m)
    uncounted = [(r, sum(m.us for m in ms), sum(m.kernels for m in ms)) for r, ms in left.items()]
    works = [m.work for m in members if m.work is not None]
    notes = list(dict.fromkeys(n for w in works for n in w.notes))
    reasons = list(dict.fromkeys(w.reason for w in works if w.reason))
    origins = sorted({m.origin for m in members})
    coll = next((m.collective for m in members if m.collective is not None), None)
    values: dict[str, Any] = {
        "op": name, "shapes": shapes, "dtype": None, "calls": len(members), "kernels": kernels, "kernel_us": us,
        "counted_us": 0.0, "flops": None, "bytes": None, "achieved_tflops": None, "achieved_tbps": None,
        "intensity": None, "pct_of_roof": None, "bound": None, "formula": works[0].formula if works else None,
        "estimate": False, "origin": "+".join(origins), "collective": coll[0] if coll else None,
        "algbw_gbps": None, "busbw_gbps": None, "source": formula_source(name), "notes": ()}
    if not use:
        values["notes"] = tuple(notes + reasons[:1])
        return RowParts(values, uncounted)
    counted_us = sum(m.us for m in use)
    flops = float(sum(m.work.flops for m in use)) if done else None  # type: ignore[misc, union-attr]
    nbytes = float(sum(m.work.bytes for m in use))  # type: ignore[misc, union-attr]
    weight: Counter[str] = Counter()  # the dtype carrying most FLOPs, else most bytes
    by_flops = any(m.work.flops for m in use)  # type: ignore[union-attr]
    for m in use:
        w = m.work
        if w.dtype:  # type: ignore[union-attr]
            weight[w.dtype] += (w.flops or 0) if by_flops else w.bytes  # type: ignore[union-attr, operator]
    estimate = any(m.work.estimate or m.origin == "sequence" for m in use)  # type: ignore[union-attr]
    if any(m.origin == "sequence" for m in use):
        notes.append("shapes from the same kernels' ops in a later step (launched before the trace's host events)")
    if len(use) < len(members):
        notes.append(f"{len(use)} of {len(members)} calls counted; rates are over their time")
    values.update(dtype=weight.most_common(1)[0][0] if weight else None, counted_us=counted_us, flops=flops,
                  bytes=nbytes, estimate=estimate, intensity=flops / nbytes if flops is not None and nbytes else None)
    if counted_us <= 0:  # kernels recorded at 0 us (under a clock tick) have work but no rate: no division by 0
        notes.append("its kernels were recorded at 0 µs: no rate")
        values["notes"] = tuple(notes + (reasons[:1] if done else []))
        return RowParts(values, uncounted)
    values["achieved_tbps"] = nbytes / counted_us / 1e6
    if coll is not None:
        algbw = nbytes / counted_us / 1e3  # bytes/us -> GB/s
        values.update(algbw_gbps=algbw, busbw_gbps=algbw * coll[1] if coll[1] is not None else None)
        notes.append("a collective: TB/s is its algorithm bandwidth (message bytes / time, nccl-tests), which "
                     "includes waiting for peers; no roof")
        if coll[1] is None:
            notes.append("no busbw: the collective's group size is not recorded")
        values["notes"] = tuple(notes)
        return RowParts(values, uncounted)
    if flops is not None:
        values["achieved_tflops"] = flops / counted_us / 1e6
    else:
        notes.append("FLOPs not counted: judged against the memory roof")
    if spec is not None and counted_us > 0 and nbytes > 0:
        pct, bound, verdict = _judge(flops or 0.0, nbytes, counted_us, spec, values["dtype"], use, notes)
        values.update(pct_of_roof=pct, bound=bound)
        if verdict:
            notes.append(verdict)
    values["notes"] = tuple(notes + (reasons[:1] if done else []))
    return RowParts(values, uncounted)


def _judge(flops: float, nbytes: float, us: float, spec: Any, dtype: str | None, use: list[Priced],
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
                        causal=any(m.work.causal for m in use),  # type: ignore[union-attr]
                        estimated=any(m.work.estimate or m.origin == "sequence" for m in use))  # type: ignore[union-attr]
    return r.pct_of_roof, r.bound, verdict
