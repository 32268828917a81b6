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
from typing import Annotated, Any, Literal, Sequence

import msgspec

from bench_kernel.results import t_quantile

__all__ = ["RepeatStat", "Repeats", "repeat_summary", "REPEAT_METRICS", "SUMMARY_CONFIDENCE", "load_key"]

#: The level of the interval shown per metric across runs (compare's verdicts use 99%, as kernels').
SUMMARY_CONFIDENCE = 0.95
#: What is summarised across runs: (name, where in a point's JSON, unit).
REPEAT_METRICS: tuple[tuple[str, tuple[str, ...], str], ...] = tuple(
    [(f"{m}.{s}", ("metrics", m, s), "ms") for m in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms") for s in
     ("p50", "p99", "mean")]
    + [("requests_per_s", ("throughput", "requests_per_s"), "req/s"),
       ("output_tokens_per_s", ("throughput", "output_tokens_per_s"), "tokens/s"),
       ("goodput_per_s", ("goodput", "requests_per_s"), "req/s")])


class RepeatStat(msgspec.Struct, frozen=True, kw_only=True):
    """One metric of one load across its runs."""

    metric: Annotated[str, msgspec.Meta(description="ttft_ms.p50, itl_ms.p99, output_tokens_per_s, ...")]
    unit: Annotated[Literal["ms", "req/s", "tokens/s"], msgspec.Meta(description="the unit of every number here")]
    values: Annotated[tuple[float, ...], msgspec.Meta(description="one per complete run, in run order")]
    mean: Annotated[float, msgspec.Meta(
        description="their geometric mean (the centre of the interval; the arithmetic mean where a value is 0)")]
    ci_low: Annotated[float | None, msgspec.Meta(
        description="the t-interval of the mean of the values' logs, back on their scale, so never below 0 "
                    "(None with one run)")]
    ci_high: Annotated[float | None, msgspec.Meta(description="its upper end")]
    rel_half_width: Annotated[float | None, msgspec.Meta(
        description="the interval's relative half-width, sqrt(ci_high / ci_low) - 1: 0.03 is about +/-3%")]


class Repeats(msgspec.Struct, frozen=True, kw_only=True):
    """One load point over its runs."""

    load: Annotated[dict[str, Any], msgspec.Meta(description="the load (as each point's 'load')")]
    runs: Annotated[int, msgspec.Meta(description="runs of this load")]
    complete_runs: Annotated[int, msgspec.Meta(description="of them, the runs that ran to their end")]
    confidence: Annotated[float, msgspec.Meta(description="the intervals' level")]
    stats: Annotated[tuple[RepeatStat, ...], msgspec.Meta(description="per metric")]


def load_key(point: dict[str, Any]) -> str:
    """What matches a point to the runs of the same load, in one run and across two (compare)."""
    return json.dumps(point.get("load") or {}, sort_keys=True)


def _get(d: dict[str, Any], path: Sequence[str]) -> float | None:
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)  # type: ignore[assignment]
    return float(d) if isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d) else None


def _stat(name: str, unit: str, values: list[float]) -> RepeatStat:
    # Times and rates are positive and spread multiplicatively: a t-interval of the values themselves
    # gave three TTFTs of 161, 143 and 48 ms (a server still warming up) the interval -33 to 268 ms.
    # On their logs the interval stays positive and is symmetric in ratio, as compare's rounds are.
    if len(values) < 2 or min(values) <= 0:
        return RepeatStat(metric=name, unit=unit, values=tuple(values), mean=statistics.fmean(values),  # type: ignore[arg-type]
                          ci_low=None, ci_high=None, rel_half_width=None)
    logs = [math.log(v) for v in values]
    centre = statistics.fmean(logs)
    half = t_quantile(SUMMARY_CONFIDENCE, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return RepeatStat(metric=name, unit=unit, values=tuple(values), mean=math.exp(centre),  # type: ignore[arg-type]
                      ci_low=math.exp(centre - half), ci_high=math.exp(centre + half), rel_half_width=math.expm1(half))


def repeat_summary(points: Sequence[dict[str, Any]]) -> tuple[Repeats, ...]:
    """Per load with more than one run among ``points`` (``ServePoint.to_dict()``s), in first-run order."""
    by: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        by.setdefault(load_key(p), []).append(p)
    out = []
    for runs in by.values():
        if len(runs) < 2:
            continue
        done = [p for p in runs if p.get("status", "complete") == "complete"]
        stats = []
        for name, path, unit in REPEAT_METRICS:
            vals = [v for p in done if (v := _get(p, path)) is not None]
            if vals:
                stats.append(_stat(name, unit, vals))
        out.append(Repeats(load=runs[0].get("load") or {}, runs=len(runs), complete_runs=len(done),
                           confidence=SUMMARY_CONFIDENCE, stats=tuple(stats)))
    return tuple(out)
