"""Sweeps: a list of loads, ``--sweep auto`` and ``--slo``.

``auto`` is guidellm's sweep (its ``sweep`` profile): a synchronous point first (one request at a
time: the server's best latency and its throughput for one user), then a throughput point (every
request at once: the most it completes per second), then ``points`` request rates evenly spaced
between the two. It stops past saturation: a point whose completed requests per second fall short
of the rate asked by more than :data:`SATURATED` is the last (the queue grows, and every higher
rate only measures the queue).

``slo`` bisects the request rate between the synchronous and the throughput points for the highest
rate at which at least ``attainment`` of the requests meet every ``--goodput`` target (DistServe's
"SLO attainment", 90% by default there and here).
"""

from __future__ import annotations

import math
from typing import Callable

from bench_kernel.errors import UsageError
from bench_kernel.records import Load, Note, ServePoint, info, warning

__all__ = ["auto_sweep", "slo_search", "sweep_loads", "attainment", "saturation", "SATURATED"]

#: A point is saturated when it completes fewer than (1 - SATURATED) x the requests per second sent.
SATURATED = 0.10

RunPoint = Callable[[Load], ServePoint]


def sweep_loads(base: Load, rates: list[float] | None, concurrencies: list[int | None] | None) -> list[Load]:
    """One load per listed rate or concurrency (one list at most), the other settings from ``base``."""
    if rates and concurrencies and len(rates) > 1 and len(concurrencies) > 1:
        raise UsageError("sweep one thing at a time: a list of --request-rate or of --max-concurrency, not both")
    if rates and len(rates) > 1:
        return [base.replace(request_rate=r) for r in rates]
    if concurrencies and len(concurrencies) > 1:
        return [base.replace(max_concurrency=c) for c in concurrencies]
    return [base]


def saturation(p: ServePoint) -> tuple[bool, str]:
    """Whether the server fell behind the requests sent to it, and the evidence (req/s).

    Saturated when completions (over their own span, or over the run less its shortest request)
    run more than :data:`SATURATED` below the rate the requests were actually sent at. Fewer than 3
    completed requests, or requests sent all at once, are not judged."""
    ok = sorted((r.sent_s, r.e2el_ms) for r in p.records if r.ok and r.sent_s is not None and r.e2el_ms is not None)
    if len(ok) < 3:
        return False, "too few completed requests to judge"
    sent = [s for s, _ in ok]
    done = sorted(s + e2el / 1e3 for s, e2el in ok)
    if sent[-1] - sent[0] <= 0:
        return False, "every request was sent at once"
    sent_rps = (len(ok) - 1) / (sent[-1] - sent[0])
    span_rps = (len(ok) - 1) / (done[-1] - done[0]) if done[-1] > done[0] else math.inf
    tail = p.duration_s - min(e2el for _, e2el in ok) / 1e3
    run_rps = len(ok) / tail if tail > 0 else math.inf
    served = min(span_rps, run_rps)
    return served < (1 - SATURATED) * sent_rps, f"sent at {sent_rps:.3g} req/s, completed at {served:.3g} req/s"


def _stop(points: list[ServePoint]) -> bool:
    return points[-1].aborted is not None


def auto_sweep(base: Load, run: RunPoint, points: int = 5, notes: list[Note] | None = None) -> list[ServePoint]:
    """Synchronous, throughput, then ``points`` rates between; stops past saturation or on an abort."""
    notes = notes if notes is not None else []
    sync = run(base.replace(request_rate=math.inf, max_concurrency=1))
    out = [sync]
    if _stop(out):
        return out
    top = run(base.replace(request_rate=math.inf))
    out.append(top)
    if _stop(out):
        return out
    lo, hi = sync.throughput.requests_per_s or 0.0, top.throughput.requests_per_s or 0.0
    if not (hi > lo > 0):
        notes.append(info("sweep-one-at-a-time", f"auto sweep: the throughput point ({hi:.3g} req/s) is not above the "
                          f"synchronous one ({lo:.3g} req/s): the server serves one request at a time, so no rate "
                          f"lies between", sync_rps=lo, throughput_rps=hi))
        return out
    for j in range(1, points + 1):
        rate = lo + (hi - lo) * j / (points + 1)
        p = run(base.replace(request_rate=rate))
        out.append(p)
        if _stop(out):
            break
        behind, evidence = saturation(p)
        if behind:
            notes.append(info("sweep-saturated", f"auto sweep: stopped past saturation at {rate:.3g} req/s asked "
                              f"({evidence})", request_rate=rate))
            break
    return out


def attainment(p: ServePoint) -> float:
    """The fraction of the point's requests (failed ones included) that met every goodput target."""
    total = p.requests.completed + p.requests.failed
    return (p.goodput.good_requests or 0) / total if total else 0.0


def slo_search(base: Load, run: RunPoint, targets_ms: dict[str, float], ratio: float = 0.9, steps: int = 4,
               notes: list[Note] | None = None) -> tuple[list[ServePoint], float | None]:
    """The highest request rate whose SLO attainment is at least ``ratio``; returns every point
    measured on the way and that rate (None when even one request at a time misses it)."""
    if not targets_ms:
        raise UsageError("--slo needs targets: --goodput ttft:MS tpot:MS e2el:MS")
    notes = notes if notes is not None else []
    sync = run(base.replace(request_rate=math.inf, max_concurrency=1))
    out = [sync]
    if _stop(out):
        return out, None
    if attainment(sync) < ratio:
        notes.append(warning("slo-unmet", f"slo: even one request at a time meets the targets for only "
                             f"{attainment(sync):.0%} of requests", attainment=attainment(sync)))
        return out, None
    top = run(base.replace(request_rate=math.inf))
    out.append(top)
    if _stop(out):
        return out, None
    lo, hi = sync.throughput.requests_per_s or 0.0, top.throughput.requests_per_s or 0.0
    if attainment(top) >= ratio:
        notes.append(info("slo-always-met", "slo: the targets hold even with every request sent at once"))
        return out, hi
    best = lo
    for _ in range(steps):
        mid = (lo + hi) / 2
        p = run(base.replace(request_rate=mid))
        out.append(p)
        if _stop(out):
            break
        if attainment(p) >= ratio:
            best, lo = mid, mid
        else:
            hi = mid
    return out, best
