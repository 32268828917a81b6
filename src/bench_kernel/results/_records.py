"""Joining a point's stored rounds into one point (:func:`merge_rounds`). The records themselves
(``RunInfo``, ``PointResult``) are in ``bench_kernel.records``."""

from __future__ import annotations

from bench_kernel.measure import merge_results
from bench_kernel.records import PointResult, warning

__all__ = ["merge_rounds"]


def merge_rounds(rows: list[tuple[int, PointResult]]) -> PointResult:
    """One point from its stored rounds ``(round, PointResult)``: the measured rounds joined
    (``bench_kernel.measure.merge_results``; ``env["rounds"]`` says who ran each), ``mismatch`` if
    any round was wrong, else ``ok`` if any measured (a round that failed is a note), else the
    first round's status and error. One row is returned as it is."""
    if len(rows) == 1:
        return rows[0][1]
    rows = sorted(rows, key=lambda r: r[0])
    points = [p for _, p in rows]
    first = points[0]
    statuses = [p.status for p in points]
    status = "mismatch" if "mismatch" in statuses else "ok" if "ok" in statuses else first.status
    chosen = [(r, p) for r, p in rows if p.status == status]
    notes = tuple(warning("round-failed", f"round {r}: {p.status}: {p.error}", round=r, status=p.status)
                  for r, p in rows if p.status != status and p.status != "running")
    info = [{"round": r, "worker": p.worker, "wall_s": p.wall_s, "finished_at": p.finished_at,
             **{k: p.result.env[k] for k in ("pid", "state_before", "state_after") if k in p.result.env}}
            for r, p in chosen]
    result = merge_results([p.result for _, p in chosen], rounds_env=info)
    workers = list(dict.fromkeys(p.worker for _, p in chosen if p.worker))
    return PointResult(provider=first.provider, params=dict(first.params), status=status,
                       result=result.with_notes(*notes),
                       error=next((p.error for _, p in chosen if p.error), None), worker=",".join(workers) or None,
                       wall_s=sum(p.wall_s or 0.0 for p in points), run_id=first.run_id,
                       finished_at=max((p.finished_at for p in points if p.finished_at), default=None))
