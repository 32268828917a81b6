"""The serving metrics, defined exactly (docs/serving.md), from the request records.

Per request (``RequestRecord``): TTFT = send -> first chunk with >= 1 generated token (reasoning
included); TTFVO = send -> first chunk with visible text; E2E = send -> last token chunk;
TPOT = (E2E - TTFT) / (N_out - 1); ICL = gaps between token chunks; ITL = each gap split over the
tokens its chunk carried (needs per-chunk counts).

Over the run (``duration_s`` = the first due time -> the last byte received):
- statistics over completed requests (ITL and ICL: over all their gaps, pooled, as vLLM does):
  mean, std (population, ddof 0), and p50/p90/p95/p99 by linear interpolation (numpy's default);
- throughput: completed requests, output tokens and input + output tokens per second; the peak
  output tokens in any 1 s bucket from the start; mean concurrency = sum of E2E / duration;
- goodput (DistServe, Zhong et al. 2024): requests per second that met every ``--goodput`` target
  (a TPOT target is met vacuously by a request of one token, which has no TPOT);
- the client's own send lateness and event-loop lag (``_drive``): p50/p99/max, and a flag when
  either p99 passes :data:`CLIENT_BOUND_MS`: the latencies then include the client's delay.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from bench_kernel.errors import UsageError
from bench_kernel.records import (
    ClientHealth,
    Goodput,
    LatencyStats,
    Note,
    RequestCounts,
    RequestRecord,
    Tail,
    Throughput,
    info,
    warning,
)

__all__ = ["STAT_KEYS", "LATENCY_METRICS", "GOODPUT_METRICS", "CLIENT_BOUND_MS", "stats", "ServeMetrics",
           "serve_metrics", "parse_goodput", "failure_kind"]

STAT_KEYS = ("mean", "std", "p50", "p90", "p95", "p99")
#: The latency metrics, in the order tables show them.
LATENCY_METRICS = ("ttft_ms", "ttfvo_ms", "tpot_ms", "itl_ms", "icl_ms", "e2el_ms")
#: What ``--goodput`` takes (vLLM's names).
GOODPUT_METRICS = {"ttft": "ttft_ms", "tpot": "tpot_ms", "e2el": "e2el_ms"}
#: Above this p99 send lateness or event-loop lag the run is called client-bound: a GPU server's
#: decode step is 10-50 ms, and a few ms of the client's own delay is then a 10% error in ITL.
CLIENT_BOUND_MS = 5.0


def stats(values: Iterable[float]) -> LatencyStats:
    """mean, std (ddof 0), p50/p90/p95/p99 (linear interpolation) and n; None each when empty."""
    a = np.asarray(list(values), dtype=float)
    if not a.size:
        return LatencyStats(mean=None, std=None, p50=None, p90=None, p95=None, p99=None, n=0)
    p = np.percentile(a, [50, 90, 95, 99], method="linear")
    return LatencyStats(mean=float(a.mean()), std=float(a.std()), p50=float(p[0]), p90=float(p[1]),
                        p95=float(p[2]), p99=float(p[3]), n=int(a.size))


def parse_goodput(items: Iterable[str]) -> dict[str, float]:
    """``["ttft:200", "tpot:50"]`` -> ``{"ttft_ms": 200.0, "tpot_ms": 50.0}`` (milliseconds)."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or name not in GOODPUT_METRICS:
            raise UsageError(f"--goodput {item!r}: expected NAME:MS with NAME one of {', '.join(GOODPUT_METRICS)}")
        try:
            ms = float(value)
        except ValueError:
            raise UsageError(f"--goodput {item!r}: {value!r} is not a number of milliseconds") from None
        if not (ms > 0) or math.isinf(ms):
            raise UsageError(f"--goodput {item!r}: the target must be a finite number of ms > 0")
        out[GOODPUT_METRICS[name]] = ms
    return out


def failure_kind(reason: str) -> str:
    """A failure's kind, for counting: ``HTTP 500``, ``timeout``, ``error in stream``, ``not sent``..."""
    if reason.startswith("timeout"):
        return "timeout"
    return reason.split(":", 1)[0].strip()


def meets(r: RequestRecord, targets_ms: Mapping[str, float]) -> bool:
    """Whether a completed request met every target."""
    for key, limit in targets_ms.items():
        v = getattr(r, key)
        if v is None and key == "tpot_ms":
            continue
        if v is None or v > limit:
            return False
    return True


@dataclass(frozen=True)
class ServeMetrics:
    """The numbers of one load point computed from its requests: the parts of a
    ``records.ServePoint`` that the requests alone decide (``run_point`` adds the rest)."""

    duration_s: float
    #: by metric (:data:`LATENCY_METRICS`), milliseconds
    metrics: dict[str, LatencyStats]
    throughput: Throughput
    goodput: Goodput
    #: the warm-up counts and the records are the point's own
    requests: RequestCounts
    client: ClientHealth
    notes: tuple[Note, ...]


def _tail(values: list[float]) -> Tail:
    if not values:
        return Tail(p50=None, p99=None, max=None, n=0)
    p = np.percentile(values, [50, 99])
    return Tail(p50=float(p[0]), p99=float(p[1]), max=float(max(values)), n=len(values))


def serve_metrics(records: Iterable[RequestRecord], duration_s: float, *, loop_lag_ms: Iterable[float] = (),
                  goodput_ms: Mapping[str, float] | None = None) -> ServeMetrics:
    """The metrics of one load point from its records (module docstring for every definition)."""
    recs = list(records)
    ok = [r for r in recs if r.ok]
    failed = [r for r in recs if not r.ok]
    notes: list[Note] = []
    vals = {k: [v for r in ok if (v := getattr(r, k)) is not None] for k in ("ttft_ms", "ttfvo_ms", "tpot_ms",
                                                                             "e2el_ms")}
    icl = [g for r in ok for g in r.icl_ms]
    textless = [r for r in ok if r.textless]
    itl_by = [r.itl_ms for r in ok if not r.textless]
    itl = [g for x in itl_by if x is not None for g in x]
    unknown = sum(x is None for x in itl_by)
    fewer = sum(1 for r in ok if r.n_out is not None and 0 < len(r.chunk_s) < r.n_out)
    chunks = sum(len(r.chunk_s) for r in ok)
    out_tokens = sum(r.n_out or 0 for r in ok)
    in_tokens = sum(r.n_in or 0 for r in ok)
    if fewer:
        how = (f"per-token ITL comes from the {len(ok) - unknown} requests whose per-chunk token counts are known"
               if unknown else "per-token ITL splits each gap over the tokens its chunk carried")
        notes.append(info("fewer-chunks-than-tokens", f"{fewer} of {len(ok)} requests had fewer chunks than tokens "
                          f"({chunks} chunks for {out_tokens} tokens): ICL (inter-chunk latency) is not a per-token "
                          f"latency; {how}", requests=fewer, chunks=chunks, tokens=out_tokens))
    if unknown and not fewer:
        notes.append(info("itl-unknown", f"{unknown} requests have no per-chunk token counts: they are left out of ITL",
                          requests=unknown))
    if textless:
        tokens = sum(r.n_out or 0 for r in textless)
        notes.append(info("textless-requests", f"{len(textless)} of {len(ok)} requests streamed tokens with no text "
                          f"({tokens} tokens by usage; byte-level tokens that decode to nothing): counted as completed "
                          f"with their tokens, left out of TTFT, TPOT and ITL; their E2E runs to the last byte",
                          requests=len(textless), tokens=tokens))
    sources: Counter[str] = Counter(r.n_out_source for r in ok if r.n_out_source)
    if sources.get("tokenizer"):
        notes.append(info("n-out-tokenizer", f"N_out of {sources['tokenizer']} requests was counted by the client "
                          f"tokenizer (no usage)", requests=sources["tokenizer"]))
    if sources.get("chunks"):
        notes.append(warning("n-out-chunks", f"N_out of {sources['chunks']} requests is their count of token chunks (no "
                             f"usage, no --tokenizer): a lower bound, so TPOT may read high", requests=sources["chunks"]))
    # Peak output tokens per 1 s bucket from the start, each chunk's tokens at its arrival (a chunk of
    # unknown count carries a share of the request's tokens: a fraction).
    buckets: defaultdict[int, float] = defaultdict(float)
    for r in ok:
        if not r.chunk_s:
            continue  # textless: no arrival time per token
        weights = [k if k is not None else (r.n_out or len(r.chunk_s)) / len(r.chunk_s) for k in r.chunk_tokens]
        for t, w in zip(r.chunk_s, weights):
            buckets[int(math.floor(t))] += w

    # A point with no duration (nothing sent) has no rates: null, which is what its JSON said as NaN.
    def per_s(x: float) -> float | None:
        return x / duration_s if duration_s > 0 else None

    targets = dict(goodput_ms or {})
    good = sum(1 for r in ok if meets(r, targets)) if targets else None
    late = _tail([r.lateness_ms for r in recs if r.lateness_ms is not None])
    lag = _tail(list(loop_lag_ms))
    bound = any(x.p99 is not None and x.p99 > CLIENT_BOUND_MS for x in (late, lag))
    if bound:
        notes.append(warning("client-bound", f"client-bound: the client's p99 send lateness {late.p99 or 0:.1f} ms / "
                             f"event-loop lag {lag.p99 or 0:.1f} ms exceed {CLIENT_BOUND_MS:g} ms; latencies include "
                             f"the client's own delay (lower --max-concurrency, or run the client on more cores)",
                             lateness_p99_ms=late.p99, loop_lag_p99_ms=lag.p99))
    kinds = Counter(failure_kind(r.error or "failed") for r in failed)
    return ServeMetrics(
        duration_s=duration_s,
        metrics={"ttft_ms": stats(vals["ttft_ms"]), "ttfvo_ms": stats(vals["ttfvo_ms"]),
                 "tpot_ms": stats(vals["tpot_ms"]), "itl_ms": stats(itl), "icl_ms": stats(icl),
                 "e2el_ms": stats(vals["e2el_ms"])},
        throughput=Throughput(requests_per_s=per_s(len(ok)), output_tokens_per_s=per_s(out_tokens),
                              total_tokens_per_s=per_s(in_tokens + out_tokens),
                              peak_output_tokens_per_s=float(max(buckets.values())) if buckets else 0.0,
                              mean_concurrency=per_s(sum(vals["e2el_ms"]) / 1e3)),
        goodput=Goodput(targets_ms=targets, good_requests=good, requests_per_s=per_s(good) if good is not None else None),
        requests=RequestCounts(completed=len(ok), failed=len(failed), failures=dict(kinds.most_common()),
                               input_tokens=in_tokens, output_tokens=out_tokens, chunks=chunks,
                               fewer_chunks_than_tokens=fewer, n_out_sources=dict(sources), textless=len(textless)),
        client=ClientHealth(lateness_ms=late, loop_lag_ms=lag, client_bound=bound),
        notes=tuple(notes))
