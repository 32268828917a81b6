"""The table of ``bench-kernel compare``: B against A per point, with the CI and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench_kernel.report._table import Column, Table

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.results import ResultsComparison

__all__ = ["comparison_table"]


def _ci(lo: float, hi: float) -> str:
    return "-" if lo != lo or hi != hi else f"{lo:.3f}-{hi:.3f}"  # NaN: too few samples


def _verdict(c: Any) -> str:
    """The verdict as shown: ``slower (clock)`` where the lower SM clock can explain it."""
    if c.clock_limited:
        return f"{c.verdict} (clock)"
    return c.verdict + ("" if c.note is None else " (few samples)")


def _clock_notes(rc: ResultsComparison, where: Any) -> list[str]:
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
        clock_ratio = max(c.clock_a_mhz, c.clock_b_mhz) / min(c.clock_a_mhz, c.clock_b_mhz)
        time_ratio = c.ratio if c.ratio >= 1 else 1 / c.ratio
        notes.append(f"{where(r)}: {_verdict(c)}: SM clock {c.clock_text} (clock ratio {clock_ratio:.3f}, "
                     f"time ratio {time_ratio:.3f})")
    return notes


def comparison_table(rc: ResultsComparison) -> Table:
    """A row per matched point; unmatched points and the rule behind the verdicts as notes."""
    from bench_kernel.results import params_text

    cross = any(r.provider != r.b_provider for r in rc.rows)
    axes = list(dict.fromkeys(k for r in rc.rows for k in r.params))
    cols = [Column("provider", "A provider -> B provider" if cross else "provider"),
            Column("params", "params", only="display")]
    cols += [Column(f"param_{a}", a, "text", justify="right", only="raw") for a in axes]
    cols += [Column("method", "method"), Column("a_median_us", "A median", "duration_us"),
             Column("b_median_us", "B median", "duration_us"), Column("ratio", "B / A", "ratio"),
             Column("ci95", "95% CI", only="display"), Column("ci95_low", "CI low", "ratio", only="raw"),
             Column("ci95_high", "CI high", "ratio", only="raw"), Column("verdict", "verdict", "verdict", detail="why")]
    rows: list[dict[str, Any]] = []
    for r in rc.rows:
        c = r.comparison
        rows.append({"provider": f"{r.provider} -> {r.b_provider}" if cross else r.provider,
                     "params": params_text(r.params), **{f"param_{a}": r.params.get(a) for a in axes},
                     "method": r.method, "a_median_us": c.a_median_us, "b_median_us": c.b_median_us,
                     "ratio": c.ratio, "ci95": _ci(c.ci95_low, c.ci95_high),
                     "ci95_low": None if c.ci95_low != c.ci95_low else c.ci95_low,
                     "ci95_high": None if c.ci95_high != c.ci95_high else c.ci95_high, "verdict": _verdict(c),
                     "why": (f"SM clock {c.clock_text}: the lower clock alone can explain this"
                             if c.clock_limited else None)})
    n = rc.counts()
    limited = f" ({len(rc.clock_limited)} of them marked (clock))" if rc.clock_limited else ""
    notes = [f"A = {rc.a_label}, B = {rc.b_label}: {n['faster']} faster, {n['slower']} slower, "
             f"{n['same']} same, {n['unmatched']} unmatched{limited}",
             f"B / A = ratio of medians; 95% CI: percentile bootstrap of that ratio (2000 resamples, fixed "
             f"seed); slower/faster only when the ratio is beyond {rc.threshold:.0%} and the CI excludes 1"]
    notes += _clock_notes(rc, lambda r: " ".join(x for x in (r.provider if not cross else f"{r.provider} -> "
                                                                f"{r.b_provider}", params_text(r.params)) if x))
    # One note per (provider, reason), listing its points: a provider unsupported everywhere is one line.
    grouped: dict[tuple[str, str], list[str]] = {}
    for u in rc.unmatched:
        grouped.setdefault((u.provider, u.reason), []).append(params_text(u.params))
    for (provider, reason), where in grouped.items():
        notes.append(f"not compared: {provider} at {'; '.join(where)}: {reason}")
    return Table(cols, rows, title=f"compare {rc.a_label} (A) -> {rc.b_label} (B)", notes=notes, sheet="comparison")
