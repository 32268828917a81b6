"""``ops``: how fast each op ran against its roof, from the shapes a trace recorded.

Each kernel belongs to one op call (``_ops_calls``: the op that launched it; for a graph replay the
op the capture recorded; for a kernel launched before the trace's host events, the same op of a
later step) and an op call's time is the sum of its kernels' device time. Its FLOPs and bytes come
from the op's recorded ``Input Dims``/``Input type``/``Concrete Inputs``/``Input Strides`` through the
roofline package's formulas -- the same ones ``run --roofline`` counts a live call with -- and, for
an LLM engine's paged attention and fused MoE, from what the trace records around the call
(``_ops_context``); collectives are counted by their message bytes (``_ops_rows``). A CPU-only trace
is counted op by op on the host (``_ops_cpu``). Nothing here imports torch.

Every microsecond of kernel time is either counted or named with its reason
(``OpsReport.uncounted``); the two sum to the total (asserted). A row's rates are over the calls
that could be counted (``counted_us``), so a row where some calls have no formula is not diluted;
its % of roof is against the device's peak for the row's dtype (the memory roof alone for a dtype
without a compute peak, or when FLOPs are not counted).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Literal, cast, get_args

import numpy as np

from bench_kernel.errors import DeviceError, TraceError, UsageError
from bench_kernel.records import OpsBy, OpsReport, OpsRow, Uncounted
from bench_kernel.roofline import OVER_ROOF_MARK
from bench_kernel.trace._collectives import collective_calls, communication_mask
from bench_kernel.trace._foreign import require_data
from bench_kernel.trace._ops_calls import REASONS, place_kernels
from bench_kernel.trace._ops_context import ServingContext
from bench_kernel.trace._ops_rows import UncountedSum, build_row, price_calls
from bench_kernel.trace._steps import require_links
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["ops", "BY"]

BY: tuple[OpsBy, ...] = get_args(OpsBy)
_DeviceSource = Literal["trace", "--device"]


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


def _resolve_device(trace: Trace, name: str | None) -> tuple[Any, _DeviceSource | None, list[str]]:
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


def _has_shapes(t: Trace) -> bool:
    # Recorded with record_shapes=True, every op carries its Input Dims, empty lists included
    # (aten::empty's arguments are sizes, not tensors): the key's presence is what tells.
    dims = t.ops.input_dims
    return dims is not None and any(isinstance(d, tuple) for d in dims)


def ops(trace: Trace, *, device: str | None = None, by: str = "op", capture: Trace | None = None,
        context_len: int | None = None, moe_intermediate: int | None = None, top: int | None = None) -> OpsReport:
    """Per-op time, FLOPs, bytes, TFLOP/s, TB/s, intensity, % of roof and bound (module docstring).

    ``trace`` (and ``capture``) must be loaded with ``shapes=True``. ``device``: a peak-table name,
    used when the trace's ``deviceProperties`` name none. ``by``: ``op`` or ``shape``. ``capture``:
    the capture trace of a CUDA/HIP-graph trace (the trace's own captures are used when it holds
    them). ``context_len``: the keys every query token of a paged attention sees, where the trace
    records no step lengths; ``moe_intermediate``: a fused MoE's intermediate size (else taken as
    its hidden size, an estimate). ``top``: keep the ``top`` rows with the most kernel time (the
    rest are counted in ``rest_rows`` and ``rest_us``). Raises TraceError for a trace recorded
    without shapes.
    """
    if by not in BY:
        raise UsageError(f"by must be one of {', '.join(BY)}, got {by!r}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise UsageError(f"--top must be a positive whole number, got {top!r}")
    report = _ops(trace, device=device, by=cast(OpsBy, by), capture=capture, context_len=context_len,
                  moe_intermediate=moe_intermediate)
    if top is None or top >= len(report.rows):
        return report
    rest = report.rows[top:]
    return report.replace(rows=report.rows[:top], rest_rows=len(rest), rest_us=sum(r.kernel_us for r in rest))


def _ops(trace: Trace, *, device: str | None, by: OpsBy, capture: Trace | None, context_len: int | None,
         moe_intermediate: int | None) -> OpsReport:
    for value, flag in ((context_len, "--context-len"), (moe_intermediate, "--moe-intermediate")):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise UsageError(f"{flag} must be a positive whole number, got {value!r}")
    require_links(trace, "ops")
    for t in (trace,) + ((capture,) if capture is not None else ()):
        require_data(t, "shapes", "ops")  # Nsight Systems, rocprofv3: one line saying so, not an empty table
        if not t.shapes:
            raise UsageError(f"{t.path.name}: load the trace with shapes=True for ops")
    if not any(_has_shapes(t) for t in [trace] + ([capture] if capture is not None else [])):
        raise TraceError(f"{trace.path.name} records no op shapes: record it with torch.profiler.profile("
                         f"record_shapes=True) (bench-kernel profile does); FLOPs and bytes are not guessed")
    if not len(trace.kernels):
        from bench_kernel.trace._ops_cpu import cpu_ops

        return cpu_ops(trace, by=by)
    spec, device_source, notes = _resolve_device(trace, device)
    placed = place_kernels(trace, capture)
    notes += placed.notes
    ctx = ServingContext(trace, context_len=context_len, moe_intermediate=moe_intermediate)
    comm = {c.kernel_index: c for c in collective_calls(trace).calls} if communication_mask(trace).any() else {}
    priced = price_calls(placed.calls, placed.sources, by, ctx, comm)
    groups: dict[tuple[str, str | None], list[Any]] = defaultdict(list)
    for p in priced:
        groups[(p.name, p.shapes)].append(p)
    rows: list[OpsRow] = []
    left: defaultdict[str, UncountedSum] = defaultdict(UncountedSum)
    for (name, shapes), members in groups.items():
        parts = build_row(name, shapes, members, spec)
        rows.append(OpsRow(**parts.values))
        for reason, us, n in parts.uncounted:
            entry = left[reason]
            entry.us += us
            entry.kernels += n
            entry.ops.append(name)
    K = trace.kernels
    for key, idx in placed.unplaced.items():
        left[REASONS[key]].us += float(K.dur_us[idx].sum())
        left[REASONS[key]].kernels += len(idx)
    rows.sort(key=lambda r: -r.kernel_us)
    uncounted = tuple(sorted((Uncounted(r, e.kernels, e.us, tuple(dict.fromkeys(e.ops))) for r, e in left.items()),
                             key=lambda u: -u.us))
    total = float(K.dur_us.sum())
    counted = sum(r.counted_us for r in rows)
    unlinked = {k: v for k, v in placed.unplaced.items()}
    unlinked_n = sum(len(v) for v in unlinked.values())
    unlinked_us = float(sum(K.dur_us[v].sum() for v in unlinked.values()))
    assert math.isclose(sum(r.kernel_us for r in rows) + unlinked_us, total, rel_tol=1e-9, abs_tol=1e-6)
    assert math.isclose(counted + sum(u.us for u in uncounted), total, rel_tol=1e-9, abs_tol=1e-6)
    replayed = sum(len(unlinked.get(k, ())) for k in ("graph_no_capture", "graph_no_capture_no_grid"))
    if replayed:
        notes.append(f"{replayed} kernels were replayed from a CUDA/HIP graph and have no op: pass the capture "
                     f"trace with --capture to count them")
    if ctx.used:
        notes.append(f"paged attention lengths from: {', '.join(sorted(ctx.used))}")
    over = [r.op for r in rows if r.pct_of_roof is not None and r.pct_of_roof > 100]
    if over:
        notes.append(f"{OVER_ROOF_MARK} above 100% of the roof: {', '.join(over[:6])}{' ...' if len(over) > 6 else ''}; "
                     f"each row's notes name the likely causes")
    return OpsReport(trace=str(trace.path), device=spec.name if spec else None, device_source=device_source, by=by,
                     total_kernel_us=total, unlinked_kernels=unlinked_n, unlinked_us=unlinked_us,
                     counted_share=counted / total if total else 0.0, rows=tuple(rows), uncounted=uncounted,
                     notes=tuple(notes), load_notes=load_notes(trace, *([capture] if capture is not None else [])))
