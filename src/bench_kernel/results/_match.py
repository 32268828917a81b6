"""Comparisons over sets of points: two runs (or two providers) point by point, and the fastest
provider per point of a sweep. Points that cannot be compared are listed with the reason, never
dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.results._compare import DEFAULT_THRESHOLD, Comparison, compare, samples_problem
from bench_kernel.results._records import PointResult, params_key

__all__ = ["MatchedPoint", "Unmatched", "ResultsComparison", "Best", "compare_points", "best_per_point"]


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
        out = {v: 0 for v in ("faster", "slower", "same")}
        for r in self.rows:
            out[r.comparison.verdict] += 1
        return {**out, "unmatched": len(self.unmatched)}

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a_label, "b": self.b_label, "threshold": self.threshold,
                "strict_clocks": self.strict_clocks, "counts": self.counts(),
                "clock_limited": len(self.clock_limited), "regressions": len(self.regressions),
                "points": [r.to_dict() for r in self.rows],
                "unmatched": [u.to_dict() for u in self.unmatched]}


def _why_not(p: PointResult, side: str) -> str | None:
    if p.status == "ok":
        return None
    return f"{side} is {p.status}" + (f": {p.error}" if p.error else "")


def _pair(a: PointResult, b: PointResult, method: str | None, threshold: float) -> MatchedPoint | Unmatched:
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
    return MatchedPoint(a.provider, b.provider, dict(a.params), m,
                        compare(ma.samples, mb.samples, threshold, a_clocks_mhz=ma.sm_clock_mhz,
                                b_clocks_mhz=mb.sm_clock_mhz))


def compare_points(a: Sequence[PointResult], b: Sequence[PointResult], *, threshold: float = DEFAULT_THRESHOLD,
                   method: str | None = None, by_provider: bool = True, a_label: str = "A",
                   b_label: str = "B", strict_clocks: bool = False) -> ResultsComparison:
    """Match ``a`` and ``b`` point by point and compare each pair (see :func:`compare`).

    by_provider: match on (provider, params) -- two runs; False matches on params alone, for
        two providers of one run (each side then holds one provider).
    method: the timing method to compare (default: A's primary method at each point).
    strict_clocks: a slowdown that the lower SM clock of B explains is a regression too.
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
        got = _pair(pa, pb, method, threshold)
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
    #: the 95% CI of runner-up/best lies above 1
    significant: bool
    ci95: tuple[float, float] | None
    candidates: int

    def to_dict(self) -> dict[str, Any]:
        return {"params": dict(self.params), "provider": self.provider, "median_us": self.median_us,
                "method": self.method, "runner_up": self.runner_up, "runner_up_us": self.runner_up_us,
                "margin": self.margin, "significant": self.significant,
                "ci95": list(self.ci95) if self.ci95 else None, "candidates": self.candidates}


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
        c = compare(best.result.measurements[method].samples, second.result.measurements[other].samples,
                    threshold=0.0)
        ci = None if c.note else (c.ci95_low, c.ci95_high)
        out.append(Best(dict(best.params), best.provider, best.median_us, method, second.provider,
                        second.median_us, second.median_us / best.median_us - 1.0,
                        c.significant and c.ci95_low > 1.0, ci, len(ranked)))
    return out
