"""``bench-kernel layers TRACE``: the repeating per-layer kernel sequence with per-position times."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
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
    from bench_kernel.trace import layers, load_trace

    # Shapes tell prefill from decode when no annotation does; only --step needs them.
    t = load_trace(trace, rank, shapes=step is not None)
    rep = layers(t, anchor=anchor, step=step, rules=step_rules(steps_file))
    data = {"schema_version": SCHEMA_VERSION, "trace": str(t.path), "rank": t.rank, **rep.to_dict(),
            "load_notes": load_notes(t)}
    emit(output, data=data, tables=layers_table(rep, t.path.name, step=step, load_notes=load_notes(t)))
