"""Renderers: tables (rich, CSV, Markdown), JSON, plots, and the progress bar of long commands."""

from bench_kernel.report._progress import ProgressBar
from bench_kernel.report._table import Column, Table, format_value, render_rich, to_csv, to_markdown
from bench_kernel.report._bench import results_table

__all__ = ["Column", "ProgressBar", "Table", "format_value", "render_rich", "results_table", "to_csv", "to_markdown"]
