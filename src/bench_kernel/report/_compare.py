"""The table of ``bench-kernel compare``: B against A per point, with the CI and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from bench_kernel.report._table import Column, Table

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.results import Comparison, MatchedPoint, ResultsComparison

__all__ = ["comparison_table", "noise_notes"]


def _ci(lo: float, hi: float) -> str:
    return "-" if lo != lo or hi != hi else f"{lo:.3f}-{hi:.3f}"  # NaN: the noise is unknown


def _verdict(c: Comparison) -> str:
    """The verdict as shown: ``slower (clock)`` where the lower SM clock can explain it."""
    return f"{c.verdict} (clock)" if c.clock_limited else c.verdict


def _floor(c: Comparison) -> str:
    """The noise floor cell: ``+/-3.2%``, ``+/-3.2% (history)``, or ``unknown``."""
    if c.noise_floor is None:
        return "unknown"
    return f"±{c.noise_floor:.1%}" + (" (history)" if c.noise is not None and c.noise.source == "history" else "")


def noise_notes(rc: ResultsComparison) -> list[str]:
    """What the intervals are, the noise floors they used, and why some points have none."""
    floors = rc.noise_floors()
    level = next((r.comparison.confidence for r in rc.rows), 0.99)
    stats = {r.comparison.statistic for r in rc.rows}
    each = " and ".join(("each round's minimum (host: other processes only ever slow a sample down)" if s == "min"
                         else "each round's median") for s in sorted(stats, reverse=True)) or "each round's median"
    notes = [f"A, B: the median over the rounds of {each}; B / A = ratio of the geometric means of those round "
             f"times (one round a side: of the times); CI: {level:.0%} t-interval of their logs; slower/faster only "
             f"when the ratio is beyond {rc.threshold:.0%} and the CI excludes 1"]
    if floors["min"] is not None:
        span = (f"±{floors['min']:.1%}" if floors["min"] == floors["max"] else
                f"±{floors['min']:.1%} to ±{floors['max']:.1%}")
        where = [f"{floors['rounds']} from their rounds"] if floors["rounds"] else []
        where += [f"{floors['history']} from the store's earlier runs of the point"] if floors["history"] else []
        notes.append(f"noise floor (the CI's half-width: the smallest change the run-to-run noise lets it see): "
                     f"{span}; {', '.join(where)}")
    if floors["unknown"]:
        notes.append(f"unknown: {floors['unknown']} point(s) with one round on each side and no stored history: "
                     f"run-to-run noise unknown, so no difference is called; time them with --rounds K "
                     f"(K >= 2 on either side) or store 3+ earlier runs of the point")
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


def comparison_table(rc: ResultsComparison) -> Table:
    """A row per matched point; unmatched points and the rule behind the verdicts as notes."""
    from bench_kernel.records import params_text

    cross = any(r.provider != r.b_provider for r in rc.rows)
    axes = list(dict.fromkeys(k for r in rc.rows for k in r.params))
    level = next((r.comparison.confidence for r in rc.rows), 0.99)
    cols = [Column("provider", "A provider -> B provider" if cross else "provider"),
            Column("params", "params", only="display")]
    cols += [Column(f"param_{a}", a, "text", justify="right", only="raw") for a in axes]
    cols += [Column("method", "method"), Column("a_us", "A", "duration_us"),
             Column("b_us", "B", "duration_us"), Column("ratio", "B / A", "ratio"),
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
                     "ci_low": None if c.ci_low != c.ci_low else c.ci_low,
                     "ci_high": None if c.ci_high != c.ci_high else c.ci_high,
                     "rounds": f"{c.a_rounds}+{c.b_rounds}", "noise_floor": _floor(c),
                     "noise_floor_pct": None if c.noise_floor is None else 100 * c.noise_floor, "verdict": _verdict(c),
                     "why": (f"SM clock {c.clock_text}: the lower clock alone can explain this"
                             if c.clock_limited else c.note if c.verdict == "unknown" else None)})
    n = rc.counts()
    limited = f" ({len(rc.clock_limited)} of them marked (clock))" if rc.clock_limited else ""
    notes = []
    empty = None
    if rows:
        notes.append(f"A = {rc.a_label}, B = {rc.b_label}: {n['faster']} faster, {n['slower']} slower, "
                     f"{n['same']} same, {n['unknown']} unknown, {n['unmatched']} unmatched{limited}")
        notes += noise_notes(rc)  # how the rows were judged: nothing to say without rows
        notes += _clock_notes(rc, lambda r: " ".join(x for x in (r.provider if not cross else f"{r.provider} -> "
                                                                    f"{r.b_provider}", params_text(r.params)) if x))
    else:
        empty = (f"nothing compared: no point of A ({rc.a_label}) matches one of B ({rc.b_label}) by name and "
                 f"params ({n['unmatched']} unmatched, each below)")
    # One note per (provider, reason), listing its points: a provider unsupported everywhere is one line.
    grouped: dict[tuple[str, str], list[str]] = {}
    for u in rc.unmatched:
        grouped.setdefault((u.provider, u.reason), []).append(params_text(u.params))
    for (provider, reason), where in grouped.items():
        at = f" at {'; '.join(where)}" if any(where) else ""
        notes.append(f"not compared: {provider}{at}: {reason}")
    return Table(cols, rows, title=f"compare {rc.a_label} (A) -> {rc.b_label} (B)", notes=notes, sheet="comparison",
                 empty=empty)
