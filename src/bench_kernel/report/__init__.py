"""Renderers: tables (rich, CSV, Markdown), JSON, plots, and the progress bar of long commands."""

from bench_kernel.report._bench import results_table
from bench_kernel.report._compare import comparison_table
from bench_kernel.report._history import history_table, plot_history, runs_table
from bench_kernel.report._ops import ops_table
from bench_kernel.report._progress import ProgressBar
from bench_kernel.report._sweep import PLOT_FORMATS, best_table, plot_sweep, sweep_table
from bench_kernel.report._table import Column, Table, format_value, render_rich, to_csv, to_markdown

__all__ = [
    "PLOT_FORMATS", "Column", "ProgressBar", "Table", "best_table", "comparison_table", "format_value",
    "history_table", "ops_table", "plot_history", "plot_sweep", "render_rich", "results_table", "runs_table",
    "sweep_table", "to_csv", "to_markdown",
]
