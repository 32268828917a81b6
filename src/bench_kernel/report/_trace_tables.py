"""The tables of the trace commands, built from the trace package's records: ``inventory``,
``phases``, ``layers`` and ``timeline`` print them, and the HTML report's trace section shows the
same tables (one definition, the same headers in both)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from bench_kernel.report._table import Column, Table, format_value

if TYPE_CHECKING:  # read only
    from bench_kernel.records import Inventory, LayerReport, PhaseReport, RanksReport, TimelineReport

__all__ = ["inventory_tables", "inventory_csv", "phases_tables", "layers_table", "timeline_tables", "ranks_tables",
           "categories_table"]

_D = "duration_us"
# The seed script's CSV columns first, so existing spreadsheets keep working.
_INVENTORY_CSV = [Column("name", "name"), Column("count", "count", "float"), Column("total_us", "total_us", "float"),
                  Column("avg_us", "avg_us", "float"), Column("pct", "pct", "float"), Column("short", "short"),
                  Column("category", "category")]


def _us(x: float | None) -> str:
    return format_value(x, _D)


def _inventory_columns(per_step: bool) -> list[Column]:
    return [Column("short", "Kernel", detail="name"), Column("category", "Category"),
            Column("count", "Count per step" if per_step else "Count", "float" if per_step else "int"),
            Column("total_us", "Total", _D), Column("avg_us", "Avg", _D), Column("min_us", "Min", _D),
            Column("max_us", "Max", _D), Column("pct", "Share", "pct")]


def inventory_tables(inv: Inventory, name: str, *, load_notes: Sequence[str] = ()) -> list[Table]:
    """The per-kernel table of an ``Inventory`` (then its memcpy/memset, when any): the rows shown,
    what the rest add up to, what was left out."""
    rows = [r.to_dict() for r in inv.kernels]
    per = f" per step over {inv.steps} steps" if inv.per_step else ""
    notes = []
    if inv.rest.total_us:
        notes.append(f"{len(rows)} of the groups shown; the rest: {inv.rest.count:g} kernels, {_us(inv.rest.total_us)}")
    if inv.per_step and inv.outside_steps.count:
        notes.append(f"{inv.outside_steps.count:g} kernels ({_us(inv.outside_steps.total_us)}) launched outside every "
                     f"step are left out")
    if inv.memory_ops:
        notes.append("memcpy/memset are not kernels: listed separately, not in the kernel total")
    notes += list(load_notes)
    title = f"{name}: {inv.kernel_count:g} kernels, {_us(inv.total_kernel_us)}{per}"
    tables = [Table(_inventory_columns(inv.per_step), rows, title=title, notes=notes, sheet="kernels")]
    if inv.memory_ops:
        tables.append(Table([Column("name", "Memory operation"), Column("count", "Count", "int"),
                             Column("total_us", "Total", _D), Column("bytes", "Bytes", "bytes")],
                            [m.to_dict() for m in inv.memory_ops], title="Memory operations", sheet="memory ops"))
    return tables


def inventory_csv(inv: Inventory) -> Table:
    """The inventory with the seed script's CSV columns (what existing spreadsheets read)."""
    return Table(_INVENTORY_CSV, [r.to_dict() for r in inv.kernels])


def categories_table(inv: Inventory) -> Table:
    """An inventory grouped ``by="category"``: time per kernel category."""
    cols = [Column("name", "Category"), Column("count", "Count", "int"), Column("total_us", "Total", _D),
            Column("pct", "Share", "pct")]
    return Table(cols, [r.to_dict() for r in inv.kernels], title="By category", sheet="categories")


def phases_tables(rep: PhaseReport, name: str, *, load_notes: Sequence[str] = ()) -> list[Table]:
    """A ``PhaseReport``: per phase its steps, kernels and time; then time by category and the
    top kernels per phase."""
    total = rep.total_kernel_us or 1.0
    rows: list[dict[str, object]]  # cells of several kinds: a phase's name, counts, times
    rows = [{"phase": p, "steps": s.steps, "kernel_count": s.kernel_count, "kernel_us": s.kernel_us,
             "pct": 100.0 * s.kernel_us / total} for p, s in rep.phases.items() if s.steps or s.kernel_count]
    rows.append({"phase": "outside steps", "steps": None, "kernel_count": rep.outside_steps.count,
                 "kernel_us": rep.outside_steps.kernel_us, "pct": 100.0 * rep.outside_steps.kernel_us / total})
    summary = Table([Column("phase", "Phase"), Column("steps", "Steps", "int"),
                     Column("kernel_count", "Kernels", "int"), Column("kernel_us", "Kernel time", _D),
                     Column("pct", "Share", "pct")], rows,
                    title=f"{name}: phases by {rep.method}", notes=list(rep.notes) + list(load_notes), sheet="phases")
    cats = [{"phase": p, "category": c, "us": us} for p, s in rep.phases.items() for c, us in s.categories.items()]
    top = [{"phase": p, "short": k.short, "count": k.count, "total_us": k.total_us}
           for p, s in rep.phases.items() for k in s.top_kernels]
    return [summary,
            Table([Column("phase", "Phase"), Column("category", "Category"), Column("us", "Time", _D)],
                  cats, title="Phases by category", sheet="phase categories"),
            Table([Column("phase", "Phase"), Column("short", "Kernel"), Column("count", "Count", "int"),
                   Column("total_us", "Total", _D)], top, title="Top kernels per phase", sheet="phase top kernels")]


_LAYER_COLUMNS = [Column("pos", "#", "int"), Column("short", "Kernel", detail="name"), Column("category", "Category"),
                  Column("min_us", "Min", _D), Column("median_us", "Median", _D), Column("mean_us", "Mean", _D),
                  Column("max_us", "Max", _D)]


def layers_table(rep: LayerReport, name: str, *, step: str | None = None, load_notes: Sequence[str] = ()) -> Table:
    """A ``LayerReport``: the repeating per-layer kernel sequence with per-position statistics."""
    where = f" of {step} steps" if step else ""
    title = (f"{name}{where}: period {rep.period} kernels x {rep.layer_count} layers "
             f"(anchor {rep.anchor}, {rep.anchor_offset} before it); layer {_us(rep.layer_total_us)}, "
             f"all layers {_us(rep.total_us)}")
    notes = [f"left out {x.count}: {x.reason}" for x in rep.left_out] + list(load_notes)
    if rep.anchor_per_unit > 1:
        notes.insert(0, f"the anchor runs {rep.anchor_per_unit} times per unit: the period spans {rep.anchor_per_unit} "
                        f"of its runs")
    return Table(_LAYER_COLUMNS, [p.to_dict() for p in rep.positions], title=title, notes=notes, sheet="layers")


_WINDOWS = [Column("step", "Step", "int"), Column("label", "Window"), Column("wall_us", "Wall", _D), Column("busy_us", "Busy", _D),
            Column("busy_pct", "Busy %", "pct"), Column("host_bound_us", "Host-bound", _D),
            Column("sync_wait_us", "Sync wait", _D), Column("launch_gap_us", "Launch gaps", _D),
            Column("dependency_wait_us", "Dependency", _D), Column("compute_us", "Compute", _D),
            Column("comm_us", "Comm", _D), Column("exposed_comm_us", "Exposed comm", _D),
            Column("comm_overlap_pct", "Comm overlap", "pct"), Column("memcpy_us", "Memcpy", _D)]
_STREAMS = [Column("device", "Device", "int"), Column("stream", "Stream", "int"), Column("busy_us", "Busy", _D),
            Column("pct", "Of wall", "pct"), Column("kernels", "Kernels", "int"),
            Column("memory_ops", "Memcpy/memset", "int")]
_LAUNCHES = [Column("what", "Launches"), Column("value", "Value")]
_COLLECTIVES = [Column("collective", "Collective"), Column("dtype", "Dtype"), Column("msg_bytes", "Message", "bytes"),
                Column("group_size", "Ranks", "int"), Column("count", "Calls", "int"),
                Column("total_us", "Total", _D), Column("mean_us", "Mean", _D),
                Column("algbw_gbps", "algbw GB/s", "float"), Column("busbw_gbps", "busbw GB/s", "float")]
_RANKS = [Column("rank", "Rank", "int"), Column("wall_us", "Wall", _D), Column("busy_pct", "Busy %", "pct"),
          Column("idle_us", "Idle", _D), Column("comm_us", "Comm", _D), Column("exposed_comm_us", "Exposed comm", _D),
          Column("steps", "Steps", "int"), Column("step_median_us", "Step (median)", _D),
          Column("waited_us", "Waited for peers", _D), Column("last_arrivals", "Arrived last", "int")]
_SKEWS = [Column("process_group", "Group"), Column("seq", "#", "int"), Column("collective", "Collective"),
          Column("msg_bytes", "Message", "bytes"), Column("first_rank", "First", "int"),
          Column("last_rank", "Last", "int"), Column("skew_us", "Skew", _D), Column("transfer_us", "Transfer", _D)]


def timeline_headline(rep: TimelineReport, name: str) -> str:
    """``name: GPU busy 1.6% of the device span, 12 steps by rule model_module``: the main finding."""
    n = len(rep.steps)
    by = f", {n} step{'s' if n != 1 else ''} by rule {rep.step_rule}" if n else ""
    return f"{name}: GPU busy {rep.overall.busy_pct:.1f}% of the device span{by}"


def timeline_tables(rep: TimelineReport, name: str, *, max_steps: int = 20, load_notes: Sequence[str] = ()) -> list[Table]:
    """A ``TimelineReport``: busy/idle and why per window (the whole trace, then each step) with
    one diagnosis per window; per-stream busy; launch statistics; collectives when any."""
    o = rep.overall
    windows = [o, *rep.steps[:max_steps]]
    notes = [f"{w.label if w.step is None else f'step {w.step}'}: {w.diagnosis}" for w in windows]
    if len(rep.steps) > max_steps:
        notes.append(f"{len(rep.steps) - max_steps} more steps in --json")
    notes += list(rep.notes) + list(load_notes)
    tables = [Table(_WINDOWS, [w.to_dict() for w in windows], notes=notes, title=timeline_headline(rep, name),
                    sheet="timeline"),
              Table(_STREAMS, [dict(s.to_dict(), pct=100 * s.busy_us / o.wall_us if o.wall_us else 0.0)
                               for s in o.streams], title="Streams (whole trace)", sheet="streams")]
    L = o.launches
    rows = [("kernel launches", f"{L.kernel_launches:,}"),
            ("graph launches (kernels)", f"{L.graph_launches:,} ({L.graph_kernels:,})"),
            ("CPU per launch, median", _us(L.cpu_us_median)),
            ("launch delay p50 / p90 / p99 / max", " / ".join(_us(x) for x in (L.delay_us_p50, L.delay_us_p90,
                                                                            L.delay_us_p99, L.delay_us_max))),
            ("queue depth mean / max", f"{L.queue_depth_mean:.2f} / {L.queue_depth_max}"),
            ("kernels shorter than their launch", f"{L.short_kernels:,} ({_us(L.short_kernels_us)} of device time)")]
    short = [f"most often shorter than their launch: {', '.join(f'{k.short} ({k.count})' for k in rep.short_kernel_names)}"] \
        if rep.short_kernel_names else []
    tables.append(Table(_LAUNCHES, [{"what": w, "value": v} for w, v in rows], title="Launches (whole trace)",
                        notes=short, sheet="launches"))
    c = rep.collectives
    if c.calls:
        tables.append(Table(_COLLECTIVES, [g.to_dict() for g in c.groups], notes=list(c.notes),
                            title=f"Collectives: {len(c.calls)} calls, {_us(c.total_us)}", sheet="collectives"))
    return tables


def ranks_tables(rep: RanksReport) -> list[Table]:
    """A ``RanksReport``: one row per rank (busy, idle, waiting for peers), the straggler, and
    the skew of the first 20 collectives."""
    rows = [dict(r.to_dict(), busy_pct=100 * r.busy_us / r.wall_us if r.wall_us else 0.0) for r in rep.ranks]
    if rep.straggler is not None:
        title = (f"{Path(rep.directory).name}: {len(rep.ranks)} ranks; straggler rank {rep.straggler} "
                 f"(by {_us(rep.straggler_by_us)}, from {rep.straggler_basis})")
    else:
        title = f"{Path(rep.directory).name}: {len(rep.ranks)} ranks; no straggler"
    notes = [f"rank {r.rank}: {r.diagnosis}" for r in rep.ranks] + list(rep.notes)
    tables = [Table(_RANKS, rows, title=title, notes=notes, sheet="ranks")]
    if rep.collectives:
        shown = rep.collectives[:20]
        more = [f"{len(rep.collectives) - len(shown)} more collectives in --json"] if len(rep.collectives) > 20 else []
        tables.append(Table(_SKEWS, [s.to_dict() for s in shown], title="Collective skew (who arrived last)",
                            notes=more, sheet="collective skew"))
    return tables
