"""``inventory``: count and time per kernel name (or category, or family), from the columns.

Memcpy/memset are device work but not kernels: they are excluded from the kernel totals and listed
separately (``memory_ops``), so ``total_kernel_us`` is exactly the sum of kernel durations.
"""

from __future__ import annotations

import math
from typing import cast, get_args

import numpy as np

from bench_kernel.errors import TraceError, UsageError
from bench_kernel.records import CountTime, GroupBy, Inventory, InventoryRow, MemoryOpRow
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import StepRules
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["InventoryRow", "MemoryOpRow", "Inventory", "inventory", "group_kernels", "BY_CHOICES"]

BY_CHOICES: tuple[GroupBy, ...] = get_args(GroupBy)
#: Group keys ``group_kernels`` accepts: the choices above plus the decoder's short name (for diff).
_GROUP_KEYS = BY_CHOICES + ("short",)


def group_kernels(trace: Trace, mask: np.ndarray | None, by: str) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                              np.ndarray, np.ndarray, np.ndarray]:
    """Per group of the selected kernels: (keys, count, total_us, min_us, max_us, a member's name id)."""
    K = trace.kernels
    name, dur = (K.name, K.dur_us) if mask is None else (K.name[mask], K.dur_us[mask])
    uniq, inv = np.unique(name, return_inverse=True)
    if by == "name":
        keys, group, rep = [trace.names[u] for u in uniq], inv, uniq
    else:
        per_name = np.array([getattr(trace.decoded(int(u)), by) for u in uniq], dtype=object)
        key_of, of_name = np.unique(per_name, return_inverse=True)
        keys, group = [str(k) for k in key_of], of_name[inv]
        rep = np.zeros(len(keys), dtype=np.int64)
        rep[of_name] = uniq
    n = len(keys)
    count = np.bincount(group, minlength=n)
    total = np.bincount(group, weights=dur, minlength=n)
    mins = np.full(n, np.inf)
    maxs = np.full(n, -np.inf)
    np.minimum.at(mins, group, dur)
    np.maximum.at(maxs, group, dur)
    return keys, count, total, mins, maxs, rep


def _memory_ops(trace: Trace) -> tuple[MemoryOpRow, ...]:
    M = trace.memops
    if not len(M):
        return ()
    uniq, inv = np.unique(M.name, return_inverse=True)
    count = np.bincount(inv)
    total = np.bincount(inv, weights=M.dur_us)
    nbytes = np.bincount(inv, weights=np.maximum(M.bytes, 0))
    rows = [MemoryOpRow(trace.names[u], int(c), float(t), int(b)) for u, c, t, b in zip(uniq, count, total, nbytes)]
    return tuple(sorted(rows, key=lambda r: -r.total_us))


def inventory(trace: Trace, *, by: str = "name", top: int | None = None, per_step: bool = False,
              rules: StepRules | None = None) -> Inventory:
    """Count, total/avg/min/max microseconds and share of kernel time per kernel name (or category/family).

    ``per_step`` divides counts and times by the number of steps (see ``data/steps.json``) and
    leaves out kernels launched outside every step. Raises :class:`TraceError` for a trace without
    kernels and :class:`UsageError` for a bad ``by``/``top``.
    """
    if by not in BY_CHOICES:
        raise UsageError(f"--by {by!r}: choose one of {', '.join(BY_CHOICES)}")
    if top is not None and top < 1:
        raise UsageError(f"--top {top}: must be at least 1")
    if not trace.kernel_count:
        counts = ", ".join(f"{k or '(none)'}: {v}" for k, v in sorted(trace.event_counts.items())) or "no events"
        raise TraceError(f"{trace.path}: no kernel events ({counts}); profile with "
                         f"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]")
    mask, steps, outside_n, outside_us = None, None, 0, 0.0
    if per_step:
        found = find_steps(trace, rules)
        if not found:
            raise TraceError(f"{trace.path}: no steps found (no ProfilerStep#, engine step annotation, model "
                             f"module or graph launch); drop --per-step or pass --steps FILE with a rule that matches")
        which = kernel_steps(trace, found)
        mask = which >= 0
        steps = len(found)
        outside_n = int((~mask).sum())
        outside_us = float(trace.kernels.dur_us[~mask].sum())
    keys, count, total, mins, maxs, rep = group_kernels(trace, mask, by)
    div = float(steps) if steps else 1.0
    grand = float(total.sum())
    rows = []
    for i in np.argsort(-total, kind="stable"):
        d = trace.decoded(int(rep[i]))
        rows.append(InventoryRow(
            name=keys[i], short=d.short if by == "name" else keys[i], family=d.family if by != "category" else "",
            category=d.category if by != "family" else "", count=float(count[i]) / div if steps else int(count[i]),
            total_us=float(total[i]) / div, avg_us=float(total[i] / count[i]), min_us=float(mins[i]),
            max_us=float(maxs[i]), pct=100.0 * float(total[i]) / grand if grand else 0.0))
    kept = rows[:top] if top else rows
    rest = rows[len(kept):]
    rest_us = sum(r.total_us for r in rest)
    kernel_count = int(count.sum()) if not steps else float(count.sum()) / div
    inv = Inventory(trace=str(trace.path), rank=trace.rank, device=trace.device_name, by=cast(GroupBy, by),
                    kernel_count=kernel_count, total_kernel_us=grand / div, per_step=per_step, steps=steps,
                    kernels=tuple(kept), rest=CountTime(sum(r.count for r in rest), rest_us),
                    outside_steps=CountTime(outside_n, outside_us), memory_ops=_memory_ops(trace),
                    load_notes=load_notes(trace))
    # STYLE habit 8: the parts add up to the whole.
    assert math.isclose(sum(r.total_us for r in kept) + rest_us, inv.total_kernel_us,
                        rel_tol=1e-9, abs_tol=1e-6), "inventory rows do not sum to the total"
    return inv
