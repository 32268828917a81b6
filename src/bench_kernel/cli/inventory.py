"""``bench-kernel inventory TRACE``: count and time per kernel from a trace (Kineto, Nsight Systems, rocprofv3)."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, steps_option, trace_argument
from bench_kernel.records import INVENTORY_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.InventoryOutput``).
SCHEMA_VERSION = INVENTORY_SCHEMA_VERSION


@click.command("inventory")
@trace_argument()
@click.option("--by", type=click.Choice(["name", "category", "family"]), default="name", show_default=True,
              help="Group kernels by full name, category or family.")
@click.option("--top", type=click.IntRange(min=1), default=None, help="Show only the N longest groups.")
@click.option("--per-step", is_flag=True, help="Divide counts and times by the number of steps.")
@rank_option
@steps_option
@output_options()
def command(trace: Path, by: str, top: int | None, per_step: bool, rank: int | None, steps_file: Path | None,
            output: Output) -> None:
    """Per-kernel count, total/avg/min/max time and share of a trace: Kineto (.json, .json.gz), an Nsight
    Systems SQLite export or a rocprofv3 kernel trace (CSV, JSON)."""
    from bench_kernel.report import inventory_csv, inventory_tables
    from bench_kernel.trace import inventory_document

    doc = inventory_document(trace, by=by, top=top, per_step=per_step, rank=rank, steps=steps_file)
    if output.fmt == "csv":
        tables = [inventory_csv(doc)]
    else:
        tables = inventory_tables(doc, Path(doc.trace).name, load_notes=doc.load_notes)
    emit(output, data=doc, tables=tables)
