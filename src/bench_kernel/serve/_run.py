"""One load point against a server (``records.ServePoint``), and what the server is
(``records.ServerInfo``): the records ``bench-kernel serve`` returns, stores and renders.

``connect`` asks the server which models it serves (``/v1/models``) and its version (``/version``,
vLLM and SGLang answer it) before any load, so an unreachable URL or a model it does not serve is
one error line, not a run of failed requests.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Callable, Sequence

from msgspec import UNSET

from bench_kernel.errors import ServerError
from bench_kernel.records import (
    GpuTelemetry,
    Load,
    Note,
    RequestRecord,
    ServePoint,
    ServerInfo,
    ServerMetrics,
    Slices,
    WarmupCounts,
    warning,
)
from bench_kernel.serve._breakdown import cold_start, group_split, time_slices, turn_rows
from bench_kernel.serve._client import Endpoint
from bench_kernel.serve._drive import drive
from bench_kernel.serve._metrics import ServeMetrics, serve_metrics
from bench_kernel.serve._records import Prompt
from bench_kernel.serve._server_view import server_view

__all__ = ["connect", "run_point", "build_point", "client_view", "Observed"]


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


def client_view(m: ServeMetrics) -> dict[str, dict[str, float | None]]:
    """The client's numbers for the rows of the server's view (``_server_view.server_view``)."""
    def lat(key: str) -> dict[str, float | None]:
        s = m.metrics[key]
        return {"p50": s.p50, "p99": s.p99, "mean": s.mean, "count": float(s.n)}

    itl = "itl_ms" if m.metrics["itl_ms"].n else "icl_ms"
    return {"ttft": lat("ttft_ms"), "itl": lat(itl), "tpot": lat("tpot_ms"), "e2el": lat("e2el_ms"),
            "requests": {"delta": float(m.requests.completed)}, "input_tokens": {"delta": float(m.requests.input_tokens)},
            "output_tokens": {"delta": float(m.requests.output_tokens)},
            "running": {"mean": m.throughput.mean_concurrency, "max": None}}


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
    return build_point(load, metrics, out.records, started_at=out.started_at, aborted=out.aborted, notes=notes,
                       warmup=WarmupCounts(len(out.warmup) - wf, wf), repeat=repeat, server_metrics=sm, gpu=gpu,
                       slice_s=slice_s)


def build_point(load: Load, metrics: ServeMetrics, records: Sequence[RequestRecord], *, started_at: float = 0.0,
                aborted: str | None = None, notes: Sequence[Note] = (), warmup: WarmupCounts = WarmupCounts(),
                repeat: int | None = None, server_metrics: ServerMetrics | None = None,
                gpu: Sequence[GpuTelemetry] = (), slice_s: float | None = None) -> ServePoint:
    """The load point of ``records`` sent under ``load``: ``metrics`` (``serve_metrics`` of them), the
    point's own ``notes`` before the metrics', and what was asked beyond the client's latencies: the
    server's metrics (the view beside the client's is added here), GPU telemetry, ``slice_s``-second
    slices (s), the turns and shared prefixes the records have. Absent what was not asked or found."""
    sm = server_metrics
    if sm is not None:
        sm = sm.replace(view=server_view(sm, client_view(metrics)))
    turns, groups = turn_rows(records), group_split(records)
    return ServePoint(
        aborted=aborted, load=load, started_at=started_at, duration_s=metrics.duration_s,
        metrics=metrics.metrics, throughput=metrics.throughput, goodput=metrics.goodput,
        requests=metrics.requests.replace(warmup=warmup, records=tuple(records)),
        client=metrics.client, notes=tuple(notes) + metrics.notes, repeat=UNSET if repeat is None else repeat,
        server_metrics=UNSET if sm is None else sm, gpu_telemetry=tuple(gpu) if gpu else UNSET,
        slices=Slices(slice_s=slice_s, slices=time_slices(records, metrics.duration_s, slice_s)) if slice_s else UNSET,
        turns=turns or UNSET, prefix_groups=UNSET if groups is None else groups)
