"""Iteration boundaries: find steps with the rules of ``data/steps.json`` and map kernels to them.

A kernel belongs to the step whose host interval contains its *launch* (kernels run after the host
has moved on, so their own start may fall after the step's annotation ends).
"""

from __future__ import annotations

import numpy as np

from bench_kernel.errors import InputError
from bench_kernel.trace._records import MODULE_PREFIX, Step
from bench_kernel.trace._tables import LAUNCH_KINDS, StepRule, StepRules, load_step_rules
from bench_kernel.trace._trace import Trace

__all__ = ["find_steps", "kernel_steps", "steps_of", "require_links"]


def require_links(trace: Trace, what: str) -> None:
    """Fail clearly when a trace loaded with ``links=False`` is asked for host-side information."""
    if not trace.links:
        raise InputError(f"{what} needs the host events of the trace; load it with load_trace(..., links=True)")


def _by_annotation(trace: Trace, rule: StepRule) -> list[Step]:
    a = trace.annotations
    host = np.flatnonzero(~a.gpu)
    out: list[Step] = []
    matches: dict[int, dict[str, str | None] | None] = {}
    for i in host[np.argsort(a.start_us[host], kind="stable")]:
        nid = int(a.name[i])
        if nid not in matches:
            m = rule.pattern.search(trace.names[nid]) if rule.pattern else None
            matches[nid] = m.groupdict() if m else None
        groups = matches[nid]
        if groups is None:
            continue
        phase = rule.phase_of(groups)
        if phase == "ignore":
            continue
        start = float(a.start_us[i])
        out.append(Step(len(out), trace.names[nid], start, start + float(a.dur_us[i]), phase, rule.name,
                        {k: v for k, v in groups.items() if v is not None}))
    return out


def _by_module(trace: Trace, rule: StepRule) -> list[Step]:
    p = trace.python
    if not len(p):
        return []
    is_module = np.array([n.startswith(MODULE_PREFIX) for n in trace.names], dtype=bool)
    idx_a = np.flatnonzero(is_module[p.name])
    if not len(idx_a):
        return []
    order = idx_a[np.lexsort((-p.dur_us[idx_a], p.start_us[idx_a], p.tid[idx_a], p.pid[idx_a]))]
    out: list[Step] = []
    last_end: dict[tuple[int, int], float] = {}
    for i in order:
        key = (int(p.pid[i]), int(p.tid[i]))
        start, end = float(p.start_us[i]), float(p.start_us[i] + p.dur_us[i])
        if start <= last_end.get(key, -np.inf):  # inside an outer module call: not top level
            continue
        last_end[key] = end
        name = trace.names[p.name[i]]
        if rule.pattern is not None and not rule.pattern.search(name[len(MODULE_PREFIX):]):
            continue
        out.append(Step(0, name, start, end, None, rule.name, {}))
    out.sort(key=lambda s: s.start_us)
    return [Step(i, s.name, s.start_us, s.end_us, s.phase, s.source, s.fields) for i, s in enumerate(out)]


def _by_graph_launch(trace: Trace, rule: StepRule) -> list[Step]:
    L = trace.launches
    graph = np.flatnonzero(trace.launch_kind == LAUNCH_KINDS.index("graph"))
    graph = graph[np.argsort(L.start_us[graph], kind="stable")]
    return [Step(k, trace.names[L.name[j]], float(L.start_us[j]), float(L.start_us[j] + L.dur_us[j]), None,
                 rule.name, {}) for k, j in enumerate(graph)]


_FINDERS = {"annotation": _by_annotation, "module": _by_module, "graph_launch": _by_graph_launch}


def find_steps(trace: Trace, rules: StepRules | None = None) -> list[Step]:
    """The trace's steps by the first rule (in file order) that finds any; ``[]`` when none does."""
    require_links(trace, "finding steps")
    rules = rules or load_step_rules()
    for rule in rules.rules:
        steps = _FINDERS[rule.kind](trace, rule)
        if steps:
            return steps
    return []


def kernel_steps(trace: Trace, steps: list[Step]) -> np.ndarray:
    """Per kernel: the index of the step whose interval contains its launch, or -1."""
    return steps_of(trace.host_time_us, steps)


def steps_of(t: np.ndarray, steps: list[Step]) -> np.ndarray:
    """Per host time in ``t`` (microseconds): the index of the step whose interval contains it, or -1."""
    if not steps:
        return np.full(len(t), -1, dtype=np.int64)
    starts = np.array([s.start_us for s in steps])
    ends = np.array([s.end_us for s in steps])
    order = np.argsort(starts, kind="stable")
    j = np.searchsorted(starts[order], t, side="right") - 1
    jj = np.clip(j, 0, None)
    ok = (j >= 0) & (t <= ends[order][jj])
    return np.where(ok, order[jj], -1)
