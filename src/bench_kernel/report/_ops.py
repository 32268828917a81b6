"""The ``bench-kernel ops`` tables: one row per op (or op and shapes) with its rates and its roof;
the collectives with their bus bandwidth; the time not counted, by reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kernel.report._table import Column, Table
from bench_kernel.units import format_duration_us as _us

if TYPE_CHECKING:  # read only
    from bench_kernel.records import OpsReport, OpsRow

__all__ = ["ops_table", "ops_tables"]

#: A row note this long or longer is shown once with the ops it applies to, not once per op.
_SHARED_AT = 2


def ops_table(report: OpsReport) -> Table:
    """The rows of a ``bench_kernel.records.OpsReport``, their notes grouped, then its load notes."""
    rows = list(report.rows)
    cols = [Column("op", "Op")]
    if report.by == "shape":
        cols.append(Column("shapes", "Shapes"))
    host = report.time_base == "host"
    cols += [Column("dtype", "dtype"), Column("calls", "Calls", "int")]
    if not host:
        cols.append(Column("kernels", "Kernels", "int"))
    cols += [
             Column("kernel_us", "Host time" if host else "Time", "duration_us"), Column("flops", "FLOPs", "float"),
             Column("bytes", "Bytes", "bytes"), Column("achieved_tflops", "TFLOP/s", "tflops"),
             Column("achieved_tbps", "TB/s", "tbps"), Column("intensity", "FLOP/B", "float"),
             Column("basis", "Basis")]
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
    if report.rest_rows:
        notes.append(f"{len(rows)} of {len(rows) + report.rest_rows} rows shown; the rest: {_us(report.rest_us)}")
    device = f" on {report.device}" if report.device else ""
    what = "host time of CPU ops" if host else "of kernels"
    title = (f"{report.trace.rsplit('/', 1)[-1]}: {len(rows) + report.rest_rows} "
             f"{'ops' if report.by == 'op' else 'op shapes'}, "
             f"{_us(report.total_kernel_us)} {what}{device}, {report.counted_share:.1%} of it counted")
    if any(r.estimate for r in rows):
        notes.append("Basis ~: the count rests on an estimate the row's notes name")
    notes += report.load_notes
    return Table(cols, [r.to_dict() | {"basis": _basis(r)} for r in rows], title=title, notes=notes, sheet="ops")


def _basis(row: OpsRow) -> str:
    """Where a row's shapes came from, and ``~`` when its count is an estimate."""
    words = {"op": "shapes", "capture": "capture", "sequence": "later step"}
    text = "+".join(words.get(o, o) for o in row.origin.split("+"))
    return text + (" ~" if row.estimate else "")


def ops_tables(report: OpsReport) -> list[Table]:
    """The op table, then the collectives among its rows (when any) and the time not counted (when any)."""
    out = [ops_table(report)]
    colls = [r for r in report.rows if r.collective is not None]
    if colls:
        out.append(Table([Column("op", "Collective"), Column("calls", "Calls", "int"),
                          Column("kernel_us", "Time", "duration_us"), Column("bytes", "Message bytes", "bytes"),
                          Column("algbw_gbps", "algbw GB/s", "float"), Column("busbw_gbps", "busbw GB/s", "float")],
                         [r.to_dict() for r in colls], title="collectives (nccl-tests' algbw and busbw)",
                         notes=["the time is each kernel's on this rank, waiting for late peers included"],
                         sheet="collectives"))
    if report.uncounted:
        total = report.total_kernel_us or 1.0
        out.append(Table([Column("reason", "Not counted: why"), Column("us", "Time", "duration_us"),
                          Column("share", "Share", "pct"), Column("ops", "Ops")],
                         [{"reason": u.reason, "us": u.us, "share": 100 * u.us / total,
                           "ops": ", ".join(u.ops[:6]) + (" ..." if len(u.ops) > 6 else "")}
                          for u in report.uncounted],
                         title=f"{100 - 100 * report.counted_share:.1f}% not counted", sheet="not counted"))
    return out
