"""Renderers: tables (rich, CSV, Markdown, Excel), JSON, plots, the progress bar of long commands, and
the self-contained HTML report.

Names from traces and user code are data: every renderer shows them through :func:`printable`
and hands rich ``Text``, never markup.
"""

from bench_kernel.report._bench import results_table
from bench_kernel.report._compare import comparison_table
from bench_kernel.report._history import history_table, plot_history, runs_table
from bench_kernel.report._inputs import ResultsInput, TraceInput, load_inputs, results_from_output
from bench_kernel.report._ops import ops_table
from bench_kernel.report._progress import ProgressBar
from bench_kernel.report._report import REPORT_FORMATS, html_for_output, render_report
from bench_kernel.report._sweep import PLOT_FORMATS, best_table, plot_sweep, sweep_table
from bench_kernel.report._table import Column, Table, format_value, render_rich, to_csv, to_markdown
from bench_kernel.report._text import printable
from bench_kernel.report._xlsx import XLSX_MISSING, to_xlsx, xlsx_header

__all__ = [
    "PLOT_FORMATS", "REPORT_FORMATS", "XLSX_MISSING", "Column", "ProgressBar", "ResultsInput", "Table", "TraceInput",
    "best_table", "comparison_table", "format_value", "history_table", "html_for_output", "load_inputs", "ops_table", "plot_history",
    "plot_sweep", "printable", "render_report", "render_rich", "results_from_output", "results_table", "runs_table",
    "sweep_table", "to_csv", "to_markdown", "to_xlsx", "xlsx_header",
]
