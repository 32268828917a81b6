"""``bench-kernel timeline TRACE``: is the GPU busy, why not, launches, exposed communication, ranks."""

from __future__ import annotations

from pathlib import Path

import click

from bench_kernel.cli._common import Output, emit, output_options
from bench_kernel.cli._numbers import Number
from bench_kernel.cli._trace_args import load_notes, rank_option, step_rules, steps_option, trace_argument
from bench_kernel.report import Column, Table

__all__ = ["command"]

_D = "duration_us"
_WINDOWS = [Column("label", "Window"), Column("wall_us", "Wall", _D), Column("busy_us", "Busy", _D),
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


@click.command("timeline")
@trace_argument()
@rank_option
@steps_option
@click.option("--max-steps", type=click.IntRange(min=0), default=20, show_default=True,
              help="Steps shown in the table (JSON always has all).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes for a directory of rank files (default: one per CPU).")
@click.option("--shapes", is_flag=True, help="Read op input shapes to size collectives that record no size (slower).")
@click.option("--launch-gap-us", type=Number(min=0), default=100.0, show_default=True,
              help="Queued idle stretches up to this long are launch gaps; longer ones a sync or dependency wait.")
@output_options()
def command(trace: Path, rank: int | None, steps_file: Path | None, max_steps: int, workers: int | None,
            shapes: bool, launch_gap_us: float, output: Output) -> None:
    """Busy/idle and why per step, launch delays, exposed communication; a directory: every rank side by side."""
    from bench_kernel.trace import load_trace, rank_files, timeline, timeline_ranks

    rules = step_rules(steps_file)
    if trace.is_dir() and rank is None and len(rank_files(trace)) > 1:
        _ranks(timeline_ranks(trace, rules=rules, workers=workers, shapes=shapes, launch_gap_max_us=launch_gap_us),
               output)
        return
    t = load_trace(trace, rank, shapes=shapes)
    _single(timeline(t, rules=rules, launch_gap_max_us=launch_gap_us), t.path.name, max_steps, output, load_notes(t))


def _single(rep, name: str, max_steps: int, output: Output,  # rep: TimelineReport
            loaded: list[str] | None = None) -> None:
    o = rep.overall
    windows = [o, *rep.steps[:max_steps]]
    n = len(rep.steps)
    by = f", {n} step{'s' if n != 1 else ''} by rule {rep.step_rule}" if n else ""
    notes = [f"{w.label if w.step is None else f'step {w.step}'}: {w.diagnosis}" for w in windows]
    if len(rep.steps) > max_steps:
        notes.append(f"{len(rep.steps) - max_steps} more steps in --json")
    notes += list(rep.notes) + (loaded or [])
    tables = [Table(_WINDOWS, [w.to_dict() for w in windows], notes=notes,
                    title=f"{name}: GPU busy {o.busy_pct:.1f}% of the device span{by}"),
              Table(_STREAMS, [dict(s.to_dict(), pct=100 * s.busy_us / o.wall_us if o.wall_us else 0.0)
                               for s in o.streams], title="Streams (whole trace)")]
    L = o.launches
    rows = [("kernel launches", f"{L.kernel_launches:,}"),
            ("graph launches (kernels)", f"{L.graph_launches:,} ({L.graph_kernels:,})"),
            ("CPU per launch, median", _us(L.cpu_us_median)),
            ("launch delay p50 / p90 / p99 / max", " / ".join(_us(x) for x in (L.delay_us_p50, L.delay_us_p90,
                                                                            L.delay_us_p99, L.delay_us_max))),
            ("queue depth mean / max", f"{L.queue_depth_mean:.2f} / {L.queue_depth_max}"),
            ("kernels shorter than their launch", f"{L.short_kernels:,} ({_us(L.short_kernels_us)} of device time)")]
    short = [f"most often shorter than their launch: {', '.join(f'{n} ({c})' for n, c in rep.short_kernel_names)}"] \
        if rep.short_kernel_names else []
    tables.append(Table(_LAUNCHES, [{"what": w, "value": v} for w, v in rows], title="Launches (whole trace)",
                        notes=short))
    c = rep.collectives
    if c.calls:
        tables.append(Table(_COLLECTIVES, [g.to_dict() for g in c.groups], notes=list(c.notes),
                            title=f"Collectives: {len(c.calls)} calls, {_us(c.total_us)}"))
    if output.fmt == "csv":
        tables = [tables[0]]  # one table of raw values per window: what a spreadsheet wants
    emit(output, data={**rep.to_dict(), "load_notes": loaded or []}, tables=tables)


def _ranks(rep, output: Output) -> None:  # rep: RanksReport
    rows = [dict(r.to_dict(), busy_pct=100 * r.busy_us / r.wall_us if r.wall_us else 0.0) for r in rep.ranks]
    if rep.straggler is not None:
        title = (f"{Path(rep.directory).name}: {len(rep.ranks)} ranks; straggler rank {rep.straggler} "
                 f"(by {_us(rep.straggler_by_us)}, from {rep.straggler_basis})")
    else:
        title = f"{Path(rep.directory).name}: {len(rep.ranks)} ranks; no straggler"
    notes = [f"rank {r.rank}: {r.diagnosis}" for r in rep.ranks] + list(rep.notes)
    tables = [Table(_RANKS, rows, title=title, notes=notes)]
    if rep.collectives and output.fmt != "csv":
        shown = rep.collectives[:20]
        more = [f"{len(rep.collectives) - len(shown)} more collectives in --json"] if len(rep.collectives) > 20 else []
        tables.append(Table(_SKEWS, [s.to_dict() for s in shown], title="Collective skew (who arrived last)",
                            notes=more))
    emit(output, data=rep.to_dict(), tables=tables)


def _us(x: float | None) -> str:
    from bench_kernel.report import format_value

    return format_value(x, "duration_us")
