"""One load point against a server, and what the server is: the records ``bench-kernel serve``
returns, stores and renders.

``connect`` asks the server which models it serves (``/v1/models``) and its version (``/version``,
vLLM and SGLang answer it) before any load, so an unreachable URL or a model it does not serve is
one error line, not a run of failed requests.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import msgspec

from bench_kernel.errors import ServerError
from bench_kernel.records import Note, notes_from, to_builtins, warning
from bench_kernel.serve._breakdown import GroupSplit, Slice, TurnRow, cold_start, group_split, time_slices, turn_rows
from bench_kernel.serve._client import Endpoint
from bench_kernel.serve._drive import drive
from bench_kernel.serve._load import Load
from bench_kernel.serve._metrics import ServeMetrics, serve_metrics
from bench_kernel.serve._records import Prompt, RequestRecord
from bench_kernel.serve._server_view import ServerMetrics, ViewRow, server_view
from bench_kernel.serve._telemetry import GpuTelemetry

__all__ = ["ServerInfo", "ServePoint", "connect", "run_point", "client_view", "Observed", "SCHEMA_VERSION"]

#: Version of ``bench-kernel serve --json`` (and of a stored serving run's point). Bump on a change
#: that renames or removes a key; adding keys keeps it.
SCHEMA_VERSION = 2


@dataclass(frozen=True)
class ServerInfo:
    """The server a run measured: where, which model, what it said about itself, how it was started."""

    url: str
    model: str
    models: tuple[str, ...] = ()
    version: str | None = None
    command: str | None = None
    launched: bool = False
    log_path: str | None = None
    ready_s: float | None = None
    #: what the client noticed about the server before the first request (a models list that failed)
    notes: tuple[Note, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "model": self.model, "models": list(self.models), "version": self.version,
                "command": self.command, "launched": self.launched, "log_path": self.log_path,
                "ready_s": self.ready_s, "notes": to_builtins(self.notes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ServerInfo":
        return cls(d["url"], d["model"], tuple(d.get("models") or ()), d.get("version"), d.get("command"),
                   bool(d.get("launched")), d.get("log_path"), d.get("ready_s"), notes_from(d.get("notes") or ()))


def _get_json(url: str, timeout_s: float) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url), timeout=timeout_s) as r:  # noqa: S310
        return json.loads(r.read(1 << 20).decode("utf-8", errors="replace"))


def connect(base_url: str, model: str | None, *, timeout_s: float = 10.0, command: str | None = None,
            launched: bool = False, log_path: str | None = None, ready_s: float | None = None) -> ServerInfo:
    """Check that ``base_url`` answers and serves ``model`` (the first model it lists when None)."""
    if not base_url.startswith(("http://", "https://")):
        raise ServerError(f"--url {base_url!r}: expected http://HOST:PORT")
    models: tuple[str, ...] = ()
    notes: list[Note] = []
    try:
        data = _get_json(base_url.rstrip("/") + "/v1/models", timeout_s)
        models = tuple(str(m.get("id")) for m in data.get("data", []) if isinstance(m, dict) and m.get("id"))
    except urllib.error.HTTPError as e:
        # A server error in the models list is not a server that cannot generate: transformers serve
        # 5.17 answers 500 there when the Hugging Face cache folder does not exist (seen on the H200).
        # With the model named, the run goes on and says the name was not checked.
        if e.code >= 500 and model is not None:
            notes.append(warning("models-unchecked", f"{base_url}/v1/models answered HTTP {e.code}: the model name "
                                 f"{model!r} was not checked", status=e.code))
        elif e.code >= 500:
            raise ServerError(f"{base_url}/v1/models answered HTTP {e.code}, so the served model is unknown: "
                              f"name it with --model") from None
        elif e.code != 404:
            raise ServerError(f"{base_url}/v1/models answered HTTP {e.code}: is it an OpenAI-compatible server?") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ServerError(f"cannot reach the server at {base_url}: {reason}") from None
    except (ValueError, AttributeError):
        raise ServerError(f"{base_url}/v1/models did not answer JSON: is it an OpenAI-compatible server?") from None
    if model is None:
        if not models:
            raise ServerError(f"{base_url} lists no model on /v1/models: name one with --model")
        model = models[0]
    elif models and model not in models:
        raise ServerError(f"the server at {base_url} does not serve {model!r}; it serves: {', '.join(models)}")
    version = None
    try:
        v = _get_json(base_url.rstrip("/") + "/version", 5.0)
        version = str(v.get("version")) if isinstance(v, dict) and v.get("version") else None
    except (urllib.error.URLError, OSError, ValueError):
        pass
    return ServerInfo(base_url, model, models, version, command, launched, log_path, ready_s, tuple(notes))


@dataclass(frozen=True)
class ServePoint:
    """One load point: the load, its metrics, every request, and whether it ran to the end; and,
    where asked or available, the server's own metrics, the GPUs' telemetry and the breakdowns."""

    load: Load
    metrics: ServeMetrics
    records: tuple[RequestRecord, ...]
    warmup_completed: int = 0
    warmup_failed: int = 0
    #: why it stopped early; None when every request was sent
    aborted: str | None = None
    started_at: float = 0.0
    notes: tuple[Note, ...] = field(default_factory=tuple)
    #: which run of its load this is (0-based, ``--num-runs``); None for a single run
    repeat: int | None = None
    server_metrics: ServerMetrics | None = None
    server_view: tuple[ViewRow, ...] = ()
    gpu: tuple[GpuTelemetry, ...] = ()
    #: (slice length in s, the slices) with ``--slice-duration``
    slices: tuple[float, tuple[Slice, ...]] | None = None

    @property
    def status(self) -> str:
        return "complete" if self.aborted is None else "partial"

    @property
    def turns(self) -> tuple[TurnRow, ...]:
        return turn_rows(self.records)

    @property
    def groups(self) -> GroupSplit | None:
        return group_split(self.records)

    def to_dict(self, requests: bool = True) -> dict[str, Any]:
        """The stable JSON of a point (docs/serving.md, docs/json.md: keys and units)."""
        m = self.metrics
        d: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION, "status": self.status, "aborted": self.aborted,
            "load": self.load.to_dict(), "started_at": self.started_at, "duration_s": m.duration_s,
            "metrics": m.metrics,
            "throughput": {"requests_per_s": m.requests_per_s, "output_tokens_per_s": m.output_tokens_per_s,
                           "total_tokens_per_s": m.total_tokens_per_s,
                           "peak_output_tokens_per_s": m.peak_output_tokens_per_s,
                           "mean_concurrency": m.mean_concurrency},
            "goodput": {"targets_ms": m.goodput_targets_ms, "good_requests": m.good_requests,
                        "requests_per_s": m.goodput_per_s},
            "requests": {"completed": m.completed, "failed": m.failed, "failures": m.failures,
                         "input_tokens": m.input_tokens, "output_tokens": m.output_tokens, "chunks": m.chunks,
                         "fewer_chunks_than_tokens": m.fewer_chunks_than_tokens, "n_out_sources": m.n_out_sources,
                         "textless": m.textless,
                         "warmup": {"completed": self.warmup_completed, "failed": self.warmup_failed}},
            "client": {"lateness_ms": m.lateness_ms, "loop_lag_ms": m.loop_lag_ms, "client_bound": m.client_bound},
            "notes": to_builtins(tuple(self.notes) + tuple(m.notes)),
        }
        if self.repeat is not None:
            d["repeat"] = self.repeat
        if self.server_metrics is not None:
            d["server_metrics"] = {**msgspec.to_builtins(self.server_metrics),
                                   "view": msgspec.to_builtins(self.server_view)}
        if self.gpu:
            d["gpu_telemetry"] = msgspec.to_builtins(self.gpu)
        if self.slices is not None:
            d["slices"] = {"slice_s": self.slices[0], "slices": msgspec.to_builtins(self.slices[1])}
        if self.turns:
            d["turns"] = msgspec.to_builtins(self.turns)
        if self.groups is not None:
            d["prefix_groups"] = msgspec.to_builtins(self.groups)
        if requests:
            d["requests"]["records"] = [r.to_dict() for r in self.records]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ServePoint":
        """Rebuild a point from :meth:`to_dict` (with its records): the metrics are recomputed from them."""
        load = d.get("load") or {}
        rate = load.get("request_rate")
        lo = Load(math.inf if rate is None else float(rate), float(load.get("burstiness") or 1.0),
                  load.get("max_concurrency"), load.get("duration_s"), load.get("ramp_up_strategy"),
                  load.get("ramp_up_start_rps"), load.get("ramp_up_end_rps"))
        recs = tuple(RequestRecord.from_dict(r) for r in (d.get("requests") or {}).get("records") or ())
        lag = (d.get("client") or {}).get("loop_lag_ms") or {}
        metrics = serve_metrics(recs, float(d.get("duration_s") or 0.0),
                                goodput_ms=(d.get("goodput") or {}).get("targets_ms") or {})
        metrics = _with_lag(metrics, lag)
        warm = (d.get("requests") or {}).get("warmup") or {}
        own = [n for n in notes_from(d.get("notes") or ()) if n not in metrics.notes]
        sm = d.get("server_metrics")
        server = msgspec.convert({k: v for k, v in sm.items() if k != "view"}, ServerMetrics) if sm else None
        view = msgspec.convert(sm.get("view") or [], tuple[ViewRow, ...]) if sm else ()
        gpu = msgspec.convert(d.get("gpu_telemetry") or [], tuple[GpuTelemetry, ...])
        sl = d.get("slices")
        slices = (float(sl["slice_s"]), msgspec.convert(sl["slices"], tuple[Slice, ...])) if sl else None
        return cls(lo, metrics, recs, int(warm.get("completed") or 0), int(warm.get("failed") or 0),
                   d.get("aborted"), float(d.get("started_at") or 0.0), tuple(own), d.get("repeat"), server, view,
                   gpu, slices)


def _with_lag(m: ServeMetrics, lag: dict[str, Any]) -> ServeMetrics:
    return replace(m, loop_lag_ms=lag) if lag else m


def client_view(m: ServeMetrics) -> dict[str, dict[str, float | None]]:
    """The client's numbers for the rows of the server's view (``_server_view.server_view``)."""
    def lat(key: str) -> dict[str, float | None]:
        s = m.metrics[key]
        return {"p50": s["p50"], "p99": s["p99"], "mean": s["mean"], "count": float(s["n"] or 0)}

    itl = "itl_ms" if m.metrics["itl_ms"]["n"] else "icl_ms"
    return {"ttft": lat("ttft_ms"), "itl": lat(itl), "tpot": lat("tpot_ms"), "e2el": lat("e2el_ms"),
            "requests": {"delta": float(m.completed)}, "input_tokens": {"delta": float(m.input_tokens)},
            "output_tokens": {"delta": float(m.output_tokens)}, "running": {"mean": m.mean_concurrency, "max": None}}


#: What ``observe`` gives back after a point: the server's metrics, the GPUs' telemetry, notes.
Observed = tuple[ServerMetrics | None, tuple[GpuTelemetry, ...], tuple[Note, ...]]


def run_point(server: ServerInfo, ep: Endpoint, prompts: tuple[Prompt, ...], load: Load, *,
              num_prompts: int | None, seed: int = 0, warmup: int | tuple[Prompt, ...] = 0,
              goodput_ms: dict[str, float] | None = None, alive: Callable[[], str | None] | None = None,
              count_tokens: Callable[[str], int] | None = None,
              observe: Callable[[], Callable[[float], Observed]] | None = None, slice_s: float | None = None,
              repeat: int | None = None) -> ServePoint:
    """Drive one load point and compute its metrics (records kept, even for a point cut short).

    ``observe``: the server-metrics scrape and GPU sampling around the point (``drive``'s);
    ``slice_s``: cut the point into time slices of that many seconds; ``repeat``: its run index."""
    out = drive(ep, prompts, load, num_prompts=num_prompts, seed=seed, warmup=warmup, alive=alive,
                count_tokens=count_tokens, observe=observe)
    metrics = serve_metrics(out.records, out.duration_s, loop_lag_ms=out.loop_lag_ms, goodput_ms=goodput_ms)
    notes: list[Note] = list(out.notes)
    wf = sum(not r.ok for r in out.warmup)
    if out.warmup and wf:
        notes.append(warning("warmup-failed", f"{wf} of {len(out.warmup)} warm-up requests failed", failed=wf,
                             sent=len(out.warmup)))
    cold = cold_start(out.records, load.max_concurrency)
    if cold:
        notes.append(cold)
    sm, gpu, obs_notes = out.observed if out.observed is not None else (None, (), ())
    notes += list(obs_notes)
    if sm is not None:
        notes += list(sm.notes)
    for g in gpu:
        notes += list(g.notes)
    view = server_view(sm, client_view(metrics)) if sm is not None else ()
    slices = (slice_s, time_slices(out.records, out.duration_s, slice_s)) if slice_s else None
    return ServePoint(load, metrics, out.records, len(out.warmup) - wf, wf, out.aborted, out.started_at, tuple(notes),
                      repeat, sm, view, gpu, slices)
