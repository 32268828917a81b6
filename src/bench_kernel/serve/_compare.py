"""``compare A B`` on two serving runs: per load point and latency metric, B/A with a bootstrap CI
over the per-request samples, by ``bench_kernel.results.compare_samples`` (each request is a trial
of its own: ratio of medians, percentile bootstrap, fixed seed, ``--threshold``).

Samples per metric: TTFT, TTFVO, TPOT and E2E one per completed request; ITL and ICL every gap
of every completed request. Points are matched by their load (rate, burstiness, concurrency,
duration); a point of one side without a match on the other is listed with the reason. A
``slower`` verdict on any latency is a regression (higher latency is worse for every metric here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bench_kernel.results import Comparison, compare_samples
from bench_kernel.serve._records import RequestRecord

__all__ = ["COMPARED", "ServeComparisonRow", "ServeComparison", "compare_serve", "metric_samples"]

COMPARED = ("ttft_ms", "ttfvo_ms", "tpot_ms", "itl_ms", "icl_ms", "e2el_ms")


def metric_samples(point: dict[str, Any]) -> dict[str, list[float]]:
    """Per metric, the samples of one stored point (``ServePoint.to_dict()`` with its records)."""
    recs = [RequestRecord.from_dict(r) for r in (point.get("requests") or {}).get("records") or ()]
    ok = [r for r in recs if r.ok]
    out: dict[str, list[float]] = {}
    for m in ("ttft_ms", "ttfvo_ms", "tpot_ms", "e2el_ms"):
        out[m] = [v for r in ok if (v := getattr(r, m)) is not None]
    out["icl_ms"] = [g for r in ok for g in r.icl_ms]
    out["itl_ms"] = [g for r in ok if r.itl_ms is not None for g in r.itl_ms]
    return out


def _key(point: dict[str, Any]) -> str:
    return json.dumps(point.get("load") or {}, sort_keys=True)


@dataclass(frozen=True)
class ServeComparisonRow:
    load: dict[str, Any]
    metric: str
    comparison: Comparison

    def to_dict(self) -> dict[str, Any]:
        c = self.comparison
        return {"load": self.load, "metric": self.metric, "a_median_ms": c.a_us, "b_median_ms": c.b_us,
                "ratio": c.ratio, "ci95_low": c.ci_low, "ci95_high": c.ci_high, "verdict": c.verdict,
                "a_n": c.a_n, "b_n": c.b_n}


@dataclass(frozen=True)
class ServeComparison:
    a_label: str
    b_label: str
    rows: tuple[ServeComparisonRow, ...]
    #: (load, why) for points or metrics that could not be compared
    unmatched: tuple[tuple[str, str], ...]

    @property
    def regressions(self) -> list[ServeComparisonRow]:
        return [r for r in self.rows if r.comparison.verdict == "slower"]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "serve", "a": self.a_label, "b": self.b_label, "rows": [r.to_dict() for r in self.rows],
                "unmatched": [{"load": k, "reason": w} for k, w in self.unmatched],
                "regressions": len(self.regressions)}


def compare_serve(a_points: list[dict[str, Any]], b_points: list[dict[str, Any]], *, threshold: float,
                  a_label: str = "A", b_label: str = "B") -> ServeComparison:
    """Compare every latency metric of every load point the two runs share."""
    b_by = {_key(p): p for p in b_points}
    rows: list[ServeComparisonRow] = []
    unmatched: list[tuple[str, str]] = []
    for pa in a_points:
        k = _key(pa)
        pb = b_by.pop(k, None)
        if pb is None:
            unmatched.append((k, f"only in {a_label}"))
            continue
        sa, sb = metric_samples(pa), metric_samples(pb)
        for m in COMPARED:
            if not sa[m] or not sb[m]:
                unmatched.append((k, f"{m}: no samples in {a_label if not sa[m] else b_label}"))
                continue
            rows.append(ServeComparisonRow(pa.get("load") or {}, m, compare_samples(sa[m], sb[m], threshold)))
    unmatched += [(k, f"only in {b_label}") for k in b_by]
    return ServeComparison(a_label, b_label, tuple(rows), tuple(unmatched))
