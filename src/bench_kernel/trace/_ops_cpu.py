"""``ops`` on a CPU-only trace: no kernels, so each op is counted on the host, from the same recorded
shapes and formulas, over its own duration on the CPU.

Ops nest (``aten::linear`` > ``aten::matmul`` > ``aten::mm``): an op is counted when it has a formula
and no op inside it has one, so no work is counted twice and the innermost, most specific formula
applies (the GEMM, not the ``linear`` around it). The time base is the host time of the outermost
ops of every thread; what the counted ops do not cover is named per op by its own time (its
duration less its children's): those sum exactly to the rest.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from bench_kernel.records import OpsBy, OpsReport, OpsRow, Uncounted
from bench_kernel.roofline import formula_kind
from bench_kernel.trace._ops_calls import Call
from bench_kernel.trace._ops_context import ServingContext
from bench_kernel.trace._ops_rows import NO_FORMULA, Priced, UncountedSum, build_row, price_calls
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["cpu_ops"]


def _parents(t: Trace) -> np.ndarray:
    """Per op: the op that encloses it on its thread (the innermost), or -1."""
    o = t.ops
    end = o.start_us + np.maximum(o.dur_us, 0.0)
    order = np.lexsort((-end, o.start_us, o.tid, o.pid))
    parent = np.full(len(o), -1, dtype=np.int64)
    stack: list[int] = []
    key = None
    for i in order.tolist():
        k = (int(o.pid[i]), int(o.tid[i]))
        if k != key:
            stack, key = [], k
        s = float(o.start_us[i])
        while stack and float(end[stack[-1]]) < s:
            stack.pop()
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    return parent


def cpu_ops(trace: Trace, *, by: OpsBy) -> OpsReport:
    """The ``OpsReport`` of a trace with no kernels (module docstring)."""
    o = trace.ops
    names = [trace.names[int(n)] for n in o.name]
    kinds = {n: formula_kind(n) for n in set(names)}
    has = np.array([kinds[n] not in (None, "none") for n in names], dtype=bool)
    parent = _parents(trace)
    inner = np.zeros(len(o), dtype=bool)  # has a formula'd op inside it
    for i in np.flatnonzero(has).tolist():
        p = int(parent[i])
        while p >= 0 and not inner[p]:
            inner[p] = True
            p = int(parent[p])
    counted_mask = has & ~inner
    counted_ops = np.flatnonzero(counted_mask)
    covered = counted_mask.copy()  # a counted op, or inside one
    for i in range(len(o)):
        p = int(parent[i])
        while p >= 0 and not covered[i]:
            covered[i] = counted_mask[p]
            p = int(parent[p])
    calls = [Call(0, int(k), "op", [], float(o.dur_us[k])) for k in counted_ops.tolist()]
    priced = price_calls(calls, [trace], by, ServingContext(trace), {})
    groups: dict[tuple[str, str | None], list[Priced]] = defaultdict(list)
    for call in priced:
        groups[(call.name, call.shapes)].append(call)
    rows: list[OpsRow] = []
    left: defaultdict[str, UncountedSum] = defaultdict(UncountedSum)  # .kernels stays 0: no kernels here
    for (name, shapes), members in groups.items():
        parts = build_row(name, shapes, members, None)
        rows.append(OpsRow(**parts.values))
        for reason, us, _ in parts.uncounted:
            left[reason].us += us
            left[reason].ops.append(name)
    child_us = np.bincount(parent[parent >= 0], weights=o.dur_us[parent >= 0], minlength=len(o))
    own = o.dur_us - child_us
    for i in np.flatnonzero(~covered).tolist():
        left[NO_FORMULA].us += float(own[i])
        left[NO_FORMULA].ops.append(names[i])
    rows.sort(key=lambda r: -r.kernel_us)
    total = float(o.dur_us[parent < 0].sum())
    counted = sum(r.counted_us for r in rows)
    uncounted = []
    for reason, entry in left.items():
        by_op: dict[str, float] = defaultdict(float)
        if reason == NO_FORMULA:
            for i in np.flatnonzero(~covered).tolist():
                by_op[names[i]] += float(own[i])
        top = sorted(by_op, key=lambda n: -by_op[n])[:12] if by_op else list(dict.fromkeys(entry.ops))
        uncounted.append(Uncounted(reason, 0, entry.us, tuple(top)))
    uncounted.sort(key=lambda u: -u.us)
    assert math.isclose(counted + sum(u.us for u in uncounted), total, rel_tol=1e-6, abs_tol=1e-3)
    notes = ("a CPU-only trace (no kernels): each op counted on the host over its own duration, children "
             "included; an op is counted where no op inside it has a formula (aten::mm, not the aten::linear "
             "around it)", "no roofs: the peak table has no CPUs")
    return OpsReport(trace=str(trace.path), by=by, time_base="host", total_kernel_us=total, unlinked_kernels=0,
                     unlinked_us=0.0, counted_share=counted / total if total else 0.0, rows=tuple(rows),
                     uncounted=tuple(uncounted), notes=notes, load_notes=load_notes(trace))
