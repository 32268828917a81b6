"""Renderers: tables (rich, CSV, Markdown), JSON, and plots."""

from bench_kernel.report._table import Column, Table, format_value, render_rich, to_csv, to_markdown

__all__ = ["Column", "Table", "format_value", "render_rich", "to_csv", "to_markdown"]
