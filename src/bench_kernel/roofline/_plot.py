"""The roofline plot: log-log, spec roof dashed, measured roof solid, ridge points, labelled cases.

matplotlib is imported lazily (the ``plot`` extra). The figure is built on a bare ``Figure`` (no
pyplot), so plotting has no global state and needs no display. Artists carry ``gid``s
(``roof-spec``, ``roof-measured``, ``ridge-spec``, ``ridge-measured``, ``point-<i>``) that survive
into SVG ids, and SVG text stays text: both make the file checkable and editable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from bench_kernel.atomic import replacing
from bench_kernel.dtypes import peak_class
from bench_kernel.errors import MissingExtraError, UsageError
from bench_kernel.hardware import DeviceSpec, get_device
from bench_kernel.plotfile import label_log_axes, plot_path
from bench_kernel.records import Calibration, Roof, RooflineResult
from bench_kernel.roofline._analysis import measured_roof, spec_roof

__all__ = ["build_figure", "plot_roofline"]

#: Said wherever a plot needs the missing extra (MissingExtraError: exit 1, like every missing extra).
PLOT_MISSING = "plotting needs matplotlib: pip install 'bench-kernel[plot]'"

_BOUND_COLORS = {"memory": "#1f77b4", "compute": "#d62728", "launch": "#9467bd"}


def _labelled(points: Iterable[RooflineResult] | Mapping[str, RooflineResult]) -> list[tuple[str, RooflineResult]]:
    if isinstance(points, Mapping):
        return [(str(k), v) for k, v in points.items()]
    return [(p.name or f"#{i}", p) for i, p in enumerate(points)]


def _roof_line(ax: Any, roof: Roof, xs: list[float], style: str, color: str) -> None:
    ys = [min(roof.peak_tflops, roof.peak_tbps * x) for x in xs]
    label = f"{roof.source} roof: {roof.peak_tflops:,.1f} TFLOP/s, {roof.peak_tbps:.2f} TB/s"
    (line,) = ax.plot(xs, ys, linestyle=style, color=color, linewidth=2.0, label=label)
    line.set_gid(f"roof-{roof.source}")
    ridge = ax.scatter([roof.ridge_intensity], [roof.peak_tflops], marker="D", s=36, color=color, zorder=4)
    ridge.set_gid(f"ridge-{roof.source}")
    ax.annotate(f"ridge {roof.ridge_intensity:,.0f} FLOP/B", (roof.ridge_intensity, roof.peak_tflops),
                textcoords="offset points", xytext=(6, 6) if roof.source == "spec" else (6, -14),
                fontsize=8, color=color)


def build_figure(points: Iterable[RooflineResult] | Mapping[str, RooflineResult],
                 device: str | DeviceSpec, dtype: str, measured: Calibration | None = None,
                 timed_on: str | None = None) -> Any:
    """The roofline as a matplotlib ``Figure`` (what :func:`plot_roofline` saves). ``timed_on``:
    what the times were measured on when it is not ``device`` (host times of a CPU placed under a
    GPU's roofs): the title says so."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(PLOT_MISSING) from None
    spec = get_device(device)
    dt = peak_class(dtype)
    roofs = [spec_roof(spec, dt)]
    m = measured_roof(measured, dt) if measured is not None else None
    if m is not None:
        roofs.append(m)
    labelled = _labelled(points)
    shown = [(label, p) for label, p in labelled if p.flops > 0]
    hidden = [label for label, p in labelled if p.flops <= 0]

    xs_known = [r.ridge_intensity for r in roofs] + [p.arithmetic_intensity for _, p in shown]
    x_lo, x_hi = min(xs_known) / 10, max(xs_known) * 10
    xs = [x_lo * (x_hi / x_lo) ** (i / 255) for i in range(256)]
    ys_known = [p.achieved_tflops for _, p in shown] + [min(r.peak_tbps * x_lo for r in roofs)]

    fig = Figure(figsize=(8.0, 5.5))
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    label_log_axes(ax)
    for roof in roofs:
        _roof_line(ax, roof, xs, "--" if roof.source == "spec" else "-",
                   "#444444" if roof.source == "spec" else "#2ca02c")
    for i, (label, p) in enumerate(shown):
        dot = ax.scatter([p.arithmetic_intensity], [p.achieved_tflops], s=40, zorder=5,
                         color=_BOUND_COLORS.get(p.bound, "black"), edgecolors="black", linewidths=0.5)
        dot.set_gid(f"point-{i}")
        pct = f"{p.pct_of_roof:.0f}%" if p.pct_of_roof >= 1 else f"{p.pct_of_roof:.2g}%"
        # Alternate above/below so labels of neighbouring points do not print over each other.
        ax.annotate(f"{label} ({pct})", (p.arithmetic_intensity, p.achieved_tflops),
                    textcoords="offset points", xytext=(5, 5) if i % 2 == 0 else (5, -11), fontsize=8)
    for bound, color in _BOUND_COLORS.items():
        if any(p.bound == bound for _, p in shown):
            ax.scatter([], [], color=color, edgecolors="black", linewidths=0.5, label=f"{bound}-bound case")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(min(ys_known) / 3, max(r.peak_tflops for r in roofs) * 3)
    ax.set_xlabel("Arithmetic intensity (FLOP/byte)")
    ax.set_ylabel(f"Performance ({dt}, TFLOP/s)")
    ax.set_title(f"Roofline: {spec.name}, {dt} (dense peaks); % = share of the spec roof"
                 + (f"\ntimes measured on {timed_on} (host wall clock), not on the {spec.name}" if timed_on else ""))
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper left", fontsize=8)  # above the memory roof: empty unless a case beats it
    if hidden:
        fig.text(0.01, 0.01, f"not shown (0 FLOP, pure data movement): {', '.join(hidden)}", fontsize=7)
    return fig


def plot_roofline(points: Iterable[RooflineResult] | Mapping[str, RooflineResult],
                  device: str | DeviceSpec, dtype: str, path: str | Path,
                  measured: Calibration | None = None, timed_on: str | None = None) -> Path:
    """Save the roofline of ``points`` on ``device`` for ``dtype`` to ``path`` (.png or .svg).

    ``points`` are :class:`RooflineResult` s (labelled by their ``name``) or a mapping label ->
    result; each is drawn at (arithmetic intensity, achieved TFLOP/s) and coloured by its bound
    against the spec roof. ``measured`` adds the calibrated roof (solid); ``timed_on`` labels times
    measured elsewhere than ``device`` (see :func:`build_figure`). Returns the path written.
    """
    out = plot_path(path)
    fig = build_figure(points, device, dtype, measured, timed_on)
    from matplotlib import rc_context

    out.parent.mkdir(parents=True, exist_ok=True)
    with rc_context({"svg.fonttype": "none"}), replacing(out, out.suffix) as tmp:
        fig.savefig(tmp, dpi=150, bbox_inches="tight")
    return out


_LEVEL_STYLE = {"dram": ("#1f77b4", "o", "DRAM"), "l2": ("#ff7f0e", "^", "L2"), "l1": ("#2ca02c", "s", "L1")}


def build_measured_figure(points: Mapping[str, Any]) -> Any:
    """The hierarchical roofline of counted work (``MeasuredRoofline`` records, label -> record): one
    ceiling per memory level, the compute roof of each precision, each case's DRAM/L2/L1 points joined
    by a thin line, and its modelled point hollow. gids: ``ceiling-<level>``, ``roof-<dtype>``,
    ``point-<i>-<level>``, ``model-<i>``."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(PLOT_MISSING) from None
    shown = [(label, p) for label, p in points.items() if p.flops > 0]
    hidden = [label for label, p in points.items() if p.flops <= 0]
    # A level that carried under 1% of the DRAM bytes (TMA loads bypass L1 in Hopper GEMMs) would sit
    # decades to the right of the rest: it is left out of the plot (the JSON keeps it) and said so.
    skipped = sorted({f"{lp.level} of {label}" for label, p in shown for lp in p.levels
                      if p.level("dram") and lp.bytes < 0.01 * p.level("dram").bytes})
    shown = [(label, p.replace(levels=tuple(lp for lp in p.levels if not (
        p.level("dram") and lp.bytes < 0.01 * p.level("dram").bytes)))) for label, p in shown]
    if not shown:
        raise UsageError("nothing to plot: no case has counted FLOPs (pure data movement has no intensity)")
    xs_known = [lp.intensity for _, p in shown for lp in p.levels if lp.intensity]
    xs_known += [p.modelled_intensity for _, p in shown if p.modelled_intensity]
    x_lo, x_hi = min(xs_known) / 10, max(xs_known) * 10
    xs = [x_lo * (x_hi / x_lo) ** (i / 255) for i in range(256)]
    peaks = {p.dtype: p.compute_peak_tflops for _, p in shown if p.compute_peak_tflops}
    top = max(peaks.values(), default=max(p.achieved_tflops for _, p in shown) * 10)
    fig = Figure(figsize=(8.5, 6.0))
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    label_log_axes(ax)
    ceilings = {lp.level: (lp.ceiling_tbps, lp.ceiling_source) for _, p in shown for lp in p.levels if lp.ceiling_tbps}
    for level, (tbps, source) in ceilings.items():
        color, _, label = _LEVEL_STYLE[level]
        (line,) = ax.plot(xs, [min(top, tbps * x) for x in xs], color=color, linewidth=1.6,
                          label=f"{label} ceiling {tbps:.2f} TB/s ({source})")
        line.set_gid(f"ceiling-{level}")
    for dtype, peak in peaks.items():
        (line,) = ax.plot([x_lo, x_hi], [peak, peak], linestyle="--", color="#444444", linewidth=1.2,
                          label=f"{dtype} peak {peak:,.0f} TFLOP/s (spec, dense)")
        line.set_gid(f"roof-{dtype}")
    for i, (label, p) in enumerate(shown):
        y = p.achieved_tflops
        lxs = [lp.intensity for lp in p.levels if lp.intensity]
        ax.plot(lxs, [y] * len(lxs), color="#999999", linewidth=0.8, zorder=3)
        for lp in p.levels:
            if lp.intensity:
                color, marker, _ = _LEVEL_STYLE[lp.level]
                dot = ax.scatter([lp.intensity], [y], marker=marker, s=42, color=color, edgecolors="black",
                                 linewidths=0.5, zorder=5)
                dot.set_gid(f"point-{i}-{lp.level}")
        ax.annotate(label, (max(lxs), y), textcoords="offset points", xytext=(6, 3 if i % 2 == 0 else -10),
                    fontsize=8)
        if p.modelled_intensity:
            model = ax.scatter([p.modelled_intensity], [p.model_flops / p.time_us / 1e6], marker="D", s=40,
                               facecolors="none", edgecolors="black", linewidths=1.0, zorder=6)
            model.set_gid(f"model-{i}")
    for color, marker, label in _LEVEL_STYLE.values():
        ax.scatter([], [], marker=marker, color=color, edgecolors="black", linewidths=0.5,
                   label=f"counted {label} bytes")
    ax.scatter([], [], marker="D", facecolors="none", edgecolors="black", label="modelled FLOPs and bytes")
    ys = [p.achieved_tflops for _, p in shown]
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(min(ys + [min(ceilings.values(), default=(top, ""))[0] * x_lo]) / 3, top * 3)
    ax.set_xlabel("Arithmetic intensity (counted FLOP / byte at each level)")
    ax.set_ylabel("Performance (TFLOP/s: counted FLOPs / bench-kernel's time)")
    device = shown[0][1].device
    ax.set_title(f"Hierarchical roofline, {device}: counts from hardware counters, times from bench-kernel")
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper left", fontsize=7)
    said = ([f"not shown (0 FLOPs counted): {', '.join(hidden)}"] if hidden else []) + (
        [f"under 1% of the DRAM bytes, not shown: {', '.join(skipped)}"] if skipped else [])
    if said:
        fig.text(0.01, 0.005, "; ".join(said), fontsize=7)
    return fig


def plot_measured(points: Mapping[str, Any], path: str | Path) -> Path:
    """Save :func:`build_measured_figure` of ``points`` to ``path`` (.png or .svg); returns the path."""
    out = plot_path(path)
    fig = build_measured_figure(points)
    from matplotlib import rc_context

    out.parent.mkdir(parents=True, exist_ok=True)
    with rc_context({"svg.fonttype": "none"}):
        fig.savefig(out, dpi=150, bbox_inches="tight")
    return out
