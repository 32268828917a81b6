"""The HTML report: summary, results, plots, per-kernel breakdown and trace sections, as the
inputs allow, in one self-contained file (see ``_html_page`` for what self-contained means)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Sequence

from bench_kernel.errors import InputError
from bench_kernel.results import DEFAULT_THRESHOLD
from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_page import Section, page
from bench_kernel.report._html_table import html_table, verdict_badge
from bench_kernel.report._inputs import ResultsInput, TraceInput, results_from_output
from bench_kernel.report._report_compare import comparison_section, is_sweep, sweep_plots, sweep_tables
from bench_kernel.report._report_results import kernels_section, results_section, roofline_plots
from bench_kernel.report._report_summary import summary_section
from bench_kernel.report._report_trace import trace_section
from bench_kernel.report._table import Table

__all__ = ["render_report", "html_for_output", "REPORT_FORMATS"]

#: What ``report -o`` (and ``-o`` of the table commands, for the report) writes.
REPORT_FORMATS = (".html", ".htm")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bench-kernel")
    except PackageNotFoundError:
        return "unknown"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _notes(notes: Sequence[str]) -> Markup | None:
    return el("ul", {"class": "muted"}, *(el("li", None, n) for n in notes)) if notes else None


def _results_body(results: Sequence[ResultsInput]) -> Markup:
    parts = []
    for inp in results:
        if len(results) > 1 or is_sweep(inp):
            parts.append(el("h3", None, inp.label))
        if is_sweep(inp):
            parts.append(sweep_tables(inp))
        parts.append(results_section([inp], caption=len(results) == 1 and not is_sweep(inp)))
    return join(parts)


def render_report(inputs: Sequence[ResultsInput | TraceInput], *, title: str | None = None,
                  generated_at: str | None = None, threshold: float = DEFAULT_THRESHOLD) -> str:
    """The whole HTML document for ``inputs`` (see ``load_inputs``).

    threshold: of the comparison of each later results input against the first (see
        ``bench_kernel.results.compare``). generated_at: the date printed in the page (ISO 8601;
        default now): fixed in tests so the same inputs give the same bytes.
    """
    results = [i for i in inputs if isinstance(i, ResultsInput)]
    traces = [i for i in inputs if isinstance(i, TraceInput)]
    sections = [Section("summary", "Summary", summary_section(inputs))]
    if results:
        sections.append(Section("results", "Results", _results_body(results)))
        roofs, roof_notes = roofline_plots(results)
        sweeps, sweep_notes = sweep_plots(results)
        if roofs or sweeps or roof_notes or sweep_notes:
            notes = list(dict.fromkeys(roof_notes + sweep_notes))
            sections.append(Section("plots", "Plots", join([*sweeps, *roofs, _notes(notes)])))
        compared = comparison_section(results, threshold)
        if compared is not None:
            sections.append(Section("comparison", "Comparison", compared))
        kernels = kernels_section(results)
        if kernels is not None:
            sections.append(Section("kernels", "Per-kernel breakdown", kernels))
    for i, t in enumerate(traces, 1):
        sections.append(Section(f"trace-{i}", f"Trace: {t.label}", trace_section(t)))
    when = generated_at or _now()
    names = ", ".join(i.label for i in inputs)
    subtitle = f"{len(inputs)} input(s): {names} · generated {when}"
    footer = (f"Made by bench-kernel {_version()} on {when}. One self-contained file: it opens without "
              f"network, and its plots are inline SVG.")
    return page(title or "bench-kernel report", subtitle, sections, footer)


def _verdicts(table: Table) -> dict[str, Any]:
    """A ``verdict`` column (``compare``) is drawn as coloured badges."""
    if any(c.key == "verdict" for c in table.columns):
        return {"verdict": lambda row: verdict_badge(str(row.get("verdict") or ""), row.get("clocks"))}
    return {}


def html_for_output(command: str, data: Any, tables: Sequence[Table], *, generated_at: str | None = None) -> str:
    """The report for what a table command printed (``bench-kernel run ... -o out.html``):
    measured results get the full report; any other command its tables, sortable."""
    if isinstance(data, dict) and (isinstance(data.get("results"), list) or isinstance(data.get("points"), list)):
        try:
            inp = results_from_output(data, command, command, generated_at or _now(), dated_by="measured")
        except InputError:  # not results after all: render its tables
            inp = None
        if inp is not None:
            return render_report([inp], title=f"bench-kernel report: {command}", generated_at=generated_at)
    when = generated_at or _now()
    sections = [Section(f"table-{i}", t.title or f"Table {i}",
                        html_table(t, hover={"short": "name"}, caption=False, cells=_verdicts(t)))
                for i, t in enumerate(tables, 1)]
    return page(f"bench-kernel: {command}", f"generated {when}", sections,
                f"Made by bench-kernel {_version()} on {when}. One self-contained file: it opens without network.")
