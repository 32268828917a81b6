"""The report's sections for sweeps and comparisons, built on what the results store computes:
the sweep's pivot and fastest provider per point (``sweep_table``, ``best_per_point``), its plot,
and each later input against the first (``compare_points``: the statistics of ``compare``)."""

from __future__ import annotations

from typing import Any, Sequence

from bench_kernel.report._compare import comparison_table
from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table, verdict_badge
from bench_kernel.report._inputs import ResultsInput
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
from bench_kernel.report._sweep import best_table, sweep_figure, sweep_table

__all__ = ["is_sweep", "sweep_tables", "sweep_plots", "comparison_section"]


def is_sweep(inp: ResultsInput) -> bool:
    return inp.run is not None and inp.run.kind == "sweep"


def _varying_axis(inp: ResultsInput) -> str | None:
    """The sweep's first axis with more than one value: the x of its plot."""
    for name, values in inp.run.axes.items():
        if len(values) > 1:
            return name
    return None


def sweep_tables(inp: ResultsInput) -> Markup:
    """The pivot (a row per point, a column per provider, speedups over the baseline) and the
    fastest provider per point with its margin and whether it is significant."""
    from bench_kernel.results import best_per_point

    best = best_per_point(inp.points)
    parts = [html_table(sweep_table(inp.run, inp.points, best))]
    if best:
        parts.append(html_table(best_table(inp.run, best, inp.points)))
    return join(parts)


def sweep_plots(inputs: Sequence[ResultsInput], start: int = 0) -> tuple[list[Markup], list[str]]:
    """Per sweep: time over its first varying axis, one line per provider (inline SVG)."""
    from bench_kernel.errors import BenchKernelError

    sweeps = [(i, _varying_axis(i)) for i in inputs if is_sweep(i)]
    sweeps = [(i, x) for i, x in sweeps if x is not None]
    if not sweeps:
        return [], []
    if not have_matplotlib():
        return [], [NO_MATPLOTLIB]
    figures, notes = [], []
    for n, (inp, x_axis) in enumerate(sweeps):
        try:
            fig = sweep_figure(inp.run, inp.points, x_axis)
        except BenchKernelError as e:
            notes.append(f"{inp.label}: sweep plot left out: {e}")
            continue
        caption = f"{inp.label}: median time per call over {x_axis}, one line per provider."
        figures.append(el("figure", {"class": "plot", "data-plot": "sweep"},
                          figure_svg(fig, f"sweep{start + n}", f"Sweep plot of {inp.label} over {x_axis}"),
                          el("figcaption", None, caption)))
    return figures, notes


def _badge(row: dict[str, Any]) -> Markup:
    return verdict_badge(str(row.get("verdict") or ""), row.get("clocks"))


def comparison_section(inputs: Sequence[ResultsInput], threshold: float) -> Markup | None:
    """Each input after the first (B) against the first (A), point by point: both medians, B/A
    with its 95% CI and the verdict, coloured. None with fewer than two inputs."""
    from bench_kernel.results import compare_points

    if len(inputs) < 2:
        return None
    a = inputs[0]
    parts: list[Any] = [el("p", None, f"A = {a.label}; each later input is B. A verdict is slower or faster only "
                                      f"when B / A is beyond {threshold:.0%} and its 95% CI excludes 1; marked (clock) "
                                      f"where the slower side's lower SM clock alone can explain it.")]
    for b in inputs[1:]:
        by_provider = not (a.provider and b.provider)  # two providers of runs: match on the point alone
        rc = compare_points(a.points, b.points, threshold=threshold, by_provider=by_provider,
                            a_label=a.label, b_label=b.label)
        if rc.rows:
            parts.append(html_table(comparison_table(rc), cells={"verdict": _badge}))
        else:
            parts.append(el("p", {"class": "muted"}, f"{b.label} against {a.label}: no point is in both "
                                                     f"({len(rc.unmatched)} unmatched), nothing to compare"))
    return join(parts)
