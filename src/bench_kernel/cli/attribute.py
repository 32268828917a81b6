"""``bench-kernel attribute GRAPH_TRACE --capture TRACE``: ops and Python stacks for graph-replayed kernels."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, trace_argument
from bench_kernel.records import ATTRIBUTE_SCHEMA_VERSION
from bench_kernel.report import Column, Table

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.AttributeOutput``).
SCHEMA_VERSION = ATTRIBUTE_SCHEMA_VERSION


_COLUMNS = [Column("launch", "Replay", "int"), Column("pos", "#", "int"), Column("short", "Kernel"),
            Column("dur_us", "Time", "duration_us"), Column("op", "Op"), Column("module", "Module"),
            Column("confidence", "Sure", "float"), Column("where", "Python")]


@click.command("attribute")
@trace_argument("graph_trace")
@click.option("--capture", "capture", type=click.Path(path_type=Path), required=True,
              help="The trace of the graph's capture, or an eager trace of the same model.")
@rank_option
@output_options()
def command(graph_trace: Path, capture: Path, rank: int | None, output: Output) -> None:
    """Match graph-replayed kernels to the capture (or eager) trace and give them op, module and stack."""
    from bench_kernel.trace import attribute_document

    att = attribute_document(graph_trace, capture, rank=rank)
    rows = []
    for k in att.kernels:
        files = [f for f in k.stack if f.file is not None]
        where = f"{files[-1].file}:{files[-1].line} {files[-1].function}" if files else None
        rows.append(dict(k.to_dict(), where=where))
    title = (f"{Path(att.graph_trace).name}: matched {att.matched} of {att.replayed_kernels} replayed kernels "
             f"({100 * att.match_rate:.1f}%) against the {att.reference} of {Path(att.capture_trace).name} "
             f"({att.region})")
    emit(output, data=att, tables=Table(_COLUMNS, rows, title=title, notes=[*att.notes, *att.load_notes]))
