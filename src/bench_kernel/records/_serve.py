"""The serving benchmark's records (``bench-kernel serve``): one request as the client saw it, the
load offered, and one load point with its metrics.

Times inside a request are seconds on the client's monotonic clock relative to the point's start,
or milliseconds where the name says ``_ms`` (the unit every serving tool prints latencies in).
Every request ends ``ok`` or ``failed`` with a reason: nothing is dropped. The metrics are defined
in ``serve/_metrics.py`` and docs/serving.md; here they are only described.

A field that a point has only when it was asked for (``repeat``, ``server_metrics``, ...) is
absent from the JSON without it (``msgspec.UNSET``), as it always was: a reader tells "not asked"
from "asked, nothing found", and the stored key of a plain load (what ``compare`` matches points
on) does not change.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from msgspec import UNSET, UnsetType

from bench_kernel.errors import UsageError
from bench_kernel.records._base import Record, derive, doc, from_builtins
from bench_kernel.records._notes import Note, notes_from
from bench_kernel.records._serve_extra import GpuTelemetry, GroupSplit, ServerMetrics, Slices, TurnRow

__all__ = ["SERVE_SCHEMA_VERSION", "STATUSES", "N_OUT_SOURCES", "RequestStatus", "NOutSource", "RampStrategy",
           "RequestRecord", "Load", "LatencyStats", "Tail", "Throughput", "Goodput", "WarmupCounts", "RequestCounts",
           "ClientHealth", "ServePoint", "ServerInfo", "upgrade_point"]

#: 2: notes are Note records, not strings. The version of a point and of ``serve --json``.
SERVE_SCHEMA_VERSION = 2

RequestStatus = Literal["ok", "failed"]
#: How a request ended.
STATUSES: tuple[RequestStatus, ...] = ("ok", "failed")
NOutSource = Literal["usage", "tokenizer", "chunks"]
#: Where a request's output token count came from, most trusted first.
N_OUT_SOURCES: tuple[NOutSource, ...] = ("usage", "tokenizer", "chunks")
RampStrategy = Literal["linear", "exponential"]


class RequestRecord(Record, frozen=True):
    """One request: when it was due and sent, what came back and when, and how it ended.

    ``chunk_s`` are the arrival times of the chunks that carried at least one generated token,
    ``chunk_tokens`` the tokens each carried (null where the count is not known: no per-chunk usage
    and fewer chunks than tokens). The latencies after ``turn`` are derived from the times.
    """

    index: Annotated[int, doc("order in the dataset")]
    status: Annotated[RequestStatus, doc("`ok`, or `failed` (the reason in `error`)")]
    error: Annotated[str | None, doc("why it failed (`HTTP 500: ...`, `error in stream: ...`, `timeout after 30 s`, `not sent: ...`)")]
    scheduled_s: Annotated[float | None, doc("when the schedule wanted it sent (s from the point's start); null: never sent")]
    ready_s: Annotated[float | None, doc("when a concurrency slot was free for it; null: never sent")]
    sent_s: Annotated[float | None, doc("when it was sent; null: never sent")]
    end_s: Annotated[float | None, doc("its last byte; null if nothing came back")]
    chunk_s: Annotated[tuple[float, ...], doc("arrival of each token-carrying chunk")] = ()
    chunk_tokens: Annotated[tuple[int | None, ...], doc("tokens in each (null: unknown)")] = ()
    first_visible_s: Annotated[float | None, doc("first chunk with visible (not reasoning) text; null if none")] = None
    n_out: Annotated[int | None, doc("generated tokens")] = None
    n_out_source: Annotated[NOutSource | None, doc("where that count came from: `usage` (the server), `tokenizer` (`--tokenizer`) or `chunks` (a lower bound)")] = None
    n_in: Annotated[int | None, doc("prompt tokens")] = None
    n_in_source: Annotated[Literal["usage", "dataset"] | None, doc("where that count came from: the server's `usage`, else the `dataset`'s")] = None
    empty_chunks: Annotated[int, doc("chunks that carried nothing generated (the role-only chunk, empty deltas, the usage chunk)")] = 0
    finish_reason: Annotated[str | None, doc("the server's finish reason")] = None
    output_text: Annotated[str, doc("what it generated")] = ""
    notes: Annotated[tuple[str, ...], doc("what the client had to do about the server (`ignore_eos refused (HTTP 422): resent without`)")] = ()
    group: Annotated[int | None, doc("its shared prefix (`prefix_repetition`) or conversation (`--multi-turn`)")] = None
    turn: Annotated[int, doc("its turn in the conversation (0: the first)")] = 0
    ttft_ms: Annotated[float | None, doc("derived: send -> the first chunk with a generated token (reasoning included)")] = None
    ttfvo_ms: Annotated[float | None, doc("derived: send -> the first chunk with visible text")] = None
    e2el_ms: Annotated[float | None, doc("derived: send -> the last token chunk (the last byte for a textless request)")] = None
    tpot_ms: Annotated[float | None, doc("derived: (E2E - TTFT) / (tokens - 1); null for fewer than two tokens")] = None
    lateness_ms: Annotated[float | None, doc("derived: how late the client sent it: sent - max(scheduled, slot free); null: never sent")] = None

    def __post_init__(self) -> None:
        sent, c = self.sent_s, self.chunk_s
        ok = self.ok and sent is not None
        ttft = (c[0] - sent) * 1e3 if ok and c and sent is not None else None
        vis = self.first_visible_s
        ttfvo = (vis - sent) * 1e3 if ok and vis is not None and sent is not None else None
        if ok and sent is not None and self.textless and self.end_s is not None:
            e2el: float | None = (self.end_s - sent) * 1e3
        else:
            e2el = (c[-1] - sent) * 1e3 if ok and c and sent is not None else None
        tpot = ((c[-1] - c[0]) * 1e3 / (self.n_out - 1) if ok and c and self.n_out is not None and self.n_out >= 2
                else None)
        late = (sent - self.ready_s) * 1e3 if sent is not None and self.ready_s is not None else None
        derive(self, ttft_ms=ttft, ttfvo_ms=ttfvo, e2el_ms=e2el, tpot_ms=tpot, lateness_ms=late)

    @property
    def ok(self) -> bool:
        """It completed."""
        return self.status == "ok"

    @property
    def textless(self) -> bool:
        """Completed with tokens (``usage``) but no chunk of text: byte-level tokens that decode to
        nothing. It has no TTFT, TPOT or ITL; its E2E runs to the last byte."""
        return self.ok and not self.chunk_s and bool(self.n_out)

    @property
    def icl_ms(self) -> tuple[float, ...]:
        """Inter-chunk latencies: the gaps between consecutive token-carrying chunks, ms."""
        c = self.chunk_s
        return tuple((b - a) * 1e3 for a, b in zip(c, c[1:])) if self.ok else ()

    @property
    def itl_ms(self) -> tuple[float, ...] | None:
        """Per-token latencies, ms: a chunk of k tokens after a gap g gives k values g/k; the first
        chunk's extra tokens arrived with the first token (0 each). Their sum is E2E - TTFT and
        their mean is TPOT. None when a chunk's token count is unknown."""
        if not self.ok or not self.chunk_s or any(k is None for k in self.chunk_tokens):  # textless too
            return None
        counts = [int(k or 0) for k in self.chunk_tokens]
        out = [0.0] * (counts[0] - 1)
        for gap, k in zip(self.icl_ms, counts[1:]):
            out += [gap / k] * k
        return tuple(out)


class Load(Record, frozen=True, kw_only=True):
    """The load offered at one point: the request rate (its arrivals are vLLM's, ``serve/_load.py``),
    its burstiness, the cap on requests in flight, how long to keep sending, and vLLM's ramp-up.
    Made with a rate of ``math.inf`` (all at once) it holds null; checked when made (UsageError)."""

    request_rate: Annotated[float | None, doc("requests per second offered; null is infinity (all at once)")] = None
    burstiness: Annotated[float, doc("gamma shape of the arrivals (1: Poisson)")] = 1.0
    max_concurrency: Annotated[int | None, doc("requests in flight at most; null: no cap")] = None
    duration_s: Annotated[float | None, doc("the point's time bound; null: until the prompts are used")] = None
    ramp_up_strategy: Annotated[RampStrategy | UnsetType, doc("`linear` or `exponential` (`--ramp-up-strategy`; absent without a ramp)")] = UNSET
    ramp_up_start_rps: Annotated[float | UnsetType, doc("the first request's rate (with a ramp)")] = UNSET
    ramp_up_end_rps: Annotated[float | UnsetType, doc("the last request's rate (with a ramp)")] = UNSET

    def __post_init__(self) -> None:
        # One spelling each, so that equal loads are equal records and write the same JSON:
        # infinity is null, and a load without a ramp has no ramp keys (None given is absent).
        if self.request_rate is not None and math.isinf(self.request_rate) and self.request_rate > 0:
            derive(self, request_rate=None)
        for name in ("ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps"):
            if getattr(self, name) is None:
                derive(self, **{name: UNSET})
        if self.ramp_up_strategy is not UNSET or self.ramp_up_start_rps is not UNSET or self.ramp_up_end_rps is not UNSET:
            self._check_ramp()
        if not (self.rate_rps > 0):
            raise UsageError(f"--request-rate {self.rate_rps:g}: must be > 0 (inf: all at once)")
        if not (self.burstiness > 0) or math.isinf(self.burstiness):
            raise UsageError(f"--burstiness {self.burstiness:g}: must be a finite number > 0")
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise UsageError(f"--max-concurrency {self.max_concurrency}: must be at least 1")
        if self.duration_s is not None and not (0 < self.duration_s < math.inf):
            raise UsageError(f"--duration {self.duration_s:g}: must be a finite number of seconds > 0")
        if self.duration_s is not None and self.request_rate is None and self.max_concurrency is None:
            raise UsageError("--duration with --request-rate inf needs --max-concurrency (else it would send "
                             "without end)")

    def _check_ramp(self) -> None:
        s, e = self.ramp_up_start_rps, self.ramp_up_end_rps
        if self.ramp_up_strategy not in ("linear", "exponential"):
            raise UsageError(f"--ramp-up-strategy {self.ramp_up_strategy!r}: expected linear or exponential")
        if s is UNSET or e is UNSET:
            raise UsageError("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps")
        if not (0 < s < math.inf) or not (0 < e < math.inf):
            raise UsageError(f"--ramp-up-start-rps {s:g} / --ramp-up-end-rps {e:g}: each must be a finite rate > 0 "
                             f"(a rate of 0 has no next request)")
        if s > e:
            raise UsageError(f"--ramp-up-start-rps {s:g} is above --ramp-up-end-rps {e:g}: a ramp goes up")
        if self.request_rate is not None:
            raise UsageError("--ramp-up-strategy sets the rate: leave --request-rate out")
        if self.duration_s is not None:
            raise UsageError("--ramp-up-strategy spreads the ramp over --num-prompts requests: leave --duration out")

    @property
    def rate_rps(self) -> float:
        """The request rate, requests per second (``math.inf``: all at once)."""
        return math.inf if self.request_rate is None else self.request_rate

    @property
    def ramp(self) -> tuple[RampStrategy, float, float] | None:
        """(strategy, start rps, end rps) of a ramp-up; None without one."""
        if self.ramp_up_strategy is UNSET or self.ramp_up_start_rps is UNSET or self.ramp_up_end_rps is UNSET:
            return None
        return self.ramp_up_strategy, self.ramp_up_start_rps, self.ramp_up_end_rps

    def rate_at(self, i: int, n: int) -> float:
        """The request rate (req/s) request ``i`` of ``n`` is sent at."""
        if self.ramp is None:
            return self.rate_rps
        strategy, s, e = self.ramp
        p = i / max(n - 1, 1)
        return s + (e - s) * p if strategy == "linear" else s * (e / s) ** p

    def describe(self) -> str:
        """``rate 4/s, concurrency 8``: the load as the tables name it."""
        rate = "inf" if self.request_rate is None else f"{self.request_rate:g}/s"
        parts = [f"rate {rate}"]
        if self.ramp is not None:
            strategy, s, e = self.ramp
            parts = [f"{strategy} ramp {s:g}-{e:g}/s"]
        if self.burstiness != 1.0:
            parts.append(f"burstiness {self.burstiness:g}")
        if self.max_concurrency is not None:
            parts.append(f"concurrency {self.max_concurrency}")
        if self.duration_s is not None:
            parts.append(f"{self.duration_s:g} s")
        return ", ".join(parts)


class LatencyStats(Record, frozen=True, kw_only=True):
    """One latency metric over a point's completed requests (ITL and ICL: over all their gaps,
    pooled, as vLLM does), milliseconds; null each when there is no value."""

    mean: Annotated[float | None, doc("mean, ms")]
    std: Annotated[float | None, doc("standard deviation (population, ddof 0), ms")]
    p50: Annotated[float | None, doc("median (linear interpolation), ms")]
    p90: Annotated[float | None, doc("90th percentile, ms")]
    p95: Annotated[float | None, doc("95th percentile, ms")]
    p99: Annotated[float | None, doc("99th percentile, ms")]
    n: Annotated[int, doc("values")]


class Tail(Record, frozen=True, kw_only=True):
    """The tail of one of the client's own delays, milliseconds."""

    p50: Annotated[float | None, doc("median, ms")]
    p99: Annotated[float | None, doc("99th percentile, ms")]
    max: Annotated[float | None, doc("the largest, ms")]
    n: Annotated[int, doc("values")]


class Throughput(Record, frozen=True, kw_only=True):
    """What the server delivered over the point (first due time -> last byte); null where the point
    has no duration."""

    requests_per_s: Annotated[float | None, doc("completed requests per second")]
    output_tokens_per_s: Annotated[float | None, doc("generated tokens per second")]
    total_tokens_per_s: Annotated[float | None, doc("prompt and generated tokens per second")]
    peak_output_tokens_per_s: Annotated[float, doc("the highest one-second window, each chunk's tokens at its arrival")]
    mean_concurrency: Annotated[float | None, doc("requests in flight on average: sum of E2E / duration")]


class Goodput(Record, frozen=True, kw_only=True):
    """Requests that met every ``--goodput`` target (DistServe; a TPOT target is met by a request of
    one token, which has no TPOT)."""

    targets_ms: Annotated[dict[str, float], doc("metric (`ttft_ms`, `tpot_ms`, `e2el_ms`) -> its target, ms")] = {}
    good_requests: Annotated[int | None, doc("requests that met every target; null without targets")] = None
    requests_per_s: Annotated[float | None, doc("of them per second")] = None


class WarmupCounts(Record, frozen=True):
    """The warm-up requests sent before the first point (not counted in the point)."""

    completed: Annotated[int, doc("warm-up requests that ended well")] = 0
    failed: Annotated[int, doc("warm-up requests that failed")] = 0


class RequestCounts(Record, frozen=True, kw_only=True):
    """How the point's requests ended, and what they carried."""

    completed: Annotated[int, doc("requests that ended well")]
    failed: Annotated[int, doc("requests that failed")]
    failures: Annotated[dict[str, int], doc("failure kind (`HTTP 503`, `timeout`, ...) -> how many")]
    input_tokens: Annotated[int, doc("prompt tokens of the completed requests")]
    output_tokens: Annotated[int, doc("generated tokens of the completed requests")]
    chunks: Annotated[int, doc("token-carrying chunks")]
    fewer_chunks_than_tokens: Annotated[int, doc("requests whose chunks carried several tokens (ICL is then not a per-token latency)")]
    n_out_sources: Annotated[dict[str, int], doc("where token counts came from (`usage`, `tokenizer`, `chunks`) -> requests")]
    textless: Annotated[int, doc("completed requests whose tokens decoded to no text (counted; out of TTFT, TPOT, ITL); 0 in runs written before it was counted")] = 0
    warmup: Annotated[WarmupCounts, doc("the warm-up requests (not counted above)")] = WarmupCounts()
    records: Annotated[tuple[RequestRecord, ...] | UnsetType, doc("every request, in the order of the dataset (absent where not kept: the profiled window's point)")] = UNSET


class ClientHealth(Record, frozen=True, kw_only=True):
    """Whether the client kept up: its own send lateness and event-loop lag."""

    lateness_ms: Annotated[Tail, doc("how late the client sent requests after they were due")]
    loop_lag_ms: Annotated[Tail, doc("the client's event-loop lag")]
    client_bound: Annotated[bool, doc("either p99 passed 5 ms: the latencies include the client's own delay")]


class ServePoint(Record, frozen=True, kw_only=True):
    """One load point: the load, its metrics, every request, and whether it ran to the end; and,
    where asked or available, the server's own metrics, the GPUs' telemetry and the breakdowns."""

    schema_version: Annotated[int, doc("the point record's version (a stored point keeps it)")] = SERVE_SCHEMA_VERSION
    status: Annotated[Literal["complete", "partial"], doc("derived: `complete`, or `partial` when it stopped early")] = "complete"
    aborted: Annotated[str | None, doc("why it stopped early; null when every request was sent")] = None
    load: Annotated[Load, doc("the load offered")]
    started_at: Annotated[float, doc("when it started (Unix time, s)")]
    duration_s: Annotated[float, doc("first due time -> last byte received, s")]
    metrics: Annotated[dict[str, LatencyStats], doc("by metric: `ttft_ms`, `ttfvo_ms` (first visible output), `tpot_ms`, `itl_ms`, `icl_ms` (inter-chunk), `e2el_ms`")]
    throughput: Annotated[Throughput, doc("what the server delivered")]
    goodput: Annotated[Goodput, doc("requests that met `--goodput`'s targets")]
    requests: Annotated[RequestCounts, doc("how the requests ended")]
    client: Annotated[ClientHealth, doc("whether the client kept up")]
    notes: Annotated[tuple[Note, ...], doc("what to know (warnings) and how it was made (info)")] = ()
    repeat: Annotated[int | UnsetType, doc("which run of its load this is, from 0 (`--num-runs` above 1)")] = UNSET
    server_metrics: Annotated[ServerMetrics | UnsetType, doc("the server's `/metrics` over the point, when it answered")] = UNSET
    gpu_telemetry: Annotated[tuple[GpuTelemetry, ...] | UnsetType, doc("a local server's GPUs over the point, when NVML/amdsmi found them")] = UNSET
    slices: Annotated[Slices | UnsetType, doc("the point in time slices (`--slice-duration`)")] = UNSET
    turns: Annotated[tuple[TurnRow, ...] | UnsetType, doc("per turn of the conversations (`--multi-turn`)")] = UNSET
    prefix_groups: Annotated[GroupSplit | UnsetType, doc("each shared prefix's first request against its later ones (`prefix_repetition`)")] = UNSET

    def __post_init__(self) -> None:
        derive(self, status="complete" if self.aborted is None else "partial")

    @property
    def records(self) -> tuple[RequestRecord, ...]:
        """Every request of the point (empty where they were not kept)."""
        return self.requests.records or ()

    @classmethod
    def from_dict(cls, data: Any) -> ServePoint:
        """A point as stored or printed, of any version :func:`upgrade_point` reads."""
        return from_builtins(upgrade_point(data) if isinstance(data, dict) else data, cls)


class ServerInfo(Record, frozen=True):
    """The server a run measured: where, which model, what it said about itself, how it was started."""

    url: Annotated[str, doc("the server's base URL")]
    model: Annotated[str, doc("the model served")]
    models: Annotated[tuple[str, ...], doc("every model it lists on /v1/models")] = ()
    version: Annotated[str | None, doc("what it says it is (/version)")] = None
    command: Annotated[str | None, doc("the command that started it (`--launch`)")] = None
    launched: Annotated[bool, doc("bench-kernel started it")] = False
    log_path: Annotated[str | None, doc("its log (`--launch`)")] = None
    ready_s: Annotated[float | None, doc("seconds until it answered (`--launch`)")] = None
    notes: Annotated[tuple[Note, ...], doc("what the client noticed about the server before the first request (a models list it failed to give, ...)")] = ()


def _notes(values: Any) -> list[dict[str, Any]]:
    return [n.to_dict() for n in notes_from(values or ())]


def upgrade_point(d: dict[str, Any]) -> dict[str, Any]:
    """A load point's JSON of an older ``schema_version`` in today's shape (a stored run or a file is
    read as long as this bench-kernel knows its version; a newer one is a ValueError).

    1 -> 2: notes were strings (each becomes a warning with code ``untyped``: its kind was never
    recorded), the point's and its server metrics' and GPUs'.
    """
    version = d.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= SERVE_SCHEMA_VERSION:
        raise ValueError(f"serving point schema_version {version!r}; this bench-kernel reads 1 to {SERVE_SCHEMA_VERSION}")
    if version == SERVE_SCHEMA_VERSION:
        return d
    d = {**d, "schema_version": SERVE_SCHEMA_VERSION, "notes": _notes(d.get("notes"))}
    if isinstance(d.get("server_metrics"), dict):
        d["server_metrics"] = {**d["server_metrics"], "notes": _notes(d["server_metrics"].get("notes"))}
    if isinstance(d.get("gpu_telemetry"), list):
        d["gpu_telemetry"] = [{**g, "notes": _notes(g.get("notes"))} if isinstance(g, dict) else g
                              for g in d["gpu_telemetry"]]
    return d
