"""``bench-kernel timeline TRACE``: is the GPU busy, why not, launches, exposed communication, ranks."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._numbers import Number
from bench_kernel.cli._trace_args import (
    load_notes,
    rank_option,
    step_rules,
    steps_option,
    trace_argument,
)

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): raise it when a field changes its
#: name, type or meaning; a new field documented there does not need it.
SCHEMA_VERSION = 1

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
    from bench_kernel.trace import load_trace, rank_files, timeline, timeline_ranks

    rules = step_rules(steps_file)
    if trace.is_dir() and rank is None and len(rank_files(trace)) > 1:
        _ranks(timeline_ranks(trace, rules=rules, workers=workers, shapes=shapes, launch_gap_max_us=launch_gap_us),
               output)
        return
    t = load_trace(trace, rank, shapes=shapes)
    _single(timeline(t, rules=rules, launch_gap_max_us=launch_gap_us), t.path.name, max_steps, output, load_notes(t))


def _single(rep, name: str, max_steps: int, output: Output,  # rep: TimelineReport
            loaded: list[str] | None = None) -> None:
    from bench_kernel.report import timeline_tables

    tables = timeline_tables(rep, name, max_steps=max_steps, load_notes=loaded or [])
    if output.fmt == "csv":
        tables = [tables[0]]  # one table of raw values per window: what a spreadsheet wants
    emit(output, data={"schema_version": SCHEMA_VERSION, **rep.to_dict(), "load_notes": loaded or []}, tables=tables)


def _ranks(rep, output: Output) -> None:  # rep: RanksReport
    from bench_kernel.report import ranks_tables

    tables = ranks_tables(rep)
    if output.fmt == "csv":
        tables = tables[:1]
    emit(output, data={"schema_version": SCHEMA_VERSION, **rep.to_dict()}, tables=tables)
