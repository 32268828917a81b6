"""The HTML report: summary, results, plots, per-kernel breakdown and trace sections, as the
inputs allow, in one self-contained file (see ``_html_page`` for what self-contained means).
It renders a ``report_model.ReportModel``: everything shown was loaded and computed there."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from bench_kernel.report._counters import counters_section
from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_page import Section, page
from bench_kernel.report._html_table import html_table
from bench_kernel.report._report_compare import (
    comparison_section,
    sweep_plots,
    sweep_tables,
)
from bench_kernel.report._report_results import (
    kernels_section,
    results_section,
    roofline_plots,
)
from bench_kernel.report._report_serve import serve_section, serve_summary
from bench_kernel.report._report_summary import summary_section
from bench_kernel.report._report_trace import trace_section
from bench_kernel.report._table import Table
from bench_kernel.report._version import tool_version
from bench_kernel.report_model import ReportModel, ResultsInput, ServeInput

__all__ = ["render_report", "html_for_output", "REPORT_FORMATS"]

#: What ``report -o`` (and ``-o`` of the table commands, for the report) writes.
REPORT_FORMATS = (".html", ".htm")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _notes(notes: Sequence[str]) -> Markup | None:
    return el("ul", {"class": "muted"}, *(el("li", None, n) for n in notes)) if notes else None


def _results_body(results: Sequence[ResultsInput]) -> Markup:
    parts = []
    for inp in results:
        if len(results) > 1 or inp.is_sweep:
            parts.append(el("h3", None, inp.label))
        if inp.is_sweep:
            parts.append(sweep_tables(inp))
        parts.append(results_section([inp], caption=len(results) == 1 and not inp.is_sweep))
    return join(parts)


def render_report(model: ReportModel, *, title: str | None = None, generated_at: str | None = None) -> str:
    """The whole HTML document of ``model`` (a ``report_model.ReportModel``: ``load_report``,
    ``build_report``).

    generated_at: the date printed in the page (ISO 8601; default now): fixed in tests so the
        same inputs give the same bytes.
    """
    inputs, results, traces = model.inputs, model.results, model.traces
    serves = model.serves
    others = [i for i in inputs if not isinstance(i, ServeInput)]
    summary = join([summary_section(others) if others else None, serve_summary(serves) if serves else None])
    sections = [Section("summary", "Summary", summary)]
    if results:
        sections.append(Section("results", "Results", _results_body(results)))
        roofs, roof_notes = roofline_plots(results)
        sweeps, sweep_notes = sweep_plots(results)
        if roofs or sweeps or roof_notes or sweep_notes:
            notes = list(dict.fromkeys(roof_notes + sweep_notes))
            sections.append(Section("plots", "Plots", join([*sweeps, *roofs, _notes(notes)])))
        compared = comparison_section(model)
        if compared is not None:
            sections.append(Section("comparison", "Comparison", compared))
        kernels = kernels_section(results)
        if kernels is not None:
            sections.append(Section("kernels", "Per-kernel breakdown", kernels))
        counts = counters_section([p for inp in results for p in inp.points if p.status == "ok"])
        if counts is not None:
            sections.append(Section("counters", "Hardware counters", counts))
    for i, t in enumerate(traces, 1):
        sections.append(Section(f"trace-{i}", f"Trace: {t.label}", trace_section(t, i)))
    for i, sv in enumerate(serves, 1):
        sections.append(Section(f"serve-{i}", f"Serving: {sv.label}", serve_section(sv, f"serve-{i}")))
    when = generated_at or _now()
    names = ", ".join(i.label for i in inputs)
    subtitle = f"{len(inputs)} input(s): {names} · generated {when}"
    footer = (f"Made by bench-kernel {tool_version()} on {when}. One self-contained file: it opens without "
              f"network, and its plots are inline SVG.")
    return page(title or "bench-kernel report", subtitle, sections, footer)


def html_for_output(command: str, tables: Sequence[Table], *, model: ReportModel | None = None,
                    generated_at: str | None = None) -> str:
    """The page for what a table command printed (``bench-kernel run ... -o out.html``): the
    full report of ``model`` (its measured results, ``report_model.report_for_output``) when
    there is one, else its tables, sortable."""
    if model is not None:
        return render_report(model, title=f"bench-kernel report: {command}", generated_at=generated_at)
    when = generated_at or _now()
    sections = [Section(f"table-{i}", t.title or f"Table {i}", html_table(t, caption=False))
                for i, t in enumerate(tables, 1)]
    return page(f"bench-kernel: {command}", f"generated {when}", sections,
                f"Made by bench-kernel {tool_version()} on {when}. One self-contained file: it opens without network.")
