"""The server's own view of a load point, beside the client's.

:class:`ServerMetrics` keeps every family the point's scrapes of ``/metrics`` had, under its
Prometheus name (``_prometheus.point_summary``). :func:`server_view` then lines up the rows a reader
compares (``data/server_metrics.tsv`` says which family of which server answers each): the server's
TTFT histogram beside the client's TTFT, its token counters beside the client's token counts, its
running and waiting requests and KV-cache use over the point. A client TTFT well above the server's
is time outside the engine's clock: the HTTP server, the network, or the client; a server queue
time close to its TTFT says the requests waited for a batch slot.

Server histograms have buckets, so their quantiles are interpolated inside a bucket (vLLM's TTFT
buckets are 1, 5, 10, 20, 40, 60, 80, 100, 250, 500 ms...): read them as "within the bucket", never
to the digit.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

from bench_kernel.datafile import read_package_tsv
from bench_kernel.records import ServerMetrics, ViewRow, warning
from bench_kernel.serve._prometheus import Family, histogram_quantile, point_summary

__all__ = ["summarize_scrapes", "server_view", "VIEW_ROWS"]

_COLUMNS = ("row", "metric", "kind", "scale", "combine")
#: The rows of the view, in order, with what they show and the client's counterpart.
VIEW_ROWS: dict[str, tuple[str, str]] = {
    "ttft": ("TTFT", "ms"), "itl": ("ITL", "ms"), "tpot": ("TPOT", "ms"), "e2el": ("E2E latency", "ms"),
    "queue": ("queue time (server only)", "ms"), "prefill": ("prefill time (server only)", "ms"),
    "decode": ("decode time (server only)", "ms"), "requests": ("requests finished", "requests"),
    "input_tokens": ("input tokens", "tokens"), "output_tokens": ("output tokens", "tokens"),
    "cached_tokens": ("prompt tokens from the prefix cache", "tokens"),
    "prefix_queries": ("prefix cache queries (tokens)", "tokens"), "prefix_hits": ("prefix cache hits (tokens)", "tokens"),
    "preemptions": ("preemptions", "count"), "running": ("running requests", "requests"),
    "waiting": ("waiting requests", "requests"), "kv_cache_usage": ("KV cache usage", "fraction"),
    "cache_hit_rate": ("prefix cache hit rate (server's gauge)", "fraction"),
}


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, str], ...]:
    def check(row: dict[str, str], where: str) -> None:
        if row["row"] not in VIEW_ROWS or row["kind"] not in ("histogram", "counter", "gauge") \
                or row["combine"] not in ("sum", "max"):
            raise ValueError(f"{where}: unknown row, kind or combine: {row}")
        float(row["scale"])

    return tuple(read_package_tsv("bench_kernel.serve", "server_metrics.tsv", _COLUMNS, check))


def summarize_scrapes(url: str, scrapes: Sequence[tuple[float, dict[str, Family]]], *, interval_s: float,
                      failed: int = 0, bad_lines: int = 0) -> ServerMetrics:
    families, said = point_summary(scrapes)
    notes = [warning("server-metrics", f"server metrics: {s}") for s in said]
    if bad_lines:
        notes.append(warning("metrics-lines-skipped", f"{bad_lines} lines of /metrics could not be read and were "
                             f"skipped", lines=bad_lines))
    if failed:
        notes.append(warning("scrapes-failed", f"{failed} scrapes of {url} failed or timed out", scrapes=failed))
    return ServerMetrics(url=url, scrapes=len(scrapes), failed_scrapes=failed, interval_s=interval_s,
                         families=families, notes=tuple(notes))


def _histogram(series: list[dict[str, Any]], scale: float) -> dict[str, float | None]:
    merged: dict[Any, float] = {}
    total, count = 0.0, 0.0
    for s in series:
        total += s["sum"]
        count += s["count"]
        for le, c in s["buckets"]:
            merged[le] = merged.get(le, 0.0) + c
    buckets = sorted(((float("inf") if le == "+Inf" else float(le)), c) for le, c in merged.items())

    def q(x: float) -> float | None:
        v = histogram_quantile(x, buckets)
        return None if v is None else v * scale

    return {"p50": q(0.5), "p99": q(0.99), "mean": total / count * scale if count else None, "count": count}


def _gauge(series: list[dict[str, Any]], combine: str) -> dict[str, float | None]:
    by_t: dict[float, list[float]] = {}
    for s in series:
        for t, v in zip(s["t_s"], s["values"]):
            by_t.setdefault(t, []).append(v)
    values = [sum(vs) if combine == "sum" else max(vs) for _, vs in sorted(by_t.items())]
    if not values:
        return {"mean": None, "max": None}
    return {"mean": sum(values) / len(values), "max": max(values)}


def server_view(sm: ServerMetrics, client: dict[str, dict[str, float | None]]) -> tuple[ViewRow, ...]:
    """The rows of :data:`VIEW_ROWS` the scrapes can answer; ``client`` gives, per row key, the
    client's numbers of the same keys (``{"ttft": {"p50": ..., "p99": ..., "mean": ...}}``)."""
    rows: list[ViewRow] = []
    seen: set[str] = set()
    for spec in _table():
        key, name = spec["row"], spec["metric"]
        fam = sm.families.get(name)
        if key in seen or fam is None or fam.get("type") != spec["kind"]:
            continue
        seen.add(key)
        series, scale = fam.get("series") or [], float(spec["scale"])
        if spec["kind"] == "histogram":
            server = _histogram(series, scale)
        elif spec["kind"] == "counter":
            server = {"delta": sum(s["delta"] for s in series) * scale}
        else:
            server = _gauge(series, spec["combine"])
        what, unit = VIEW_ROWS[key]
        rows.append(ViewRow(row=key, what=what, unit=unit, metric=name, kind=spec["kind"],  # type: ignore[arg-type]
                            server=server, client=client.get(key)))
    order = list(VIEW_ROWS)
    hits = {r.row: r for r in rows}
    if "prefix_hits" in hits and "prefix_queries" in hits:
        q, h = hits["prefix_queries"].server["delta"], hits["prefix_hits"].server["delta"]
        rows.append(ViewRow(row="cache_hit_rate", what="prefix cache hit rate (hits / queries)", unit="fraction",
                            metric="vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total", kind="counter",
                            server={"delta": (h / q) if q and h is not None else None}))
    return tuple(sorted(rows, key=lambda r: order.index(r.row)))
