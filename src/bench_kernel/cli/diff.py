"""``bench-kernel diff TRACE_A TRACE_B``: per-category and per-kernel time and count deltas."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, steps_option, trace_argument
from bench_kernel.records import DIFF_SCHEMA_VERSION
from bench_kernel.report import Column, Table
from bench_kernel.units import format_duration_us

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.DiffOutput``).
SCHEMA_VERSION = DIFF_SCHEMA_VERSION



def _columns(first: str, per_step: bool) -> list[Column]:
    # Per step, a count is a mean over the steps (53.25 launches): the header says so.
    count, each = ("float", " per step") if per_step else ("int", "")
    return [Column("key", first), Column("status", "Status"), Column("count_a", f"Count A{each}", count),
            Column("count_b", f"Count B{each}", count), Column("total_us_a", f"Time A{each}", "duration_us"),
            Column("total_us_b", f"Time B{each}", "duration_us"), Column("delta_us", "Delta", "duration_us"),
            Column("delta_pct", "Delta %", "pct")]


@click.command("diff")
@trace_argument("trace_a")
@trace_argument("trace_b")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="Kernels shown in the table (JSON always has all).")
@rank_option
@steps_option
@output_options()
def command(trace_a: Path, trace_b: Path, top: int, rank: int | None, steps_file: Path | None,
            output: Output) -> None:
    """What changed from TRACE_A to TRACE_B, sorted by time impact (per step when both have steps)."""
    from bench_kernel.trace import diff_document

    d = diff_document(trace_a, trace_b, rank=rank, steps=steps_file)
    unit = " per step" if d.per_step else ""
    sign = "+" if d.delta_us >= 0 else "-"
    title = (f"{Path(d.trace_a).name} -> {Path(d.trace_b).name}: {format_duration_us(d.total_us_a)} -> "
             f"{format_duration_us(d.total_us_b)}{unit} ({sign}{format_duration_us(abs(d.delta_us))})")
    moved = [r for r in d.kernels if r.status != "unchanged"]
    notes = [f"{len(moved) - top} more changed kernels in --json"] if len(moved) > top else []
    unchanged = len(d.kernels) - len(moved)
    if unchanged and moved:
        notes.append(f"{unchanged} kernels unchanged (same count and time; listed in --json)")
    tables = [Table(_columns("Category", d.per_step), [r.to_dict() for r in d.categories], title=title,
                    notes=[*d.notes, *d.load_notes], empty="no kernels in either trace"),
              Table(_columns("Kernel", d.per_step), [r.to_dict() for r in moved[:top]], notes=notes,
                    empty=f"no kernel changed: all {unchanged} have the same count and time in both (listed in --json)")]
    emit(output, data=d, tables=tables)
