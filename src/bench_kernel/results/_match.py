"""Comparisons over sets of points: two runs (or two providers) point by point, and the fastest
provider per point of a sweep. Points that cannot be compared are listed with the reason, never
dropped.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from bench_kernel.records import (
    VERDICTS,
    Best,
    CompareOutput,
    Comparison,
    FailOn,
    MatchedPoint,
    Noise,
    NoiseFloors,
    PointResult,
    Record,
    RunInfo,
    Unmatched,
    params_key,
)
from bench_kernel.results._compare import DEFAULT_THRESHOLD, compare, samples_problem
from bench_kernel.results._explain import explain

__all__ = ["ResultsComparison", "compare_points", "best_per_point", "History"]

#: ``history(a_point, b_point, method) -> Noise | None``: the noise of a point from the store's
#: earlier runs of it (``results.store_history``): its rounds' noise, used where a side has one round,
#: and its runs' noise, a lower bound on every interval (``results._noise``).
History = Callable[[PointResult, PointResult, str], "Noise | None"]


class ResultsComparison(Record, frozen=True):
    """B against A, point by point. ``regressions`` (and, with ``fail_on`` ``inconclusive``, the
    inconclusive points) decide ``compare``'s exit status; :meth:`output` is its ``--json``."""

    a_label: str
    b_label: str
    threshold: float
    rows: tuple[MatchedPoint, ...]
    unmatched: tuple[Unmatched, ...]
    #: count a slowdown that A's higher SM clock explains as a regression too (``--strict-clocks``)
    strict_clocks: bool = False

    @property
    def regressions(self) -> list[MatchedPoint]:
        """Shown slowdowns; clock-limited ones only with ``strict_clocks``."""
        return [r for r in self.rows if r.comparison.is_regression(self.strict_clocks)]

    @property
    def inconclusive(self) -> list[MatchedPoint]:
        """Points whose data cannot tell (``--fail-on inconclusive`` fails on them)."""
        return [r for r in self.rows if r.comparison.verdict == "inconclusive"]

    @property
    def invalid(self) -> list[Unmatched]:
        """Points measured on both sides whose samples are not times (NaN, inf, <= 0)."""
        return [u for u in self.unmatched if u.invalid]

    @property
    def clock_limited(self) -> list[MatchedPoint]:
        """Slower/faster verdicts the slower side's lower SM clock can explain (``_compare``)."""
        return [r for r in self.rows if r.comparison.clock_limited]

    def failed(self, fail_on: FailOn = "slower") -> bool:
        """Whether ``compare`` exits non-zero: a regression, a damaged point, or (``fail_on``
        ``inconclusive``) a point that cannot tell."""
        return bool(self.regressions or self.invalid or (fail_on == "inconclusive" and self.inconclusive))

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {v: 0 for v in VERDICTS}
        for r in self.rows:
            out[r.comparison.verdict] += 1
        return {**out, "unmatched": len(self.unmatched)}

    def noise_floors(self) -> NoiseFloors:
        """The noise floors the verdicts used: how many points had their noise from rounds, from
        the store's history or from the method's floor, and the floors' range (fractions)."""
        floors = [r.comparison.noise_floor for r in self.rows if r.comparison.noise_floor is not None]
        by = {"rounds": 0, "history": 0, "floor": 0}
        for r in self.rows:
            if r.comparison.noise is not None:
                by[r.comparison.noise.source] += 1
        return NoiseFloors(**by, min=min(floors) if floors else None, max=max(floors) if floors else None)

    def output(self, fail_on: FailOn = "slower") -> CompareOutput:
        """``compare --json``."""
        return CompareOutput(a=self.a_label, b=self.b_label, threshold=self.threshold,
                             strict_clocks=self.strict_clocks, fail_on=fail_on, counts=self.counts(),
                             noise_floors=self.noise_floors(), clock_limited=len(self.clock_limited),
                             regressions=len(self.regressions), failed=self.failed(fail_on), points=self.rows,
                             unmatched=self.unmatched)


def _why_not(p: PointResult, side: str) -> str | None:
    if p.status == "ok":
        return None
    return f"{side} is {p.status}" + (f": {p.error}" if p.error else "")


def _pair(a: PointResult, b: PointResult, method: str | None, threshold: float, history: History | None,
          runs: tuple[RunInfo | None, RunInfo | None]) -> MatchedPoint | Unmatched:
    def unmatched(reason: str, invalid: bool = False) -> Unmatched:
        return Unmatched(provider=a.provider, params=dict(a.params), reason=reason, invalid=invalid)

    if a.status == b.status != "ok" and a.error == b.error:
        return unmatched(f"{a.status} in A and B" + (f": {a.error}" if a.error else ""))
    reason = _why_not(a, "A") or _why_not(b, "B")
    if reason:
        return unmatched(reason)
    m = method or a.result.primary_method
    have = {side: ", ".join(k for k, v in p.result.measurements.items() if v.ok) or "none"
            for side, p in (("A", a), ("B", b))}
    # m is None where A is "ok" but holds no measurement (a damaged or hand-edited file): the sides
    # missing one are those that measured nothing
    missing = [side for side, p in (("A", a), ("B", b))
               if (have[side] == "none" if m is None else p.result.median_us(m) is None)]
    if m is None or missing:
        what = f"{m} measurement" if m is not None else "measurement"
        return unmatched(f"no {what} on {' and '.join(missing)} "
                         f"(A has {have['A']}; B has {have['B']}); choose one with --method")
    ma, mb = a.result.measurements[m], b.result.measurements[m]
    bad = [f"{side}'s {m} samples hold {problem}" for side, x in (("A", ma), ("B", mb))
           if (problem := samples_problem(x.samples))]
    if bad:
        return unmatched(f"{'; '.join(bad)}: not times (a per-call time is finite and above 0)", invalid=True)
    noise = history(a, b, m) if history is not None else None
    c = compare(ma, mb, threshold, history=noise)
    why = explain(a, b, m, c, a_run=runs[0], b_run=runs[1]) if c.verdict != "same" else None
    return MatchedPoint(provider=a.provider, b_provider=b.provider, params=dict(a.params), method=m, comparison=c,
                        explanation=why)


def compare_points(a: Sequence[PointResult], b: Sequence[PointResult], *, threshold: float = DEFAULT_THRESHOLD,
                   method: str | None = None, by_provider: bool = True, a_label: str = "A",
                   b_label: str = "B", strict_clocks: bool = False, history: History | None = None,
                   a_run: RunInfo | None = None, b_run: RunInfo | None = None) -> ResultsComparison:
    """Match ``a`` and ``b`` point by point and compare each pair (see :func:`compare`).

    by_provider: match on (provider, params) -- two runs; False matches on params alone, for
        two providers of one run (each side then holds one provider).
    method: the timing method to compare (default: A's primary method at each point).
    strict_clocks: a slowdown that the lower SM clock of B explains is a regression too.
    history: the point's noise from its earlier stored runs (:data:`History`): its rounds' noise
        where a side has one round (without it, the method's floor, ``_verdict``), and its runs'
        noise as a lower bound on the interval.
    a_run, b_run: the sides' stored runs, for the explanation's code facts (spec hash, dirty tree).
    Every point that is not ``same`` carries its explanation (``_explain``).
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
            unmatched.append(Unmatched(provider=pa.provider, params=dict(pa.params), reason=f"only in A ({a_label})"))
            continue
        got = _pair(pa, pb, method, threshold, history, (a_run, b_run))
        if isinstance(got, Unmatched):
            unmatched.append(got)
        else:
            rows.append(got)
    unmatched += [Unmatched(provider=p.provider, params=dict(p.params), reason=f"only in B ({b_label})")
                  for p in b if key(p) not in a_keys]
    return ResultsComparison(a_label, b_label, threshold, tuple(rows), tuple(unmatched), strict_clocks)


def best_per_point(points: Sequence[PointResult], threshold: float = DEFAULT_THRESHOLD) -> list[Best]:
    """Per point (in first-seen order), the measured provider with the lowest median, and the
    runner-up against it by ``compare``'s rule (``verdict`` ``slower``: the best is shown faster
    beyond ``threshold``); a provider whose samples are not times (``samples_problem``: a damaged
    file) is not ranked."""
    # per point: (median us, primary method, point) of each ranked provider
    groups: dict[str, list[tuple[float, str, PointResult]]] = {}
    for p in points:
        groups.setdefault(params_key(p.params), [])
        primary_method, median_us = p.result.primary_method, p.median_us
        primary = p.result.measurements.get(primary_method) if primary_method is not None else None
        # an "ok" point with valid samples has a median; the check on it is for the type
        if (p.status == "ok" and primary_method is not None and primary is not None and median_us is not None
                and samples_problem(primary.samples) is None):
            groups[params_key(p.params)].append((median_us, primary_method, p))
    out = []
    for measured in groups.values():
        if not measured:
            continue
        ranked = sorted(measured, key=lambda x: x[0])
        best_us, method, best = ranked[0]
        if len(ranked) == 1:
            out.append(Best(params=dict(best.params), provider=best.provider, median_us=best_us,
                            method=method))
            continue
        second_us, second_method, second = ranked[1]
        other = method if second.result.median_us(method) is not None else second_method
        c: Comparison = compare(best.result.measurements[method], second.result.measurements[other],
                                threshold=threshold)
        ci = (c.ci_low, c.ci_high) if c.ci_low is not None and c.ci_high is not None else None
        out.append(Best(params=dict(best.params), provider=best.provider, median_us=best_us, method=method,
                        runner_up=second.provider, runner_up_us=second_us,
                        margin=second_us / best_us - 1.0, verdict=c.verdict,
                        significant=c.verdict == "slower", ci=ci, candidates=len(ranked), confidence=c.confidence,
                        noise_floor=c.noise_floor))
    return out
