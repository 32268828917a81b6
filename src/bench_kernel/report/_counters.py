"""Tables and the report section for counted work (``run --counters``): the model against the counts per
case, the per-kernel counts, and the hierarchical roofline plot.

Built from (label, ``CounterReport``, ``MeasuredRoofline``) triples, so a live run (typed results) and a
stored one (their JSON) render through the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from bench_kernel.report._table import Column, Table

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.records import BenchResult, CounterReport, JoinedKernel, MeasuredRoofline, PointResult
    from bench_kernel.report._html import Markup

    #: (label, what the counters measured, the counted work placed on the roofline, None when not placed)
    Counted = tuple[str, CounterReport, MeasuredRoofline | None]

__all__ = ["counters_table", "counter_kernels_table", "counted", "counters_section"]

#: Said under every counters table: where each number comes from.
SOURCE_NOTE = ("counts (bytes, FLOPs, %, registers) from the hardware counters of one call, caches flushed before "
               "each kernel; times from bench-kernel's methods, never from the counter tool's replays")


def counted(results: Iterable[BenchResult]) -> list[Counted]:
    """(label, CounterReport, MeasuredRoofline or None) for each ``BenchResult`` that asked for counters."""
    return [(r.name, r.counters, r.measured_roofline) for r in results if r.counters is not None]


def _giga(v: float | None) -> float | None:
    return None if v is None else v / 1e9


def counters_table(triples: Sequence[Counted]) -> Table:
    """Per case: modelled against counted DRAM bytes and FLOPs, L2/L1 bytes, speed of light, occupancy."""
    cols = [Column("case", "case"), Column("model_bytes", "bytes (model)", "bytes"),
            Column("dram_bytes", "DRAM (counted)", "bytes"), Column("bytes_ratio", "counted/model", "ratio"),
            Column("l2_bytes", "L2", "bytes"), Column("l1_bytes", "L1", "bytes"),
            Column("model_gflop", "GFLOP (model)", "float"), Column("gflop", "GFLOP (counted)", "float"),
            Column("flops_ratio", "counted/model", "ratio"), Column("tensor_pct", "tensor", "pct"),
            Column("memory_sol_pct", "mem SOL", "pct"), Column("compute_sol_pct", "SM SOL", "pct"),
            Column("bound", "bound"), Column("wall_s", "collect s", "float")]
    rows: list[dict[str, Any]] = []  # Any: table cells
    notes = [SOURCE_NOTE]
    for label, report, placed in triples:
        total = report.total
        if report.error or total is None:  # no total: no kernel was counted (the collectors say why in error)
            rows.append({"case": label, "bound": "not counted"})
            notes.append(f"{label}: {report.error or 'no kernel was counted'}")
            continue
        checks = {c.quantity: c for c in placed.checks} if placed is not None else {}
        nbytes, nflops = checks.get("bytes"), checks.get("flops")
        flops = total.flops
        rows.append({
            "case": label, "model_bytes": nbytes.modelled if nbytes else None, "dram_bytes": total.dram_bytes,
            "bytes_ratio": nbytes.ratio if nbytes else None, "l2_bytes": total.l2_bytes,
            "l1_bytes": total.l1_bytes, "model_gflop": _giga(nflops.modelled if nflops else None),
            "gflop": _giga(flops), "flops_ratio": nflops.ratio if nflops else None,
            "tensor_pct": 100.0 * sum(total.tensor_flops.values()) / flops if flops else None,
            "memory_sol_pct": total.memory_sol_pct, "compute_sol_pct": total.compute_sol_pct,
            "bound": placed.bound if placed is not None else None, "wall_s": report.wall_s})
        notes += [f"{label}: {c.note}" for c in checks.values() if c.note]
        tool = f"{report.tool} {report.tool_version or ''}".strip()
        notes.append(f"{label}: {len(report.kernels)} launch(es) counted by {tool}" +
                     (f" on {report.chip}" if report.chip else "") + "".join(f"; {n}" for n in report.notes))
    return Table(cols, rows, title="Hardware counters: the model against the counts", notes=notes)


def counter_kernels_table(triples: Sequence[Counted]) -> Table:
    """Per kernel of each counted case: counts joined to the timed breakdown."""
    cols = [Column("case", "case"), Column("kernel", "kernel", detail="name"), Column("per_call", "per call", "float"),
            Column("dram_bytes", "DRAM", "bytes"), Column("l2_bytes", "L2", "bytes"),
            Column("l1_bytes", "L1", "bytes"), Column("gflop", "GFLOP", "float"),
            Column("memory_sol_pct", "mem SOL", "pct"), Column("compute_sol_pct", "SM SOL", "pct"),
            Column("occupancy_pct", "occupancy", "pct"), Column("registers", "regs", "int"),
            Column("l2_hit_pct", "L2 hit", "pct"), Column("matched_by", "joined by")]
    rows = []
    for label, report, _ in triples:
        if not report.ok:
            continue
        joined = report.joined or tuple(_unjoined(report))
        for j in joined:
            c = j.counters
            rows.append({"case": label, "kernel": _short(j.name), "name": j.name, "per_call": j.launches_per_call,
                         "matched_by": j.matched_by if report.joined else None,
                         **({} if c is None else {
                             "dram_bytes": c.dram_bytes, "l2_bytes": c.l2_bytes, "l1_bytes": c.l1_bytes,
                             "gflop": _giga(c.flops), "memory_sol_pct": c.memory_sol_pct,
                             "compute_sol_pct": c.compute_sol_pct, "occupancy_pct": c.achieved_occupancy_pct,
                             "registers": c.registers_per_thread, "l2_hit_pct": c.l2_hit_rate_pct})})
    return Table(cols, rows, title="Hardware counters per kernel", notes=[SOURCE_NOTE])


def _unjoined(report: CounterReport) -> Iterator[JoinedKernel]:
    from bench_kernel.records import JoinedKernel

    for k in report.kernels:
        yield JoinedKernel(k.name, None, k, "none")


def _short(name: str) -> str:
    from bench_kernel.kernels import decode

    return decode(name).short


def counters_section(points: Sequence[PointResult]) -> Markup | None:
    """The HTML report's section for stored points (``bench_kernel.results.PointResult``) whose results
    hold counts: both tables and the hierarchical roofline; None when no point has counters."""
    from bench_kernel.report._html import el, join
    from bench_kernel.report._html_table import html_table
    from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib
    from bench_kernel.roofline import build_measured_figure

    triples: list[Counted] = []
    for p in points:
        r = p.result
        if r.counters is not None:
            triples.append((r.name or "?", r.counters, r.measured_roofline))
    if not triples:
        return None
    parts = [html_table(counters_table(triples)), html_table(counter_kernels_table(triples))]
    placed = {label: m for label, _, m in triples if m is not None and m.flops > 0}
    if placed and have_matplotlib():
        parts.append(el("figure", {"class": "plot", "data-plot": "hierarchical-roofline"},
                        figure_svg(build_measured_figure(placed), "hroof", "Hierarchical roofline of counted work"),
                        el("figcaption", None, "Counted FLOPs over the bytes of each memory level (DRAM, L2, L1), "
                                               "timed by bench-kernel; hollow diamonds are the model's points.")))
    elif placed:
        parts.append(el("p", {"class": "muted"}, NO_MATPLOTLIB))
    return join(parts)
