"""Recording results that are not a sweep (``run --save``, a pytest session) as one stored run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

from bench_kernel.records import BenchResult, PointResult, RunInfo, warning
from bench_kernel.results._provenance import provenance
from bench_kernel.results._store import Store

__all__ = ["Recorder"]


class Recorder:
    """One run in ``store``; each result is committed when :meth:`save` gets it.

    source: the file the results came from (a TARGET's ``file.py``): its hash and git state are
    stored with the run. ``finish()`` marks the run done (or ``interrupted``/``failed``).
    """

    def __init__(self, store: Store, *, name: str, config: dict[str, Any], env: dict[str, Any],
                 kind: str = "run", command: Sequence[str] = (), source: str | Path | None = None,
                 total: int | None = None) -> None:
        prov = provenance(source).to_dict() if source is not None and Path(source).is_file() else None
        self.store = store
        self._t0 = time.perf_counter()
        self.run: RunInfo = store.start_run(kind=kind, name=name, config=config, env=env, command=command,
                                            source=prov, total_points=total)
        assert self.run.id is not None  # a run read back from the store has its row's id
        self._run_id: int = self.run.id

    def save(self, result: BenchResult) -> PointResult:
        """Commit a measured (or refused: ``correct`` False) result."""
        return self.store.save_result(self._run_id, result)

    def save_error(self, name: str, params: dict[str, Any], reason: str) -> PointResult:
        """Commit a case that could not be measured, with the reason."""
        empty = BenchResult(name=name, params=dict(params), notes=(warning("case-failed", reason),))
        return self.store.save_result(self._run_id, empty,
                                      status="error", error=reason)

    def finish(self, status: str = "done") -> RunInfo:
        self.run = self.store.finish_run(self._run_id, status=status, wall_s=time.perf_counter() - self._t0)
        return self.run
