"""``layers``: the repeating per-layer kernel sequence and per-position statistics.

A transformer runs the same kernels for every layer, so the kernel-name sequence of a step is
periodic. We find the period from an *anchor*: a kernel that runs once per repeating unit (the
attention kernel, typically), either chosen automatically or named with ``anchor`` (a regex).

1. Sequences: the kernels of each step (steps from ``data/steps.json``; kernels of one step only,
   so a unit never spans two steps), else the whole trace as one sequence.
2. For a candidate anchor, the period P is the most common distance between its consecutive
   occurrences -- or between every m-th one, for an anchor that runs m times per unit (a GEMM
   that serves both attention and MLP runs twice per layer). With ``anchor`` given, m = 1..8 are
   tried and the m that covers the most kernels with kept units wins (ties: more units, i.e. the
   smaller m); when no m gives two matching units the anchor is refused, saying so. A unit is the P kernels starting ``offset`` positions before an occurrence; units
   whose anchor distance differs from P (a layer of another length), whose kernel sequence differs
   from the most common one, or that are cut off by a step's start/end are left out, with the reason.
3. The automatic anchor maximises the kernels covered by kept units (ties: more units, i.e. the
   smaller period; then the rarer and then the longer-running kernel, typically attention). The
   offset maximises the units kept. Several offsets can tie (a model's final norm runs the same
   kernels as a layer's first norm); with nn.Module markers in the trace the tie goes to the offset
   where the shallowest module call begins (the decoder layer itself), else to the smaller offset,
   so positions count from the anchor.

Models whose layers alternate between two kinds (gpt-oss: sliding-window and full attention) repeat
every two layers; the unit found is then a pair of layers and ``layer_count`` counts pairs.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, cast

import numpy as np

from bench_kernel.errors import TraceError, UsageError
from bench_kernel.records import LayerPosition, LayerReport, LeftOut, StepPhase
from bench_kernel.trace._match import kernel_regex, matching_kernel_names
from bench_kernel.trace._phases import classify_steps
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import PHASES, StepRules
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["LayerPosition", "LeftOut", "LayerReport", "layers"]


@dataclass
class _Fit:
    period: int
    offset: int
    units: list[tuple[int, int]]  # (sequence, start)
    signature: tuple[int, ...]
    left_out: Counter


def _sequences(trace: Trace, step: str | None, rules: StepRules | None) -> list[np.ndarray]:
    """Kernel indices per step (restricted to a phase), else all kernels as one sequence."""
    steps = find_steps(trace, rules) if trace.links else []
    if step is not None:
        if step not in PHASES:
            raise UsageError(f"--step {step!r}: choose one of {', '.join(PHASES)}")
        if not steps:
            raise TraceError(f"{trace.path}: no steps found, so none is a {step} step; drop --step")
        steps, method, _, _ = classify_steps(trace, steps, rules)
        if not any(s.phase == step for s in steps):
            found = Counter(s.phase for s in steps)
            raise TraceError(f"{trace.path}: no {step} steps (found {dict(found)} by {method}); "
                             f"try another --step or drop it")
    if not steps:
        return [np.arange(trace.kernel_count)]
    which = kernel_steps(trace, steps)
    keep = [i for i, s in enumerate(steps) if step is None or s.phase == step]
    seqs = [np.flatnonzero(which == i) for i in keep]
    return [s for s in seqs if len(s)]


def _fit(ids: list[np.ndarray], anchor_ids: np.ndarray, offset: int | None,
         depth: Callable[[_Fit], float] | None = None, per_unit: int = 1) -> _Fit | None:
    """Units for one anchor class (name ids) that runs ``per_unit`` times per unit; ``offset=None``
    searches the best offset, breaking ties with ``depth`` (lower is better) when given, else by the
    smaller offset."""
    occ = [np.flatnonzero(np.isin(s, anchor_ids))[::per_unit] for s in ids]
    gaps = Counter(int(g) for o in occ for g in np.diff(o))
    if not gaps:
        return None
    period = max(gaps.items(), key=lambda kv: (kv[1] * kv[0], kv[1]))[0]
    fits = [_units(ids, occ, period, r) for r in ([offset] if offset is not None else range(period))]
    most = max(len(f.units) for f in fits)
    tied = [f for f in fits if len(f.units) == most]
    if depth is not None and len(tied) > 1:
        return min(tied, key=lambda f: (depth(f), f.offset))
    return tied[0]


def _module_depth(trace: Trace, seqs: list[np.ndarray]) -> Callable[[_Fit], float]:
    """Mean depth of the outermost nn.Module call that *begins* at each unit's first kernel.

    When several offsets keep the same number of units (a model's final norm runs the same kernels
    as a layer's first norm), the true layer boundary is where the shallowest module starts:
    ``LlamaDecoderLayer_3`` rather than its ``Linear``. Units with no module starting there score
    high. Needs module markers (traces recorded with ``with_stack``/``with_modules``).
    """
    none = 99.0

    def score(fit: _Fit) -> float:
        total = 0.0
        for q, start in fit.units:
            seq = seqs[q]
            here = trace.module_chain(int(seq[start]))
            before = set(trace.module_chain(int(seq[start - 1]))) if start else set()
            new = [d for d, m in enumerate(here) if m not in before]
            total += new[0] if new else none
        return total / max(len(fit.units), 1)

    return score


def _units(ids: list[np.ndarray], occ: list[np.ndarray], period: int, r: int) -> _Fit:
    left: Counter = Counter()
    cands: list[tuple[int, int, tuple[int, ...]]] = []
    for q, (seq, o) in enumerate(zip(ids, occ)):
        if not len(o) and len(ids) > 1:
            left["a whole step without the anchor kernel (counts steps, not units)"] += 1
        for k, p in enumerate(o.tolist()):
            nxt = o[k + 1] if k + 1 < len(o) else None
            if nxt is not None and nxt - p != period:
                left[f"anchor distance {nxt - p} != period {period} (a layer of another length)"] += 1
                continue
            start = p - r
            if start < 0 or start + period > len(seq):
                left["cut off by the start or end of its step"] += 1
                continue
            cands.append((q, start, tuple(seq[start:start + period].tolist())))
    if not cands:
        return _Fit(period, r, [], (), left)
    signature = Counter(c[2] for c in cands).most_common(1)[0][0]
    units = [(q, s) for q, s, sig in cands if sig == signature]
    differ = len(cands) - len(units)
    if differ:
        left["kernel sequence differs from the dominant unit"] += differ
    return _Fit(period, r, units, signature, left)


#: An anchor given by the user may run up to this many times per repeating unit.
MAX_ANCHOR_PER_UNIT = 8


def _score(fit: _Fit) -> tuple[int, int, int]:
    """Kernels covered by kept units, then more units (a smaller period)."""
    return len(fit.units) * fit.period, len(fit.units), -fit.period


def _user_anchor(trace: Trace, seqs: list[np.ndarray], ids: list[np.ndarray], anchor: str
                 ) -> tuple[_Fit, np.ndarray, int]:
    """The anchor the user named (the raw-or-short name rule of ``_match``), and how often it runs per unit."""
    hit = matching_kernel_names(trace, kernel_regex(anchor, "--anchor"))
    if not len(hit):
        present = np.unique(trace.kernels.name)
        sample = ", ".join(trace.decoded(int(u)).short[:40] for u in present[:5])
        # A valid regex this trace has no kernel for: the trace's answer (rc 1), not a usage error (rc 2).
        raise TraceError(f"--anchor {anchor!r} matches none of the {len(present)} kernel names (e.g. {sample})")
    # Each m is judged at its best offset: at offset 0 a unit that starts mid-layer loses the layers cut
    # by the step's ends, and a wrong m can then look better than the right one.
    fits = [(f, m) for m in range(1, MAX_ANCHOR_PER_UNIT + 1)
            if (f := _fit(ids, hit, offset=None, per_unit=m)) is not None and len(f.units) >= 2]
    if not fits:
        runs = int(sum(np.isin(s, hit).sum() for s in ids))
        raise TraceError(f"--anchor {anchor!r}: its kernels run {runs} times, but no repeating unit of kernels was "
                         f"found around them with 1 to {MAX_ANCHOR_PER_UNIT} runs per unit; name a kernel that runs a "
                         f"fixed number of times per layer, or drop --anchor")
    fit, m = max(fits, key=lambda fm: _score(fm[0]))
    has_modules = trace.links and len(trace.python) > 0
    best = _fit(ids, hit, offset=None, depth=_module_depth(trace, seqs) if has_modules else None, per_unit=m)
    assert best is not None
    return best, hit, m


def _choose(trace: Trace, seqs: list[np.ndarray], ids: list[np.ndarray], anchor: str | None
            ) -> tuple[_Fit, np.ndarray, int]:
    if anchor is not None:
        return _user_anchor(trace, seqs, ids, anchor)
    counts = Counter(int(x) for s in ids for x in s)
    classes = [np.array([u]) for u, c in counts.items() if c >= 2]
    best: tuple[tuple, _Fit, np.ndarray] | None = None
    all_ids = np.concatenate(ids)
    all_dur = trace.kernels.dur_us[np.concatenate(seqs)]
    for cls in classes:
        fit = _fit(ids, cls, offset=0)  # rank anchors cheaply at offset 0, then tune the winner
        if fit is None or len(fit.units) < 2:
            continue
        hit = np.isin(all_ids, cls)
        score = (len(fit.units) * fit.period, len(fit.units), -fit.period, -int(hit.sum()), float(all_dur[hit].sum()))
        if best is None or score > best[0]:
            best = (score, fit, cls)
    if best is None:
        raise TraceError(f"{trace.path}: no repeating per-layer kernel sequence found in {sum(map(len, ids))} "
                         f"kernels; pass --anchor REGEX naming a kernel that runs once per layer")
    cls = best[2]
    has_modules = trace.links and len(trace.python) > 0
    fit = _fit(ids, cls, offset=None, depth=_module_depth(trace, seqs) if has_modules else None)
    assert fit is not None
    return fit, cls, 1


def layers(trace: Trace, *, anchor: str | None = None, step: str | None = None,
           rules: StepRules | None = None) -> LayerReport:
    """Find the repeating per-layer kernel sequence (see the module docstring for the method).

    ``anchor`` is a regex over kernel names (raw or short) for a kernel that runs a fixed number of
    times per layer (1 to :data:`MAX_ANCHOR_PER_UNIT`); ``step``
    (prefill | decode | mixed) keeps only steps of that phase. Times are microseconds.
    """
    if not trace.kernel_count:
        raise TraceError(f"{trace.path}: no kernel events, so no layers")
    seqs = _sequences(trace, step, rules)
    if not seqs:
        raise TraceError(f"{trace.path}: none of its {trace.kernel_count} kernels was launched inside a step")
    ids = [trace.kernels.name[s] for s in seqs]
    fit, anchor_ids, per_unit = _choose(trace, seqs, ids, anchor)
    P = fit.period
    dur = np.array([trace.kernels.dur_us[seqs[q][s:s + P]] for q, s in fit.units])  # (units, P)
    positions = []
    for pos, nid in enumerate(fit.signature):
        d, col = trace.decoded(nid), dur[:, pos]
        positions.append(LayerPosition(pos, d.name, d.short, d.category, float(col.min()), float(np.median(col)),
                                       float(col.mean()), float(col.max())))
    layer_total = float(sum(p.mean_us for p in positions))
    total = float(dur.sum())
    # STYLE habit 8: the per-position means add up to the mean unit, and x units to the kept total.
    assert math.isclose(layer_total * len(fit.units), total, rel_tol=1e-9, abs_tol=1e-6)
    anchor_names = sorted({trace.decoded(int(i)).short for i in anchor_ids if int(i) in set(fit.signature)})
    return LayerReport(trace=str(trace.path), rank=trace.rank, period=P, layer_count=len(fit.units),
                       anchor=" | ".join(anchor_names), anchor_offset=fit.offset, anchor_per_unit=per_unit,
                       layer_total_us=layer_total, total_us=total, positions=tuple(positions),
                       left_out=tuple(LeftOut(n, why) for why, n in fit.left_out.most_common()),
                       sequences=len(seqs), unit_starts=tuple(int(seqs[q][s]) for q, s in fit.units),
                       step_phase=cast("StepPhase | None", step), load_notes=load_notes(trace))
