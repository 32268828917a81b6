"""The table printed at the end of a pytest session: one row per ``kernel_bench`` call."""

from __future__ import annotations

import io
from typing import Any, Sequence

from bench_kernel.pytest_plugin._fixture import KernelBenchResult

__all__ = ["summary_table", "render_summary"]


def summary_table(records: Sequence[tuple[str, KernelBenchResult]], baseline: str | None) -> Any:
    """A ``report.Table``: test, method, median and its CI, throughput, and against the baseline
    its median, the ratio with its 95% CI and the verdict."""
    from bench_kernel.report import Column, Table

    cols = [Column("test", "test"), Column("method", "method"), Column("median_us", "median", "duration_us"),
            Column("ci", "95% CI", "text", justify="right")]
    if any(r.achieved_tflops is not None for _, r in records):
        cols.append(Column("tflops", "TFLOP/s", "tflops"))
    if any(r.achieved_tbps is not None for _, r in records):
        cols.append(Column("tbps", "TB/s", "tbps"))
    if baseline:
        cols += [Column("base_us", "baseline", "duration_us"), Column("ratio", "ratio", "ratio"),
                 Column("ratio_ci", "ratio 95% CI", "text", justify="right"), Column("verdict", "verdict")]
    rows = []
    for nodeid, r in records:
        from bench_kernel.report import format_value

        lo, hi = r.ci95_us
        params = " ".join(f"{k}={v}" for k, v in r.params.items())
        label = r.name if r.name == nodeid else f"{r.name} ({nodeid})"
        row = {"test": f"{label} {params}".strip(), "method": r.method, "median_us": r.median_us,
               "ci": f"{format_value(lo, 'duration_us')} – {format_value(hi, 'duration_us')}",
               "tflops": r.achieved_tflops, "tbps": r.achieved_tbps}
        c = r.comparison
        if c is not None:
            ci = "-" if c.note else f"{c.ci95_low:.3f} – {c.ci95_high:.3f}"
            row.update(base_us=c.a_median_us, ratio=c.ratio, ratio_ci=ci, verdict=c.verdict)
        elif baseline:
            row.update(verdict=r.baseline_note or "-")
        rows.append(row)
    notes = []
    if baseline:
        notes.append(f"baseline {baseline}: ratio = this median / baseline median; 95% CI: percentile bootstrap "
                     f"of that ratio (the statistics of 'bench-kernel compare')")
    return Table(cols, rows, title=f"kernel_bench: {len(records)} measurement(s)", notes=notes)


def render_summary(table: Any, width: int) -> str:
    """The table as plain text ``width`` columns wide (no colour: pytest's writer adds its own)."""
    from rich.console import Console

    from bench_kernel.report import render_rich

    buf = io.StringIO()
    render_rich(table, Console(file=buf, width=max(width, 60), color_system=None, soft_wrap=False))
    return buf.getvalue()
