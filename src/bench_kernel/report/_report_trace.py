"""The report's section for a trace: the timeline's finding first (is the GPU busy, and if not,
why: ``bench-kernel timeline``'s breakdown and diagnosis, and a chart of where each step's wall
time went), then the kernel inventory, time by category, the prefill/decode split and the per-layer
kernel sequence. The tables are the trace commands' own (``_trace_tables``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
from bench_kernel.report._timeline_plot import timeline_figure
from bench_kernel.report._trace_tables import (
    categories_table,
    inventory_tables,
    layers_table,
    phases_tables,
    timeline_headline,
    timeline_tables,
)

if TYPE_CHECKING:
    from bench_kernel.report_model import TraceInput
    from bench_kernel.trace import TimelineReport

__all__ = ["trace_section"]

#: Steps shown in the timeline table and chart (a long serving trace has hundreds).
TIMELINE_STEPS = 20


def _timeline(inp: TraceInput, rep: TimelineReport, index: int) -> list[Markup]:
    parts: list[Markup] = [el("p", {"class": "finding"}, timeline_headline(rep, inp.label)),
                        el("p", None, f"{rep.overall.label}: {rep.overall.diagnosis}")]
    if not have_matplotlib():
        parts.append(el("p", {"class": "muted"}, f"timeline chart left out: {NO_MATPLOTLIB}"))
    else:
        fig = timeline_figure(rep, TIMELINE_STEPS)
        caption = ("Where the wall time went: the device span, then each step at its place in the trace, split into "
                   "busy and the causes of idle time (bench-kernel timeline's breakdown).")
        parts.append(el("figure", {"class": "plot", "data-plot": "timeline"},
                        figure_svg(fig, f"timeline{index}", f"Timeline of {inp.label}"), el("figcaption", None, caption)))
    tables = timeline_tables(rep, inp.label, max_steps=TIMELINE_STEPS)
    parts += [html_table(t) for t in tables]
    return parts


def trace_section(inp: TraceInput, index: int = 0) -> Markup:
    """Timeline, inventory, categories, phases and layers of one trace; a missing analysis says
    why. ``index`` numbers the ids inside its chart."""
    parts: list[Markup] = []
    if inp.timeline is not None:
        parts += _timeline(inp, inp.timeline, index)
    parts += [html_table(t) for t in inventory_tables(inp.inventory, inp.label)]
    parts.append(html_table(categories_table(inp.categories)))
    if inp.phases is not None:
        parts += [html_table(t) for t in phases_tables(inp.phases, inp.label)]
    if inp.layers is not None:
        parts.append(html_table(layers_table(inp.layers, inp.label)))
    for name, why in inp.missing.items():
        parts.append(el("p", {"class": "muted"}, f"{name}: not shown: {why}"))
    return join(parts)
