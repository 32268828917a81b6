"""One serving load point over its own time: the client's time slices, the GPU's telemetry and the
server's gauges on one time axis, so that a warm-up, a ramp, saturation or a throttling GPU shows
where it happened in the point.

Drawn from what the point recorded (``ServePoint.to_dict()``): ``slices`` (``--slice-duration``),
``gpu_telemetry`` (NVML or amdsmi, every ~100 ms) and ``server_metrics`` (the gauges of ``/metrics``).
A panel whose data the point lacks is left out; with none of the three there is no figure. The
point is read as the JSON it was written as (``dict[str, Any]``: any JSON value).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is optional (the ``plot`` extra), imported only when a plot is drawn
    from matplotlib.figure import Figure

__all__ = ["over_time_figure", "over_time_panels"]

#: Server gauges drawn, at most (the first families with a series, in the order the server listed them).
MAX_GAUGES = 4


def _slices(point: dict[str, Any]) -> list[dict[str, Any]]:
    return list((point.get("slices") or {}).get("slices") or ())


def _gauges(point: dict[str, Any]) -> list[tuple[str, list[float], list[float | None]]]:
    """(family, t_s, values) per gauge family with a series: its label sets summed per scrape."""
    fams = ((point.get("server_metrics") or {}).get("families")) or {}
    out = []
    for name, fam in fams.items():
        if fam.get("type") != "gauge":
            continue
        series = [s for s in fam.get("series") or () if s.get("t_s")]
        if not series:
            continue
        t = list(series[0]["t_s"])
        # Label sets (one per engine or model) are scraped together, so their samples line up.
        vals: list[float | None] = []
        for i in range(len(t)):
            got = [s["values"][i] for s in series if i < len(s["values"]) and s["values"][i] is not None]
            vals.append(sum(got) if got else None)
        out.append((name, t, vals))
        if len(out) == MAX_GAUGES:
            break
    return out


def over_time_panels(point: dict[str, Any]) -> list[str]:
    """The panels ``over_time_figure`` draws for ``point``, top to bottom: ``slices``, ``gpu``, ``server``."""
    panels = []
    if _slices(point):
        panels.append("slices")
    if any((g.get("series") or {}).get("t_s") for g in point.get("gpu_telemetry") or ()):
        panels.append("gpu")
    if _gauges(point):
        panels.append("server")
    return panels


def over_time_figure(point: dict[str, Any], title: str) -> Figure | None:
    """A matplotlib figure of ``point`` over its time (seconds from its start), or None with nothing to draw."""
    panels = over_time_panels(point)
    if not panels:
        return None
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.3 * len(panels)), sharex=True, squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        if panel == "slices":
            sl = _slices(point)
            # Each slice's rate holds over the slice: a step from its start to its end.
            edges = [s["start_s"] for s in sl] + [sl[-1]["end_s"]]
            rates = [s["output_tokens_per_s"] for s in sl]
            ax.plot(edges, rates + rates[-1:], drawstyle="steps-post", color="#1f77b4", label="output tokens/s")
            mid = [(s["start_s"] + s["end_s"]) / 2 for s in sl]
            ax.set_ylabel("tokens/s")
            right = ax.twinx()
            ttft = [(m, s["ttft_p50_ms"]) for m, s in zip(mid, sl) if s.get("ttft_p50_ms") is not None]
            right.plot([m for m, _ in ttft], [v for _, v in ttft], "o-", color="#d62728", label="TTFT p50")
            right.set_ylabel("TTFT p50 ms")
            ax.set_title("Per time slice: throughput (blue) and TTFT p50 (red)", fontsize=9)
        elif panel == "gpu":
            for g in point.get("gpu_telemetry") or ():
                s = g.get("series") or {}
                t = s.get("t_s") or []
                if not t:
                    continue
                limit = s.get("power_limit_w") or []
                power = [None if p is None or not lim else 100.0 * p / lim
                         for p, lim in zip(s.get("power_w") or [], limit or [None] * len(t))]
                for key, vals, style in (("utilization %", s.get("utilization_pct"), "-"),
                                         ("power % of limit", power, "--")):
                    if vals and any(v is not None for v in vals):
                        ax.plot(t, [float("nan") if v is None else v for v in vals], style,
                                label=f"GPU {str(g.get('gpu', '?')).split(':')[0]} {key}")
                if s.get("sm_clock_mhz"):
                    right = ax.twinx()
                    right.plot(t, [float("nan") if v is None else v for v in s["sm_clock_mhz"]], ":",
                               color="black", label="SM clock")
                    right.set_ylabel("SM MHz")
            ax.set_ylabel("%")
            ax.set_title("GPU: utilization, power against its limit (%), SM clock (dotted)", fontsize=9)
            ax.legend(fontsize=7, loc="upper left")
        else:
            for name, t, vals in _gauges(point):
                ax.plot(t, [float("nan") if v is None else v for v in vals], label=name)
            ax.set_title("The server's gauges (/metrics)", fontsize=9)
            ax.legend(fontsize=7, loc="upper left")
    axes[-1, 0].set_xlabel("s from the point's start")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
