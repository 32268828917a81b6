"""``--num-runs K``: each load point run K times, and what the runs agree on.

Requests within one run share its moment: the server's state, the machine's other load, the
clock a capped GPU settled at. So the spread between runs, not between requests, is what a
second run of the same benchmark would show. Per load and metric, each run gives one value (a
latency's p50, p99 and mean over its requests; a throughput), and across the K runs: their mean
and a t-interval of it, ``mean -/+ t(0.975, K - 1) * sd / sqrt(K)`` (sd with K - 1), the
half-width relative to the mean beside it. A run cut short is left out (the note says so).
"""

from __future__ import annotations

import json
import math
import statistics
from typing import Any, Callable, Literal, Sequence

from bench_kernel.records import Repeats, RepeatStat, ServePoint
from bench_kernel.results import t_quantile

__all__ = ["repeat_summary", "REPEAT_METRICS", "SUMMARY_CONFIDENCE", "load_key"]

#: The level of the interval shown per metric across runs (compare's verdicts use 99%, as kernels').
SUMMARY_CONFIDENCE = 0.95
Unit = Literal["ms", "req/s", "tokens/s"]


def _latency(metric: str, stat: str) -> Callable[[ServePoint], float | None]:
    def get(p: ServePoint) -> float | None:
        s = p.metrics.get(metric)
        return None if s is None else {"p50": s.p50, "p99": s.p99, "mean": s.mean}[stat]
    return get


#: What is summarised across runs: (name, its value in a point, unit).
REPEAT_METRICS: tuple[tuple[str, Callable[[ServePoint], float | None], Unit], ...] = tuple(
    [(f"{m}.{s}", _latency(m, s), "ms") for m in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms") for s in
     ("p50", "p99", "mean")]
    + [("requests_per_s", lambda p: p.throughput.requests_per_s, "req/s"),
       ("output_tokens_per_s", lambda p: p.throughput.output_tokens_per_s, "tokens/s"),
       ("goodput_per_s", lambda p: p.goodput.requests_per_s, "req/s")])


def load_key(point: dict[str, Any]) -> str:
    """What matches a point to the runs of the same load, in one run and across two (compare)."""
    return json.dumps(point.get("load") or {}, sort_keys=True)


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _stat(name: str, unit: Unit, values: list[float]) -> RepeatStat:
    # Times and rates are positive and spread multiplicatively: a t-interval of the values themselves
    # gave three TTFTs of 161, 143 and 48 ms (a server still warming up) the interval -33 to 268 ms.
    # On their logs the interval stays positive and is symmetric in ratio, as compare's rounds are.
    if len(values) < 2 or min(values) <= 0:
        return RepeatStat(metric=name, unit=unit, values=tuple(values), mean=statistics.fmean(values),
                          ci_low=None, ci_high=None, rel_half_width=None)
    logs = [math.log(v) for v in values]
    centre = statistics.fmean(logs)
    half = t_quantile(SUMMARY_CONFIDENCE, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return RepeatStat(metric=name, unit=unit, values=tuple(values), mean=math.exp(centre),
                      ci_low=math.exp(centre - half), ci_high=math.exp(centre + half), rel_half_width=math.expm1(half))


def repeat_summary(points: Sequence[ServePoint]) -> tuple[Repeats, ...]:
    """Per load with more than one run among ``points``, in first-run order."""
    by: dict[str, list[ServePoint]] = {}
    for p in points:
        by.setdefault(load_key({"load": p.load.to_dict()}), []).append(p)
    out = []
    for runs in by.values():
        if len(runs) < 2:
            continue
        done = [p for p in runs if p.status == "complete"]
        stats = []
        for name, get, unit in REPEAT_METRICS:
            vals = [v for p in done if (v := _finite(get(p))) is not None]
            if vals:
                stats.append(_stat(name, unit, vals))
        out.append(Repeats(load=runs[0].load, runs=len(runs), complete_runs=len(done),
                           confidence=SUMMARY_CONFIDENCE, stats=tuple(stats)))
    return tuple(out)
