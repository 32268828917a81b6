"""Steady state and its detection, on synthetic numbers (no GPU): settling, clock notes, time trends,
and the per-sample clocks a StoppingRule records."""

from __future__ import annotations

import statistics

import pytest

from bench_kernel.measure import (
    Settle,
    StoppingRule,
    clock_note,
    graph_floor_note,
    settled,
    stability_notes,
    trend_note,
)
from bench_kernel.records import Measurement, Samples


def test_settled_needs_the_last_windows_to_agree_on_time_and_clock():
    ramp = [(100.0, 1980.0), (104.0, 1800.0), (108.0, 1650.0)]
    flat = [(110.0, 1500.0), (110.5, 1505.0), (110.2, 1498.0), (110.4, 1502.0)]
    assert not settled(ramp)
    assert settled(ramp + flat)
    assert not settled(ramp + flat[:3])  # 4 windows needed
    assert not settled(ramp + flat[:3] + [(113.0, 1500.0)])  # time moved 2.7%
    assert not settled(ramp + flat[:3] + [(110.3, 1560.0)])  # clock moved 4%
    assert settled([(110.0, None)] * 4)  # no clock readings: the time alone decides


def test_settle_note_and_record():
    s = Settle(True, 4.25, ((100.0, 1980.0), (110.0, 1500.0)))
    assert s.note().kind == "info" and s.note().text == "steady: held the load 4.2 s until the time and clock settled, SM clock 1500 MHz"
    assert s.to_dict()["windows"][-1] == {"us_per_call": 110.0, "sm_clock_mhz": 1500.0}
    assert Settle(False, 20.0, ((1.0, None),)).note().kind == "warning"
    assert Settle(False, 20.0, ((1.0, 1400.0),)).note().text == (
        "steady: the time or the clock did not settle within 20.0 s, SM clock 1400 MHz: the numbers may still drift")
    # No clock read (no GPU, or no NVML): the note names only what was watched, the per-call time
    assert Settle(False, 20.0, ((1.0, None),)).note().text == (
        "steady: the per-call time did not settle within 20.0 s: the numbers may still drift")
    assert Settle(True, 2.0, ((1.0, None),)).note().text == "steady: held the load 2.0 s until the per-call time settled"


def test_clock_note_flags_a_capped_clock_by_its_median():
    capped = [1440.0, 1500.0, 1785.0, 1600.0, 1550.0]
    assert clock_note("graph", capped, 1980.0).data["sm_clock_mhz"] == 1550.0
    assert clock_note("graph", capped, 1980.0).text == (
        "graph: the SM clock ran at 1440-1785 MHz while sampling (max 1980): the GPU is power- or "
        "thermal-capped and times follow the clock; steady=True (--steady) measures at the settled clock")
    assert clock_note("graph", [1980.0, 1965.0, 1200.0, 1980.0], 1980.0) is None  # one stray reading
    assert clock_note("graph", [None, None], 1980.0) is None
    assert clock_note("graph", capped, None) is None


def test_trend_note_needs_a_drift_beyond_3_percent_and_the_noise():
    drifting = [100.0 + 0.5 * i for i in range(30)]  # +14.5% over the run
    drift = statistics.median(drifting[20:]) / statistics.median(drifting[:10]) - 1  # thirds: 10 samples each
    assert round(drift, 3) == 0.098
    assert trend_note("graph", Samples.of(drifting)).kind == "warning"
    assert trend_note("graph", Samples.of(drifting)).text == (
        "graph: the per-call time drifted +9.8% from the first to the last third of the samples (the clock "
        "settling?); steady=True (--steady) holds the load until it settles")
    noisy = [100.0, 110.0, 95.0, 105.0] * 8  # no trend, just noise
    assert trend_note("graph", Samples.of(noisy)) is None
    small = [100.0 + 0.05 * i for i in range(30)]  # 1.5%: below the threshold
    assert trend_note("graph", Samples.of(small)) is None
    assert trend_note("graph", Samples.of(drifting[:8])) is None  # too few samples


def test_a_drift_without_a_gpu_blames_the_load_not_a_clock():
    # Seen on a loaded 2-core machine: "the per-call time drifted +8920% (the clock settling?);
    # steady=True holds the load until it settles" -- GPU advice on a CPU result.
    drifting = Samples.of([100.0 + 0.5 * i for i in range(30)])
    note = trend_note("host", drifting, gpu=False)
    assert note.code == "time-drifted" and note.text == (
        "host: the per-call time drifted +9.8% from the first to the last third of the samples: the machine's "
        "load changed while sampling (other processes, or this CPU's own frequency)")
    cpu = stability_notes({"host": Measurement.of("host", drifting)}, None, gpu=False)
    assert [n.code for n in cpu] == ["time-drifted"]
    assert not any(w in n.text for n in cpu for w in ("clock", "steady", "GPU"))


def test_stability_notes_skip_failed_methods():
    ok = Measurement.of("graph", Samples.of([100.0 + i for i in range(30)]), sm_clock_mhz=(1500.0,) * 30)
    failed = Measurement.failed("events", "no")
    notes = stability_notes({"graph": ok, "events": failed}, 1980.0)
    assert [(n.code, n.text.split(":")[0]) for n in notes] == [("clock-below-max", "graph"), ("time-drifted", "graph")]
    # held steady: the settled clock below the maximum is the point, and no note suggests --steady
    held = stability_notes({"graph": ok, "events": failed}, 1980.0, steady=True)
    assert [n.text for n in held] == ["graph: the per-call time drifted +19.1% from the first to the last third of the samples "
                    "even after the steady hold"]



def test_a_trend_is_looked_for_within_each_round_not_across_rounds():
    # Three flat rounds at different levels (run-to-run noise, which the rounds measure): joined,
    # their first and last thirds differ by 20%, which is no settling clock.
    levels = [100.0, 110.0, 120.0]
    flat = [x + 0.1 * (i % 3) for x in levels for i in range(30)]
    rounds = Measurement.of("host", Samples.of(flat), round_sizes=(30, 30, 30))
    assert trend_note("host", rounds.samples) is not None  # what the joined samples alone would say
    assert stability_notes({"host": rounds}, None) == []
    # A drift inside a round is named with that round, and how many more drifted.
    drifting = [100.0 + 0.5 * i for i in range(30)]
    two = Measurement.of("host", Samples.of(flat[:30] + drifting + drifting), round_sizes=(30, 30, 30))
    assert [n.text for n in stability_notes({"host": two}, None)] == [
        "host: the per-call time drifted +9.8% from the first to the last third of round 2 of 3 (and within 1 more "
        "of the 3 rounds) (the clock settling?); steady=True (--steady) holds the load until it settles"]

def test_stopping_rule_records_a_clock_per_sample_and_waits_for_min_time():
    now = [0.0]
    mhz = iter([1980.0, 1700.0])
    rule = StoppingRule(precision=0.5, min_samples=2, max_time_s=10.0, min_time_s=1.0, clock=lambda: now[0],
                        read_clock=lambda: next(mhz))
    rule.add([1.0, 1.0, 1.0])
    assert not rule.is_finished()  # precise enough, but not sampled for min_time_s yet
    now[0] = 1.5
    rule.add([1.0])
    assert rule.is_finished() and rule.reason == "precision"
    assert rule.clocks_mhz == [1980.0, 1980.0, 1980.0, 1700.0]


def test_stopping_rule_refuses_min_time_above_max_time():
    with pytest.raises(ValueError, match="need 0 <= min_time_s <= max_time_s"):
        StoppingRule(min_time_s=2.0, max_time_s=1.0)


def test_measurement_to_dict_has_the_clocks():
    m = Measurement.of("graph", Samples.of([1.0, 2.0]), sm_clock_mhz=(1500.0, None))
    d = m.to_dict()
    assert d["sm_clock_mhz"] == [1500.0, None]
    assert set(d) >= {"samples_us", "sm_clock_mhz", "median_us"}
    assert d["median_us"] == 1.5


def test_graph_floor_note_only_for_sub_2us_calls_well_above_their_kernels():
    assert graph_floor_note(1.03, 0.86).kind == "warning"
    assert graph_floor_note(1.03, 0.86).text == (
        "graph: 1.03 µs per call is 20% above the kernels' own 860 ns: below ~2 µs a CUDA-graph node's own cost "
        "shows (~1.1 µs per node on an H200); 'kernel' is the device time of the kernels, 'graph' the cost of "
        "the call inside a graph")
    assert graph_floor_note(1.03, 0.98) is None  # within 10%
    assert graph_floor_note(12.4, 9.8) is None  # long enough for the node cost not to matter
    assert graph_floor_note(1.03, None) is None
    g = Measurement.of("graph", Samples.of([1.03] * 10))
    k = Measurement.of("kernel", Samples.of([0.86] * 10))
    assert stability_notes({"graph": g, "kernel": k}, None)[-1].text.startswith("graph: 1.03 µs per call is 20% above")
