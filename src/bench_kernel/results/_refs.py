"""What ``compare A B`` (and ``report``) accept as a side: a stored run, a results file, or one
provider of either (``RUN:PROVIDER``, ``FILE:PROVIDER``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench_kernel.errors import InputError, UsageError
from bench_kernel.records import PointResult, RunInfo
from bench_kernel.results._files import load_results_file
from bench_kernel.results._match import History
from bench_kernel.results._noise import Noise, noise_from_history
from bench_kernel.results._store import Store
from bench_kernel.results._verdict import geometric_mean

__all__ = ["PointSet", "resolve_ref", "ref_file", "store_history"]

_RUN = re.compile(r"\d+|latest(?:~\d+)?")


@dataclass(frozen=True)
class PointSet:
    """The points one reference names, with where they came from."""

    label: str
    run: RunInfo | None
    points: tuple[PointResult, ...]
    #: set when the reference picked one provider (``RUN:PROVIDER``)
    provider: str | None = None


def _pick(label: str, run: RunInfo | None, points: list[PointResult], provider: str | None) -> PointSet:
    if provider is None:
        return PointSet(label, run, tuple(points))
    names = list(dict.fromkeys(p.provider for p in points))
    if provider not in names:
        raise UsageError(f"provider {provider!r} is not in {label}; its providers: {', '.join(names) or 'none'}")
    return PointSet(f"{label}:{provider}", run, tuple(p for p in points if p.provider == provider), provider)


def _file_and_provider(ref: str) -> tuple[str, str | None] | None:
    head, sep, tail = ref.rpartition(":")
    for path, provider in ((ref, None), (head, tail) if sep else (None, None)):
        if path and Path(path).is_file():
            return path, provider
    return None


def ref_file(ref: str) -> Path | None:
    """The results file ``ref`` names (``FILE`` or ``FILE:PROVIDER``), or None for a stored run:
    an input that no output may overwrite."""
    found = _file_and_provider(ref)
    return Path(found[0]) if found else None


def resolve_ref(ref: str, open_db: Callable[[], Store]) -> PointSet:
    """Resolve ``ref``: an existing file (optionally ``:PROVIDER``), else ``RUN[:PROVIDER]`` where
    RUN is an id, ``latest`` or ``latest~N`` in the store ``open_db()`` opens."""
    found = _file_and_provider(ref)
    if found is not None:
        path, provider = found
        run, points = load_results_file(path)
        return _pick(Path(path).name, run, points, provider)
    head, sep, tail = ref.rpartition(":")
    run_ref, provider = (head, tail) if sep and _RUN.fullmatch(head) else (ref, None)
    if not _RUN.fullmatch(run_ref):
        raise InputError(f"{ref!r} is neither a results file nor a stored run (an id, 'latest' or "
                         f"'latest~N', optionally followed by ':PROVIDER')")
    store = open_db()
    run = store.run(run_ref)
    return _pick(f"run {run.id}", run, store.points(run), provider or None)


def store_history(store: Store, a: PointSet, b: PointSet) -> History:
    """The run-to-run noise of a point from ``store``'s other runs of A's spec (its run's name and
    kind; B's when A has no run), on the same device, by the same method: the :data:`History` that
    ``compare_points`` asks of every point: its rounds' noise where a side has one round, and its
    runs' noise as a lower bound on every interval (``_noise``). A and B's own runs are left out."""
    base = a.run or b.run
    own = [r.id for r in (a.run, b.run) if r is not None and r.id is not None]

    def noise(pa: PointResult, pb: PointResult, method: str) -> Noise | None:
        if base is None:
            return None
        runs = [t for t in store.run_round_times(base, pa.provider, pa.params, method, exclude_runs=own) if t]
        return noise_from_history([v for t in runs for v in t], [geometric_mean(t) for t in runs])

    return noise
