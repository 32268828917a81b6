"""``bench-kernel ops TRACE``: per-op FLOPs, bytes, TFLOP/s, TB/s and bound from recorded shapes."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import rank_option, trace_argument
from bench_kernel.records import OPS_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.OpsOutput``).
SCHEMA_VERSION = OPS_SCHEMA_VERSION



@click.command("ops")
@trace_argument()
@click.option("--device", "device_name", default=None,
              help="Peak-table device for the roofs when the trace names none (see 'bench-kernel devices').")
@click.option("--by", type=click.Choice(["op", "shape"]), default="op", show_default=True,
              help="One row per op, or per op with one set of shapes and dtypes.")
@click.option("--capture", type=click.Path(path_type=Path), default=None, metavar="TRACE",
              help="The capture trace of a CUDA/HIP-graph trace: replayed kernels take its ops' shapes "
                   "(a trace holding its own captures needs none).")
@click.option("--context-len", type=click.IntRange(min=1), default=None, metavar="N",
              help="Keys each query token of a paged attention sees, where the trace records no step lengths "
                   "(exact for decode, an upper bound for prefill).")
@click.option("--moe-intermediate", type=click.IntRange(min=1), default=None, metavar="N",
              help="A fused MoE's intermediate size per rank (not among its recorded arguments; else the hidden "
                   "size split over the ranks, an estimate).")
@click.option("--top", type=click.IntRange(min=1), default=None, help="Show only the N longest rows.")
@rank_option
@output_options()
def command(trace: Path, device_name: str | None, by: str, capture: Path | None, context_len: int | None,
            moe_intermediate: int | None, top: int | None, rank: int | None, output: Output) -> None:
    """How fast each op of a Kineto trace ran against the device's roof (needs record_shapes=True)."""
    from bench_kernel.report import ops_tables
    from bench_kernel.trace import ops_document

    doc = ops_document(trace, device=device_name, by=by, capture=capture, context_len=context_len,
                       moe_intermediate=moe_intermediate, top=top, rank=rank)
    emit(output, data=doc, tables=ops_tables(doc))
