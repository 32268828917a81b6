"""``compare A B`` on two serving runs: per load point and latency metric, B/A with its interval and
a verdict.

The interval. With ``--num-runs`` on at least one side (two runs of a load in all, df >= 1), the
spread between runs is used, as kernels use rounds: each run's p50 of the metric is one value, and
the interval of B/A is the t-interval of the log values with their pooled SD at 99%
(``results``' ``noise_from_rounds`` and ``t_quantile``; ``results/_noise.py`` says why 99% and logs).
With one run a side it falls back to a bootstrap of the ratio of medians over the requests
(``results.compare_samples``, 95%): requests of one run share its moment, so that interval is blind
to what moves between runs, and the row says so.

The verdict, for the ratio r, its interval [lo, hi] and threshold t: ``results.verdict``, the one
rule of every comparison (``results/_verdict.py``):
  ``slower``        lo > 1 and r > 1 + t;   ``faster``  hi < 1 and r < 1 / (1 + t);
  ``same``          the whole interval within [1 / (1 + t), 1 + t]: no change beyond t is possible;
  ``inconclusive``  anything else (too few samples, an interval wider than the threshold).
A ``slower`` latency is a regression (higher is worse for every metric here).

Units: the stored values are milliseconds and the row says so (``unit``); what is printed is what
is stored. Samples per metric: TTFT, TTFVO, TPOT and E2E one per completed request; ITL and ICL
every gap of every completed request. Points are matched by their load (rate, burstiness,
concurrency, duration, ramp); a load of one side without a match on the other is listed with the reason.
"""

from __future__ import annotations

import math
import statistics
from typing import Annotated, Any, Literal

import msgspec

from bench_kernel.records import RequestRecord, Verdict, from_builtins
from bench_kernel.results import CONFIDENCE, compare_samples, noise_from_rounds, t_quantile, verdict
from bench_kernel.serve._repeats import load_key

__all__ = ["COMPARED", "ServeComparisonRow", "ServeComparison", "compare_serve", "metric_samples", "verdict"]

COMPARED = ("ttft_ms", "ttfvo_ms", "tpot_ms", "itl_ms", "icl_ms", "e2el_ms")


def metric_samples(point: dict[str, Any]) -> dict[str, list[float]]:
    """Per metric, the samples of one stored point (``ServePoint.to_dict()`` with its records), ms."""
    recs = [from_builtins(r, RequestRecord) for r in (point.get("requests") or {}).get("records") or ()]
    ok = [r for r in recs if r.ok]
    out: dict[str, list[float]] = {}
    for m in ("ttft_ms", "ttfvo_ms", "tpot_ms", "e2el_ms"):
        out[m] = [v for r in ok if (v := getattr(r, m)) is not None]
    out["icl_ms"] = [g for r in ok for g in r.icl_ms]
    out["itl_ms"] = [g for r in ok if r.itl_ms is not None for g in r.itl_ms]
    return out


class ServeComparisonRow(msgspec.Struct, frozen=True, kw_only=True):
    """B against A for one metric at one load."""

    load: Annotated[dict[str, Any], msgspec.Meta(description="the load both sides ran")]
    metric: Annotated[str, msgspec.Meta(description="ttft_ms, ttfvo_ms, tpot_ms, itl_ms, icl_ms or e2el_ms")]
    unit: Annotated[Literal["ms"], msgspec.Meta(description="the unit of a and b, as stored and as printed")]
    statistic: Annotated[Literal["median of runs' p50", "median of requests"], msgspec.Meta(
        description="what a and b are: the median over runs of each run's p50, or the median over the requests")]
    a: Annotated[float, msgspec.Meta(description="A's value, in unit")]
    b: Annotated[float, msgspec.Meta(description="B's value, in unit")]
    ratio: Annotated[float, msgspec.Meta(description="B / A (above 1: B slower)")]
    ci_low: Annotated[float | None, msgspec.Meta(description="the interval of the ratio; None when there is none")]
    ci_high: Annotated[float | None, msgspec.Meta(description="its upper end")]
    confidence: Annotated[float, msgspec.Meta(description="the interval's level")]
    method: Annotated[Literal["between runs", "bootstrap over requests"], msgspec.Meta(
        description="between runs: a t-interval of the runs' log p50s (pooled SD); bootstrap: of the ratio of "
                    "medians over one run's requests, blind to run-to-run noise")]
    a_runs: Annotated[int, msgspec.Meta(description="complete runs of this load on A")]
    b_runs: Annotated[int, msgspec.Meta(description="on B")]
    a_n: Annotated[int, msgspec.Meta(description="samples (requests or gaps) on A, all runs")]
    b_n: Annotated[int, msgspec.Meta(description="on B")]
    threshold: Annotated[float, msgspec.Meta(description="a change below this fraction is not a change")]
    verdict: Annotated[Verdict, msgspec.Meta(description="faster, slower, same (shown within the threshold) or "
                                                         "inconclusive")]
    note: Annotated[str | None, msgspec.Meta(description="what limits the verdict")] = None

    def describe(self) -> str:
        """One line: both values in their unit, the ratio, its interval and how it was made."""
        ci = ("no interval" if self.ci_low is None else
              f"{self.confidence:.0%} CI {self.ci_low:.3f}-{self.ci_high:.3f} {self.method}")
        return (f"{self.verdict}: B {self.b:.4g} {self.unit} vs A {self.a:.4g} {self.unit} ({self.statistic}), "
                f"ratio {self.ratio:.3f} ({ci}; {self.a_runs}+{self.b_runs} runs; threshold {self.threshold:.0%})"
                + (f"; {self.note}" if self.note else ""))


class ServeComparison(msgspec.Struct, frozen=True, kw_only=True):
    """Two serving runs compared."""

    a_label: Annotated[str, msgspec.Meta(description="A: the reference")]
    b_label: Annotated[str, msgspec.Meta(description="B")]
    rows: Annotated[tuple[ServeComparisonRow, ...], msgspec.Meta(description="per load and metric")]
    unmatched: Annotated[tuple[tuple[str, str], ...], msgspec.Meta(
        description="(load, why) for loads or metrics that could not be compared")]

    @property
    def regressions(self) -> list[ServeComparisonRow]:
        return [r for r in self.rows if r.verdict == "slower"]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "serve", "a": self.a_label, "b": self.b_label,
                "rows": [msgspec.to_builtins(r) for r in self.rows],
                "unmatched": [{"load": k, "reason": w} for k, w in self.unmatched],
                "regressions": len(self.regressions)}


def _p50s(points: list[dict[str, Any]], metric: str) -> list[float]:
    out = []
    for p in points:
        v = ((p.get("metrics") or {}).get(metric) or {}).get("p50")
        if isinstance(v, (int, float)) and v > 0 and math.isfinite(v):
            out.append(float(v))
    return out


def _row(load: dict[str, Any], metric: str, pa: list[dict[str, Any]], pb: list[dict[str, Any]],
         threshold: float) -> ServeComparisonRow | str:
    sa = [x for p in pa for x in metric_samples(p)[metric]]
    sb = [x for p in pb for x in metric_samples(p)[metric]]
    ra, rb = _p50s(pa, metric), _p50s(pb, metric)
    base = dict(load=load, metric=metric, unit="ms", a_runs=len(pa), b_runs=len(pb), a_n=len(sa), b_n=len(sb),
                threshold=threshold)
    lo: float | None
    hi: float | None
    noise = noise_from_rounds(ra, rb) if ra and rb and len(ra) == len(pa) and len(rb) == len(pb) else None
    if noise is not None:
        d = statistics.fmean(math.log(x) for x in rb) - statistics.fmean(math.log(x) for x in ra)
        half = t_quantile(CONFIDENCE, noise.df) * noise.sd_log * math.sqrt(1 / len(ra) + 1 / len(rb))
        r, lo, hi = math.exp(d), math.exp(d - half), math.exp(d + half)
        return ServeComparisonRow(**base, statistic="median of runs' p50", a=statistics.median(ra),  # type: ignore[arg-type]
                                  b=statistics.median(rb), ratio=r, ci_low=lo, ci_high=hi, confidence=CONFIDENCE,
                                  method="between runs", verdict=verdict(r, lo, hi, threshold))
    # A gap of 0 ms is two chunks read in one network read: real, but the ratio of medians needs times
    # above 0, so such gaps are left out of the bootstrap (and the row says how many).
    zeros = sum(x <= 0 for x in sa) + sum(x <= 0 for x in sb)
    sa, sb = [x for x in sa if x > 0], [x for x in sb if x > 0]
    if not sa or not sb:
        return "A" if not sa else "B"  # the side without samples
    c = compare_samples(sa, sb, threshold)
    lo, hi = c.ci_low, c.ci_high
    note = ("one run a side: the interval is over the requests of one run, blind to run-to-run noise "
            "(--num-runs K on both sides gives the spread between runs)")
    if c.note:
        note = f"{c.note}; {note}"
    if zeros:
        note = f"{zeros} gaps of 0 ms (chunks of one network read) left out; {note}"
    return ServeComparisonRow(**base, statistic="median of requests", a=c.a_us, b=c.b_us, ratio=c.ratio,  # type: ignore[arg-type]
                              ci_low=lo, ci_high=hi, confidence=c.confidence, method="bootstrap over requests",
                              verdict=verdict(c.ratio, lo, hi, threshold), note=note)


def compare_serve(a_points: list[dict[str, Any]], b_points: list[dict[str, Any]], *, threshold: float,
                  a_label: str = "A", b_label: str = "B") -> ServeComparison:
    """Compare every latency metric of every load the two runs share (their runs of it taken together)."""
    def group(points: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for p in points:
            if p.get("status", "complete") == "complete":
                out.setdefault(load_key(p), []).append(p)
        return out

    ga, gb = group(a_points), group(b_points)
    rows: list[ServeComparisonRow] = []
    unmatched: list[tuple[str, str]] = []
    for k, pa in ga.items():
        pb = gb.pop(k, None)
        if pb is None:
            unmatched.append((k, f"only in {a_label}"))
            continue
        for m in COMPARED:
            row = _row(pa[0].get("load") or {}, m, pa, pb, threshold)
            if isinstance(row, str):
                unmatched.append((k, f"{m}: no samples in {a_label if row == 'A' else b_label}"))
            else:
                rows.append(row)
    unmatched += [(k, f"only in {b_label}") for k in gb]
    skipped = len([p for p in a_points + b_points if p.get("status", "complete") != "complete"])
    if skipped:
        unmatched.append(("-", f"{skipped} partial point(s) left out: a run cut short is not a sample of the load"))
    return ServeComparison(a_label=a_label, b_label=b_label, rows=tuple(rows), unmatched=tuple(unmatched))
