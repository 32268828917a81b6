"""``bench-kernel inventory TRACE``: count and time per kernel from a trace (Kineto, Nsight Systems, rocprofv3)."""

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
    from bench_kernel.trace import inventory, load_trace

    # Without --per-step only device events are needed: the fast load (no launches, ops or stacks).
    t = load_trace(trace, rank, links=per_step)
    inv = inventory(t, by=by, top=top, per_step=per_step, rules=step_rules(steps_file))
    data = {"schema_version": SCHEMA_VERSION, "trace": str(t.path), "rank": t.rank, "device": t.device_name,
            **inv.to_dict(),
            "load_notes": load_notes(t)}
    if output.fmt == "csv":
        tables = [inventory_csv(inv)]
    else:
        tables = inventory_tables(inv, t.path.name, load_notes=load_notes(t))
    emit(output, data=data, tables=tables)
