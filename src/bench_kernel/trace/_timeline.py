"""``timeline``: is the GPU busy, and when it is not, why -- per step and for the whole trace.

Windows. The whole trace is the device span: first device event start to last device event end (the
"total time" of TraceLens). A step (``data/steps.json``) runs from its host start to the later of its
host end and the end of the last device event it launched; when the host runs ahead, neighbouring
steps' windows overlap and each counts the GPU work inside its own span.

Inside a window, with device events = kernels + memcpy/memset on every stream:
- busy: the union of device event intervals; idle = wall - busy.
- idle, split by cause. "Queued" at t: some device event's launch call had started at or before t and
  the event had not started yet (events whose launch is not in the trace were queued before it began).
  "Sync in flight" at t: the host was inside a blocking call (kinds ``sync`` and ``memcpy_sync`` of
  ``data/launch_apis.tsv``: device/stream/event synchronise, blocking copies).
  * launch gap: a stretch of queued idle time no longer than ``launch_gap_max_us`` (100 us): the
    small gaps between back-to-back kernels (launch latency, graph start-up);
  * sync wait: otherwise, a synchronisation was in flight -- the host waited on the device;
  * dependency wait: work was queued for longer than that with no synchronisation in flight: a stream
    waiting on an event (another stream, a peer, work the trace does not show);
  * host-bound: nothing queued and no synchronisation in flight: the GPU waited for the host to launch.
- compute (kernels not in the communication category), communication (collective kernels) and
  memcpy (memcpy/memset events): each one's busy time; exposed communication = communication not
  overlapped by compute; exposed memcpy = memcpy overlapped by neither; overlap % = the overlapped
  share of communication. TraceLens's identity holds: compute + exposed comm + exposed memcpy = busy.
Every figure is a measure of a set built once with ``_spans`` and then taken inside each window, and
the parts are asserted to sum to their totals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.records import Breakdown, ShortKernelCount, StreamBusy, TimelineReport
from bench_kernel.trace._collectives import collective_calls, communication_mask
from bench_kernel.trace._diagnose import diagnose
from bench_kernel.trace._launches import launch_stats, queue_depth_series
from bench_kernel.trace._spans import Spans, union
from bench_kernel.trace._steps import find_steps, require_links, steps_of
from bench_kernel.trace._tables import LAUNCH_KINDS, StepRules
from bench_kernel.trace._trace import Trace, load_notes
from bench_kernel.units import format_duration_us as fmt_us

__all__ = ["StreamBusy", "Breakdown", "TimelineReport", "timeline", "LAUNCH_GAP_MAX_US"]

_COMPUTE, _COMM, _MEMCPY = 0, 1, 2


@dataclass
class _Events:
    """Every device event (kernels first, then memcpy/memset), times shifted by ``base``."""

    start: np.ndarray
    end: np.ndarray
    stream: np.ndarray
    device: np.ndarray
    cls: np.ndarray
    launch: np.ndarray
    kind: np.ndarray
    queued: np.ndarray
    """When it entered the launch queue: its launch call's start; NaN when the launch is not in the trace."""
    host: np.ndarray
    """Which step it belongs to is decided at this host time: its launch's start, else its own start."""
    n_kernels: int


def _events(trace: Trace, base: float) -> _Events:
    K, M, L = trace.kernels, trace.memops, trace.launches
    comm = communication_mask(trace)
    launch = np.concatenate([trace.kernel_launch, trace.memop_launch])
    start = np.concatenate([K.start_us, M.start_us]) - base
    dur = np.maximum(np.concatenate([K.dur_us, M.dur_us]), 0.0)
    has = launch >= 0
    lc = np.clip(launch, 0, None)
    queued = np.where(has, L.start_us[lc] - base, np.nan) if len(L) else np.full(len(start), np.nan)
    kind = np.where(has, trace.launch_kind[lc], -1) if len(L) else np.full(len(start), -1)
    cls = np.concatenate([np.where(comm, _COMM, _COMPUTE), np.full(len(M), _MEMCPY)]).astype(np.int8)
    return _Events(start, start + dur, np.concatenate([K.stream, M.stream]), np.concatenate([K.device, M.device]),
                   cls, launch, kind.astype(np.int64), queued, np.where(has, queued, start), len(K))


def _windows(ev: _Events, steps: list, base: float) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Window bounds (overall first, then one per step) and the device events launched in each."""
    which = steps_of(ev.host + base, steps)
    lo = [float(ev.start.min())] + [s.start_us - base for s in steps]
    hi = [float(ev.end.max())] + [s.end_us - base for s in steps]
    order = np.argsort(which, kind="stable")
    cuts = np.searchsorted(which[order], np.arange(len(steps) + 1))
    groups = [np.arange(len(ev.start))] + [order[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    for k, idx in enumerate(groups[1:], start=1):
        if len(idx):
            lo[k] = min(lo[k], float(ev.start[idx].min()))
            hi[k] = max(hi[k], float(ev.end[idx].max()))
    return np.array(lo), np.array(hi), groups


def _sets(trace: Trace, ev: _Events, lo: float, hi: float, base: float, gap_us: float) -> dict[str, Spans]:
    """The labelled sets every figure is measured from (see the module docstring)."""
    cls = ev.cls
    busy = union(ev.start, ev.end)
    compute = union(ev.start[cls == _COMPUTE], ev.end[cls == _COMPUTE])
    comm = union(ev.start[cls == _COMM], ev.end[cls == _COMM])
    memcpy = union(ev.start[cls == _MEMCPY], ev.end[cls == _MEMCPY])
    queued_from = np.where(np.isnan(ev.queued), min(lo, float(ev.start.min())), ev.queued)
    queued = union(queued_from, ev.start)
    L = trace.launches
    blocking = np.isin(trace.launch_kind, [LAUNCH_KINDS.index("sync"), LAUNCH_KINDS.index("memcpy_sync")])
    sync = union(L.start_us[blocking] - base, L.start_us[blocking] + L.dur_us[blocking] - base)
    idle = union(np.array([lo]), np.array([hi])) - busy
    waiting = idle & queued
    short = (waiting.end - waiting.start) <= gap_us
    gap = Spans(waiting.start[short], waiting.end[short])
    return {"busy": busy, "idle": idle, "compute": compute, "comm": comm, "memcpy": memcpy,
            "exposed_comm": comm - compute, "exposed_memcpy": memcpy - (compute | comm), "launch_gap": gap,
            "sync_wait": (idle - gap) & sync, "dependency_wait": waiting - gap - sync,
            "host_bound": idle - queued - sync}


def _streams(ev: _Events, lo: np.ndarray, hi: np.ndarray, groups: list[np.ndarray]) -> list[tuple[StreamBusy, ...]]:
    keys = sorted(set(zip(ev.device.tolist(), ev.stream.tolist())))
    per: list[list[StreamBusy]] = [[] for _ in lo]
    for dev, st in keys:
        on = (ev.device == dev) & (ev.stream == st)
        busy = union(ev.start[on], ev.end[on]).within(lo, hi)
        is_kernel = np.arange(len(on)) < ev.n_kernels
        for k, idx in enumerate(groups):
            inside = idx[on[idx]]
            if busy[k] > 0 or len(inside):
                per[k].append(StreamBusy(dev, st, float(busy[k]), int(is_kernel[inside].sum()),
                                         int((~is_kernel[inside]).sum())))
    return [tuple(sorted(p, key=lambda s: -s.busy_us)) for p in per]


def _check(b: Breakdown) -> None:
    """STYLE habit 8: every split adds up to its whole."""
    tol = dict(rel_tol=1e-9, abs_tol=1e-3 + 1e-9 * abs(b.end_us))
    assert math.isclose(b.busy_us + b.idle_us, b.wall_us, **tol), (b.label, "busy + idle != wall")
    causes = b.host_bound_us + b.sync_wait_us + b.launch_gap_us + b.dependency_wait_us
    assert math.isclose(causes, b.idle_us, **tol), (b.label, "idle causes")
    assert math.isclose(b.compute_us + b.exposed_comm_us + b.exposed_memcpy_us, b.busy_us, **tol), (b.label, "classes")
    assert all(s.busy_us <= b.busy_us + tol["abs_tol"] for s in b.streams), (b.label, "a stream is busier than the GPU")


#: Queued idle stretches up to this long are gaps between back-to-back kernels (launch latency is
#: 5-30 us, a large graph's start-up up to ~100 us); longer ones wait on something.
LAUNCH_GAP_MAX_US = 100.0


def timeline(trace: Trace, *, rules: StepRules | None = None, launch_gap_max_us: float = LAUNCH_GAP_MAX_US
             ) -> TimelineReport:
    """Busy/idle and why, launch diagnostics, communication overlap and collectives of one trace.

    Needs the host events (``load_trace(..., links=True)``, the default). ``launch_gap_max_us``: the
    longest queued idle stretch still called a launch gap (microseconds). Raises :class:`TraceError`
    when the trace has no device events. Times are microseconds; see the module docstring for every
    definition.
    """
    require_links(trace, "timeline")
    if not trace.kernel_count and not len(trace.memops):
        counts = ", ".join(f"{k or '(none)'}: {v}" for k, v in sorted(trace.event_counts.items())) or "no events"
        raise TraceError(f"{trace.path}: no kernels or memory operations on the device ({counts}); profile with "
                         f"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]")
    base = float(min(trace.kernels.start_us.min() if trace.kernel_count else np.inf,
                     trace.memops.start_us.min() if len(trace.memops) else np.inf))
    ev = _events(trace, base)
    steps = find_steps(trace, rules)
    lo, hi, groups = _windows(ev, steps, base)
    sets = _sets(trace, ev, float(lo.min()), float(hi.max()), base, launch_gap_max_us)
    m = {name: s.within(lo, hi) for name, s in sets.items()}
    L = trace.launches
    stats = launch_stats(groups, lo, hi, ev_start=ev.start, ev_dur=ev.end - ev.start,
                         ev_queued=np.where(np.isnan(ev.queued), ev.start, ev.queued), ev_launch=ev.launch,
                         ev_kind=ev.kind, launch_start=L.start_us - base, launch_dur=L.dur_us,
                         kernel_kind=LAUNCH_KINDS.index("kernel"), graph_kind=LAUNCH_KINDS.index("graph"))
    streams = _streams(ev, lo, hi, groups)
    sync_starts, sync_names = _sync_calls(trace, base)
    graphs = "HIP" if trace.backend == "hip" else "CUDA"
    out = []
    for k in range(len(lo)):
        step = steps[k - 1] if k else None
        comm, mem = float(m["comm"][k]), float(m["memcpy"][k])
        n_sync = int(np.searchsorted(sync_starts, hi[k], "left") - np.searchsorted(sync_starts, lo[k], "left"))
        b = Breakdown(
            label=step.name if step else "all", step=step.index if step else None, phase=step.phase if step else None,
            start_us=float(lo[k] + base), end_us=float(hi[k] + base), wall_us=float(hi[k] - lo[k]),
            busy_us=float(m["busy"][k]), idle_us=float(m["idle"][k]), host_bound_us=float(m["host_bound"][k]),
            sync_wait_us=float(m["sync_wait"][k]), launch_gap_us=float(m["launch_gap"][k]),
            dependency_wait_us=float(m["dependency_wait"][k]),
            compute_us=float(m["compute"][k]), comm_us=comm, memcpy_us=mem,
            exposed_comm_us=float(m["exposed_comm"][k]), exposed_memcpy_us=float(m["exposed_memcpy"][k]),
            comm_overlap_pct=100.0 * (comm - float(m["exposed_comm"][k])) / comm if comm > 0 else None,
            memcpy_overlap_pct=100.0 * (mem - float(m["exposed_memcpy"][k])) / mem if mem > 0 else None,
            streams=streams[k], launches=stats[k], sync_calls=n_sync, diagnosis="")
        _check(b)
        out.append(b.replace(diagnosis=diagnose(b, graphs=graphs, sync_names=sync_names, sync_calls=n_sync)))
    queue = queue_depth_series(np.where(np.isnan(ev.queued), ev.start, ev.queued), ev.start, float(lo[0]),
                               float(hi[0]), base)
    return TimelineReport(trace=str(trace.path), rank=trace.rank, device=trace.device_name, overall=out[0],
                          step_rule=steps[0].source if steps else None, steps=tuple(out[1:]),
                          collectives=collective_calls(trace), queue_depth=queue,
                          short_kernel_names=_short_kernel_names(trace), notes=tuple(_notes(trace, ev, lo, hi, steps)),
                          load_notes=load_notes(trace))


def _sync_calls(trace: Trace, base: float) -> tuple[np.ndarray, list[str]]:
    """Start times (shifted) of the blocking host calls, and their distinct names, most frequent first."""
    L = trace.launches
    blocking = np.flatnonzero(np.isin(trace.launch_kind, [LAUNCH_KINDS.index("sync"), LAUNCH_KINDS.index("memcpy_sync")]))
    names, counts = np.unique(L.name[blocking], return_counts=True)
    return (np.sort(L.start_us[blocking] - base),
            [trace.names[int(n)] for n in names[np.argsort(-counts, kind="stable")]])


def _short_kernel_names(trace: Trace, top: int = 5) -> tuple[ShortKernelCount, ...]:
    K, L = trace.kernels, trace.launches
    j = trace.kernel_launch
    own = (j >= 0) & (trace.launch_kind[np.clip(j, 0, None)] == LAUNCH_KINDS.index("kernel")) if len(L) else j >= 0
    if not own.any():
        return ()
    short = np.flatnonzero(own)[K.dur_us[own] < L.dur_us[j[own]]]
    names, counts = np.unique(K.name[short], return_counts=True)
    best = np.argsort(-counts, kind="stable")[:top]
    return tuple(ShortKernelCount(trace.decoded(int(names[i])).short, int(counts[i])) for i in best)


def _notes(trace: Trace, ev: _Events, lo: np.ndarray, hi: np.ndarray, steps: list) -> list[str]:
    notes = []
    devices = np.unique(ev.device[ev.device >= 0])
    if len(devices) > 1:
        notes.append(f"{len(devices)} devices in one trace ({', '.join(map(str, devices.tolist()))}): busy is the "
                     f"union over all of them")
    unlinked = int(np.isnan(ev.queued).sum())
    if unlinked:
        notes.append(f"{unlinked} device events have no launch in the trace (launched before profiling began): "
                     f"counted as queued from the start")
    early = ev.start - ev.queued
    neg = early[early < 0]
    if len(neg):
        notes.append(f"{len(neg)} device events start before their launch call (by up to {fmt_us(-neg.min())}): "
                     f"host and device clocks disagree, so launch delays and idle causes near them are approximate")
    if len(steps) > 1:
        order = np.argsort(lo[1:])
        overlap = hi[1:][order][:-1] - lo[1:][order][1:]
        if (overlap > 0).any():
            notes.append(f"{int((overlap > 0).sum())} steps overlap the next one on the device (the host ran ahead by "
                         f"up to {fmt_us(float(overlap.max()))}): each step's figures count all GPU work inside its span")
    if not steps:
        notes.append("no steps found (data/steps.json): only the whole trace is shown")
    return notes
