"""Which op call each kernel of a trace belongs to, and why the rest belong to none.

Every kernel is placed once, best source first (``Call.origin``):

1. ``op``: the CPU op that launched it (kernel -> launch -> op, the trace's links).
2. ``capture``: a kernel replayed from a CUDA/HIP graph, matched to the launch the capture recorded
   (``attribute``), whose op carries the shapes. The capture is ``--capture``, or the trace itself
   when it holds both the stream captures and the replays -- its captured launches where they name
   their kernels (ROCm), else its eager kernels (CUDA records no kernel name on a captured launch,
   but an engine warms up eagerly before it captures).
3. ``sequence``: a kernel with no launch in the trace because it was launched before the profiler
   recorded host events (its correlation id precedes every recorded launch: the GPU ran behind the
   CPU, as in a training step's backward pass). The same kernels run again later with their ops, so
   the unlinked run is aligned by kernel name (the longest common subsequence, as ``attribute``
   does) with the kernels that have ops, and each takes the op of its match: the same op of a later
   step, same shapes -- an estimate, marked so. Graph replays are never matched this way: a graph's
   kernels can carry the names of eager kernels with other shapes.

What is left is named with its reason (:data:`REASONS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.trace._attribute import attribute, lcs_pairs
from bench_kernel.trace._tables import LAUNCH_KINDS
from bench_kernel.trace._trace import Trace
from bench_kernel.units import format_duration_us

__all__ = ["Call", "Placement", "place_kernels", "REASONS"]

#: Why a kernel has no op, by key.
REASONS = {
    "graph_no_capture": "replayed from a CUDA/HIP graph with no capture to take shapes from (pass --capture, or "
                        "profile the capture too): a kernel's name gives its tile shapes, never the problem's sizes",
    "graph_no_capture_no_grid": "replayed from a CUDA/HIP graph with no capture to take shapes from (pass --capture, "
                                "or profile the capture too): the names give tile shapes, not sizes, and no grid "
                                "was recorded for these kernels (ROCm records none for a graph's)",
    "graph_unmatched": "replayed from a CUDA/HIP graph; no launch of the capture matched it",
    "before_window": "launched before the profiler recorded host events (its launch is not in the trace) and no "
                     "later kernel sequence matched it",
    "no_op": "launched with no op around it (a direct Triton or extension launch records no shapes)",
}


@dataclass(slots=True)
class Call:
    """One op call: the kernels it ran in this trace and where its shapes are."""

    src: int
    """0: the op is in the trace; 1: in the capture."""
    op: int
    """Row of the source trace's ``ops``."""
    origin: str
    """op | capture | sequence (module docstring)."""
    kernels: Any = field(default_factory=list)
    """Indices of its kernels in the trace (a list, or a numpy view for the calls linked in bulk)."""
    us: float = 0.0
    like: list[int] = field(default_factory=list)
    """``sequence``: per kernel, the later kernel it was matched to (its collective metadata applies)."""


@dataclass
class Placement:
    calls: list[Call]
    unplaced: dict[str, np.ndarray]
    """Reason key -> indices of the kernels it covers."""
    sources: list[Trace]
    """[trace] or [trace, capture]."""
    notes: list[str]
    self_capture: bool = False


def _has_captures(t: Trace) -> bool:
    return bool(len(t.launches)) and bool((t.launch_kind == LAUNCH_KINDS.index("capture_begin")).any())


def place_kernels(trace: Trace, capture: Trace | None) -> Placement:
    """Place every kernel of ``trace`` in an op call (module docstring), or name why it has none."""
    K, ko = trace.kernels, trace.kernel_op
    calls: dict[tuple, Call] = {}

    def add(key: tuple, src: int, op: int, origin: str, i: int) -> None:
        c = calls.get(key)
        if c is None:
            c = calls[key] = Call(src, op, origin, [])
        c.kernels.append(i)
        c.us += float(K.dur_us[i])

    linked = np.flatnonzero(ko >= 0)  # one call per op row: grouped with numpy, a trace has millions of these
    order = linked[np.argsort(ko[linked], kind="stable")]
    rows, starts = np.unique(ko[order], return_index=True)
    us = np.add.reduceat(K.dur_us[order], starts) if len(order) else np.zeros(0)
    ends = np.append(starts[1:], len(order)).tolist()
    for k, a, b, t in zip(rows.tolist(), starts.tolist(), ends, us.tolist()):
        calls[("op", k)] = Call(0, k, "op", order[a:b], t)
    rest = ko < 0
    graph = trace.graph_launched & rest
    notes: list[str] = []
    sources = [trace]
    self_capture = capture is None and bool(graph.any()) and _has_captures(trace)
    ref = trace if self_capture else capture
    unplaced: dict[str, np.ndarray] = {}
    if ref is not None and graph.any():
        src = 0 if self_capture else 1
        if not self_capture:
            sources.append(ref)
        att = attribute(trace, ref)
        if self_capture and not att.reference_named:  # CUDA names no captured kernel: its eager warm-up does
            att = attribute(trace, ref, captures=False)
        for a in att.kernels:
            if a.op_index is not None and rest[a.kernel_index]:
                add(("capture", a.op_index, a.launch), src, a.op_index, "capture", a.kernel_index)
                rest[a.kernel_index] = False
        where = ("the launches of this trace's own stream captures" if att.reference == "capture" else
                 "this trace's eager kernels (its captured launches name no kernel)") if self_capture else \
            f"the {'captured launches' if att.reference == 'capture' else 'eager kernels'} of {ref.path.name}"
        notes.append(f"graph replays: {att.matched} of {att.replayed_kernels} replayed kernels matched to {where} "
                     f"({att.match_rate:.0%}); their shapes come from there")
        unplaced["graph_unmatched"] = np.flatnonzero(graph & rest)
    elif capture is not None:
        notes.append(f"--capture {capture.path.name} is not used: no kernel of {trace.path.name} was replayed "
                     f"from a CUDA/HIP graph")
    else:
        idx = np.flatnonzero(graph)
        no_grid = (trace.kernels.grid[idx] < 0).any(axis=1) if len(idx) else np.zeros(0, dtype=bool)
        unplaced["graph_no_capture"], unplaced["graph_no_capture_no_grid"] = idx[~no_grid], idx[no_grid]
    rest &= ~graph
    early = rest & _before_window(trace)
    if early.any():
        matched = _match_sequence(trace, np.flatnonzero(early), ko, notes)
        for i, k, j in matched:
            add(("sequence", k), 0, k, "sequence", i)
            calls[("sequence", k)].like.append(j)
            rest[i] = False
        unplaced["before_window"] = np.flatnonzero(early & rest)
        rest &= ~early
    unplaced["no_op"] = np.flatnonzero(rest)
    return Placement(list(calls.values()), {k: v for k, v in unplaced.items() if len(v)}, sources, notes,
                     self_capture)


def _before_window(trace: Trace) -> np.ndarray:
    """Per kernel: its launch is missing and its correlation id precedes every recorded launch."""
    L = trace.launches
    if not len(L):
        return np.zeros(len(trace.kernels), dtype=bool)
    first = int(L.correlation[L.correlation >= 0].min()) if (L.correlation >= 0).any() else 0
    return (trace.kernel_launch < 0) & (trace.kernels.correlation >= 0) & (trace.kernels.correlation < first)


def _match_sequence(trace: Trace, early: np.ndarray, ko: np.ndarray,
                    notes: list[str]) -> list[tuple[int, int, int]]:
    """(kernel, op, matched kernel) for each early kernel aligned by name with a kernel that has an op."""
    ref = np.flatnonzero(ko >= 0)
    codes: dict[int, int] = {}
    a = np.array([codes.setdefault(int(n), len(codes)) for n in trace.kernels.name[early]], dtype=np.int64)
    b = np.array([codes.get(int(n), -1) for n in trace.kernels.name[ref]], dtype=np.int64)
    try:
        pairs = lcs_pairs(a, b)
    except TraceError as e:
        notes.append(f"{len(early)} kernels launched before the profiler's host events were not matched to later "
                     f"ones: {e}")
        return []
    us = float(trace.kernels.dur_us[early].sum())
    matched_us = float(sum(trace.kernels.dur_us[early[i]] for i, _ in pairs))
    notes.append(f"{len(early)} kernels ({format_duration_us(us)}) ran with no launch in the trace: their correlation ids precede "
                 f"every recorded launch (launched before the profiler recorded host events, the GPU running behind "
                 f"the CPU). {len(pairs)} of them ({format_duration_us(matched_us)}) match a later run of the same kernels by name "
                 f"sequence and are counted with that run's ops' shapes (an estimate)")
    return [(int(early[i]), int(ko[ref[j]]), int(ref[j])) for i, j in pairs]
