"""Log axes are labelled as matplotlib would label them, in plain text instead of math text: the same
ticks, 10³ for ``$\\mathdefault{10^{3}}$``, and no call into the math-text parser while a plot is drawn."""

from __future__ import annotations

import importlib.util
import io

import pytest

from bench_kernel.plotfile import label_log_axes, plain_tick_label

# find_spec, not importorskip: matplotlib loads when a test draws, not in every xdist worker's collection.
needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed")


@pytest.mark.parametrize("tex, plain", [
    (r"$\mathdefault{10^{3}}$", "10³"),
    (r"$\mathdefault{10^{-12}}$", "10⁻¹²"),
    (r"$\mathdefault{10^{0}}$", "10⁰"),
    (r"$\mathdefault{2\times10^{2}}$", "2×10²"),
    ("", ""),
    ("1000", "1000"),
    (r"$\mathdefault{\frac{1}{2}}$", r"$\mathdefault{\frac{1}{2}}$"),  # not foreseen: math text as before
])
def test_a_tick_label_in_plain_text(tex, plain):
    assert plain_tick_label(tex) == plain


def _labels(limits, *, plain, minor=True):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    if plain:
        label_log_axes(ax, minor=minor)
    FigureCanvasAgg(fig).draw()
    return [[t.get_text() for t in axis.get_ticklabels(minor=m)] for axis in (ax.xaxis, ax.yaxis) for m in (False, True)]


@needs_matplotlib
@pytest.mark.parametrize("limits", [((1e-3, 1e5), (150.0, 900.0)), ((2.0, 3.0), (0.5, 2e4))])
def test_the_same_ticks_are_labelled_as_matplotlibs_own(limits):
    own = _labels(limits, plain=False)
    plain = _labels(limits, plain=True)
    assert plain == [[plain_tick_label(t) for t in labels] for labels in own]
    drawn = [t for labels in plain for t in labels if t]
    assert drawn and not any("$" in t for t in drawn)
    assert any("×" in t for t in drawn)  # under a decade, minor ticks are labelled as matplotlib does


@needs_matplotlib
def test_decades_only_leaves_the_minor_ticks_blank():
    labels = _labels(((2.0, 3.0), (150.0, 900.0)), plain=True, minor=False)
    assert labels[1] and not any(labels[1]) and not any(labels[3])
    assert "10²" in labels[2]


@needs_matplotlib
def test_drawing_a_roofline_never_parses_math_text(monkeypatch):
    from matplotlib.mathtext import MathTextParser

    from bench_kernel.roofline import analyze, build_figure

    def refuse(*a, **k):
        raise AssertionError("math text parsed")

    monkeypatch.setattr(MathTextParser, "parse", refuse)
    point = analyze(2 * 8192**3, 3 * 8192**2 * 2, 1600.0, device="H200", name="gemm", calibration=False)
    fig = build_figure([point], "H200", "bf16")
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    assert "10²" in "".join(t.get_text() for t in fig.axes[0].yaxis.get_ticklabels())
