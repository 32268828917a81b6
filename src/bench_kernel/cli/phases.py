"""``bench-kernel phases TRACE``: prefill vs decode steps and their kernel time."""

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


@click.command("phases")
@trace_argument()
@rank_option
@steps_option
@output_options()
def command(trace: Path, rank: int | None, steps_file: Path | None, output: Output) -> None:
    """Split steps into prefill and decode (annotations, else GEMM token counts, else kernel time)."""
    from bench_kernel.report import phases_tables
    from bench_kernel.trace import load_trace, phases

    t = load_trace(trace, rank, shapes=True)
    rep = phases(t, rules=step_rules(steps_file))
    data = {"schema_version": SCHEMA_VERSION, "trace": str(t.path), "rank": t.rank, **rep.to_dict(),
            "load_notes": load_notes(t)}
    emit(output, data=data, tables=phases_tables(rep, t.path.name, load_notes=load_notes(t)))
