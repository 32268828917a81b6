"""The roofline plot holds the roofs, the ridge points and every case (inspected, not eyeballed)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

# find_spec, not importorskip: matplotlib loads when a test draws, not in every xdist worker's collection.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")

from _hardware_helpers import make_calibration  # noqa: E402
from bench_kernel.errors import MissingExtraError, UsageError  # noqa: E402
from bench_kernel.roofline import analyze, plot_roofline  # noqa: E402
from bench_kernel.roofline._plot import build_figure  # noqa: E402

CAL = make_calibration(dram_tbps=4.3, matmul_tflops={"bf16": 760.0})


def _cases():
    return [
        analyze(2 * 8192**3, 3 * 8192**2 * 2, 1600.0, device="H200", name="gemm 8192", calibration=False),
        analyze(2**26, 3 * 2**26 * 2, 110.0, device="H200", name="add 64M", calibration=False),
        analyze(0, 2 * 2**30, 500.0, device="H200", name="copy 1G", calibration=False),
    ]


def _by_gid(ax):
    artists = [*ax.get_lines(), *ax.collections]
    return {a.get_gid(): a for a in artists if a.get_gid()}


def test_figure_has_dashed_spec_roof_solid_measured_roof_and_ridges():
    fig = build_figure(_cases(), "H200", "bf16", measured=CAL)
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    gids = _by_gid(ax)
    spec, meas = gids["roof-spec"], gids["roof-measured"]
    assert spec.get_linestyle() == "--" and meas.get_linestyle() == "-"
    xs, ys = spec.get_data()
    assert ys[-1] == pytest.approx(989.4)  # flat compute roof right of the ridge
    assert ys[0] == pytest.approx(4.8 * xs[0])  # memory slope left of it
    assert meas.get_data()[1][-1] == pytest.approx(760.0)
    assert tuple(gids["ridge-spec"].get_offsets()[0]) == pytest.approx((989.4 / 4.8, 989.4))
    assert tuple(gids["ridge-measured"].get_offsets()[0]) == pytest.approx((760.0 / 4.3, 760.0))


def test_each_case_is_a_labelled_point_at_its_intensity_and_throughput():
    cases = _cases()
    fig = build_figure(cases, "H200", "bf16")
    ax = fig.axes[0]
    gids = _by_gid(ax)
    for i, case in enumerate(cases[:2]):
        assert tuple(gids[f"point-{i}"].get_offsets()[0]) == pytest.approx(
            (case.arithmetic_intensity, case.achieved_tflops))
    labels = [t.get_text() for t in ax.texts]
    assert any(t.startswith("gemm 8192 (") for t in labels)
    assert any(t.startswith("add 64M (") for t in labels)
    assert "roof-measured" not in gids
    assert "copy 1G" in " ".join(t.get_text() for t in fig.texts)  # 0 FLOP: listed, not plotted
    assert "point-2" not in gids


def test_svg_file_keeps_ids_and_text(tmp_path):
    path = plot_roofline({"my gemm": _cases()[0]}, "H200", "bf16", tmp_path / "sub" / "r.svg", measured=CAL)
    svg = path.read_text()
    for gid in ("roof-spec", "roof-measured", "ridge-spec", "ridge-measured", "point-0"):
        assert f'id="{gid}"' in svg
    assert "my gemm" in svg and "Roofline: H200, bf16" in svg


def test_png_file_is_written(tmp_path):
    path = plot_roofline(_cases(), "H200", "bf16", tmp_path / "r.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_other_extensions_are_refused(tmp_path):
    with pytest.raises(UsageError, match=r"must end in \.png or \.svg"):
        plot_roofline(_cases(), "H200", "bf16", tmp_path / "r.jpg")


def test_missing_matplotlib_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bench-kernel\[plot\]'"):
        build_figure(_cases(), "H200", "bf16")
