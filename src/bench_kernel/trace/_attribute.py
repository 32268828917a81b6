"""``attribute``: give kernels replayed from a CUDA/HIP graph the op, module and Python stack they
had when the graph was captured, without engine patches.

A graph replay shows only ``cudaGraphLaunch`` on the host: its kernels have no CPU op. The trace
of the capture (or an eager run of the same model) has them. We align the replayed kernel-name
sequence of each graph launch with the reference sequence by a longest common subsequence of
names (an exact LCS: difflib's greedy longest-block matching lost a third of the pairs on a graph
with one inserted kernel) and copy op/module/stack across the matched pairs.

Reference sequence: when the reference trace contains stream captures (``*StreamBeginCapture`` ..
``*StreamEndCapture``), the kernel launches inside each capture, named by the launch itself (ROCm
records the kernel name on the launch event; CUDA does not) -- those kernels were recorded, not run,
so a capture trace has almost no kernel events. Otherwise (an eager trace): its executed kernels --
but only those inside the region a graph can have captured, when that can be told: with
``nn.Module`` markers (``with_modules``/``with_stack``) each top-level module call (the model's
forward) is one reference window, so sampling and logits processing between forwards, which a graph
of the forward cannot contain, never match. Without markers the whole trace is one window and the
result says so (``Attribution.region``).

A replayed kernel counts as matched only when its name equals the reference's: the match rate is
the share of replayed kernels that got an attribution this way, never a positional guess. How sure
a match is (``AttributedKernel.confidence``, 0..1) is how well the alignment around it agrees: of
the (up to four) matched pairs next to it in the alignment, two before and two after, the share that
lie within three kernels of it in the replay and keep its offset into the reference within one
kernel (one inserted or missing kernel is allowed). A replay that is the captured sequence scores 1
everywhere; a lone elementwise kernel aligned across a gap scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.records import UNSURE_BELOW, AttributedKernel, Attribution
from bench_kernel.trace._foreign import require_data
from bench_kernel.trace._records import MODULE_PREFIX, Frame
from bench_kernel.trace._steps import _by_module, require_links, steps_of
from bench_kernel.trace._tables import LAUNCH_KINDS, StepRule
from bench_kernel.trace._trace import Trace, load_notes

__all__ = ["AttributedKernel", "Attribution", "attribute", "lcs_pairs", "UNSURE_BELOW"]



@dataclass
class _Entry:
    name: str | None
    launch: int  # index into the reference trace's launches, -1 when none


_Reference = Literal["capture", "eager"]
_Region = Literal["captures", "module forwards", "whole trace"]


def _reference(ref: Trace, captures: bool = True) -> tuple[_Reference, _Region, list[list[_Entry]]]:
    L = ref.launches
    kinds = ref.launch_kind
    begin, end = (np.flatnonzero(kinds == LAUNCH_KINDS.index(k)) for k in ("capture_begin", "capture_end"))
    kernel_launch = np.flatnonzero(kinds == LAUNCH_KINDS.index("kernel"))
    executed = {int(L.correlation[j]): int(n) for j, n in zip(ref.kernel_launch, ref.kernels.name) if j >= 0}
    if len(begin) and captures:
        windows = []
        for b in begin[np.argsort(L.start_us[begin])]:
            same = end[(L.pid[end] == L.pid[b]) & (L.tid[end] == L.tid[b]) & (L.start_us[end] > L.start_us[b])]
            stop = L.start_us[same].min() if len(same) else np.inf
            inside = kernel_launch[(L.pid[kernel_launch] == L.pid[b]) & (L.tid[kernel_launch] == L.tid[b])
                                   & (L.start_us[kernel_launch] > L.start_us[b]) & (L.start_us[kernel_launch] < stop)]
            inside = inside[np.argsort(L.start_us[inside], kind="stable")]
            windows.append([_Entry(_launch_kernel_name(ref, int(j), executed), int(j)) for j in inside])
        return "capture", "captures", [w for w in windows if w]
    # A graph's own replays are no reference for it: their launch is the graph launch, not an op's.
    seq = [_Entry(ref.names[int(n)], int(j)) if not g else _Entry(None, -1)
           for n, j, g in zip(ref.kernels.name, ref.kernel_launch, ref.graph_launched)]
    forwards = _by_module(ref, StepRule("model_module", "module"))
    if forwards:
        which = steps_of(ref.host_time_us, forwards)
        windows = [[seq[i] for i in np.flatnonzero(which == k)] for k in range(len(forwards))]
        return "eager", "module forwards", [w for w in windows if w]
    return "eager", "whole trace", [seq] if seq else []


def _confidence(pairs: list[tuple[int, int]], n: int) -> dict[int, float]:
    """Per matched replay position: the share of its alignment neighbours that agree with it (module doc)."""
    out = {}
    for k, (i, j) in enumerate(pairs):
        near = pairs[max(k - 2, 0):k] + pairs[k + 1:k + 3]
        agree = sum(abs(i2 - i) <= 3 and abs((j2 - j) - (i2 - i)) <= 1 for i2, j2 in near)
        out[i] = agree / len(near) if near else (1.0 if n == 1 else 0.0)
    return out


def _launch_kernel_name(ref: Trace, j: int, executed: dict[int, int]) -> str | None:
    kn = int(ref.launches.kernel_name[j])
    if kn >= 0:
        return ref.names[kn]
    n = executed.get(int(ref.launches.correlation[j]))
    return ref.names[n] if n is not None else None


#: Above this many DP cells (replayed x reference kernels) the LCS table would not fit in memory.
_MAX_CELLS = 50_000_000


def lcs_pairs(a: np.ndarray, b: np.ndarray) -> list[tuple[int, int]]:
    """Index pairs (i, j) of a longest common subsequence of the integer sequences ``a`` and ``b``.

    Negative values never match. Row by row, dp[i][j] = max(dp[i-1][j], dp[i-1][j-1] + [a_i == b_j],
    dp[i][j-1]); the last term is a running maximum, so each row is two numpy operations.
    """
    n, m = len(a), len(b)
    if not n or not m:
        return []
    if n * m > _MAX_CELLS:
        raise TraceError(f"aligning {n} replayed kernels with {m} reference kernels needs {n * m:,} cells "
                         f"(> {_MAX_CELLS:,}); use a shorter reference trace (one step of the model)")
    dp = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(1, n + 1):
        hit = (b == a[i - 1]) & (b >= 0)
        t = np.maximum(dp[i - 1, 1:], dp[i - 1, :-1] + hit)
        dp[i, 1:] = np.maximum.accumulate(t)
    pairs = []
    i, j = n, m
    while i and j:
        if a[i - 1] == b[j - 1] and a[i - 1] >= 0 and dp[i, j] == dp[i - 1, j - 1] + 1:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif dp[i - 1, j] >= dp[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def _replays(graph: Trace) -> list[np.ndarray]:
    """Kernel indices of each graph launch, launches in time order."""
    gl = np.flatnonzero(graph.graph_launched)
    launch = graph.kernel_launch[gl]
    order = np.argsort(graph.launches.start_us[launch], kind="stable")
    gl, launch = gl[order], launch[order]
    return [gl[launch == j] for j in dict.fromkeys(launch.tolist())]


def attribute(graph: Trace, reference: Trace, *, captures: bool = True) -> Attribution:
    """Attribute the graph-replayed kernels of ``graph`` from ``reference`` (capture or eager trace).

    Both traces need their host events (``links=True``); the reference's Python stacks are loaded on
    demand. ``captures=False`` takes the reference's executed kernels even where it holds stream
    captures (a CUDA trace's captures name no kernels; its eager warm-up does). Raises
    :class:`TraceError` when ``graph`` replays no graph.
    """
    require_links(graph, "attribute")
    require_links(reference, "attribute")
    require_data(reference, "stacks", "attribute")  # the capture's stacks: Kineto's with_stack only
    replays = _replays(graph)
    if not replays:
        raise TraceError(f"{graph.path}: no kernel was replayed from a CUDA/HIP graph (none carries the "
                         f"correlation id of a graph launch); nothing to attribute")
    kind, region, windows = _reference(reference, captures)
    named = sum(e.name is not None for w in windows for e in w)
    notes = []
    if not named:
        notes.append(f"{reference.path.name}: no kernel names for its launches (CUDA capture records none); "
                     f"pass an eager trace of the same model instead")
    if region == "whole trace":
        notes.append(f"{reference.path.name} has no nn.Module markers, so the region a graph can capture cannot be "
                     f"told: kernels may match code outside the model forward (sampling, logits processing); "
                     f"record the eager trace with with_stack=True or with_modules=True")
    out: list[AttributedKernel] = []
    matched = 0
    codes: dict[str, int] = {}
    ref_codes = [np.array([codes.setdefault(e.name, len(codes)) if e.name is not None else -1 for e in w],
                          dtype=np.int64) for w in windows]
    for g, idx in enumerate(replays):
        names = [graph.names[int(n)] for n in graph.kernels.name[idx]]
        mine = np.array([codes.get(n, -2) for n in names], dtype=np.int64)  # -2: in no reference
        pairs: dict[int, _Entry] = {}
        sure: dict[int, float] = {}
        for w, rc in zip(windows, ref_codes):
            found = lcs_pairs(mine, rc)
            if len(found) > len(pairs):
                pairs = {i: w[j] for i, j in found}
                sure = _confidence(found, len(mine))
        for pos, i in enumerate(idx.tolist()):
            e = pairs.get(pos)
            op = module = None
            k = -1
            stack: tuple[Frame, ...] = ()
            if e is not None and e.launch >= 0:
                k = reference.launch_op(e.launch)
                op = reference.names[reference.ops.name[k]] if k >= 0 else None
                stack = reference.launch_stack(e.launch)
                mods = [f.function[len(MODULE_PREFIX):] for f in stack if f.is_module]
                module = mods[-1] if mods else None
            d = graph.decoded(int(graph.kernels.name[i]))
            out.append(AttributedKernel(g, pos, i, d.name, d.short, float(graph.kernels.dur_us[i]), e is not None,
                                        op, module, stack, sure.get(pos, 0.0) if e is not None else 0.0,
                                        k if k >= 0 else None))
            matched += e is not None
    total = len(out)
    unsure = sum(k.matched and k.confidence < UNSURE_BELOW for k in out)
    if unsure:
        notes.append(f"{unsure} of {matched} matches have a confidence below {UNSURE_BELOW:g} (a name match whose "
                     f"neighbours align elsewhere): treat their op and stack as a guess")
    return Attribution(graph_trace=str(graph.path), capture_trace=str(reference.path), reference=kind, region=region,
                       reference_kernels=sum(len(w) for w in windows), reference_named=named,
                       graph_launches=len(replays), replayed_kernels=total, matched=matched,
                       match_rate=matched / total if total else 0.0, unsure=unsure, kernels=tuple(out),
                       notes=tuple(notes), load_notes=load_notes(graph, reference))
