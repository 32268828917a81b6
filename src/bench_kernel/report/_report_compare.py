"""The report's sections for sweeps and comparisons, rendered from what the model computed: the
sweep's pivot and fastest provider per point (``ResultsInput.best``), its plot, and each later
input against the first (``ReportModel.comparisons``: the statistics of ``compare``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.report._compare import comparison_table, explanation_lines
from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
from bench_kernel.report._sweep import best_table, sweep_figure, sweep_table, y_range

if TYPE_CHECKING:
    from bench_kernel.records import RunInfo
    from bench_kernel.report_model import ReportModel, ResultsInput

__all__ = ["sweep_tables", "sweep_plots", "comparison_section"]


def _run(inp: ResultsInput) -> RunInfo:
    """The run of a sweep's input (``is_sweep``: it always has one)."""
    if inp.run is None:
        raise ValueError(f"{inp.label} is not a sweep: it has no run")
    return inp.run


def _varying_axis(inp: ResultsInput) -> str | None:
    """The sweep's first axis with more than one value: the x of its plot."""
    for name, values in _run(inp).axes.items():
        if len(values) > 1:
            return name
    return None


def sweep_tables(inp: ResultsInput) -> Markup:
    """The pivot (a row per point, a column per provider, speedups over the baseline) and the
    fastest provider per point with its margin and whether it is significant."""
    run = _run(inp)
    parts = [html_table(sweep_table(run, inp.points, inp.best))]
    if inp.best:
        parts.append(html_table(best_table(run, inp.best, inp.points)))
    return join(parts)


def sweep_plots(inputs: Sequence[ResultsInput], start: int = 0) -> tuple[list[Markup], list[str]]:
    """Per sweep: time over its first varying axis, one line per provider (inline SVG). Sweeps
    plotted over the same axis share one y scale, so two runs read against each other by eye."""
    from bench_kernel.errors import BenchKernelError

    axes = [(i, _varying_axis(i)) for i in inputs if i.is_sweep]
    sweeps = [(i, x) for i, x in axes if x is not None]
    if not sweeps:
        return [], []
    if not have_matplotlib():
        return [], [NO_MATPLOTLIB]
    shared = {x: y_range([p for i, ax in sweeps if ax == x for p in i.points]) for _, x in sweeps}
    figures, notes = [], []
    for n, (inp, x_axis) in enumerate(sweeps):
        try:
            fig = sweep_figure(_run(inp), inp.points, x_axis, y_limits=shared[x_axis])
        except BenchKernelError as e:
            notes.append(f"{inp.label}: sweep plot left out: {e}")
            continue
        same = sum(1 for _, x in sweeps if x == x_axis) > 1
        caption = (f"{inp.label}: median time per call over {x_axis}, one line per provider"
                   + ("; the same y scale as the other sweeps over " + x_axis if same else "") + ".")
        figures.append(el("figure", {"class": "plot", "data-plot": "sweep"},
                          figure_svg(fig, f"sweep{start + n}", f"Sweep plot of {inp.label} over {x_axis}"),
                          el("figcaption", None, caption)))
    return figures, notes


def comparison_section(model: ReportModel) -> Markup | None:
    """Each input after the first (B) against the first (A), point by point: both medians, B/A
    with its 95% CI and the verdict, coloured. None with fewer than two results inputs."""
    if not model.comparisons:
        return None
    a = model.comparisons[0].a
    parts: list[Any] = [el("p", None, f"A = {a.label}; each later input is B. A verdict is slower or faster only "
                                      f"when B / A is beyond {model.threshold:.0%} and its CI across rounds excludes 1 "
                                      f"(same only with the whole CI within the threshold, else inconclusive; with one round a side the CI "
                                      f"is bounded by the method's worst run-to-run noise); marked (clock) "
                                      f"where the slower side's lower SM clock alone can explain it.")]
    for c in model.comparisons:
        if c.comparison.rows:
            parts.append(html_table(comparison_table(c.comparison)))
            lines = explanation_lines(c.comparison)  # every reason of every changed point, as recorded
            if lines:
                parts.append(el("p", None, "What changed, from what both sides recorded:"))
                parts += [el("p", {"class": "muted"}, line) for line in lines]
        else:
            parts.append(el("p", {"class": "muted"}, f"{c.b.label} against {c.a.label}: no point is in both "
                                                     f"({len(c.comparison.unmatched)} unmatched), nothing to compare"))
    return join(parts)
