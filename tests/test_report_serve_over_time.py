"""The serving report draws a point over its time: slices, GPU telemetry and server gauges, from
what the point recorded (here a real H200 run's first point, and a gauge series like vLLM's)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench_kernel.report._serve_over_time import over_time_figure, over_time_panels

pytest.importorskip("matplotlib")
H200 = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "serve-h200-prefix.json"


@pytest.fixture(scope="module")
def point() -> dict:
    return json.loads(H200.read_text())["points"][0]


def _lines(ax):
    return [(ln.get_xdata(), ln.get_ydata()) for ln in ax.get_lines()]


def test_the_slices_and_the_gpu_are_drawn_from_the_points_own_numbers(point):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    assert over_time_panels(point) == ["slices", "gpu"]  # transformers serve has no /metrics
    fig = over_time_figure(point, "t")
    try:
        slices_ax, gpu_ax = fig.axes[0], fig.axes[1]  # the twin axes (TTFT, SM clock) come after the panels
        [(x, y)] = _lines(slices_ax)
        sl = point["slices"]["slices"]
        assert list(y) == [s["output_tokens_per_s"] for s in sl] + [sl[-1]["output_tokens_per_s"]]
        assert list(x) == [s["start_s"] for s in sl] + [sl[-1]["end_s"]]  # each rate held over its slice
        s = point["gpu_telemetry"][0]["series"]
        util = next(y for _, y in _lines(gpu_ax) if len(y) == len(s["t_s"]))
        assert np.allclose(util, [np.nan if v is None else v for v in s["utilization_pct"]], equal_nan=True)
        clock = _lines(fig.axes[3])[0][1]
        assert np.nanmax(clock) == max(v for v in s["sm_clock_mhz"] if v is not None)
    finally:
        plt.close(fig)


def test_server_gauges_are_summed_over_label_sets_and_nothing_to_draw_is_no_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gauge = {"type": "gauge", "series": [{"labels": {"engine": "0"}, "t_s": [0.0, 1.0], "values": [1.0, 3.0]},
                                         {"labels": {"engine": "1"}, "t_s": [0.0, 1.0], "values": [2.0, None]}]}
    point = {"server_metrics": {"families": {"vllm:num_requests_running": gauge,
                                             "vllm:prompt_tokens_total": {"type": "counter", "series": []}}}}
    assert over_time_panels(point) == ["server"]
    fig = over_time_figure(point, "t")
    try:
        [(x, y)] = _lines(fig.axes[0])
        assert list(x) == [0.0, 1.0] and list(y) == [3.0, 3.0]
    finally:
        plt.close(fig)
    assert over_time_figure({"slices": None}, "t") is None
