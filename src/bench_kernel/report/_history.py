"""``bench-kernel history``: the stored runs, and one case's figure over time (table and plot)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.atomic import replacing
from bench_kernel.errors import MissingExtraError, UsageError
from bench_kernel.plotfile import plot_path
from bench_kernel.report._table import Column, Table

if TYPE_CHECKING:  # read only; importing them would load numpy for every command
    from bench_kernel.records import PointResult, RunInfo

__all__ = ["runs_table", "history_table", "plot_history"]



def _commit(run: RunInfo) -> str | None:
    if not run.git_commit:
        # No spec file (the built-in suite, a module target): the commit of the working directory.
        return run.env.get("git_commit")
    return run.git_commit[:10] + ("+dirty" if run.git_dirty else "")


def runs_table(runs: Sequence[RunInfo], db: str) -> Table:
    """One row per stored run, newest first."""
    cols = [Column("id", "run", "int"), Column("created_at", "started (UTC)"), Column("kind", "kind"),
            Column("name", "name"), Column("status", "status"), Column("points", "points"),
            Column("device", "device"), Column("commit", "commit"), Column("wall_s", "wall s", "float")]
    rows = []
    for r in runs:
        total = f"/{r.total_points}" if r.total_points is not None else ""
        # A run still "running" whose points are incomplete was most likely killed: --resume finishes it.
        status: str = r.status
        if status == "running" and r.total_points is not None and r.n_points < r.total_points:
            status = "running or killed"
        rows.append({"id": r.id, "created_at": r.created_at.replace("T", " ").rstrip("Z"), "kind": r.kind,
                     "name": r.name, "status": status, "points": f"{r.n_points}{total}", "device": r.device,
                     "commit": _commit(r), "wall_s": r.wall_s})
    return Table(cols, rows, title=f"stored runs in {db}", sheet="runs")


def history_table(pairs: Sequence[tuple[RunInfo, PointResult]], pattern: str) -> Table:
    """One row per stored point matching ``pattern``, oldest first."""
    cols = [Column("run", "run", "int"), Column("date", "date (UTC)"), Column("commit", "commit"),
            Column("provider", "case / provider"), Column("params", "params"), Column("method", "method"),
            Column("median_us", "median", "duration_us"), Column("status", "status"), Column("device", "device")]
    from bench_kernel.records import params_text

    rows: list[dict[str, Any]] = []
    for run, p in pairs:
        rows.append({"run": run.id, "date": run.created_at[:16].replace("T", " "), "commit": _commit(run),
                     "provider": p.provider, "params": params_text(p.params),
                     "method": p.result.primary_method, "median_us": p.median_us, "status": p.status,
                     "device": run.device})
    notes = [] if rows else [f"no stored point of a case or provider matching {pattern!r}; "
                             f"'bench-kernel history' lists the runs"]
    return Table(cols, rows, title=f"history of {pattern!r}", notes=notes, sheet="points")


def plot_history(pairs: Sequence[tuple[RunInfo, PointResult]], pattern: str, path: str | Path) -> Path:
    """Median time per run, one line per (case, params), runs in order on the x axis."""
    out = Path(path)
    plot_path(out, "--plot")
    lines: dict[str, list[tuple[int, float]]] = {}
    for run, p in pairs:
        if p.median_us is not None and run.id is not None:  # a stored run always has its id
            lines.setdefault(p.label, []).append((run.id, p.median_us))
    if not lines:
        raise UsageError(f"nothing to plot: no measured point matches {pattern!r}")
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError("plotting needs matplotlib: pip install 'bench-kernel[plot]'") from None
    dates = {run.id: run.created_at[:10] for run, _ in pairs}
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot()
    for i, (label, pts) in enumerate(sorted(lines.items())):
        (line,) = ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=label)
        line.set_gid(f"case-{i}")
    ticks = sorted({x for pts in lines.values() for x, _ in pts})
    ax.set_xticks(ticks, [f"{t}\n{dates[t]}" for t in ticks], fontsize=8)
    ax.set_xlabel("run")
    ax.set_ylabel("time per call (us, median)")
    ax.set_title(f"history of {pattern!r}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out, out.suffix) as tmp:  # a failed write keeps the old plot
        fig.savefig(tmp, dpi=120)
    return out
