"""``phases``: split a trace's steps into prefill and decode, with each phase's kernel time.

How a step's phase is decided, in order (``PhaseReport.method`` says which one was used):
1. ``annotation``: the engine's step annotation names it (SGLang ``step[EXTEND ...]``, vLLM
   ``execute_..._context_C_generation_G``, ATOM ``prefill[...]``); see ``data/steps.json``.
2. ``shapes``: the step's token count M -- the largest leading size of a GEMM's activation input
   (``gemm_ops`` in ``data/steps.json``; needs ``record_shapes``). A decode step processes one token
   per sequence, a prefill step a whole prompt per sequence, so the steps' M fall in two groups far
   apart: the distinct M are split at their largest ratio gap, the lower group is decode and the upper
   prefill. The minimum M alone is not decode: a continuous-batching engine's decode steps carry one
   token per running request, so M moves with the batch (4, 4, ..., 3 as requests finish; seen with
   ``transformers serve --continuous-batching`` on an H200). When the gap is under
   :data:`PHASE_GAP_RATIO` (every M alike) the two cannot be told apart and the steps stay ``unknown``.
3. ``kernel_time``: no shapes either. A prefill step does far more work than a decode step of the same
   model, so steps with at least twice the kernel time of the cheapest step are called prefill. This
   is a heuristic and is labelled as one.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.records import OutsideSteps, Phase, PhaseMethod, PhaseReport, PhaseStep, PhaseSummary, TopKernel
from bench_kernel.trace._records import Step
from bench_kernel.trace._steps import find_steps, kernel_steps
from bench_kernel.trace._tables import PHASES, StepRules, load_step_rules
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["PhaseSummary", "PhaseReport", "phases", "classify_steps", "step_tokens", "annotated_tokens"]

#: A step is prefill under the kernel_time heuristic at this multiple of the cheapest step's time.
PREFILL_TIME_RATIO = 2.0
_TOP_KERNELS = 5


def step_tokens(trace: Trace, steps: list[Step], rules: StepRules) -> list[int | None]:
    """Per step: the largest GEMM activation leading size M among its CPU ops (None: no shape)."""
    o = trace.ops
    if o.input_dims is None or not steps:
        return [None] * len(steps)
    gemm_index = {i: rules.gemm_ops[n] for i, n in enumerate(trace.names) if n in rules.gemm_ops}
    which = np.flatnonzero(np.isin(o.name, list(gemm_index))) if gemm_index else np.zeros(0, np.int64)
    starts = np.array([s.start_us for s in steps])
    order = np.argsort(starts, kind="stable")
    out: list[int | None] = [None] * len(steps)
    for k in which:
        j = int(np.searchsorted(starts[order], o.start_us[k], side="right")) - 1
        if j < 0 or o.start_us[k] > steps[order[j]].end_us:
            continue
        m = _leading(o.input_dims[k], gemm_index[int(o.name[k])])
        s = int(order[j])
        if m is not None and (out[s] is None or m > out[s]):  # type: ignore[operator]
            out[s] = m
    return out


def _leading(dims: Any, index: int) -> int | None:
    """Product of all but the last dim of input ``index`` (the token count of a GEMM activation)."""
    if not isinstance(dims, tuple) or len(dims) <= index:
        return None
    shape = dims[index]
    if not isinstance(shape, tuple) or len(shape) < 2 or not all(isinstance(x, int) for x in shape):
        return None
    return math.prod(shape[:-1])


def annotated_tokens(step: Step) -> int | None:
    """The token count an engine's step annotation states: ATOM's ``tok=``, SGLang's ``toks=``,
    vLLM's ``execute_N_...`` or the CPU build's ``context_C(P)_generation_G(D)`` (P + D)."""
    f = step.fields
    if f.get("tokens", "").isdigit():
        return int(f["tokens"])
    parts = [f.get("prefill_tokens"), f.get("decode_tokens")]
    if any(p is not None for p in parts):
        return sum(int(p) for p in parts if p is not None and p.isdigit())
    return None


#: The least ratio between the largest decode M and the smallest prefill M (``shapes`` method): a prompt
#: is many tokens per sequence, a decode step one.
PHASE_GAP_RATIO = 2.0


def decode_ceiling(tokens: list[int]) -> int | None:
    """The largest M that is still decode: the distinct token counts split at their largest ratio gap;
    None when there is no gap of :data:`PHASE_GAP_RATIO` (one group: phases unknown)."""
    values = sorted(set(t for t in tokens if t > 0))
    if len(values) < 2:
        return None
    gaps = [b / a for a, b in zip(values, values[1:])]
    i = max(range(len(gaps)), key=gaps.__getitem__)
    return values[i] if gaps[i] >= PHASE_GAP_RATIO else None


def classify_steps(trace: Trace, steps: list[Step], rules: StepRules | None = None
                   ) -> tuple[list[Step], PhaseMethod, list[int | None], list[str]]:
    """Give every step a phase; returns (steps, method, token counts, notes). A step's token count
    comes from the GEMM shapes, else from its annotation (:func:`annotated_tokens`)."""
    rules = rules or load_step_rules()
    notes: list[str] = []
    tokens = [t if t is not None else annotated_tokens(s) for t, s in zip(step_tokens(trace, steps, rules), steps)]
    if not steps:
        return [], "none", [], ["no steps found: every kernel is counted outside steps"]
    if any(s.phase is not None for s in steps):
        return [s if s.phase else s.replace(phase="unknown") for s in steps], "annotation", tokens, notes
    known = [t for t in tokens if t is not None]
    if known:
        top = decode_ceiling(known)
        if top is None:
            lo, hi = min(known), max(known)
            notes.append(f"every step processes M={lo} tokens: prefill and decode cannot be told apart by shape"
                         if lo == hi else f"the steps process {lo}-{hi} tokens, no gap of {PHASE_GAP_RATIO:g}x between "
                         f"them: prefill and decode cannot be told apart by shape")
        phase: list[Phase] = ["unknown" if t is None or top is None else ("decode" if t <= top else "prefill")
                              for t in tokens]
        return [s.replace(phase=p) for s, p in zip(steps, phase)], "shapes", tokens, notes
    which = kernel_steps(trace, steps)
    times = np.bincount(which[which >= 0], weights=trace.kernels.dur_us[which >= 0], minlength=len(steps))
    floor = times[times > 0].min() if (times > 0).any() else 0.0
    notes.append(f"no phase annotation and no recorded shapes: steps with >= {PREFILL_TIME_RATIO:g}x the kernel "
                 f"time of the cheapest step are called prefill (a heuristic)")
    by_time: list[Phase] = ["prefill" if floor and t >= PREFILL_TIME_RATIO * floor else "decode" for t in times]
    return [s.replace(phase=p) for s, p in zip(steps, by_time)], "kernel_time", tokens, notes


def _summary(trace: Trace, mask: np.ndarray, steps: int, cats: np.ndarray) -> PhaseSummary:
    K = trace.kernels
    dur = K.dur_us[mask]
    categories: dict[str, float] = {}
    for c, d in zip(cats[mask], dur):
        categories[c] = categories.get(c, 0.0) + float(d)
    total = float(dur.sum())
    assert math.isclose(sum(categories.values()), total, rel_tol=1e-9, abs_tol=1e-6)
    names, inv = np.unique(K.name[mask], return_inverse=True)
    per = np.bincount(inv, weights=dur, minlength=len(names))
    cnt = np.bincount(inv, minlength=len(names))
    top = tuple(TopKernel(trace.decoded(int(names[i])).short, trace.names[names[i]], int(cnt[i]), float(per[i]))
                for i in np.argsort(-per)[:_TOP_KERNELS])
    return PhaseSummary(steps, int(mask.sum()), total, dict(sorted(categories.items(), key=lambda kv: -kv[1])), top)


def phases(trace: Trace, rules: StepRules | None = None) -> PhaseReport:
    """Split the trace's steps into prefill / decode / mixed / unknown and sum each phase's kernels."""
    if not trace.kernel_count:
        raise TraceError(f"{trace.path}: no kernel events, so no phases to split")
    rules = rules or load_step_rules()
    steps, method, tokens, notes = classify_steps(trace, find_steps(trace, rules), rules)
    which = kernel_steps(trace, steps)
    step_phase = np.array([s.phase for s in steps] + [None], dtype=object)
    phase_of_kernel = step_phase[which]  # -1 picks the trailing None: outside every step
    cats = trace.kernel_categories()
    out = {p: _summary(trace, phase_of_kernel == p, sum(1 for s in steps if s.phase == p), cats)
           for p in PHASES + ("unknown",)}
    outside = which < 0
    dur = trace.kernels.dur_us
    step_us = np.bincount(which[~outside], weights=dur[~outside], minlength=len(steps))
    total = float(dur.sum())
    report = PhaseReport(
        trace=str(trace.path), rank=trace.rank, prefill=out["prefill"], decode=out["decode"], mixed=out["mixed"],
        unknown=out["unknown"], method=method, total_kernel_us=total,
        outside_steps=OutsideSteps(int(outside.sum()), float(dur[outside].sum())),
        steps=tuple(PhaseStep(**msgspec.structs.asdict(s), tokens=t, kernel_us=float(k))
                    for s, t, k in zip(steps, tokens, step_us)),
        notes=tuple(notes), load_notes=load_notes(trace))
    assert math.isclose(sum(v.kernel_us for v in out.values()) + report.outside_steps.kernel_us, total,
                        rel_tol=1e-9, abs_tol=1e-6), "phase times do not sum to the kernel total"
    return report
