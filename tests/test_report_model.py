"""The report model and the labels it renders: notes classed as information or warning by their
producers' own text, the L2 state each point actually ran with, a negative launch overhead not
shown as one, one results table for every format (the over-roof mark in HTML too), coloured
verdicts on a terminal, and sweep plots sharing one y scale."""

from __future__ import annotations

import io
import re

import pytest

from _report_helpers import h200_results, samples, store_sweeps, write_run_json
from bench_kernel.records import BenchResult, Measurement, Samples, info, warning
from bench_kernel.report import (
    comparison_table,
    render_report,
    render_rich,
    results_table,
    sweep_table,
    to_markdown,
)
from bench_kernel.report_model import load_report

WHEN = "2026-01-01T00:00:00+00:00"


# --- information or warning --------------------------------------------------------------------

def test_each_producer_sets_its_notes_kind():
    # The kind is set where a note is made: a reworded note keeps its kind, because nothing reads the wording.
    from bench_kernel.measure import Settle, clock_note, graph_floor_note, trend_note
    from bench_kernel.measure._env import throttle_note

    info = [Settle(True, 4.5, ((100.0, 1470.0),) * 3).note()]
    warnings = [Settle(False, 20.1, ((100.0, 1470.0),)).note(), clock_note("graph", [1500.0] * 10, 1980.0),
                graph_floor_note(1.03, 0.85), trend_note("graph", Samples.of([100.0] * 30 + [110.0] * 30)),
                throttle_note({"sm_clock_mhz": 1920}, {"sm_clock_mhz": 1590})]
    assert [(n.kind, n.code) for n in info] == [("info", "steady-held")]
    assert [(n.kind, n.code) for n in warnings] == [("warning", "steady-unsettled"), ("warning", "clock-below-max"),
                                                    ("warning", "graph-node-floor"), ("warning", "time-drifted"),
                                                    ("warning", "clock-throttled")]
    assert warnings[-1].data == {"sm_clock_before_mhz": 1920, "sm_clock_after_mhz": 1590, "reasons": []}


def test_the_summary_keeps_information_apart_from_what_to_distrust(tmp_path):
    results = h200_results()
    # The same words with the kinds swapped land in the other box: the kind decides, not the wording.
    results[0] = results[0].replace(notes=(info("flops-counted", "FLOPs counted: 1.342e+08 (bench-kernel: aten::mm)"),
                                           warning("clock-throttled", "clock throttling: SM clock fell from 1980 to "
                                                   "1500 MHz during the measurement")))
    html = render_report(load_report([str(write_run_json(tmp_path / "r.json", results))]), generated_at=WHEN)
    distrust = html[html.index("What to distrust"):html.index("How it was measured")]
    measured = html[html.index("How it was measured"):html.index("</div>", html.index("How it was measured"))]
    assert "clock throttling" in distrust and "FLOPs counted" not in distrust
    assert "gemm M=128 N=4096 K=4096: FLOPs counted: 1.342e+08" in measured and "throttling" not in measured
    results[0] = results[0].replace(notes=(warning("flops-counted", "FLOPs counted: 1.342e+08 (bench-kernel: aten::mm)"),))
    html = render_report(load_report([str(write_run_json(tmp_path / "w.json", results))]), generated_at=WHEN)
    assert "FLOPs counted" in html[html.index("What to distrust"):]
    assert "How it was measured" not in html or "FLOPs counted" not in html[html.index("How it was measured"):]


# --- labels that tell the truth -----------------------------------------------------------------

def _warm(r: BenchResult) -> BenchResult:
    """``r`` as a provider without make_inputs runs: one input set, so graph is warm."""
    return r.replace(measurements={**r.measurements, "graph": r.measurements["graph"].replace(cache="warm")})


def test_the_sweep_note_and_the_results_table_say_what_l2_each_point_ran_with(tmp_path):
    from bench_kernel.results import open_store

    db = tmp_path / "r.db"
    with open_store(db) as store:
        run = store.start_run(kind="sweep", name="s", config={"providers": ["torch", "closure"],
                                                           "options": {"cache": "cold"}}, env={})
        for m in (1, 128):
            store.save_result(run.id, h200_results()[0].replace(name="torch", params={"M": m}, roofline=None))
            store.save_result(run.id, _warm(h200_results()[0].replace(name="closure", params={"M": m}, roofline=None)))
        store.finish_run(run.id)
        run, points = store.run(run.id), store.points(store.run(run.id))
    note = sweep_table(run, points).notes[0]
    # --cache cold was asked; the closure's graph times ran warm, and the note says so per provider.
    assert note == ("time: median per call by the graph method, cold L2 for torch (2 points); warm L2 for closure "
                    "(2 points) (warm: one input set, the provider returns no make_inputs)")
    table = results_table(points)
    assert [row["l2"] for row in table.rows] == ["cold", "graph warm, events cold, kernel cold"] * 2


def test_a_negative_launch_overhead_is_not_shown_and_the_note_says_why():
    r = h200_results()[0]
    below = r.replace(measurements={**r.measurements, "events": Measurement.of("events", samples(r.median_us("graph") - 1.394))})
    assert below.launch_overhead_us < 0
    table = results_table([below, h200_results()[1]])
    assert table.rows[0]["launch_overhead_us"] is None
    assert table.rows[1]["launch_overhead_us"] == pytest.approx(h200_results()[1].launch_overhead_us)
    note = next(n for n in table.notes if n.startswith("launch ovh is left blank"))
    assert re.search(r"not a launch cost: gemm M=128 N=4096 K=4096 \(-1\.[34]\d\d µs\)$", note)


def test_over_the_roof_is_marked_in_every_format(tmp_path):
    # One table for every format: the HTML report once showed 131.0% where the terminal said 131.0% (!).
    from rich.console import Console

    from bench_kernel.results import open_store

    r = h200_results()[3]
    with open_store(tmp_path / "r.db") as store:
        run = store.start_run(kind="run", name="ew", config={}, env=r.env)
        store.save_result(run.id, r.replace(roofline=r.roofline.replace(pct_of_roof=131.0)))
        store.finish_run(run.id)
        points = store.points(store.run(run.id))
    html = render_report(load_report(["latest"], db_path=str(tmp_path / "r.db")), generated_at=WHEN)
    assert '<td class="num" data-v="131.0">131.0% (!)</td>' in html
    table = results_table(points)
    assert "| 131.0% (!) |" in to_markdown(table)
    buf = io.StringIO()
    render_rich(table, Console(file=buf, width=300, color_system=None))
    assert "131.0% (!)" in buf.getvalue()


# --- verdicts in colour, plots on one scale ------------------------------------------------------

def test_verdicts_are_coloured_on_a_terminal(tmp_path):
    from rich.console import Console

    from bench_kernel.results import compare_points, open_store

    store_sweeps(tmp_path / "r.db")
    with open_store(tmp_path / "r.db") as store:
        rc = compare_points(store.points(store.run(1)), store.points(store.run(2)))
    buf = io.StringIO()
    render_rich(comparison_table(rc), Console(file=buf, width=300, force_terminal=True, color_system="standard"))
    out = buf.getvalue()
    assert re.search(r"\x1b\[1;31mslower\s*\x1b\[0m", out)  # bold red
    assert len(re.findall(r"\x1b\[2msame\s*\x1b\[0m", out)) == 5  # dim


@pytest.mark.slow
def test_two_sweeps_plotted_together_share_one_y_scale(tmp_path):
    pytest.importorskip("matplotlib")
    from bench_kernel.report._sweep import sweep_figure, y_range

    store_sweeps(tmp_path / "r.db", slow_factor=3.0)
    model = load_report(["1", "2"], db_path=str(tmp_path / "r.db"))
    a, b = model.results
    shared = y_range([*a.points, *b.points])
    lims = [sweep_figure(i.run, i.points, "M", y_limits=shared).axes[0].get_ylim() for i in (a, b)]
    own = [sweep_figure(i.run, i.points, "M").axes[0].get_ylim() for i in (a, b)]
    assert lims[0] == pytest.approx(lims[1]) and own[0] != pytest.approx(own[1])
    assert lims[0][1] >= max(p.median_us for p in b.points)  # run 2's 3x slower point is inside
    html = render_report(model, generated_at=WHEN)
    assert html.count("the same y scale as the other sweeps over M") == 2


@pytest.mark.slow
def test_the_model_holds_the_comparisons_and_the_renderer_only_reads_them(tmp_path):
    store_sweeps(tmp_path / "r.db")
    model = load_report(["1", "2"], db_path=str(tmp_path / "r.db"), threshold=0.5)
    (c,) = model.comparisons
    assert (c.a.label, c.b.label, c.comparison.threshold) == ("run 1", "run 2", 0.5)
    assert {r.comparison.verdict for r in c.comparison.rows} == {"same"}  # 10% is within a 50% threshold
    assert len(model.results[0].best) == 3  # the sweep's fastest provider per point, computed at load
    html = render_report(model, generated_at=WHEN)
    assert html.count('class="verdict verdict-same">same<') == 6 and "beyond 50%" in html


def test_the_results_table_says_when_a_time_is_the_median_of_rounds():
    def result(rounds):
        values = [100.0 + i for i in range(10 * rounds)]
        m = Measurement.of("host", Samples.of(values), calls_per_sample=1,
                        round_sizes=(10,) * rounds if rounds > 1 else ())
        return BenchResult("k", {"n": rounds}, {"host": m})

    def first_note(*rounds):
        return results_table([result(k) for k in rounds]).notes[0].split(";")[0]

    assert first_note(1) == "times: median per call"
    assert first_note(5, 5) == "times: median per call (the median of 5 rounds' medians)"
    assert first_note(3, 5, 1) == "times: median per call (the median of 1-5 rounds' medians)"
