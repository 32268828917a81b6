"""What a serving load point has beyond the client's latencies: the server's own ``/metrics``
(and the rows compared with the client's), the GPUs' telemetry, the point in time slices, per
conversation turn, and shared prefixes. ``serve`` computes them (``_server_view``, ``_telemetry``,
``_breakdown``); here they are only described."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, doc
from bench_kernel.records._notes import Note

__all__ = ["ServerMetrics", "ViewRow", "GpuTelemetry", "Slice", "Slices", "TurnRow", "GroupSplit"]


class ViewRow(Record, frozen=True, kw_only=True):
    """One row of the server's view beside the client's."""

    row: Annotated[str, doc("the row (`ttft`, `itl`, `e2el`, `queue`, `input_tokens`, `running`, `kv_cache_usage`, ...: serve/data/server_metrics.tsv)")]
    what: Annotated[str, doc("what it shows")]
    unit: Annotated[Literal["ms", "tokens", "requests", "count", "fraction"], doc("the unit of every number of the row")]
    metric: Annotated[str, doc("the server's Prometheus family")]
    kind: Annotated[Literal["histogram", "counter", "gauge"], doc("its Prometheus type")]
    server: Annotated[dict[str, float | None], doc("histogram: `p50`, `p99`, `mean`, `count`; counter: `delta`; gauge: `mean`, `max`")]
    client: Annotated[dict[str, float | None] | None, doc("the client's own numbers of the same keys, where it measures the same thing")] = None


class ServerMetrics(Record, frozen=True, kw_only=True):
    """What the server's ``/metrics`` said over one load point, and the rows compared with the client's."""

    url: Annotated[str, doc("the scraped URL")]
    scrapes: Annotated[int, doc("scrapes that answered: the first before the first request, the last after the last byte")]
    failed_scrapes: Annotated[int, doc("scrapes that failed or timed out")]
    interval_s: Annotated[float, doc("seconds between scrapes")]
    families: Annotated[dict[str, dict[str, Any]], doc("per Prometheus family name: `type`, `help`, `series` (a gauge's `t_s`/`values`/`min`/`mean`/`max`, a counter's `start`/`end`/`delta`, a histogram's bucket deltas with `count`, `sum`, `mean`, `p50`, `p90`, `p99`) per label set")]
    notes: Annotated[tuple[Note, ...], doc("resets, unreadable lines, failed scrapes")] = ()
    view: Annotated[tuple[ViewRow, ...], doc("the rows compared with the client's")] = ()


class GpuTelemetry(Record, frozen=True, kw_only=True):
    """One GPU over one load point."""

    gpu: Annotated[str, doc("which GPU: index, name and UUID as the library gives them")]
    samples: Annotated[int, doc("samples taken")]
    interval_s: Annotated[float, doc("seconds between samples asked")]
    summary: Annotated[dict[str, dict[str, float | None]], doc("per field (`sm_clock_mhz`, `power_w`, `power_limit_w`, `memory_used_bytes`, `utilization_pct`, `temperature_c`): `min`, `mean`, `p50`, `max`")]
    series: Annotated[dict[str, list[float | None]], doc("`t_s` (from the point's start) and each field's values, sample by sample")]
    throttle: Annotated[dict[str, float], doc("per clock-event reason (`sw_power_cap`, `hw_slowdown`, `sw_thermal`, `hw_thermal`, `hw_power_brake`): the share of samples it was active in")]
    notes: Annotated[tuple[Note, ...], doc("throttling and clock swings seen")] = ()


class Slice(Record, frozen=True, kw_only=True):
    """One time slice of a load point: a request's TTFT counts in the slice it was sent in, a gap
    and a token in the slice it arrived in, a completion in the slice of its last byte."""

    start_s: Annotated[float, doc("the slice's start, s from the point's start")]
    end_s: Annotated[float, doc("its end, s")]
    sent: Annotated[int, doc("requests sent in it")]
    completed: Annotated[int, doc("completed requests whose last byte came in it")]
    output_tokens: Annotated[float, doc("output tokens that arrived in it")]
    output_tokens_per_s: Annotated[float, doc("output_tokens / the slice's length")]
    ttft_p50_ms: Annotated[float | None, doc("TTFT p50 of the requests sent in it, ms")]
    ttft_p99_ms: Annotated[float | None, doc("TTFT p99 of the requests sent in it, ms")]
    itl_p50_ms: Annotated[float | None, doc("p50 of the inter-token gaps that ended in it, ms (ICL where per-chunk counts are unknown)")]


class Slices(Record, frozen=True, kw_only=True):
    """A load point cut into slices of equal length (``--slice-duration``)."""

    slice_s: Annotated[float, doc("the slices' length, s")]
    slices: Annotated[tuple[Slice, ...], doc("from the point's start")]


class TurnRow(Record, frozen=True, kw_only=True):
    """One turn index of a multi-turn point."""

    turn: Annotated[int, doc("0 for a conversation's first request")]
    requests: Annotated[int, doc("requests of this turn, failed and not sent included")]
    completed: Annotated[int, doc("completed requests of this turn")]
    input_tokens_mean: Annotated[float | None, doc("mean prompt tokens (usage): the history")]
    ttft_p50_ms: Annotated[float | None, doc("TTFT p50, ms")]
    ttft_p99_ms: Annotated[float | None, doc("TTFT p99, ms")]
    e2el_p50_ms: Annotated[float | None, doc("E2E latency p50, ms")]


class GroupSplit(Record, frozen=True, kw_only=True):
    """The first request of each shared prefix against the later ones."""

    groups: Annotated[int, doc("prefixes (groups) seen")]
    first_n: Annotated[int, doc("completed first requests of a group, with a TTFT")]
    first_ttft_p50_ms: Annotated[float | None, doc("their TTFT p50, ms")]
    rest_n: Annotated[int, doc("completed later requests, with a TTFT")]
    rest_ttft_p50_ms: Annotated[float | None, doc("their TTFT p50, ms")]
    rest_over_first: Annotated[float | None, doc("later / first TTFT p50: well below 1 when the server caches prefixes")]
