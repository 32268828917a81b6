"""The timeline chart: where the wall time of a trace went, window by window.

One row for the whole device span, then one per step at its place in the trace (x is time since
the span began): each bar is split, in proportion, into busy time and the causes of idle time
(``TimelineReport``'s breakdown: host-bound, sync wait, launch gaps, dependency). The breakdown
has no positions inside a window, so the segments show shares of that window, not moments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kernel.report._text import printable

if TYPE_CHECKING:  # read only; matplotlib (optional) and the trace package load when a chart is drawn
    from matplotlib.figure import Figure

    from bench_kernel.trace import Breakdown, TimelineReport

__all__ = ["timeline_figure", "SEGMENTS"]

#: (Breakdown field, legend label, colour): busy first, then idle by cause. They sum to the wall
#: time (``trace._timeline`` asserts busy + the idle causes == wall).
SEGMENTS = (("busy_us", "busy", "#2458b3"), ("host_bound_us", "host-bound", "#e3b341"),
            ("sync_wait_us", "sync wait", "#b42318"), ("launch_gap_us", "launch gaps", "#9db7e6"),
            ("dependency_wait_us", "dependency", "#8c6bb1"))


def _label(w: Breakdown) -> str:
    # Step names come from the trace: plain text, never mathtext ("$" would start a formula).
    name = "device span" if w.step is None else f"step {w.step}" + (f" ({w.phase})" if w.phase else "")
    return printable(name).replace("$", r"\$")


def timeline_figure(rep: TimelineReport, max_steps: int = 20) -> Figure:
    """A matplotlib ``Figure`` of ``rep`` (a ``TimelineReport``): the device span and the first
    ``max_steps`` steps as rows of time, each split into busy and idle by cause."""
    from matplotlib.figure import Figure

    windows = [rep.overall, *rep.steps[:max_steps]]
    origin = rep.overall.start_us
    fig = Figure(figsize=(8, 1.2 + 0.32 * len(windows)), layout="constrained")
    ax = fig.add_subplot()
    rows = list(range(len(windows)))[::-1]  # the span on top, steps below in order
    for i, (field, label, colour) in enumerate(SEGMENTS):
        lefts, widths = [], []
        for w in windows:
            start_ms = (w.start_us - origin) / 1e3
            before = sum(getattr(w, f) for f, _, _ in SEGMENTS[:i])
            total = sum(getattr(w, f) for f, _, _ in SEGMENTS) or 1.0
            scale = w.wall_us / total  # the parts sum to the wall; this only guards rounding
            lefts.append(start_ms + before * scale / 1e3)
            widths.append(getattr(w, field) * scale / 1e3)
        bars = ax.barh(rows, widths, left=lefts, height=0.7, color=colour, label=label)
        for j, bar in enumerate(bars):  # ids a test (or a reader's tool) can find each segment by
            bar.set_gid(f"{field.removesuffix('_us')}-{j}")
    ax.set_yticks(rows, [_label(w) for w in windows], fontsize=8)
    ax.set_xlabel("time since the first device event (ms)")
    ax.set_title(f"GPU busy {rep.overall.busy_pct:.1f}% of {rep.overall.wall_us / 1e3:.4g} ms"
                 + (f"; first {max_steps} of {len(rep.steps)} steps" if len(rep.steps) > max_steps else ""),
                 fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=len(SEGMENTS), fontsize=8, frameon=False)
    return fig
