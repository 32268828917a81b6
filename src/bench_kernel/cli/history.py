"""``bench-kernel history``: the stored runs, or one case's figure over time."""

from __future__ import annotations

import click

from bench_kernel.cli._common import Output, db_files, db_option, emit, output_options
from bench_kernel.errors import UsageError
from bench_kernel.records import HISTORY_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.HistoryOutput``).
SCHEMA_VERSION = HISTORY_SCHEMA_VERSION


def _where(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--where {item!r}: expected AXIS=VALUE, e.g. M=1024")
        out[key] = value
    return out


@click.command("history")
@db_option
@click.option("--name", "pattern", default=None, metavar="PATTERN",
              help="Show this case/provider over time (a glob: 'torch', 'triton_*').")
@click.option("--where", "where", multiple=True, metavar="AXIS=VALUE",
              help="With --name: only points with this parameter value (repeatable).")
@click.option("--limit", type=int, default=None, help="Show only the newest N runs.")
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False),
              help="With --name: plot the median per run (.png or .svg).")
@output_options(outputs={"plot_path": "--plot"}, inputs=lambda kw: db_files(kw["db_path"]))
def command(db_path: str | None, pattern: str | None, where: tuple[str, ...], limit: int | None,
            plot_path: str | None, output: Output) -> int:
    """List the stored runs; with --name, one case's figure over time."""
    from rich.console import Console

    from bench_kernel.report import history_table, plot_history, runs_table
    from bench_kernel.results import history

    filters = _where(where)
    if (filters or plot_path) and pattern is None:
        raise UsageError("--where and --plot need --name PATTERN")
    doc = history(db_path, pattern=pattern, where=filters, limit=limit)
    if pattern is None:
        emit(output, data=doc, tables=runs_table(doc.runs or (), doc.db or ""))
        return 0
    pairs = [(h.run, h.point) for h in doc.points or ()]
    if plot_path:
        written = plot_history(pairs, pattern, plot_path)
        Console(stderr=True).print(f"plot: {written}", highlight=False, markup=False, soft_wrap=True)
    emit(output, data=doc, tables=history_table(pairs, pattern))
    return 0
