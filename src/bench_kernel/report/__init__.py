"""Renderers: tables (rich, CSV, Markdown, Excel), JSON, plots, the progress bar of long commands, and
the self-contained HTML report of a ``report_model.ReportModel``. The only place numbers become
text; nothing here loads an input or runs an analysis.

Names from traces and user code are data: every renderer shows them through :func:`printable`
and hands rich ``Text``, never markup.

The names are imported lazily (PEP 562): a command that needs one table pays for that table's
module, not for every renderer (numpy, the report model): shell completion imports every
command's module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers and readers; at run time __getattr__ imports them
    from bench_kernel.report._compare import comparison_table
    from bench_kernel.report._cost import cost_line
    from bench_kernel.report._counters import counted, counter_kernels_table, counters_table
    from bench_kernel.report._history import history_table, plot_history, runs_table
    from bench_kernel.report._ops import ops_table, ops_tables
    from bench_kernel.report._progress import ProgressBar, ProgressLines
    from bench_kernel.report._render import (
        OUTPUT_FORMATS,
        dumps,
        json_default,
        render_body,
        render_console,
        tool_version,
    )
    from bench_kernel.report._report import REPORT_FORMATS, html_for_output, render_report
    from bench_kernel.report._results_table import results_table
    from bench_kernel.report._serve import serve_comparison_table, serve_tables
    from bench_kernel.report._sweep import best_table, plot_sweep, sweep_table
    from bench_kernel.report._table import Column, Table, format_value, render_rich, to_csv, to_markdown, verdict_style
    from bench_kernel.report._text import printable
    from bench_kernel.report._timeline_plot import timeline_figure
    from bench_kernel.report._trace_tables import (
        categories_table,
        inventory_csv,
        inventory_tables,
        layers_table,
        phases_tables,
        ranks_tables,
        timeline_tables,
    )
    from bench_kernel.report._write import check_report_path, os_error_text, write_output, write_report
    from bench_kernel.report._xlsx import XLSX_MISSING, to_xlsx, xlsx_header

#: name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "comparison_table": "bench_kernel.report._compare",
    "cost_line": "bench_kernel.report._cost",
    "counted": "bench_kernel.report._counters",
    "counter_kernels_table": "bench_kernel.report._counters",
    "counters_table": "bench_kernel.report._counters",
    "history_table": "bench_kernel.report._history",
    "plot_history": "bench_kernel.report._history",
    "runs_table": "bench_kernel.report._history",
    "ops_table": "bench_kernel.report._ops",
    "ops_tables": "bench_kernel.report._ops",
    "ProgressBar": "bench_kernel.report._progress",
    "ProgressLines": "bench_kernel.report._progress",
    "OUTPUT_FORMATS": "bench_kernel.report._render",
    "dumps": "bench_kernel.report._render",
    "json_default": "bench_kernel.report._render",
    "render_body": "bench_kernel.report._render",
    "render_console": "bench_kernel.report._render",
    "tool_version": "bench_kernel.report._render",
    "REPORT_FORMATS": "bench_kernel.report._report",
    "html_for_output": "bench_kernel.report._report",
    "render_report": "bench_kernel.report._report",
    "results_table": "bench_kernel.report._results_table",
    "serve_comparison_table": "bench_kernel.report._serve",
    "serve_tables": "bench_kernel.report._serve",
    "best_table": "bench_kernel.report._sweep",
    "plot_sweep": "bench_kernel.report._sweep",
    "sweep_table": "bench_kernel.report._sweep",
    "Column": "bench_kernel.report._table",
    "Table": "bench_kernel.report._table",
    "format_value": "bench_kernel.report._table",
    "render_rich": "bench_kernel.report._table",
    "to_csv": "bench_kernel.report._table",
    "to_markdown": "bench_kernel.report._table",
    "verdict_style": "bench_kernel.report._table",
    "printable": "bench_kernel.report._text",
    "timeline_figure": "bench_kernel.report._timeline_plot",
    "categories_table": "bench_kernel.report._trace_tables",
    "inventory_csv": "bench_kernel.report._trace_tables",
    "inventory_tables": "bench_kernel.report._trace_tables",
    "layers_table": "bench_kernel.report._trace_tables",
    "phases_tables": "bench_kernel.report._trace_tables",
    "ranks_tables": "bench_kernel.report._trace_tables",
    "timeline_tables": "bench_kernel.report._trace_tables",
    "check_report_path": "bench_kernel.report._write",
    "os_error_text": "bench_kernel.report._write",
    "write_output": "bench_kernel.report._write",
    "write_report": "bench_kernel.report._write",
    "XLSX_MISSING": "bench_kernel.report._xlsx",
    "to_xlsx": "bench_kernel.report._xlsx",
    "xlsx_header": "bench_kernel.report._xlsx",
}

__all__ = [
    "OUTPUT_FORMATS", "REPORT_FORMATS", "XLSX_MISSING", "Column", "ProgressBar", "ProgressLines", "Table",
    "best_table", "categories_table", "comparison_table", "cost_line", "counted", "counter_kernels_table", "counters_table", "dumps", "format_value", "history_table",
    "html_for_output", "inventory_csv", "inventory_tables", "json_default", "layers_table", "ops_table", "ops_tables",
    "phases_tables", "plot_history", "plot_sweep", "printable", "ranks_tables", "render_body", "render_console",
    "render_report", "render_rich", "results_table", "runs_table", "serve_comparison_table", "serve_tables", "sweep_table", "timeline_figure",
    "timeline_tables", "to_csv", "to_markdown", "to_xlsx", "tool_version", "verdict_style", "xlsx_header",
    "check_report_path", "os_error_text", "write_output", "write_report",
]


def __getattr__(name: str) -> Any:  # Any: whichever export was asked for (typed by the imports above)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once imported, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
