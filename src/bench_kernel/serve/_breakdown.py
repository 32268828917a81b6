"""A load point's requests taken apart: over time (``--slice-duration``), by conversation turn, by
shared prefix, and the first requests against the rest (a cold server).

- **Time slices** (aiperf's ``--slice-duration``): from the point's start, slices of ``S`` seconds.
  A request's TTFT counts in the slice it was sent in (the load it met); an ITL gap and an output
  token in the slice it arrived in; a request is completed in the slice of its last byte.
- **Turns** (``--multi-turn``): TTFT and E2E per turn index; the history grows with every turn, so a
  TTFT that grows with it is prefill paid again, one that does not is a prefix cache at work.
- **Groups** (``prefix_repetition``): each prefix's first request (by send time) fills the cache; its
  later ones can hit it. TTFT of the firsts against the rest is the client's view of prefix caching.
- **Cold start**: the first requests of a point far slower than the rest (model load, CUDA graph
  capture, JIT) are flagged: TTFT or E2E p50 of the first :func:`first_wave` requests at least
  :data:`COLD_RATIO` times the rest's, and :data:`COLD_MIN_MS` above it.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from bench_kernel.records import GroupSplit, Note, RequestRecord, Slice, TurnRow, warning

__all__ = ["time_slices", "turn_rows", "group_split", "cold_start",
           "first_wave", "COLD_RATIO", "COLD_MIN_MS"]

#: A point's first requests this many times slower than the rest (p50) are a cold start...
COLD_RATIO = 2.0
#: ...when also this many ms slower (a 2x on a 3 ms scripted TTFT is noise, not a cold server).
COLD_MIN_MS = 20.0


def _p(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


def time_slices(records: Sequence[RequestRecord], duration_s: float, slice_s: float) -> tuple[Slice, ...]:
    """The point cut into slices of ``slice_s`` seconds (module docstring)."""
    if not (slice_s > 0) or math.isinf(slice_s):
        raise ValueError(f"slice duration must be a finite number of seconds > 0, got {slice_s!r}")
    n = max(1, math.ceil(duration_s / slice_s)) if duration_s > 0 else 1
    sent = [0] * n
    done = [0] * n
    tokens = [0.0] * n
    ttft: list[list[float]] = [[] for _ in range(n)]
    gaps: list[list[float]] = [[] for _ in range(n)]

    def at(t: float) -> int:
        return min(n - 1, max(0, int(t // slice_s)))

    for r in records:
        if r.sent_s is None:
            continue
        sent[at(r.sent_s)] += 1
        if not r.ok:
            continue
        if r.end_s is not None:
            done[at(r.end_s)] += 1
        if r.ttft_ms is not None:
            ttft[at(r.sent_s)].append(r.ttft_ms)
        per = r.itl_ms
        for j, t in enumerate(r.chunk_s):
            k = r.chunk_tokens[j] if j < len(r.chunk_tokens) else None
            tokens[at(t)] += k if k is not None else (r.n_out or len(r.chunk_s)) / len(r.chunk_s)
            if j:
                gap = (t - r.chunk_s[j - 1]) * 1e3
                gaps[at(t)].extend([gap / k] * int(k) if per is not None and k else [gap])
    return tuple(Slice(start_s=i * slice_s, end_s=(i + 1) * slice_s, sent=sent[i], completed=done[i],
                       output_tokens=tokens[i], output_tokens_per_s=tokens[i] / slice_s,
                       ttft_p50_ms=_p(ttft[i], 50), ttft_p99_ms=_p(ttft[i], 99), itl_p50_ms=_p(gaps[i], 50))
                 for i in range(n))


def turn_rows(records: Sequence[RequestRecord]) -> tuple[TurnRow, ...]:
    """Per turn index, when the point has later turns (else empty)."""
    if not any(r.turn for r in records):
        return ()
    out = []
    for t in sorted({r.turn for r in records}):
        rs = [r for r in records if r.turn == t]
        ok = [r for r in rs if r.ok]
        ttft = [r.ttft_ms for r in ok if r.ttft_ms is not None]
        n_in = [r.n_in for r in ok if r.n_in is not None]
        out.append(TurnRow(turn=t, requests=len(rs), completed=len(ok),
                           input_tokens_mean=sum(n_in) / len(n_in) if n_in else None,
                           ttft_p50_ms=_p(ttft, 50), ttft_p99_ms=_p(ttft, 99),
                           e2el_p50_ms=_p([r.e2el_ms for r in ok if r.e2el_ms is not None], 50)))
    return tuple(out)


def group_split(records: Sequence[RequestRecord]) -> GroupSplit | None:
    """For a point whose requests share prefixes (``group`` set, no turns); else None."""
    grouped = [r for r in records if r.group is not None and not r.turn and r.sent_s is not None]
    if not grouped or any(r.turn for r in records):
        return None
    seen: set[int] = set()
    first: list[Any] = []
    rest: list[Any] = []
    for r in sorted(grouped, key=lambda r: r.sent_s or 0.0):
        bucket = rest if r.group in seen else first
        seen.add(r.group)  # type: ignore[arg-type]
        if r.ttft_ms is not None:
            bucket.append(r.ttft_ms)
    f, s = _p(first, 50), _p(rest, 50)
    return GroupSplit(groups=len(seen), first_n=len(first), first_ttft_p50_ms=f, rest_n=len(rest), rest_ttft_p50_ms=s,
                      rest_over_first=(s / f) if f and s is not None else None)


def first_wave(n: int, max_concurrency: int | None) -> int:
    """How many of a point's first requests are its first wave: one per concurrency slot, at least
    3 and at most a quarter of the requests (so that the rest can say what warm is)."""
    return max(3, min(max_concurrency or 8, n // 4))


def cold_start(records: Sequence[RequestRecord], max_concurrency: int | None) -> Note | None:
    """A warning when the first wave of requests is far slower than the rest (module docstring)."""
    ok = sorted((r for r in records if r.ok and not r.turn and r.sent_s is not None), key=lambda r: r.sent_s or 0.0)
    k = first_wave(len(ok), max_concurrency)
    if len(ok) < 2 * k:
        return None
    for key, name in (("ttft_ms", "TTFT"), ("e2el_ms", "E2E")):
        head = [v for r in ok[:k] if (v := getattr(r, key)) is not None]
        tail = [v for r in ok[k:] if (v := getattr(r, key)) is not None]
        h, t = _p(head, 50), _p(tail, 50)
        if h is not None and t is not None and t > 0 and h >= COLD_RATIO * t and h - t >= COLD_MIN_MS:
            return warning("cold-start", f"cold start: the first {k} requests' {name} p50 {h:.4g} ms is {h / t:.1f}x "
                           f"the rest's {t:.4g} ms: the server was not warm (model load, graph capture, JIT); warm up "
                           f"more (--warmup N) or drop this point", metric=key, first=k, first_p50_ms=h, rest_p50_ms=t)
    return None
