"""``timeline`` over a directory of per-rank traces: side-by-side ranks, the straggler, collective skew.

Each rank file is loaded and analysed in its own worker process (``ProcessPoolExecutor``), so memory
is bounded per process by one rank's trace and only the compact :class:`TimelineReport` comes back.

Collectives are matched across ranks by (process group, position in that group) -- the k-th
collective a rank issued in a group is the k-th of every other rank in it (the rule of TraceLens's
NcclAnalyser). For each one: the arrival of a rank is its kernel's start; the skew is last arrival -
first arrival; the last to arrive is who the others waited for; the transfer time is the shortest
duration over the ranks (the last arriver's kernel barely waits; TraceLens does the same). Times of
ranks on different hosts are only as comparable as the hosts' clocks.

The straggler: with collectives matched across ranks, the rank that arrives last most often (by how
much: the median skew of the collectives it arrived last at); without, the rank with the longest
median step, else with the longest busy time (by how much: its value minus the median of the others).
Ranks that agree within :data:`TIE_SHARE` (or within 1 us) have no straggler: naming one would be noise.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench_kernel.errors import TraceError
from bench_kernel.records import CollectiveSkew, RankRow, RanksReport, StragglerBasis, TimelineReport
from bench_kernel.trace._load import find_rank_files, load_trace
from bench_kernel.trace._tables import StepRules
from bench_kernel.trace._timeline import LAUNCH_GAP_MAX_US, timeline

__all__ = ["RankRow", "CollectiveSkew", "RanksReport", "timeline_ranks", "rank_files"]

#: Ranks closer than this share of the compared time (step, busy, or the collective's transfer) tie.
TIE_SHARE = 0.01


def rank_files(directory: Path) -> dict[int, Path]:
    """Rank -> trace file of a directory; a file with no rank or a rank claimed twice is an error."""
    by_rank = find_rank_files(directory)
    if not by_rank:
        raise TraceError(f"{directory} holds no trace files (*.json, *.json.gz)")
    unknown = by_rank.pop(None, [])
    if unknown:
        raise TraceError(f"{directory}: {', '.join(p.name for p in unknown)} name no rank (no distributedInfo.rank, "
                         f"no rank<N> in the file name); rename them trace_rank<N>.json or pass one file")
    ranked = {r: ps for r, ps in by_rank.items() if r is not None}  # every one: None was popped
    twice = {r: ps for r, ps in ranked.items() if len(ps) > 1}
    if twice:
        r, ps = min(twice.items())
        raise TraceError(f"{directory}: {len(ps)} traces claim rank {r} ({', '.join(p.name for p in ps)}); keep one "
                         f"file per rank")
    return {r: ps[0] for r, ps in sorted(ranked.items())}


def _one(path: str, rank: int, rules: StepRules | None, gap_us: float, shapes: bool) -> TimelineReport:
    """Worker: load one rank's trace and analyse it (runs in a child process)."""
    return timeline(load_trace(path, shapes=shapes), rules=rules, launch_gap_max_us=gap_us).replace(rank=rank)


def timeline_ranks(directory: str | Path, *, rules: StepRules | None = None, workers: int | None = None,
                   launch_gap_max_us: float = LAUNCH_GAP_MAX_US, shapes: bool = False) -> RanksReport:
    """``timeline`` of every rank file in ``directory``, side by side (see the module docstring).

    ``workers``: processes to use (default: one per CPU, at most one per rank; 1 runs in this process).
    ``shapes``: load the ops' input shapes (sizes collectives that carry no metadata; slower).
    Raises :class:`TraceError` for a directory without rank files, a file without a rank, a rank claimed
    twice, or any rank file that cannot be analysed (its message names the file).
    """
    directory = Path(directory)
    files = rank_files(directory)
    n = min(workers or os.cpu_count() or 1, len(files))
    args = [(str(p), r, rules, launch_gap_max_us, shapes) for r, p in files.items()]
    if n <= 1:
        reports = [_one(*a) for a in args]
    else:
        # spawn, not fork: a forked child would inherit the parent's threads and memory.
        with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(_one, *a) for a in args]
            reports = [f.result() for f in futures]
    return _compare(str(directory), reports)


def _compare(directory: str, reports: list[TimelineReport]) -> RanksReport:
    notes: list[str] = []
    skews, waited, last = _skews(reports, notes)
    rows = []
    for rep in reports:
        o, r = rep.overall, int(rep.rank)  # type: ignore[arg-type]
        walls = [s.wall_us for s in rep.steps]
        rows.append(RankRow(rank=r, trace=rep.trace, wall_us=o.wall_us, busy_us=o.busy_us, idle_us=o.idle_us,
                            exposed_comm_us=o.exposed_comm_us, comm_us=o.comm_us, steps=len(walls),
                            step_median_us=statistics.median(walls) if walls else None, waited_us=waited.get(r, 0.0),
                            last_arrivals=last.get(r, 0), diagnosis=o.diagnosis))
    steps = {r.rank: r.steps for r in rows}
    if len(set(steps.values())) > 1:
        notes.append(f"ranks found different numbers of steps ({', '.join(f'rank {k}: {v}' for k, v in steps.items())}): "
                     f"step times are compared as medians")
    straggler, by, basis = _straggler(rows, skews)
    if basis is not None and straggler is None:
        notes.append(f"no straggler: the ranks' {basis} agree within {100 * TIE_SHARE:g}%")
    skews.sort(key=lambda s: (-s.skew_us, s.process_group, s.seq))
    return RanksReport(directory=directory, straggler=straggler, straggler_by_us=by, straggler_basis=basis,
                       ranks=tuple(rows), collectives=tuple(skews), notes=tuple(notes), per_rank=tuple(reports))


def _skews(reports: list[TimelineReport], notes: list[str]
           ) -> tuple[list[CollectiveSkew], dict[int, float], dict[int, int]]:
    by_key: dict[tuple[str, int], dict[int, Any]] = {}
    for rep in reports:
        for c in rep.collectives.calls:
            by_key.setdefault((c.process_group, c.seq), {})[int(rep.rank)] = c  # type: ignore[arg-type]
    skews: list[CollectiveSkew] = []
    waited: dict[int, float] = {}
    last: dict[int, int] = {}
    unmatched = mismatched = 0
    for (pg, seq), calls in sorted(by_key.items()):
        if len(calls) < 2:
            unmatched += 1
            continue
        kinds = {c.collective for c in calls.values()}
        if len(kinds) > 1:
            mismatched += 1
            continue
        starts = {r: c.start_us for r, c in calls.items()}
        first, latest = min(starts, key=starts.__getitem__), max(starts, key=starts.__getitem__)
        for r, s in starts.items():
            waited[r] = waited.get(r, 0.0) + starts[latest] - s
        last[latest] = last.get(latest, 0) + 1
        c0 = calls[first]
        skews.append(CollectiveSkew(process_group=pg, seq=seq, collective=c0.collective, msg_bytes=c0.msg_bytes,
                                    ranks=len(calls), first_rank=first, last_rank=latest,
                                    skew_us=starts[latest] - starts[first],
                                    transfer_us=min(c.dur_us for c in calls.values())))
    if unmatched:
        notes.append(f"{unmatched} collectives appear in one rank's trace only (the traces cover different "
                     f"iterations, or a rank is missing): left out of the skew")
    if mismatched:
        notes.append(f"{mismatched} collectives differ in type between ranks at the same position: the traces are not "
                     f"aligned; left out of the skew")
    return skews, waited, last


def _straggler(rows: list[RankRow], skews: list[CollectiveSkew]
               ) -> tuple[int | None, float | None, StragglerBasis | None]:
    if len(rows) < 2:
        return None, None, None
    if skews:
        count = {r.rank: r.last_arrivals for r in rows}
        top = max(count, key=lambda r: (count[r], sum(s.skew_us for s in skews if s.last_rank == r)))
        mine = [s for s in skews if s.last_rank == top]
        by = statistics.median(s.skew_us for s in mine)
        noise = max(1.0, TIE_SHARE * statistics.median(s.transfer_us for s in mine))
        return (top, by, "collective arrivals") if by > noise else (None, None, "collective arrivals")
    if all(r.step_median_us is not None for r in rows):
        value = {r.rank: float(r.step_median_us) for r in rows}  # type: ignore[arg-type]
        basis: StragglerBasis = "step time"
    else:
        value = {r.rank: r.busy_us for r in rows}
        basis = "busy time"
    top = max(value, key=value.__getitem__)
    by = value[top] - statistics.median(v for r, v in value.items() if r != top)
    return (top, by, basis) if by > max(1.0, TIE_SHARE * value[top]) else (None, None, basis)
