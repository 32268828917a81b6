"""``bench-kernel timeline TRACE``: is the GPU busy, why not, launches, exposed communication, ranks."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._numbers import Number
from bench_kernel.cli._trace_args import rank_option, steps_option, trace_argument
from bench_kernel.records import TIMELINE_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.TimelineOutput``, or
#: ``RanksOutput`` for a folder of rank files).
SCHEMA_VERSION = TIMELINE_SCHEMA_VERSION

@click.command("timeline")
@trace_argument()
@rank_option
@steps_option
@click.option("--max-steps", type=click.IntRange(min=0), default=20, show_default=True,
              help="Steps shown in the table (JSON always has all).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes for a directory of rank files (default: one per CPU).")
@click.option("--shapes", is_flag=True, help="Read op input shapes to size collectives that record no size (slower).")
@click.option("--launch-gap-us", type=Number(min=0), default=100.0, show_default=True,
              help="Queued idle stretches up to this long are launch gaps; longer ones a sync or dependency wait.")
@output_options()
def command(trace: Path, rank: int | None, steps_file: Path | None, max_steps: int, workers: int | None,
            shapes: bool, launch_gap_us: float, output: Output) -> None:
    """Busy/idle and why per step, launch delays, exposed communication; a directory: every rank side by side."""
    from bench_kernel.report import ranks_tables, timeline_tables
    from bench_kernel.trace import rank_files, ranks_document, timeline_document

    if trace.is_dir() and rank is None and len(rank_files(trace)) > 1:
        ranks = ranks_document(trace, steps=steps_file, workers=workers, shapes=shapes,
                               launch_gap_max_us=launch_gap_us)
        tables = ranks_tables(ranks)
        # one table of raw values per rank: what a spreadsheet wants
        emit(output, data=ranks, tables=tables[:1] if output.fmt == "csv" else tables)
        return
    doc = timeline_document(trace, rank=rank, steps=steps_file, shapes=shapes, launch_gap_max_us=launch_gap_us)
    tables = timeline_tables(doc, Path(doc.trace).name, max_steps=max_steps, load_notes=doc.load_notes)
    # one table of raw values per window: what a spreadsheet wants
    emit(output, data=doc, tables=tables[:1] if output.fmt == "csv" else tables)
