"""``bench-kernel layers TRACE``: the repeating per-layer kernel sequence with per-position times."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, steps_option, trace_argument
from bench_kernel.records import LAYERS_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.LayersOutput``).
SCHEMA_VERSION = LAYERS_SCHEMA_VERSION


@click.command("layers")
@trace_argument()
@click.option("--anchor", default=None, metavar="REGEX",
              help="A kernel (regex over raw or short names) that runs a fixed number of times per layer; "
                   "found automatically if omitted.")
@click.option("--step", type=click.Choice(["prefill", "decode", "mixed"]), default=None,
              help="Only steps of this phase (see 'bench-kernel phases').")
@rank_option
@steps_option
@output_options()
def command(trace: Path, anchor: str | None, step: str | None, rank: int | None, steps_file: Path | None,
            output: Output) -> None:
    """Find the per-layer kernel sequence (works on CUDA-graph and eager traces)."""
    from bench_kernel.report import layers_table
    from bench_kernel.trace import layers_document

    doc = layers_document(trace, anchor=anchor, step=step, rank=rank, steps=steps_file)
    emit(output, data=doc, tables=layers_table(doc, Path(doc.trace).name, step=step, load_notes=doc.load_notes))
