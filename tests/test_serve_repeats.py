"""Across --num-runs: the interval of a positive metric is taken on its logs, so it stays positive."""

from __future__ import annotations

import math

import pytest

from bench_kernel.serve import Load, RequestRecord, ServePoint, build_point, repeat_summary, serve_metrics


def _point(ttft_p50_ms: float, repeat: int) -> ServePoint:
    """A run of one request whose TTFT is ``ttft_p50_ms``: its p50."""
    first = ttft_p50_ms / 1e3
    recs = [RequestRecord(0, "ok", None, 0.0, 0.0, 0.0, first + 0.01, (first, first + 0.01), (1, 1), first, 2, "usage")]
    return build_point(Load(max_concurrency=8), serve_metrics(recs, 1.0), recs, repeat=repeat)


def test_three_trending_runs_get_a_positive_interval_around_their_geometric_mean():
    # The H200's three runs of a prefix workload (a server still warming up): the interval of the
    # values themselves was -33 to 268 ms.
    values = [161.5, 142.7, 48.31]
    [rep] = repeat_summary([_point(v, i) for i, v in enumerate(values)])
    assert rep.load == Load(max_concurrency=8) and (rep.runs, rep.complete_runs) == (3, 3)
    [stat] = [s for s in rep.stats if s.metric == "ttft_ms.p50"]
    geo = math.exp(sum(map(math.log, values)) / 3)
    assert stat.unit == "ms" and stat.values == pytest.approx(tuple(values))
    assert stat.mean == pytest.approx(geo) and 0 < stat.ci_low < geo < stat.ci_high
    # Symmetric in ratio about the centre, and the half-width is that ratio's.
    assert stat.ci_high / geo == pytest.approx(geo / stat.ci_low)
    assert stat.rel_half_width == pytest.approx(math.sqrt(stat.ci_high / stat.ci_low) - 1)


def test_identical_runs_have_a_zero_width_interval_and_one_run_none():
    [rep] = repeat_summary([_point(100.0, i) for i in range(3)])
    [stat] = [s for s in rep.stats if s.metric == "ttft_ms.p50"]
    assert stat.ci_low == pytest.approx(100.0) == stat.ci_high and stat.rel_half_width == pytest.approx(0.0)
    assert repeat_summary([_point(100.0, 0)]) == ()
