"""The report's sections for measured results: the results table (``_results_table``, the one the
terminal prints), the roofline plot, and the per-kernel breakdown of each case. Input is the
typed records of each :class:`~bench_kernel.report_model.ResultsInput`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._results_table import results_table
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
from bench_kernel.report._table import Column, Table, format_value

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.records import PointResult, RooflineResult
    from bench_kernel.report_model import ResultsInput

    #: (device, dtype) -> (point label, its placement): one roofline plot per key
    Placed = dict[tuple[str, str], list[tuple[str, RooflineResult]]]

__all__ = ["results_section", "roofline_plots", "kernels_section"]

#: Per-kernel tables shown per input (a sweep of 20 points x 4 providers would make 80).
KERNEL_TABLES = 12


def results_section(inputs: Sequence[ResultsInput], caption: bool = True) -> Markup:
    """One sortable table per input: per case the median of each method, throughput, roofline.
    The cases' own notes are in the summary (information and warnings apart), not under each table."""
    parts = []
    for inp in inputs:
        table = results_table(inp.points, title=f"{len(inp.points)} case(s) from {inp.label}", result_notes=False)
        table.notes.insert(0, "hover a time for its 95% CI, sample count and why sampling stopped")
        parts.append(html_table(table, caption=caption))
    return join(parts)


def _placed(inputs: Sequence[ResultsInput]) -> tuple[Placed, list[str]]:
    groups: Placed = {}
    problems: list[str] = []
    for inp in inputs:
        for p in inp.points:
            if p.status != "ok":
                continue
            r = p.result.roofline
            if r is not None:
                groups.setdefault((r.device, r.dtype), []).append((p.label, r))
    return groups, problems


def roofline_plots(inputs: Sequence[ResultsInput], start: int = 0) -> tuple[list[Markup], list[str]]:
    """Inline SVG rooflines (one per device and dtype) of every placed case, and notes on what
    could not be drawn. ``start`` numbers the plots' id prefixes."""
    from bench_kernel.errors import BenchKernelError

    groups, notes = _placed(inputs)
    if not groups:
        return [], notes
    if not have_matplotlib():
        return [], notes + [NO_MATPLOTLIB]
    from bench_kernel.roofline import build_figure

    figures = []
    for i, ((device, dtype), labelled) in enumerate(groups.items()):
        # Points are numbered, names go in the caption: names drawn beside close points overlap.
        points = {str(j): r for j, (_, r) in enumerate(labelled, 1)}
        try:
            fig = build_figure(points, device, dtype)
        except BenchKernelError as e:
            notes.append(f"roofline plot for {device} {dtype} left out: {e}")
            continue
        key = el("ol", {"class": "plot-key"}, *(el("li", None, label) for label, _ in labelled))
        caption = el("figcaption", None, f"Roofline on {device}, {dtype}: each case at its stored placement "
                                         f"(% = share of the spec roof). Points:", key)
        figures.append(el("figure", {"class": "plot", "data-plot": "roofline"},
                          figure_svg(fig, f"roof{start + i}", f"Roofline plot, {device} {dtype}"), caption))
    return figures, notes


def _kernel_table(point: PointResult) -> Table:
    r = point.result
    rows = [dict(k.to_dict(), share_pct=100.0 * k.share) for k in r.kernels]
    total = sum(k.us_per_call for k in r.kernels)
    kernel_us = r.median_us("kernel")
    title = (f"{point.label}: {len(rows)} device activities, {format_value(total, 'duration_us')} per call"
             + (f" (kernel method median {format_value(kernel_us, 'duration_us')})" if kernel_us else ""))
    cols = [Column("short", "kernel", detail="name"), Column("category", "category"), Column("kind", "kind"),
            Column("count_per_call", "per call", "float"), Column("us_per_call", "time per call", "duration_us"),
            Column("share_pct", "share", "pct")]
    return Table(cols, rows, title=title)


def _share_cell(row: Mapping[str, Any]) -> Markup:  # Any: table cells
    pct = row.get("share_pct") or 0.0
    bar = el("span", {"class": "share", "style": f"width:{min(pct, 100.0) * 0.6:.1f}px", "aria-hidden": "true"})
    return join([format_value(pct, "pct"), bar])


def kernels_section(inputs: Sequence[ResultsInput]) -> Markup | None:
    """Per case measured by the ``kernel`` method: every kernel of one call, its time and share;
    the full kernel name on hover. At most :data:`KERNEL_TABLES` cases per input (a sweep has
    dozens): the rest are named in a note."""
    parts: list[Markup] = []
    for inp in inputs:
        with_kernels = [p for p in inp.points if p.result.kernels]
        for p in with_kernels[:KERNEL_TABLES]:
            parts.append(html_table(_kernel_table(p), cells={"share_pct": _share_cell}))
        if len(with_kernels) > KERNEL_TABLES:
            parts.append(el("p", {"class": "muted"}, f"{inp.label}: the breakdown of {len(with_kernels) - KERNEL_TABLES} "
                                                     f"more case(s) is in the results file or the store"))
    return join(parts) if parts else None
