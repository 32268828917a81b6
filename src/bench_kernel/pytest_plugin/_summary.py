"""The table printed at the end of a pytest session: one row per ``kernel_bench`` call."""

from __future__ import annotations

import io
from typing import Any, Sequence

from bench_kernel.pytest_plugin._fixture import KernelBenchResult

__all__ = ["summary_table", "render_summary"]


def summary_table(records: Sequence[tuple[str, KernelBenchResult]], baseline: str | None) -> Any:
    """A ``report.Table``: test, method, median and its CI's half-width, throughput (without a
    baseline), and against the baseline its time, the ratio with its 99% CI and the verdict."""
    from bench_kernel.records import params_text
    from bench_kernel.report import Column, Table

    cols = [Column("test", "test"), Column("method", "method"), Column("median_us", "median", "duration_us")]
    if not baseline:  # the comparison takes the width the CI and throughput would
        cols.append(Column("ci_pct", "±CI", "text", justify="right"))
        if any(r.achieved_tflops is not None for _, r in records):
            cols.append(Column("tflops", "TFLOP/s", "tflops"))
        if any(r.achieved_tbps is not None for _, r in records):
            cols.append(Column("tbps", "TB/s", "tbps"))
    else:
        # what the ratio is of, labelled: each side's geometric mean over its rounds (compare's columns)
        cols += [Column("this_us", "this run (geo mean)", "duration_us"),
                 Column("base_us", "baseline (geo mean)", "duration_us"),
                 Column("ratio", "ratio (99% CI)", "text", justify="right"),
                 Column("noise_floor", "noise floor", "text", justify="right"), Column("verdict", "verdict", "verdict")]
    rows = []
    for nodeid, r in records:
        lo, hi = r.ci95_us
        params = params_text(r.params)
        label = r.name if r.name == nodeid else f"{r.name} ({nodeid})"
        row = {"test": f"{label} {params}".strip(), "method": r.method, "median_us": r.median_us,
               "ci_pct": f"±{(hi - lo) / 2 / r.median_us:.1%}", "tflops": r.achieved_tflops,
               "tbps": r.achieved_tbps}
        c = r.comparison
        if c is not None:
            ci = "" if c.ci_low is None or c.ci_high is None else f" ({c.ci_low:.2f}–{c.ci_high:.2f})"
            row.update(this_us=c.b_us, base_us=c.a_us, ratio=f"{c.ratio:.2f}x{ci}",
                       noise_floor="-" if c.noise_floor is None else f"±{c.noise_floor:.1%}" + (
                           " (floor)" if c.noise is not None and c.noise.source == "floor" else ""),
                       verdict=f"{c.verdict} (clock)" if c.clock_limited else c.verdict)
        elif baseline:
            row.update(verdict=r.baseline_note or "-")
        rows.append(row)
    if baseline:
        notes = [f"baseline {baseline}: its time and the ratio = this run's time / the baseline's: the geometric "
                 f"means over the rounds each was timed in (each round's median; on the host method its minimum; the "
                 f"median column is this run's own median of round medians), with the 99% CI and "
                 f"noise floor of 'bench-kernel compare' and its verdicts (same: the whole CI within the threshold; "
                 f"inconclusive: the data cannot tell); (floor): one round on each side and no stored history, so "
                 f"the CI is bounded by the method's worst run-to-run noise (--kernel-bench-rounds measures it)"]
        notes += [f"{r.name}: {r.comparison.verdict}: {r.explanation.summary}" for _, r in records
                  if r.comparison is not None and r.explanation is not None
                  and r.comparison.verdict in ("slower", "faster")]
        notes += [f"{r.name}: {r.comparison.verdict} (clock): SM clock baseline {r.comparison.clock_a_mhz:.0f} MHz, "
                  f"this run {r.comparison.clock_b_mhz:.0f} MHz: the lower clock alone can explain it"
                  for _, r in records if r.comparison is not None and r.comparison.clock_limited]
    else:
        notes = ["median: the primary method's; ±CI: half-width of its 95% confidence interval"]
    return Table(cols, rows, title=f"kernel_bench: {len(records)} measurement(s)", notes=notes)


#: The summary may be wider than the terminal rather than fold test ids mid-name (a folded id
#: cannot be searched for or pasted); it is only as wide as its content needs.
MIN_WIDTH = 160


def render_summary(table: Any, width: int) -> str:
    """The table as plain text (no colour), at its natural width up to ``max(width, MIN_WIDTH)``."""
    from rich.console import Console

    from bench_kernel.report import render_rich

    buf = io.StringIO()
    render_rich(table, Console(file=buf, width=max(width, MIN_WIDTH), color_system=None, soft_wrap=False))
    return buf.getvalue()
