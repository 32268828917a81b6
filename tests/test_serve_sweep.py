"""The sweep searches (``--sweep auto``, ``--slo``) on load points whose latency the test sets as a
function of the request rate: the search logic is what is checked (the points are real ServePoints
computed by serve_metrics from request records, not stand-ins for a server's numbers)."""

from __future__ import annotations

import math

import pytest

from bench_kernel.errors import UsageError
from bench_kernel.serve import (
    Load,
    RequestRecord,
    ServePoint,
    auto_sweep,
    build_point,
    serve_metrics,
    slo_search,
    sweep_loads,
)


def _point(load: Load, ttft_ms: float, served_rps: float, n: int = 20, targets=None,
           sent_rps: float | None = None) -> ServePoint:
    """n requests sent at ``sent_rps`` (default: ``served_rps``), each taking ``ttft_ms`` + 10 ms, and
    completed no faster than ``served_rps``: a server that keeps up when sent_rps <= served_rps."""
    given = sent_rps
    sent_rps = sent_rps or served_rps
    recs, last_done = [], -math.inf
    for i in range(n):
        sent = i / sent_rps
        done = max(sent + ttft_ms / 1e3 + 0.01, last_done + 1 / served_rps)
        last_done = done
        recs.append(RequestRecord(i, "ok", None, sent, sent, sent, done, (done - 0.01, done), (1, 1), None, 2,
                                  "usage", 4, "usage"))
    # the run lasts n / served_rps (requests_per_s = served_rps); with a send rate of its own, until
    # the last request ends if that is later
    duration = n / served_rps if given is None else max(last_done, n / served_rps)
    return build_point(load, serve_metrics(recs, duration, goodput_ms=targets), recs)


def test_auto_sweep_order_spacing_and_stop_past_saturation():
    # The server completes at most 10 req/s; one at a time, 2 req/s.
    asked: list[Load] = []

    def run(load: Load) -> ServePoint:
        asked.append(load)
        if load.max_concurrency == 1:
            return _point(load, 50, 2.0)
        served = 10.0 if math.isinf(load.rate_rps) else min(load.request_rate, 10.0 * 0.95)
        return _point(load, 50, served, sent_rps=None if math.isinf(load.rate_rps) else load.request_rate)

    notes: list[str] = []
    pts = auto_sweep(Load(), run, points=4, notes=notes)
    assert asked[0].max_concurrency == 1 and math.isinf(asked[1].rate_rps)
    rates = [a.request_rate for a in asked[2:]]
    # evenly spaced between 2 and 10 req/s: 3.6, 5.2, 6.8, 8.4 -- and 8.4 is served in full (9.5 cap),
    # so no stop; lower the cap to see the stop
    assert rates == pytest.approx([3.6, 5.2, 6.8, 8.4]) and len(pts) == 6 and notes == []

    def run_cap(load: Load) -> ServePoint:
        if load.max_concurrency == 1:
            return _point(load, 50, 2.0)
        if math.isinf(load.rate_rps):
            return _point(load, 50, 10.0)
        return _point(load, 50, min(load.request_rate, 5.5), sent_rps=load.request_rate)

    notes = []
    pts = auto_sweep(Load(), run_cap, points=4, notes=notes)
    assert [p.load.request_rate for p in pts[2:]] == pytest.approx([3.6, 5.2, 6.8])  # 6.8 sent, 5.5 served: stop
    assert "past saturation at 6.8 req/s asked (sent at 6.8 req/s, completed at 5.5" in str(notes[0]) and notes[0].code == "sweep-saturated"


def test_a_short_poisson_run_that_keeps_up_is_not_saturated():
    from bench_kernel.serve import saturation

    # The H200's auto sweep: 12 requests asked at 2.62 req/s went out at 1.65 req/s (a short Poisson
    # draw) and completed as fast as they came: comparing with the asked rate called it saturated.
    p = _point(Load(request_rate=2.62), 120, served_rps=5.0, n=12, sent_rps=1.65)
    behind, evidence = saturation(p)
    assert not behind and evidence.startswith("sent at 1.65 req/s")
    assert p.throughput.requests_per_s < 0.9 * 2.62  # what the old rule compared, and wrongly stopped on
    assert saturation(_point(Load(request_rate=8.0), 100, served_rps=4.8, n=48, sent_rps=7.3))[0]


def test_slo_search_bisects_to_the_highest_rate_that_meets_the_targets():
    targets = {"ttft_ms": 200.0}

    def run(load: Load) -> ServePoint:
        if load.max_concurrency == 1:
            return _point(load, 50, 1.0, targets=targets)
        rate = 9.0 if math.isinf(load.rate_rps) else load.request_rate
        # TTFT grows with the rate: 39 ms per req/s, so the 200 ms target holds up to 5.13 req/s
        return _point(load, 39 * rate, min(rate, 9.0), targets=targets)

    notes: list[str] = []
    pts, best = slo_search(Load(), run, targets, ratio=0.9, steps=5, notes=notes)
    tried = [p.load.request_rate for p in pts[2:]]
    assert tried == pytest.approx([5.0, 7.0, 6.0, 5.5, 5.25])  # bisection between 1 and 9 req/s
    assert best == pytest.approx(5.0)
    with pytest.raises(UsageError, match="--slo needs targets"):
        slo_search(Load(), run, {})


def test_a_list_sweeps_one_thing():
    assert [x.request_rate for x in sweep_loads(Load(), [1.0, 2.0], [None])] == [1.0, 2.0]
    assert [x.max_concurrency for x in sweep_loads(Load(), [math.inf], [1, 8])] == [1, 8]
    with pytest.raises(UsageError, match="one thing at a time"):
        sweep_loads(Load(), [1.0, 2.0], [1, 8])
