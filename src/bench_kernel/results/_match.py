"""Comparisons over sets of points: two runs (or two providers) point by point, and the fastest
provider per point of a sweep. Points that cannot be compared are listed with the reason, never
dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bench_kernel.records import PointResult, params_key
from bench_kernel.results._compare import (
    DEFAULT_THRESHOLD,
    VERDICTS,
    Comparison,
    compare,
    samples_problem,
)
from bench_kernel.results._noise import Noise

__all__ = ["MatchedPoint", "Unmatched", "ResultsComparison", "Best", "compare_points", "best_per_point", "History"]

#: ``history(a_point, b_point, method) -> Noise | None``: the run-to-run noise of a point from the
#: store's earlier runs of it (``Store.history_noise``), asked only where both sides have one round.
History = Callable[[PointResult, PointResult, str], "Noise | None"]


@dataclass(frozen=True)
class MatchedPoint:
    """One point present and measured on both sides, with the same method."""

    provider: str
    b_provider: str
    params: dict[str, Any]
    method: str
    comparison: Comparison

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "b_provider": self.b_provider, "params": dict(self.params),
                "method": self.method, **self.comparison.to_dict()}


@dataclass(frozen=True)
class Unmatched:
    """A point that is not compared, and why (only on one side, not measured, other method,
    samples that are not times)."""

    provider: str
    params: dict[str, Any]
    reason: str
    #: measured on both sides, but a side's samples are not times (``samples_problem``): the input
    #: is damaged, and ``compare`` fails on it rather than pass it over
    invalid: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "params": dict(self.params), "reason": self.reason,
                "invalid": self.invalid}


@dataclass(frozen=True)
class ResultsComparison:
    """B against A, point by point. ``regressions`` decide ``compare``'s exit status."""

    a_label: str
    b_label: str
    threshold: float
    rows: tuple[MatchedPoint, ...]
    unmatched: tuple[Unmatched, ...]
    #: count a slowdown that A's higher SM clock explains as a regression too (``--strict-clocks``)
    strict_clocks: bool = False

    @property
    def regressions(self) -> list[MatchedPoint]:
        """Significant slowdowns; clock-limited ones only with ``strict_clocks``."""
        return [r for r in self.rows if r.comparison.is_regression(self.strict_clocks)]

    @property
    def invalid(self) -> list[Unmatched]:
        """Points measured on both sides whose samples are not times (NaN, inf, <= 0)."""
        return [u for u in self.unmatched if u.invalid]

    @property
    def clock_limited(self) -> list[MatchedPoint]:
        """Slower/faster verdicts the slower side's lower SM clock can explain (``_compare``)."""
        return [r for r in self.rows if r.comparison.clock_limited]

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for r in self.rows:
            out[r.comparison.verdict] += 1
        return {**out, "unmatched": len(self.unmatched)}

    def noise_floors(self) -> dict[str, Any]:
        """The noise floors the verdicts used: how many points had their noise from rounds, from
        the store's history or not at all, and the floors' range (fractions)."""
        floors = [r.comparison.noise_floor for r in self.rows if r.comparison.noise_floor is not None]
        by = {"rounds": 0, "history": 0, "unknown": 0}
        for r in self.rows:
            by[r.comparison.noise.source if r.comparison.noise else "unknown"] += 1
        return {**by, "min": min(floors) if floors else None, "max": max(floors) if floors else None}

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a_label, "b": self.b_label, "threshold": self.threshold,
                "strict_clocks": self.strict_clocks, "counts": self.counts(), "noise_floors": self.noise_floors(),
                "clock_limited": len(self.clock_limited), "regressions": len(self.regressions),
                "points": [r.to_dict() for r in self.rows],
                "unmatched": [u.to_dict() for u in self.unmatched]}


def _why_not(p: PointResult, side: str) -> str | None:
    if p.status == "ok":
        return None
    return f"{side} is {p.status}" + (f": {p.error}" if p.error else "")


def _pair(a: PointResult, b: PointResult, method: str | None, threshold: float,
          history: History | None) -> MatchedPoint | Unmatched:
    def unmatched(reason: str, invalid: bool = False) -> Unmatched:
        return Unmatched(a.provider, dict(a.params), reason, invalid)

    if a.status == b.status != "ok" and a.error == b.error:
        return unmatched(f"{a.status} in A and B" + (f": {a.error}" if a.error else ""))
    reason = _why_not(a, "A") or _why_not(b, "B")
    if reason:
        return unmatched(reason)
    m = method or a.result.primary_method
    missing = [side for side, p in (("A", a), ("B", b)) if p.result.median_us(m) is None]
    if missing:
        have = {side: ", ".join(k for k, v in p.result.measurements.items() if v.ok) or "none"
                for side, p in (("A", a), ("B", b))}
        return unmatched(f"no {m} measurement on {' and '.join(missing)} "
                         f"(A has {have['A']}; B has {have['B']}); choose one with --method")
    ma, mb = a.result.measurements[m], b.result.measurements[m]
    bad = [f"{side}'s {m} samples hold {problem}" for side, x in (("A", ma), ("B", mb))
           if (problem := samples_problem(x.samples))]
    if bad:
        return unmatched(f"{'; '.join(bad)}: not times (a per-call time is finite and above 0)", invalid=True)
    noise = history(a, b, m) if history is not None and ma.rounds + mb.rounds <= 2 else None
    return MatchedPoint(a.provider, b.provider, dict(a.params), m, compare(ma, mb, threshold, history=noise))


def compare_points(a: Sequence[PointResult], b: Sequence[PointResult], *, threshold: float = DEFAULT_THRESHOLD,
                   method: str | None = None, by_provider: bool = True, a_label: str = "A",
                   b_label: str = "B", strict_clocks: bool = False,
                   history: History | None = None) -> ResultsComparison:
    """Match ``a`` and ``b`` point by point and compare each pair (see :func:`compare`).

    by_provider: match on (provider, params) -- two runs; False matches on params alone, for
        two providers of one run (each side then holds one provider).
    method: the timing method to compare (default: A's primary method at each point).
    strict_clocks: a slowdown that the lower SM clock of B explains is a regression too.
    history: where a point has one round on each side, its run-to-run noise from earlier runs
        (:data:`History`); without it such points are ``unknown``.
    """
    def key(p: PointResult) -> Any:
        return p.key if by_provider else params_key(p.params)

    b_by_key = {key(p): p for p in b}
    a_keys = set()
    rows: list[MatchedPoint] = []
    unmatched: list[Unmatched] = []
    for pa in a:
        k = key(pa)
        a_keys.add(k)
        pb = b_by_key.get(k)
        if pb is None:
            unmatched.append(Unmatched(pa.provider, dict(pa.params), f"only in A ({a_label})"))
            continue
        got = _pair(pa, pb, method, threshold, history)
        (unmatched if isinstance(got, Unmatched) else rows).append(got)
    unmatched += [Unmatched(p.provider, dict(p.params), f"only in B ({b_label})")
                  for p in b if key(p) not in a_keys]
    return ResultsComparison(a_label, b_label, threshold, tuple(rows), tuple(unmatched), strict_clocks)


@dataclass(frozen=True)
class Best:
    """The fastest provider at one point, and by how much it beats the runner-up."""

    params: dict[str, Any]
    provider: str
    median_us: float
    method: str
    runner_up: str | None
    runner_up_us: float | None
    #: runner-up time / best time - 1 (0.08 = the best is 8% faster)
    margin: float | None
    #: the interval of runner-up/best (``compare``'s, across rounds) lies above 1
    significant: bool
    #: that interval (None with one round each: the noise is unknown)
    ci: tuple[float, float] | None
    candidates: int
    #: the interval's level and relative half-width (None: unknown)
    confidence: float | None = None
    noise_floor: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"params": dict(self.params), "provider": self.provider, "median_us": self.median_us,
                "method": self.method, "runner_up": self.runner_up, "runner_up_us": self.runner_up_us,
                "margin": self.margin, "significant": self.significant,
                "ci": list(self.ci) if self.ci else None, "confidence": self.confidence,
                "noise_floor": self.noise_floor, "candidates": self.candidates}


def best_per_point(points: Sequence[PointResult]) -> list[Best]:
    """Per point (in first-seen order), the measured provider with the lowest median; a provider
    whose samples are not times (``samples_problem``: a damaged file) is not ranked."""
    groups: dict[str, list[PointResult]] = {}
    for p in points:
        groups.setdefault(params_key(p.params), [])
        primary = p.result.measurements.get(p.result.primary_method or "")
        if p.status == "ok" and primary is not None and samples_problem(primary.samples) is None:
            groups[params_key(p.params)].append(p)
    out = []
    for measured in groups.values():
        if not measured:
            continue
        ranked = sorted(measured, key=lambda p: p.median_us)
        best = ranked[0]
        method = best.result.primary_method
        if len(ranked) == 1:
            out.append(Best(dict(best.params), best.provider, best.median_us, method, None, None, None,
                            False, None, 1))
            continue
        second = ranked[1]
        other = method if second.result.median_us(method) is not None else second.result.primary_method
        c = compare(best.result.measurements[method], second.result.measurements[other], threshold=0.0)
        known = c.noise is not None
        out.append(Best(dict(best.params), best.provider, best.median_us, method, second.provider,
                        second.median_us, second.median_us / best.median_us - 1.0,
                        c.significant and c.ci_low > 1.0, (c.ci_low, c.ci_high) if known else None, len(ranked),
                        c.confidence if known else None, c.noise_floor))
    return out
