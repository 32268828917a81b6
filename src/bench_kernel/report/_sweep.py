"""Tables and the plot of a sweep: the pivot (point x provider), the best provider per point.

Input is what the store holds (``RunInfo`` + ``PointResult``s, or a ``SweepOutput``), so a
stored run renders exactly like the sweep that just ran. Times are the primary method's median
(graph, else kernel, events, host); a point that was not timed shows its status instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.atomic import replacing
from bench_kernel.errors import MissingExtraError, UsageError
from bench_kernel.plotfile import label_log_axes, plot_path
from bench_kernel.report._table import Column, Table
from bench_kernel.units import first_and_more

if TYPE_CHECKING:  # the records are only read here; importing them would load numpy for every command
    from matplotlib.figure import Figure

    from bench_kernel.records import PointResult, RunInfo
    from bench_kernel.results import Best

__all__ = ["sweep_table", "best_table", "plot_sweep", "sweep_figure", "y_range"]

#: What a cell shows for a point that has no time.
_STATUS_CELL = {"unsupported": "unsupported", "mismatch": "WRONG", "error": "error", "running": "running"}


# Any: a point's parameter values are the user's (numbers, dtypes' names, flags), as the spec gave them.
def _axes(run: RunInfo, params: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    axes = run.axes
    if not axes:  # a `run --save` or a results file without a config: the params seen
        for point in params:
            for k, v in point.items():
                axes.setdefault(k, [])
                if v not in axes[k]:
                    axes[k].append(v)
    return axes


# Any: the user's parameter values (see _axes).
def _split_axes(axes: dict[str, list[Any]]) -> tuple[list[str], dict[str, Any]]:
    varying = [k for k, v in axes.items() if len(v) > 1]
    fixed = {k: v[0] for k, v in axes.items() if len(v) == 1}
    return varying, fixed


def _providers(run: RunInfo, points: Sequence[PointResult]) -> list[str]:
    return run.providers or list(dict.fromkeys(p.provider for p in points))


def _throughput(results: list[PointResult]) -> tuple[str, str, str] | None:
    if any(p.result.flops for p in results):
        return "tflops", "TFLOP/s", "achieved_tflops"
    if any(p.result.bytes for p in results):
        return "tbps", "TB/s", "achieved_tbps"
    return None


# Any: the user's parameter values (see _axes).
def _title(what: str, run: RunInfo, fixed: dict[str, Any]) -> str:
    parts = [f"{what} {run.name}"]
    if run.device:
        parts.append(f"on {run.device}")
    if run.id is not None:
        parts.append(f"(run {run.id})")
    if fixed:
        from bench_kernel.records import params_text

        parts.append("| " + params_text(fixed))
    return " ".join(parts)


def _where(p: PointResult, axes: Sequence[str]) -> str:
    from bench_kernel.records import params_text

    return params_text({k: p.params.get(k) for k in axes})


def l2_note(points: Sequence[PointResult]) -> str | None:
    """What the L2 held at the timed points, from each measurement's own ``cache`` (what ran, not
    what was asked: a provider without ``make_inputs`` has one input set, so its graph and host
    times are warm whatever ``--cache`` said); per provider when they differ."""
    by: dict[str, dict[str, int]] = {}
    for p in points:
        if p.status != "ok" or p.result.primary_method is None:
            continue
        cache = p.result.measurements[p.result.primary_method].cache
        by.setdefault(cache, {}).setdefault(p.provider, 0)
        by[cache][p.provider] += 1
    if not by:
        return None
    if len(by) == 1:
        return f"{next(iter(by))} L2"
    parts = []
    for held, providers in sorted(by.items()):
        parts.append(f"{held} L2 for " + ", ".join(f"{name} ({n} point{'s' if n != 1 else ''})"
                                                    for name, n in providers.items()))
    return "; ".join(parts) + " (warm: one input set, the provider returns no make_inputs)"


def clock_note(points: Sequence[PointResult], consequence: str, steady: bool = False) -> str | None:
    """A note when some points ran at an SM clock >10% below the run's highest (``clock_spread``):
    how many, a few of them, and ``consequence`` (what it does to the table); None otherwise.

    ``steady``: the run held each point's load until its clock settled, so a low clock is that
    point's sustained (power-capped) state, reproducible run to run, not an accident of timing.
    """
    from bench_kernel.results import clock_spread

    spread = clock_spread(points)
    if spread is None or not spread.below:
        return None
    shown = first_and_more(spread.below)
    if steady:
        return (f"SM clock: {len(spread.below)} of {spread.clocked} points settled more than {spread.fraction:.0%} "
                f"below this run's highest median clock ({spread.max_mhz:.0f} MHz; lowest {spread.min_mhz:.0f} MHz): "
                f"{shown}; measured with --steady, each is its sustained, power-capped time (reproducible run to "
                f"run), not the burst a single call after an idle moment gets")
    return (f"SM clock: {len(spread.below)} of {spread.clocked} points ran more than {spread.fraction:.0%} below "
            f"this run's highest median clock ({spread.max_mhz:.0f} MHz; lowest {spread.min_mhz:.0f} MHz): "
            f"{shown}; {consequence}; --steady holds each point's load until the clock settles")


def _steady(run: RunInfo) -> bool:
    return bool((run.config.get("options") or {}).get("steady"))


def sweep_table(run: RunInfo, points: Sequence[PointResult], best: Sequence[Best] = ()) -> Table:
    """A row per point, per provider its time, throughput and speedup over the baseline; the
    best provider last. Unmeasured cells say why (``unsupported``, ``WRONG``, ``error``)."""
    from bench_kernel.records import params_key

    axes = _axes(run, [p.params for p in points])
    varying, fixed = _split_axes(axes)
    providers = _providers(run, points)
    baseline = run.baseline if run.baseline in providers else None
    by = {(p.provider, params_key(p.params)): p for p in points}
    cols = [Column(f"axis:{a}", a, "text", justify="right") for a in varying]
    tput = {name: _throughput([p for p in points if p.provider == name]) for name in providers}
    for name in providers:
        cols.append(Column(f"{name}:us", f"{name} time", "duration_us"))
        shown = tput[name]
        if shown:
            hint, unit, _ = shown
            cols.append(Column(f"{name}:{hint}", f"{name} {unit}", hint))
        if baseline and name != baseline:
            cols.append(Column(f"{name}:speedup", f"{name} vs {baseline}", "ratio"))
    cols.append(Column("best", "best"))
    best_at = {params_key(b.params): b for b in best}
    seen: dict[str, dict[str, Any]] = {}
    for point in points:
        seen.setdefault(params_key(point.params), point.params)
    rows: list[dict[str, Any]] = []
    untimed: dict[tuple[str, str, str], list[str]] = {}
    for key, params in seen.items():
        row: dict[str, Any] = {f"axis:{a}": params.get(a) for a in varying}
        base = by.get((baseline, key)) if baseline else None
        for name in providers:
            p = by.get((name, key))
            if p is None:
                row[f"{name}:us"] = "-"
                continue
            if p.status != "ok":
                row[f"{name}:us"] = _STATUS_CELL.get(p.status, p.status)
                untimed.setdefault((name, p.status, p.error or ""), []).append(_where(p, varying))
                continue
            row[f"{name}:us"] = p.median_us
            shown = tput[name]
            if shown:
                hint, _, attr = shown
                row[f"{name}:{hint}"] = getattr(p.result, attr)
            base_us = base.median_us if base is not None else None  # None: the baseline was not timed here
            if base_us is not None and p.median_us is not None and name != baseline:
                row[f"{name}:speedup"] = base_us / p.median_us
        b = best_at.get(key)
        row["best"] = b.provider if b else None
        rows.append(row)
    timed_by = {p.result.primary_method for p in points if p.status == "ok"}
    methods = sorted(m for m in timed_by if m is not None)
    l2 = l2_note(points)
    notes = [f"time: median per call by the {' / '.join(methods) or 'primary'} method"
             + (f", {l2}" if l2 else "")
             + (f"; speedup = {baseline} time / provider time" if baseline and len(providers) > 1 else "")]
    rounds = run.config.get("rounds") or 1
    if rounds > 1:
        fresh = (run.config.get("sharding") or {}).get("round_processes") == "fresh"
        notes.append(f"{rounds} rounds per point, interleaved across the sweep"
                     + (" (each in fresh processes)" if fresh else "") + ": time = median of the round medians")
    sharding = run.config.get("sharding") or {}
    if (sharding.get("workers") or 0) > 1:
        notes.append(f"measured by {sharding['workers']} host workers at once: they share the CPU, so "
                     f"compare times only with runs made the same way")
    elif sharding.get("gpus"):
        notes.append(f"measured on GPUs {', '.join(map(str, sharding['gpus']))}, one worker each (see --json 'worker')")
    for (name, status, error), where in untimed.items():
        at = "every point" if len(where) == len(seen) else ", ".join(w or "the point" for w in where)
        notes.append(f"{name}: {status} at {at}" + (f": {error}" if error else ""))
    clocks = clock_note(points, "a compute-bound kernel's time follows the clock, so their times are not "
                                "comparable with the others'", steady=_steady(run))
    notes += [clocks] if clocks else []
    # A provider never timed has no speedup to show.
    timed = {p.provider for p in points if p.status == "ok"}
    cols = [c for c in cols if not (c.key.endswith(":speedup") and c.key[:-len(":speedup")] not in timed)]
    return Table(cols, rows, title=_title("sweep", run, fixed), notes=notes, sheet="sweep")


#: The runner-up's verdict against the fastest, said of the fastest.
_FASTEST = {"slower": "faster", "faster": "slower"}


def best_table(run: RunInfo, best: Sequence[Best], points: Sequence[PointResult] = ()) -> Table:
    """Per point: the fastest provider, its time, the runner-up and whether the margin is significant;
    with the sweep's ``points``, a note when they ran at very different SM clocks."""
    varying, fixed = _split_axes(_axes(run, [b.params for b in best]))
    cols = [Column(f"axis:{a}", a, "text", justify="right") for a in varying]
    cols += [Column("provider", "fastest"), Column("median_us", "time", "duration_us"),
             Column("runner_up", "runner-up"), Column("runner_up_us", "its time", "duration_us"),
             Column("margin_pct", "margin", "pct"), Column("verdict", "fastest is", "verdict")]
    rows = []
    for b in best:
        row: dict[str, Any] = {f"axis:{a}": b.params.get(a) for a in varying}
        row.update(provider=b.provider, median_us=b.median_us, runner_up=b.runner_up or "-",
                   runner_up_us=b.runner_up_us, margin_pct=None if b.margin is None else 100 * b.margin,
                   verdict=_FASTEST.get(b.verdict or "", b.verdict or "-"))
        rows.append(row)
    notes = ["margin = runner-up time / fastest time - 1; fastest is: the fastest against the runner-up by "
             "'bench-kernel compare''s rule: faster (shown, beyond the threshold), same (shown within it), or "
             "inconclusive (the data cannot tell)"]
    floor = [b for b in best if b.verdict == "inconclusive"]
    if floor:
        notes.append(f"inconclusive at {len(floor)} point(s): more rounds (sweep --rounds K) narrow the CI")
    clocks = clock_note(points, "a provider that ran at a higher clock can look fastest for that alone",
                        steady=_steady(run))
    notes += [clocks] if clocks else []
    return Table(cols, rows, title=_title("fastest per point:", run, fixed), notes=notes, sheet="fastest per point")


# Any: the user's parameter values (see _axes).
def _lines(points: Sequence[PointResult], x_axis: str, providers: list[str],
           varying: list[str]) -> dict[str, list[tuple[Any, float]]]:
    lines: dict[str, list[tuple[Any, float]]] = {}
    for name in providers:
        for p in points:
            if p.provider != name or p.status != "ok" or p.median_us is None or x_axis not in p.params:
                continue
            others = _where(p, [k for k in varying if k != x_axis])
            lines.setdefault(f"{name} {others}".strip(), []).append((p.params[x_axis], p.median_us))
    return lines


def _spans_decades(values: list[float]) -> bool:
    pos = [v for v in values if isinstance(v, (int, float)) and v > 0]
    return len(pos) == len(values) and len(pos) > 1 and max(pos) / min(pos) >= 100


def y_range(points: Sequence[PointResult]) -> tuple[float, float] | None:
    """The smallest and largest timed median of ``points`` (microseconds): the y scale that
    several plots of one sweep share; None when nothing was timed."""
    ys = [p.median_us for p in points if p.status == "ok" and p.median_us]
    return (min(ys), max(ys)) if ys else None


def sweep_figure(run: RunInfo, points: Sequence[PointResult], x_axis: str,
                 y_limits: tuple[float, float] | None = None) -> Figure:
    """One line per provider (and per value of the other varying axes) of time over ``x_axis``;
    log axes where the values span two decades or more; the device and date in the title.
    A matplotlib ``Figure`` (what :func:`plot_sweep` saves and the HTML report inlines).

    y_limits: (lowest, highest) time in microseconds to scale the y axis to, so that plots of
    several runs share a scale (:func:`y_range` over all of them); default: this sweep's own."""
    axes = _axes(run, [p.params for p in points])
    if x_axis not in axes:
        raise UsageError(f"--x {x_axis!r} is not an axis of this sweep; its axes: {', '.join(axes)}")
    lines = _lines(points, x_axis, _providers(run, points), _split_axes(axes)[0])
    if not lines:
        raise UsageError("nothing to plot: no point of this sweep was measured")
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError("plotting needs matplotlib: pip install 'bench-kernel[plot]'") from None
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot()
    xs_all = [x for pts in lines.values() for x, _ in pts]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all)
    order = {v: i for i, v in enumerate(axes[x_axis])}
    for i, (label, pts) in enumerate(lines.items()):
        pts = sorted(pts, key=lambda t: t[0] if numeric else order.get(t[0], 0))
        xs = [x if numeric else str(x) for x, _ in pts]
        (line,) = ax.plot(xs, [y for _, y in pts], marker="o", label=label)
        line.set_gid(f"provider-{i}")
    if numeric and _spans_decades(xs_all):
        ax.set_xscale("log")
    ys = [y for pts in lines.values() for _, y in pts] + list(y_limits or ())
    log_y = _spans_decades(ys)
    if log_y:
        ax.set_yscale("log")
    label_log_axes(ax)
    if y_limits is not None:
        lo, hi = min(ys), max(ys)
        # The same margin matplotlib would add (5% of the span, in the axis' own scale).
        if log_y:
            ax.set_ylim(lo / (hi / lo) ** 0.05, hi * (hi / lo) ** 0.05)
        elif hi > lo:
            ax.set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
    ax.set_xlabel(x_axis)
    ax.set_ylabel("time per call (us, median)")
    date = (run.created_at or "")[:10]
    ax.set_title(f"{run.name} on {run.device or 'unknown device'}, {date}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_sweep(run: RunInfo, points: Sequence[PointResult], x_axis: str, path: str | Path) -> Path:
    """Save :func:`sweep_figure` to ``path`` (.png or .svg)."""
    out = Path(path)
    plot_path(out, "--plot")
    fig = sweep_figure(run, points, x_axis)
    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out, out.suffix) as tmp:  # a failed write keeps the old plot
        fig.savefig(tmp, dpi=120)
    return out
