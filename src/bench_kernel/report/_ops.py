"""The ``bench-kernel ops`` table: one row per op (or op and shapes), its rates and its roof."""

from __future__ import annotations

from typing import Any

from bench_kernel.report._table import Column, Table

__all__ = ["ops_table"]

#: A row note this long or longer is shown once with the ops it applies to, not once per op.
_SHARED_AT = 2


def ops_table(report: Any, top: int | None = None) -> Table:
    """The rows of a ``bench_kernel.trace.OpsReport`` (the ``top`` longest), their notes grouped."""
    rows = list(report.rows[:top] if top else report.rows)
    cols = [Column("op", "Op")]
    if report.by == "shape":
        cols.append(Column("shapes", "Shapes"))
    cols += [Column("dtype", "dtype"), Column("calls", "Calls", "int"), Column("kernels", "Kernels", "int"),
             Column("kernel_us", "Time", "duration_us"), Column("flops", "FLOPs", "float"),
             Column("bytes", "Bytes", "bytes"), Column("achieved_tflops", "TFLOP/s", "tflops"),
             Column("achieved_tbps", "TB/s", "tbps"), Column("intensity", "FLOP/B", "float")]
    if report.device:
        cols += [Column("pct_of_roof", "% roof", "roof_pct"), Column("bound", "Bound")]
    by_note: dict[str, list[str]] = {}
    for r in rows:
        label = r.op if report.by == "op" else f"{r.op} [{r.shapes}]"
        for n in r.notes:
            by_note.setdefault(n, []).append(label)
    notes = list(report.notes)
    for n, ops in by_note.items():
        if len(ops) >= _SHARED_AT:
            notes.append(f"{n} ({len(ops)} ops: {', '.join(ops[:4])}{' ...' if len(ops) > 4 else ''})")
        else:
            notes.append(f"{ops[0]}: {n}")
    if len(rows) < len(report.rows):
        rest = report.rows[len(rows):]
        notes.append(f"{len(rows)} of {len(report.rows)} rows shown; the rest: {sum(r.kernel_us for r in rest):.1f} us")
    device = f" on {report.device}" if report.device else ""
    title = (f"{report.trace.rsplit('/', 1)[-1]}: {len(report.rows)} {'ops' if report.by == 'op' else 'op shapes'}, "
             f"{report.total_kernel_us:.1f} us of kernels{device}, {report.counted_share:.1%} of it counted")
    return Table(cols, [r.to_dict() for r in rows], title=title, notes=notes, sheet="ops")
