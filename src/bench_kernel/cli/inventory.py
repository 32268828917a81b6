"""``bench-kernel inventory TRACE``: count and time per kernel from a trace (Kineto, Nsight Systems, rocprofv3)."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import load_notes, rank_option, step_rules, steps_option, trace_argument
from bench_kernel.report import Column, Table

__all__ = ["command"]

# The seed script's CSV columns first, so existing spreadsheets keep working.
_CSV = [Column("name", "name"), Column("count", "count", "float"), Column("total_us", "total_us", "float"),
        Column("avg_us", "avg_us", "float"), Column("pct", "pct", "float"), Column("short", "short"),
        Column("category", "category")]


def _show(per_step: bool) -> list[Column]:
    return [Column("short", "Kernel"), Column("category", "Category"),
            Column("count", "Count per step" if per_step else "Count", "float" if per_step else "int"),
            Column("total_us", "Total", "duration_us"), Column("avg_us", "Avg", "duration_us"),
            Column("min_us", "Min", "duration_us"), Column("max_us", "Max", "duration_us"), Column("pct", "Share", "pct")]


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
    from bench_kernel.trace import inventory, load_trace

    # Without --per-step only device events are needed: the fast load (no launches, ops or stacks).
    t = load_trace(trace, rank, links=per_step)
    inv = inventory(t, by=by, top=top, per_step=per_step, rules=step_rules(steps_file))
    data = {"trace": str(t.path), "rank": t.rank, "device": t.device_name, **inv.to_dict(),
            "load_notes": load_notes(t)}
    rows = [r.to_dict() for r in inv.rows]
    per = f" per step over {inv.steps} steps" if inv.per_step else ""
    notes = []
    if inv.rest_us:
        notes.append(f"{len(rows)} of the groups shown; the rest: {inv.rest_count:g} kernels, {inv.rest_us:.1f} us")
    if inv.per_step and inv.outside_steps_count:
        notes.append(f"{inv.outside_steps_count} kernels ({inv.outside_steps_us:.1f} us) launched outside every "
                     f"step are left out")
    if inv.memory_ops:
        notes.append("memcpy/memset are not kernels: listed separately, not in the kernel total")
    notes += load_notes(t)
    title = f"{t.path.name}: {inv.kernel_count:g} kernels, {inv.total_kernel_us:.1f} us{per}"
    if output.fmt == "csv":
        tables = [Table(_CSV, rows)]
    else:
        tables = [Table(_show(inv.per_step), rows, title=title, notes=notes)]
        if inv.memory_ops:
            tables.append(Table([Column("name", "Memory operation"), Column("count", "Count", "int"),
                                 Column("total_us", "Total", "duration_us"), Column("bytes", "Bytes", "bytes")],
                                [m.to_dict() for m in inv.memory_ops]))
    emit(output, data=data, tables=tables)
