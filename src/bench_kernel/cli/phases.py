"""``bench-kernel phases TRACE``: prefill vs decode steps and their kernel time."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._trace_args import load_notes, rank_option, step_rules, steps_option, trace_argument
from bench_kernel.report import Column, Table

__all__ = ["command"]


@click.command("phases")
@trace_argument()
@rank_option
@steps_option
@output_options()
def command(trace: Path, rank: int | None, steps_file: Path | None, output: Output) -> None:
    """Split steps into prefill and decode (annotations, else GEMM token counts, else kernel time)."""
    from bench_kernel.trace import load_trace, phases

    t = load_trace(trace, rank, shapes=True)
    rep = phases(t, rules=step_rules(steps_file))
    data = {"trace": str(t.path), "rank": t.rank, **rep.to_dict(), "load_notes": load_notes(t)}
    total = rep.total_kernel_us or 1.0
    rows = [{"phase": p, "steps": s.steps, "kernel_count": s.kernel_count, "kernel_us": s.kernel_us,
             "pct": 100.0 * s.kernel_us / total} for p, s in rep.phases.items() if s.steps or s.kernel_count]
    rows.append({"phase": "outside steps", "steps": None, "kernel_count": rep.outside_steps_count,
                 "kernel_us": rep.outside_steps_us, "pct": 100.0 * rep.outside_steps_us / total})
    summary = Table([Column("phase", "Phase"), Column("steps", "Steps", "int"),
                     Column("kernel_count", "Kernels", "int"), Column("kernel_us", "Kernel time", "duration_us"),
                     Column("pct", "Share", "pct")], rows,
                    title=f"{t.path.name}: phases by {rep.method}", notes=list(rep.notes) + load_notes(t))
    cats = [{"phase": p, "category": c, "us": us} for p, s in rep.phases.items() for c, us in s.categories.items()]
    top = [{"phase": p, "short": k["short"], "count": k["count"], "total_us": k["total_us"]}
           for p, s in rep.phases.items() for k in s.top_kernels]
    tables = [summary,
              Table([Column("phase", "Phase"), Column("category", "Category"), Column("us", "Time", "duration_us")],
                    cats, title="By category"),
              Table([Column("phase", "Phase"), Column("short", "Kernel"), Column("count", "Count", "int"),
                     Column("total_us", "Total", "duration_us")], top, title="Top kernels")]
    emit(output, data=data, tables=tables)
