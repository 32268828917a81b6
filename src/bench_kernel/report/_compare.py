"""The table of ``bench-kernel compare``: B against A per point, with the CI and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from bench_kernel.report._table import Column, Table
from bench_kernel.units import first_and_more

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.results import Comparison, MatchedPoint, ResultsComparison

__all__ = ["comparison_table", "noise_notes", "explanation_lines"]


def _ci(lo: float | None, hi: float | None) -> str:
    return "-" if lo is None or hi is None else f"{lo:.3f}-{hi:.3f}"


def _verdict(c: Comparison) -> str:
    """The verdict as shown: ``slower (clock)`` where the lower SM clock can explain it."""
    return f"{c.verdict} (clock)" if c.clock_limited else c.verdict


def _floor(c: Comparison) -> str:
    """The noise floor cell: ``+/-3.2%``, ``+/-3.2% (history)``, ``+/-20.0% (floor)``, or ``-``."""
    if c.noise_floor is None or c.noise is None:
        return "-"
    return f"±{c.noise_floor:.1%}" + {"rounds": "", "history": " (history)", "floor": " (floor)"}[c.noise.source]


def _why(c: Comparison) -> str | None:
    """The verdict cell's detail: the clock, or what would resolve an inconclusive verdict."""
    if c.clock_limited:
        return f"SM clock {c.clock_text}: the lower clock alone can explain this"
    if c.verdict == "inconclusive":
        more = (f"about {c.rounds_needed} rounds a side would likely resolve it" if c.rounds_needed else
                "more rounds would not resolve it at this ratio (it sits at the threshold)")
        return f"the CI {_ci(c.ci_low, c.ci_high)} spans the threshold's band; {more}"
    return c.note


def _statistic(rc: ResultsComparison) -> str:
    """What A and B are, in the header: ``geo mean of round medians`` (``minima`` on the host)."""
    stats = sorted({r.comparison.statistic for r in rc.rows}, reverse=True)
    names = {"median": "medians", "min": "minima"}
    return "geo mean of round " + "/".join(names.get(s, s) for s in stats) if stats else "geo mean"


def noise_notes(rc: ResultsComparison) -> list[str]:
    """What the intervals are, the noise floors they used, and why some points have none."""
    floors = rc.noise_floors()
    level = next((r.comparison.confidence for r in rc.rows), 0.99)
    stats = {r.comparison.statistic for r in rc.rows}
    each = " and ".join(("each round's minimum (host: other processes only ever slow a sample down)" if s == "min"
                         else "each round's median") for s in sorted(stats, reverse=True)) or "each round's median"
    t = rc.threshold
    notes = [f"A, B: the geometric mean over the rounds of {each}, and B / A their ratio (one round a side: of "
             f"the times); CI: {level:.0%} t-interval of their logs; slower/faster: the CI excludes 1 and the "
             f"ratio is beyond {t:.0%}; same: the whole CI within {1 / (1 + t):.3f}-{1 + t:.3f}; else "
             f"inconclusive (the data cannot tell)"]
    if floors.min is not None and floors.max is not None:
        span = f"±{floors.min:.1%}" if floors.min == floors.max else f"±{floors.min:.1%} to ±{floors.max:.1%}"
        where = [f"{floors.rounds} from their rounds"] if floors.rounds else []
        where += [f"{floors.history} from the store's earlier runs of the point"] if floors.history else []
        where += [f"{floors.floor} from the method's floor"] if floors.floor else []
        notes.append(f"noise floor (the CI's half-width: the smallest change the run-to-run noise lets it see): "
                     f"{span}; {', '.join(where)}")
    if floors.floor:
        from bench_kernel.results import METHOD_FLOORS

        shown = ", ".join(f"{m} ±{f:.0%}" for m, f in METHOD_FLOORS.items())
        notes.append(f"(floor): {floors.floor} point(s) with one round on each side and no stored history: the CI "
                     f"is bounded by the method's worst run-to-run noise measured on identical code ({shown}; "
                     f"docs/store-and-compare.md); only a change beyond it is called; --rounds K or 3+ stored runs "
                     f"of the point measure the noise instead")
    return notes


def _clock_notes(rc: ResultsComparison, where: Callable[[MatchedPoint], str]) -> list[str]:
    """The rule once, then per clock-limited point both clocks and both ratios."""
    limited = rc.clock_limited
    if not limited:
        return []
    t = rc.threshold
    counted = ("slower (clock) counts as a regression (--strict-clocks)" if rc.strict_clocks else
               "slower (clock) is not counted as a regression (--strict-clocks counts it)")
    notes = [f"(clock): the slower side ran at a median SM clock more than {t:.0%} lower and the clock ratio "
             f"covers the time ratio (within {t:.0%}): the lower clock alone can explain it for a compute-bound "
             f"kernel (a bound, not a model: a memory-bound kernel slows less); {counted}; --steady on both "
             f"runs compares at the settled clock"]
    for r in limited:
        c = r.comparison
        assert c.clock_a_mhz is not None and c.clock_b_mhz is not None  # clock-limited: both clocks were read
        clock_ratio = max(c.clock_a_mhz, c.clock_b_mhz) / min(c.clock_a_mhz, c.clock_b_mhz)
        time_ratio = c.ratio if c.ratio >= 1 else 1 / c.ratio
        notes.append(f"{where(r)}: {_verdict(c)}: SM clock {c.clock_text} (clock ratio {clock_ratio:.3f}, "
                     f"time ratio {time_ratio:.3f})")
    return notes


def explanation_lines(rc: ResultsComparison) -> list[str]:
    """Per point with an explanation, ``where: verdict: reason`` (every reason, for the report)."""
    from bench_kernel.records import params_text

    out = []
    for r in rc.rows:
        if r.explanation is None:
            continue
        reasons = [x.text for x in r.explanation.reasons] or [r.explanation.summary]
        out.append(f"{r.provider} {params_text(r.params)}: {r.comparison.verdict}: " + " | ".join(reasons))
    return out


def comparison_table(rc: ResultsComparison) -> Table:
    """A row per matched point; unmatched points and the rule behind the verdicts as notes."""
    from bench_kernel.records import params_text

    cross = any(r.provider != r.b_provider for r in rc.rows)
    axes = list(dict.fromkeys(k for r in rc.rows for k in r.params))
    level = next((r.comparison.confidence for r in rc.rows), 0.99)
    cols = [Column("provider", "A provider -> B provider" if cross else "provider"),
            Column("params", "params", only="display")]
    cols += [Column(f"param_{a}", a, "text", justify="right", only="raw") for a in axes]
    stat = _statistic(rc)
    cols += [Column("method", "method"), Column("a_us", f"A ({stat})", "duration_us"),
             Column("b_us", f"B ({stat})", "duration_us"), Column("ratio", "B / A", "ratio"),
             Column("ci", f"{level:.0%} CI", only="display"), Column("ci_low", "CI low", "ratio", only="raw"),
             Column("ci_high", "CI high", "ratio", only="raw"), Column("rounds", "rounds"),
             Column("noise_floor", "noise floor", only="display"),
             Column("noise_floor_pct", "noise floor", "pct", only="raw"),
             Column("verdict", "verdict", "verdict", detail="why")]
    rows: list[dict[str, Any]] = []
    for r in rc.rows:
        c = r.comparison
        rows.append({"provider": f"{r.provider} -> {r.b_provider}" if cross else r.provider,
                     "params": params_text(r.params), **{f"param_{a}": r.params.get(a) for a in axes},
                     "method": r.method, "a_us": c.a_us, "b_us": c.b_us,
                     "ratio": c.ratio, "ci": _ci(c.ci_low, c.ci_high),
                     "ci_low": c.ci_low, "ci_high": c.ci_high,
                     "rounds": f"{c.a_rounds}+{c.b_rounds}", "noise_floor": _floor(c),
                     "noise_floor_pct": None if c.noise_floor is None else 100 * c.noise_floor, "verdict": _verdict(c),
                     "why": _why(c)})
    n = rc.counts()
    limited = f" ({len(rc.clock_limited)} of them marked (clock))" if rc.clock_limited else ""
    notes = []
    empty = None
    if rows:
        notes.append(f"A = {rc.a_label}, B = {rc.b_label}: {n['faster']} faster, {n['slower']} slower, "
                     f"{n['same']} same, {n['inconclusive']} inconclusive, {n['unmatched']} unmatched{limited}")

        def where(r: MatchedPoint) -> str:
            return " ".join(x for x in (f"{r.provider} -> {r.b_provider}" if cross else r.provider,
                                        params_text(r.params)) if x)

        # what changed, one line per changed point, from what both sides recorded (detail in --json)
        notes += [f"why {where(r)} is {r.comparison.verdict}: {r.explanation.summary}"
                  for r in rc.rows if r.explanation is not None and r.comparison.verdict != "inconclusive"]
        unsure = rc.inconclusive
        if unsure:
            said = first_and_more([f"{where(r)}: {r.comparison.rounds_needed or 'over 100'}" for r in unsure], 5, "; ")
            notes.append(f"inconclusive: the CI spans the threshold's band; rounds a side that would likely resolve "
                         f"it, from the measured noise: {said}")
        notes += noise_notes(rc)  # how the rows were judged: nothing to say without rows
        notes += _clock_notes(rc, where)
    else:
        empty = (f"nothing compared: no point of A ({rc.a_label}) matches one of B ({rc.b_label}) by name and "
                 f"params ({n['unmatched']} unmatched, each below)")
    # One note per (provider, reason), listing its points: a provider unsupported everywhere is one line.
    grouped: dict[tuple[str, str], list[str]] = {}
    for u in rc.unmatched:
        grouped.setdefault((u.provider, u.reason), []).append(params_text(u.params))
    for (provider, reason), at_points in grouped.items():
        at = f" at {'; '.join(at_points)}" if any(at_points) else ""
        notes.append(f"not compared: {provider}{at}: {reason}")
    return Table(cols, rows, title=f"compare {rc.a_label} (A) -> {rc.b_label} (B)", notes=notes, sheet="comparison",
                 empty=empty)
