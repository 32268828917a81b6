"""``bench-kernel diff TRACE_A TRACE_B``: per-category and per-kernel time and count deltas."""

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
from bench_kernel.report import Column, Table

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): raise it when a field changes its
#: name, type or meaning; a new field documented there does not need it.
SCHEMA_VERSION = 1


def _columns(first: str, per_step: bool) -> list[Column]:
    count = "float" if per_step else "int"
    return [Column("key", first), Column("status", "Status"), Column("count_a", "Count A", count),
            Column("count_b", "Count B", count), Column("total_us_a", "Time A", "duration_us"),
            Column("total_us_b", "Time B", "duration_us"), Column("delta_us", "Delta", "duration_us"),
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
    from bench_kernel.trace import diff, load_trace

    a, b = load_trace(trace_a, rank), load_trace(trace_b, rank)
    d = diff(a, b, rules=step_rules(steps_file))
    data = {"schema_version": SCHEMA_VERSION, "trace_a": str(a.path), "trace_b": str(b.path), **d.to_dict(), "load_notes": load_notes(a, b)}
    unit = " per step" if d.per_step else ""
    title = f"{a.path.name} -> {b.path.name}: {d.total_us_a:.1f} -> {d.total_us_b:.1f} us{unit} ({d.delta_us:+.1f} us)"
    moved = [r for r in d.kernels if r.status != "unchanged"]
    notes = [f"{len(moved) - top} more changed kernels in --json"] if len(moved) > top else []
    if len(moved) < len(d.kernels):
        notes.append(f"{len(d.kernels) - len(moved)} kernels unchanged (same count and time; listed in --json)")
    tables = [Table(_columns("Category", d.per_step), [r.to_dict() for r in d.categories], title=title,
                    notes=list(d.notes) + load_notes(a, b)),
              Table(_columns("Kernel", d.per_step), [r.to_dict() for r in moved[:top]], notes=notes)]
    emit(output, data=data, tables=tables)
