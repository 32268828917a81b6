"""The HTML report of a serving run (``bench-kernel serve`` output or a stored serving run): its
tables, the latency-throughput curve over a sweep, the TTFT and ITL CDFs, a per-request
timeline (send -> first token -> last token of each request of a point), and the first point over
its time (slices, GPU telemetry, the server's gauges).

The input is a ``report_model.ServeInput``. Everything is drawn from what the run recorded (its
``serve --json``, ``records.ServeOutput``, with its request records): nothing is re-measured. Plots need matplotlib (the ``plot`` extra); without it a note says so.

The plots read a run and its points as the JSON they were written as (``dict[str, Any]``: any JSON
value), as a stored run or an older file holds them; the tables read the record
(``ServeOutput.from_dict``, which upgrades an older version and refuses a damaged field in one line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from bench_kernel.plotfile import label_log_axes
from bench_kernel.report._html import Markup, el, join
from bench_kernel.report._html_table import html_table
from bench_kernel.report._serve_over_time import over_time_figure
from bench_kernel.report._svg import NO_MATPLOTLIB, figure_svg, have_matplotlib

if TYPE_CHECKING:  # matplotlib is optional; serve's records are built only when a section is drawn
    from matplotlib.figure import Figure

    from bench_kernel.report_model import ServeInput

__all__ = ["serve_section", "serve_summary"]

#: Requests drawn in the per-request timeline (the first N of the first point).
TIMELINE_REQUESTS = 200


def _label(p: dict[str, Any]) -> str:
    load = p.get("load") or {}
    rate = load.get("request_rate")
    s = f"rate {'inf' if rate is None else format(rate, 'g')}"
    return s + (f", conc {load['max_concurrency']}" if load.get("max_concurrency") else "")


def _records(p: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in (p.get("requests") or {}).get("records") or () if r.get("status") == "ok"]


def _curve(points: list[dict[str, Any]]) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    xs = [p["throughput"]["output_tokens_per_s"] for p in points]
    for key, stat, style in (("ttft_ms", "p50", "o-"), ("ttft_ms", "p99", "o--"), ("itl_ms", "p50", "s-"),
                             ("icl_ms", "p50", "^:"), ("tpot_ms", "p50", "d-")):
        ys = [p["metrics"][key][stat] for p in points]
        if any(y is not None for y in ys):
            ax.plot([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None], style,
                    label=f"{key.removesuffix('_ms').upper()} {stat}")
    ax.set_xlabel("output tokens/s")
    ax.set_ylabel("ms")
    ax.set_yscale("log")
    label_log_axes(ax)
    ax.set_title("Latency against throughput, one marker per load point")
    ax.legend(fontsize=8)
    return fig


def _cdfs(points: list[dict[str, Any]]) -> Figure:
    import matplotlib.pyplot as plt
    import numpy as np

    from bench_kernel.serve import metric_samples

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for p in points:
        s = metric_samples(p)
        for ax, key in zip(axes, ("ttft_ms", "itl_ms")):
            v = np.sort(s[key] or (s["icl_ms"] if key == "itl_ms" else []))
            if len(v):
                ax.plot(v, np.arange(1, len(v) + 1) / len(v), label=_label(p))
    axes[0].set_title("TTFT CDF")
    axes[1].set_title("ITL CDF (ICL where per-token counts are unknown)")
    for ax in axes:
        ax.set_xlabel("ms")
        ax.set_xscale("log")
        # Over less than a decade matplotlib labels the minor ticks too (2x10^1 3x10^1 4x10^1 ...), and
        # they run into each other: label the decades only, and plain numbers when there are none.
        label_log_axes(ax, minor=False)
        lo, hi = ax.get_xlim()
        if hi / max(lo, 1e-12) < 10:
            from matplotlib.ticker import LogLocator, ScalarFormatter

            ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=7)
    return fig


def _timeline(p: dict[str, Any]) -> Figure:
    import matplotlib.pyplot as plt

    recs = [r for r in (p.get("requests") or {}).get("records") or () if r.get("end_s") is not None]
    recs = recs[:TIMELINE_REQUESTS]
    fig, ax = plt.subplots(figsize=(8, max(2.5, min(8, len(recs) * 0.04))))
    for i, r in enumerate(recs):
        sent, end = r["sent_s"], r["end_s"]
        first = r["chunk_s"][0] if r.get("chunk_s") else None
        ax.plot([r["scheduled_s"], sent], [i, i], color="#bbbbbb", lw=1)
        if first is not None:
            ax.plot([sent, first], [i, i], color="#d62728", lw=2)
            ax.plot([first, end], [i, i], color="#1f77b4", lw=2)
        else:
            ax.plot([sent, end], [i, i], color="black", lw=2, ls=":")
    ax.set_xlabel("s from the start (grey: waiting to be sent, red: to the first token, blue: decoding, "
                  "dotted: failed)")
    ax.set_ylabel("request")
    ax.set_title(f"Per-request timeline: {_label(p)}, first {len(recs)} requests")
    return fig


def serve_section(inp: ServeInput, prefix: str) -> Markup:
    """The tables and plots of one serving run."""
    from bench_kernel.errors import InputError
    from bench_kernel.records import ServeOutput
    from bench_kernel.report._serve import serve_tables

    try:
        run = ServeOutput.from_dict(inp.data)
    except ValueError as e:  # msgspec's ValidationError names the field: $.points[0].slices...
        raise InputError(f"{inp.source}: a serving run this bench-kernel cannot read ({e})") from None
    parts: list[Markup] = [html_table(t) for t in serve_tables(run)]
    points = inp.points
    if not have_matplotlib():
        return join(parts + [el("p", {"class": "muted"}, NO_MATPLOTLIB)])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plots: tuple[tuple[str, Callable[[], Figure | None]], ...] = (
        ("curve", lambda: _curve(points) if len(points) > 1 else None), ("cdf", lambda: _cdfs(points)),
        ("timeline", lambda: _timeline(points[0])),
        ("over-time", lambda: over_time_figure(points[0], f"{_label(points[0])}: over the point")))
    for name, make in plots:
        fig = make()
        if fig is not None:
            parts.append(el("figure", None, figure_svg(fig, f"{prefix}-{name}", f"{inp.label}: {name}")))
            plt.close(fig)
    return join(parts)


def serve_summary(inputs: Sequence[ServeInput]) -> Markup:
    """Per serving run: the server, what it was asked, how it ended, and what to distrust."""
    items = []
    for inp in inputs:
        srv = inp.data.get("server") or {}
        pts = inp.points
        bound = sum(bool((p.get("client") or {}).get("client_bound")) for p in pts)
        facts = [f"{inp.label}: {srv.get('model')} at {srv.get('url')}" + (f", server {srv['version']}"
                                                                           if srv.get("version") else ""),
                 f"status {inp.data.get('status', 'complete')}" + (f": {inp.data['aborted']}" if inp.data.get("aborted")
                                                                  else "") + f"; {len(pts)} load point(s)"]
        if srv.get("command"):
            facts.append(f"launched: {srv['command']}")
        if bound:
            facts.append(f"distrust: {bound} point(s) were client-bound (the client's own delay is in the latencies)")
        failed = sum((p.get("requests") or {}).get("failed", 0) for p in pts)
        if failed:
            facts.append(f"{failed} request(s) failed; the tables count them by kind")
        items.append(el("ul", None, *(el("li", None, f) for f in facts)))
    return join(items)
