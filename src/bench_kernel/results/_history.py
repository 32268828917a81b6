"""``history()``: the stored runs, or every stored point of some cases over time, as the versioned
document ``bench-kernel history --json`` prints (``records.HistoryOutput``)."""

from __future__ import annotations

import os
from typing import Mapping

from bench_kernel.errors import UsageError
from bench_kernel.records import HistoryOutput, HistoryPoint
from bench_kernel.results._open import open_store

__all__ = ["history"]


def history(db_path: str | os.PathLike[str] | None = None, *, pattern: str | None = None,
            where: Mapping[str, str] | None = None, limit: int | None = None) -> HistoryOutput:
    """What the results database at ``db_path`` holds (None: the default database, see ``open_store``).

    pattern: None lists the stored runs, newest first (``db``, ``runs``); a glob of case or provider
        names (``torch``, ``triton_*``) gives every stored point of them, oldest run first, each with
        its run (``pattern``, ``where``, ``points``).
    where: with ``pattern``, only points whose parameter AXIS has this value (compared as text).
    limit: only the newest ``limit`` runs (>= 1).
    The database is only read (``open_store(create=False)``). Raises UsageError for ``where``
    without ``pattern`` or a ``limit`` below 1, StoreError for a database it cannot read.
    """
    filters = dict(where or {})
    if filters and pattern is None:
        raise UsageError("--where needs --name PATTERN")
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be >= 1, got {limit}")
    with open_store(db_path, create=False) as store:
        if pattern is None:
            return HistoryOutput(db=str(store.path), runs=tuple(store.runs(limit)))
        pairs = list(store.history(pattern, filters))
    if limit is not None:
        keep = sorted({run.id for run, _ in pairs if run.id is not None})[-limit:]
        pairs = [(r, p) for r, p in pairs if r.id in keep]
    return HistoryOutput(pattern=pattern, where=filters, points=tuple(HistoryPoint(r, p) for r, p in pairs))
