"""The device warm-up's rule, without a GPU: once per process, again only when the clock fell back
(or, with no clock to read, after a long idle); the settle rule; what the record says."""

from __future__ import annotations

import pytest

from bench_kernel.measure import _warmup
from bench_kernel.measure._warmup import (
    FALLEN_FRACTION,
    IDLE_REHOLD_S,
    _Seen,
    clock_settled,
    ensure_warm,
    warmup_decision,
)


def test_the_clock_settles_on_three_agreeing_readings_not_on_the_load_s_time():
    # On the H200 the launch-bound load's per-call time wandered 13-19 us at a constant 1980 MHz:
    # the clock alone decides.
    assert clock_settled([345.0, 1980.0, 1980.0, 1965.0])
    assert not clock_settled([1980.0, 1980.0])  # too few readings
    assert not clock_settled([1500.0, 1700.0, 1980.0])  # still climbing
    assert not clock_settled([1980.0, None, 1980.0])  # an unreadable window


def test_the_decision_holds_once_then_only_where_the_clock_fell():
    hold, why = warmup_decision(None, 1980.0, True, 0.0)
    assert hold and "first measurement" in why
    seen = _Seen(working_mhz=1980.0, busy_at=0.0)
    hold, why = warmup_decision(seen, 1980.0, True, 500.0)  # a long idle, but the clock held: no hold
    assert not hold and "1980 MHz" in why
    assert not warmup_decision(seen, 1980.0 * FALLEN_FRACTION, True, 1.0)[0]  # at the edge: kept
    hold, why = warmup_decision(seen, 345.0, True, 1.0)
    assert hold and "fell to 345 MHz" in why
    assert warmup_decision(seen, 1515.0, True, 1.0)[0]  # a power-capped device left by the last case


def test_without_a_clock_the_idle_time_decides():
    seen = _Seen(working_mhz=None, busy_at=100.0)
    assert not warmup_decision(seen, None, False, 100.0 + IDLE_REHOLD_S - 1)[0]
    hold, why = warmup_decision(seen, None, False, 100.0 + IDLE_REHOLD_S + 1)
    assert hold and "idled" in why
    # a reader that reads nothing is no reader
    assert not warmup_decision(_Seen(working_mhz=1980.0, busy_at=100.0), None, True, 101.0)[0]


@pytest.fixture
def fake_device(monkeypatch):
    """ensure_warm with a scripted clock and a hold that records its calls instead of running GEMMs."""
    clock = {"mhz": 345.0}
    holds = []

    def hold(device_index, read, max_s):
        holds.append(device_index)
        clock["mhz"] = 1980.0
        return {"held_s": 0.15, "settled": True, "windows": 3, "sm_clock_after_mhz": read() if read else None}

    monkeypatch.setattr(_warmup, "_hold", hold)
    monkeypatch.setattr(_warmup, "_SEEN", {})
    monkeypatch.setattr(_warmup, "_max_clock_mhz", lambda i: None)  # no NVML here: the maximum is unknown
    return clock, holds


def test_a_loop_of_measurements_holds_once(fake_device):
    clock, holds = fake_device
    read = lambda: clock["mhz"]  # noqa: E731
    first = ensure_warm(0, read_clock=read)
    assert first["action"] == "held" and first["sm_clock_before_mhz"] == 345.0 and first["sm_clock_after_mhz"] == 1980.0
    later = [ensure_warm(0, read_clock=read) for _ in range(9)]
    assert len(holds) == 1
    assert all(r["action"] == "skipped" and r["held_s"] == 0.0 and r["settled"] is None for r in later)
    clock["mhz"] = 600.0  # the device idled down
    again = ensure_warm(0, read_clock=read)
    assert again["action"] == "held" and "fell to 600 MHz" in again["why"] and len(holds) == 2
    assert ensure_warm(1, read_clock=read)["action"] == "held"  # another device is its own


def test_a_first_measurement_at_the_maximum_clock_does_not_hold(fake_device):
    clock, holds = fake_device
    clock["mhz"] = 1980.0  # a run right after another: the device is at its top clock already
    read = lambda: clock["mhz"]  # noqa: E731
    first = ensure_warm(0, read_clock=read, read_max_clock=lambda i: 1980.0)
    assert first["action"] == "skipped" and "its maximum" in first["why"] and holds == []
    clock["mhz"] = 600.0  # it falls back later: the maximum seen is the working clock to return to
    assert ensure_warm(0, read_clock=read)["action"] == "held" and len(holds) == 1
    clock["mhz"] = 1900.0  # below the maximum on a fresh device: the hold decides
    assert ensure_warm(1, read_clock=read, read_max_clock=lambda i: 1980.0)["action"] == "held"
    hold, _ = warmup_decision(None, 1980.0, True, 0.0, None)  # no maximum known: held as before
    assert hold


def test_warm_up_device_always_holds(fake_device, monkeypatch):
    clock, holds = fake_device
    read = lambda: clock["mhz"]  # noqa: E731
    ensure_warm(0, read_clock=read)
    assert _warmup.warm_up_device(0)["action"] == "held" and len(holds) == 2
    # even where the device reads its maximum clock (a first measurement would skip there)
    monkeypatch.setattr(_warmup, "_max_clock_mhz", lambda i: clock["mhz"])
    monkeypatch.setattr(_warmup, "sm_clock_reader", lambda i: read)
    assert _warmup.warm_up_device(0)["action"] == "held" and len(holds) == 3
