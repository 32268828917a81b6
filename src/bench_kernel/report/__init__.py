"""Renderers: tables (rich, CSV, Markdown, Excel), JSON, plots, the progress bar of long commands, and
the self-contained HTML report of a ``report_model.ReportModel``. The only place numbers become
text; nothing here loads an input or runs an analysis.

Names from traces and user code are data: every renderer shows them through :func:`printable`
and hands rich ``Text``, never markup.
"""

from bench_kernel.report._compare import comparison_table
from bench_kernel.report._cost import cost_line
from bench_kernel.report._counters import counted, counter_kernels_table, counters_table
from bench_kernel.report._history import history_table, plot_history, runs_table
from bench_kernel.report._ops import ops_table, ops_tables
from bench_kernel.report._progress import ProgressBar
from bench_kernel.report._render import OUTPUT_FORMATS, dumps, json_default, render_body, render_console, tool_version
from bench_kernel.report._report import REPORT_FORMATS, html_for_output, render_report
from bench_kernel.report._results_table import results_table
from bench_kernel.report._serve import serve_comparison_table, serve_tables
from bench_kernel.report._sweep import best_table, plot_sweep, sweep_table
from bench_kernel.report._table import (Column, Table, format_value, render_rich, to_csv, to_markdown,
                                        verdict_style)
from bench_kernel.report._text import printable
from bench_kernel.report._timeline_plot import timeline_figure
from bench_kernel.report._trace_tables import (categories_table, inventory_csv, inventory_tables, layers_table,
                                               phases_tables, ranks_tables, timeline_tables)
from bench_kernel.report._xlsx import XLSX_MISSING, to_xlsx, xlsx_header

__all__ = [
    "OUTPUT_FORMATS", "REPORT_FORMATS", "XLSX_MISSING", "Column", "ProgressBar", "Table",
    "best_table", "categories_table", "comparison_table", "cost_line", "counted", "counter_kernels_table", "counters_table", "dumps", "format_value", "history_table",
    "html_for_output", "inventory_csv", "inventory_tables", "json_default", "layers_table", "ops_table", "ops_tables",
    "phases_tables", "plot_history", "plot_sweep", "printable", "ranks_tables", "render_body", "render_console",
    "render_report", "render_rich", "results_table", "runs_table", "serve_comparison_table", "serve_tables", "sweep_table", "timeline_figure",
    "timeline_tables", "to_csv", "to_markdown", "to_xlsx", "tool_version", "verdict_style", "xlsx_header",
]
