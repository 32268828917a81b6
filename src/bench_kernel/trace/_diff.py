"""``diff``: what changed between two traces, per category and per kernel short name.

Deltas are B - A, sorted by absolute time impact. When both traces have steps (``data/steps.json``),
counts and times are divided by each trace's step count -- a 12-step trace and a 20-step trace are
then comparable -- and kernels launched outside every step are left out of both.
"""

from __future__ import annotations

import math

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.kernels import distinct_shorts
from bench_kernel.records import DiffRow, DiffStatus, TraceDiff
from bench_kernel.trace._inventory import group_kernels
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import StepRules
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["DiffRow", "TraceDiff", "diff"]


def _side(trace: Trace, steps: list | None, by: str, shorts: dict[str, str] | None = None
          ) -> dict[str, tuple[float, float]]:
    """Per group: (count, total us), per step when ``steps`` are given; with ``shorts`` (name -> short
    name, one-to-one) per kernel, keyed by its short name."""
    mask = kernel_steps(trace, steps) >= 0 if steps else None
    keys, count, total, _, _, _ = group_kernels(trace, mask, "name" if shorts is not None else by)
    if shorts is not None:
        keys = [shorts[k] for k in keys]
    div = float(len(steps)) if steps else 1.0
    return {k: (float(c) / div, float(t) / div) for k, c, t in zip(keys, count, total)}


def _rows(a: dict[str, tuple[float, float]], b: dict[str, tuple[float, float]]) -> tuple[DiffRow, ...]:
    rows = []
    for key in a.keys() | b.keys():
        ca, ta = a.get(key, (0.0, 0.0))
        cb, tb = b.get(key, (0.0, 0.0))
        status: DiffStatus
        if key not in a or key not in b:
            status = "new" if key not in a else "vanished"
        else:
            # Per-step figures are float means: equal within rounding is equal (a trace against itself).
            same = math.isclose(ca, cb, rel_tol=1e-12, abs_tol=1e-12) and math.isclose(ta, tb, rel_tol=1e-12,
                                                                                          abs_tol=1e-9)
            status = "unchanged" if same else "changed"
        rows.append(DiffRow(key, status, ca, cb, ta, tb, tb - ta, 100.0 * (tb - ta) / ta if ta else None))
    rows.sort(key=lambda r: (-abs(r.delta_us), r.key))
    return tuple(rows)


def diff(a: Trace, b: Trace, *, rules: StepRules | None = None) -> TraceDiff:
    """Compare two traces' kernels per category and per short name (B - A; per step when both have steps)."""
    for t in (a, b):
        if not t.kernel_count:
            raise TraceError(f"{t.path}: no kernel events to compare")
    # steps are searched once per trace; both must have them for per-step figures
    found = [find_steps(t, rules) if t.links else [] for t in (a, b)]
    has_steps = all(found)
    notes = []
    if not has_steps:
        notes.append("totals are for the whole traces: steps were not found in both, so nothing is normalised")
    sa, sb = (found[0], found[1]) if has_steps else (None, None)
    cat_a, cat_b = _side(a, sa, "category"), _side(b, sb, "category")
    # Short names distinct over BOTH traces: each trace's own would label a kernel by what
    # it shares a short name with in that trace only, and one kernel could show as vanished and new.
    shorts = distinct_shorts(t.names[i] for t in (a, b) for i in np.unique(t.kernels.name).tolist())
    ker_a, ker_b = _side(a, sa, "short", shorts), _side(b, sb, "short", shorts)
    steps_a, steps_b = (len(found[0]), len(found[1])) if has_steps else (None, None)
    total_a = sum(t for _, t in cat_a.values())
    total_b = sum(t for _, t in cat_b.values())
    kernels, categories = _rows(ker_a, ker_b), _rows(cat_a, cat_b)
    # STYLE habit 8: both breakdowns account for the whole change.
    for rows in (kernels, categories):
        assert math.isclose(sum(r.delta_us for r in rows), total_b - total_a, rel_tol=1e-9, abs_tol=1e-6)
    return TraceDiff(trace_a=str(a.path), trace_b=str(b.path), per_step=has_steps, steps_a=steps_a, steps_b=steps_b,
                     total_us_a=total_a, total_us_b=total_b, delta_us=total_b - total_a, categories=categories,
                     kernels=kernels, notes=tuple(notes), load_notes=load_notes(a, b))

