"""The report's sections for a trace: the kernel inventory, time by category, the prefill/decode
split and the per-layer kernel sequence. Input is the trace package's records."""

from __future__ import annotations

from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._inputs import TraceInput
from bench_kernel.report._table import Column, Table, format_value

__all__ = ["trace_section"]


def _inventory(inp: TraceInput) -> Table:
    inv = inp.inventory
    cols = [Column("short", "kernel"), Column("category", "category"), Column("count", "count", "int"),
            Column("total_us", "total", "duration_us"), Column("avg_us", "avg", "duration_us"),
            Column("min_us", "min", "duration_us"), Column("max_us", "max", "duration_us"),
            Column("pct", "share", "pct")]
    notes = []
    if inv.rest_count:
        notes.append(f"the {len(inv.rows)} longest kernels by total time; the other {inv.rest_count:,.0f} "
                     f"executions take {format_value(inv.rest_us, 'duration_us')}")
    if inv.memory_ops:
        notes.append("memcpy/memset are not kernels and are not in the kernel total")
    title = (f"Kernels: {inv.kernel_count:,.0f} executions, {format_value(inv.total_kernel_us, 'duration_us')} "
             f"in total")
    return Table(cols, [r.to_dict() for r in inv.rows], title=title, notes=notes)


def _categories(inp: TraceInput) -> Table:
    cols = [Column("name", "category"), Column("count", "count", "int"), Column("total_us", "total", "duration_us"),
            Column("pct", "share", "pct")]
    return Table(cols, [r.to_dict() for r in inp.categories.rows], title="By category")


def _phases(inp: TraceInput) -> Table:
    rep = inp.phases
    total = rep.total_kernel_us or 1.0
    rows = [{"phase": name, "steps": s.steps, "kernel_count": s.kernel_count, "kernel_us": s.kernel_us,
             "pct": 100.0 * s.kernel_us / total} for name, s in rep.phases.items() if s.steps or s.kernel_count]
    rows.append({"phase": "outside steps", "steps": None, "kernel_count": rep.outside_steps_count,
                 "kernel_us": rep.outside_steps_us, "pct": 100.0 * rep.outside_steps_us / total})
    cols = [Column("phase", "phase"), Column("steps", "steps", "int"), Column("kernel_count", "kernels", "int"),
            Column("kernel_us", "kernel time", "duration_us"), Column("pct", "share", "pct")]
    return Table(cols, rows, title=f"Phases (steps told apart by {rep.method})", notes=list(rep.notes))


def _layers(inp: TraceInput) -> Table:
    rep = inp.layers
    cols = [Column("pos", "#", "int"), Column("short", "kernel"), Column("category", "category"),
            Column("min_us", "min", "duration_us"), Column("median_us", "median", "duration_us"),
            Column("mean_us", "mean", "duration_us"), Column("max_us", "max", "duration_us")]
    title = (f"Per-layer kernel sequence: {rep.period} kernels × {rep.layer_count} layers, "
             f"{format_value(rep.layer_total_us, 'duration_us')} per layer")
    notes = [f"left out {x.count}: {x.reason}" for x in rep.left_out]
    return Table(cols, [p.to_dict() for p in rep.positions], title=title, notes=notes)


def trace_section(inp: TraceInput) -> Markup:
    """Inventory, categories, phases and layers of one trace; a missing analysis says why."""
    parts = [html_table(_inventory(inp), hover={"short": "name"}), html_table(_categories(inp))]
    if inp.phases is not None:
        parts.append(html_table(_phases(inp)))
    if inp.layers is not None:
        parts.append(html_table(_layers(inp), hover={"short": "name"}))
    for name, why in inp.missing.items():
        parts.append(el("p", {"class": "muted"}, f"{name}: not shown: {why}"))
    return join(parts)
