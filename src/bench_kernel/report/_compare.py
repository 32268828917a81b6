"""The table of ``bench-kernel compare``: B against A per point, with the CI and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench_kernel.report._table import Column, Table

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.results import ResultsComparison

__all__ = ["comparison_table"]


def _ci(lo: float, hi: float) -> str:
    return "-" if lo != lo or hi != hi else f"{lo:.3f}-{hi:.3f}"  # NaN: too few samples


def comparison_table(rc: ResultsComparison) -> Table:
    """A row per matched point; unmatched points and the rule behind the verdicts as notes."""
    cross = any(r.provider != r.b_provider for r in rc.rows)
    cols = [Column("provider", "A provider -> B provider" if cross else "provider"), Column("params", "params"),
            Column("method", "method"), Column("a_median_us", "A median", "duration_us"),
            Column("b_median_us", "B median", "duration_us"), Column("ratio", "B / A", "ratio"),
            Column("ci95", "95% CI"), Column("verdict", "verdict")]
    rows: list[dict[str, Any]] = []
    for r in rc.rows:
        c = r.comparison
        rows.append({"provider": f"{r.provider} -> {r.b_provider}" if cross else r.provider,
                     "params": " ".join(f"{k}={v}" for k, v in r.params.items()), "method": r.method,
                     "a_median_us": c.a_median_us, "b_median_us": c.b_median_us, "ratio": c.ratio,
                     "ci95": _ci(c.ci95_low, c.ci95_high),
                     "verdict": c.verdict + ("" if c.note is None else " (few samples)")})
    n = rc.counts()
    notes = [f"A = {rc.a_label}, B = {rc.b_label}: {n['faster']} faster, {n['slower']} slower, "
             f"{n['same']} same, {n['unmatched']} unmatched",
             f"B / A = ratio of medians; 95% CI: percentile bootstrap of that ratio (2000 resamples, fixed "
             f"seed); slower/faster only when the ratio is beyond {rc.threshold:.0%} and the CI excludes 1"]
    # One note per (provider, reason), listing its points: a provider unsupported everywhere is one line.
    grouped: dict[tuple[str, str], list[str]] = {}
    for u in rc.unmatched:
        grouped.setdefault((u.provider, u.reason), []).append(" ".join(f"{k}={v}" for k, v in u.params.items()))
    for (provider, reason), where in grouped.items():
        notes.append(f"not compared: {provider} at {'; '.join(where)}: {reason}")
    return Table(cols, rows, title=f"compare {rc.a_label} (A) -> {rc.b_label} (B)", notes=notes)
