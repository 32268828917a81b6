"""``bench-kernel phases TRACE``: prefill vs decode steps and their kernel time."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, steps_option, trace_argument
from bench_kernel.records import PHASES_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.PhasesOutput``).
SCHEMA_VERSION = PHASES_SCHEMA_VERSION



@click.command("phases")
@trace_argument()
@rank_option
@steps_option
@output_options()
def command(trace: Path, rank: int | None, steps_file: Path | None, output: Output) -> None:
    """Split steps into prefill and decode (annotations, else GEMM token counts, else kernel time)."""
    from bench_kernel.report import phases_tables
    from bench_kernel.trace import phases_document

    doc = phases_document(trace, rank=rank, steps=steps_file)
    emit(output, data=doc, tables=phases_tables(doc, Path(doc.trace).name, load_notes=doc.load_notes))
