"""``benchmark(options)``: the whole of ``bench-kernel serve`` as one call, from launching the server
to the kernel view of a profiled window. The CLI parses into :class:`ServeOptions`, calls this,
and renders the :class:`ServeRun`.

A run cut short (Ctrl-C, a server that died) still returns: its points hold every request, those
not completed marked failed with the reason, and ``ServeRun.aborted`` says why. The caller shows
and stores it, then exits non-zero.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from bench_kernel.errors import UsageError
from bench_kernel.serve._client import Endpoint
from bench_kernel.serve._datasets import Dataset, load_dataset
from bench_kernel.serve._launch import launched, url_from_command, wait_ready
from bench_kernel.serve._load import Load
from bench_kernel.serve._profile import KernelView, kernel_view, post_profile, wait_for_traces
from bench_kernel.serve._run import SCHEMA_VERSION, ServePoint, ServerInfo, connect, run_point
from bench_kernel.serve._sweep import auto_sweep, slo_search, sweep_loads

__all__ = ["ServeOptions", "ServeRun", "ProfileWindow", "benchmark"]


@dataclass(frozen=True)
class ServeOptions:
    """Everything ``bench-kernel serve`` was asked; defaults are the CLI's (vLLM's where it has them)."""

    url: str | None = None
    launch: str | None = None
    model: str | None = None
    endpoint: str = "chat"
    dataset_name: str = "random"
    dataset_path: Path | None = None
    num_prompts: int | None = 100
    random_input_len: int = 1024
    random_output_len: int = 128
    random_range_ratio: float = 0.0
    sharegpt_output_len: int | None = None
    seed: int = 0
    tokenizer: str | None = None
    ignore_eos: bool = False
    request_rates: tuple[float, ...] = (math.inf,)
    burstiness: float = 1.0
    max_concurrencies: tuple[int | None, ...] = (None,)
    duration_s: float | None = None
    warmup: int = 0
    goodput_ms: dict[str, float] = field(default_factory=dict)
    sweep: str | None = None  # None | "auto"
    sweep_points: int = 5
    slo: bool = False
    slo_ratio: float = 0.9
    request_timeout_s: float = 300.0
    ready_timeout_s: float = 600.0
    server_log: Path | None = None
    headers: tuple[tuple[str, str], ...] = ()
    profile: bool = False
    profile_dir: Path | None = None
    profile_requests: int = 8
    profile_duration_s: float | None = None
    profile_timeout_s: float = 600.0

    def config(self) -> dict[str, Any]:
        """What the run was asked, as stored with it (no secrets: headers are not kept)."""
        d = {k: v for k, v in self.__dict__.items() if k != "headers"}
        d["request_rates"] = [None if math.isinf(r) else r for r in self.request_rates]
        d["dataset_path"] = str(self.dataset_path) if self.dataset_path else None
        d["server_log"] = str(self.server_log) if self.server_log else None
        d["profile_dir"] = str(self.profile_dir) if self.profile_dir else None
        d["max_concurrencies"] = list(self.max_concurrencies)
        return d


@dataclass(frozen=True)
class ProfileWindow:
    """The profiled window: its own load point, the traces, the kernel view and how long each step took."""

    point: ServePoint
    traces: tuple[str, ...]
    view: KernelView | None
    start_s: float
    stop_s: float
    export_s: float
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"point": self.point.to_dict(requests=False), "traces": list(self.traces),
                "view": self.view.to_dict() if self.view else None, "start_profile_s": self.start_s,
                "stop_profile_s": self.stop_s, "export_s": self.export_s, "error": self.error}


@dataclass(frozen=True)
class ServeRun:
    """A serving benchmark: the server, what was asked, every load point, and the profile window."""

    server: ServerInfo
    options: ServeOptions
    dataset: str
    points: tuple[ServePoint, ...]
    sweep: str | None
    slo_rate: float | None = None
    profile: ProfileWindow | None = None
    aborted: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        if self.aborted is None:
            return "complete"
        return "interrupted" if self.aborted.startswith("interrupted") else "partial"

    def nothing_completed(self) -> str | None:
        """Why the run is a failure although it ran to its end: a point where every request failed."""
        dead = [p for p in self.points if p.metrics.completed == 0 and p.metrics.failed]
        if not dead:
            return None
        kinds = ", ".join(f"{k} ({n})" for k, n in dead[0].metrics.failures.items())
        first = next((r.error for r in dead[0].records if r.error), "")
        return f"no request completed at {dead[0].load.describe()}: {kinds}; first: {first}"

    def to_dict(self, requests: bool = True) -> dict[str, Any]:
        """One point: the point's keys at the top level; a sweep: ``points``, a list of them."""
        # "kind" first: a reader (``report``) tells a serving run by its first key, without reading it all.
        head: dict[str, Any] = {"kind": "serve", "schema_version": SCHEMA_VERSION, "status": self.status,
                                "aborted": self.aborted, "server": self.server.to_dict(),
                                "config": self.options.config(), "dataset": self.dataset, "sweep": self.sweep,
                                "notes": list(self.notes)}
        if self.slo_rate is not None or self.options.slo:
            head["slo_request_rate"] = self.slo_rate
        if self.profile is not None:
            head["profile"] = self.profile.to_dict()
        if self.sweep is None and len(self.points) == 1:
            p = self.points[0].to_dict(requests)
            p["notes"] = list(self.notes) + p["notes"]
            return {"kind": "serve", **p, **{k: v for k, v in head.items() if k != "notes"}}
        return {**head, "points": [p.to_dict(requests) for p in self.points]}


@contextlib.contextmanager
def _server(opts: ServeOptions) -> Iterator[tuple[ServerInfo, Callable[[], str | None] | None]]:
    if opts.url is None and opts.launch is None:
        raise UsageError("give the server: --url URL, or --launch \"CMD ...\" to start one")
    if opts.launch is None:
        yield connect(opts.url, opts.model), None  # type: ignore[arg-type]
        return
    url = opts.url or url_from_command(opts.launch)
    env = {}
    if opts.profile and opts.profile_dir is not None:
        # SGLang and ATOM read these; vLLM >= 0.32 needs --profiler-config in the command.
        env = {"SGLANG_TORCH_PROFILER_DIR": str(opts.profile_dir), "VLLM_TORCH_PROFILER_DIR": str(opts.profile_dir)}
    with launched(opts.launch, opts.server_log, env) as srv:
        ready = wait_ready(url, opts.ready_timeout_s, srv.exit_reason)
        info = connect(url, opts.model, command=opts.launch, launched=True, log_path=str(srv.log_path),
                       ready_s=ready)
        yield info, srv.exit_reason


def _tokenizer(name: str | None) -> Any:
    if name is None:
        return None
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise UsageError("--tokenizer needs transformers (pip install transformers)") from None
    try:
        return AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise UsageError(f"--tokenizer {name}: cannot load it ({str(e).splitlines()[0]})") from None


def _profile_window(opts: ServeOptions, info: ServerInfo, run: Callable[[Load, int | None], ServePoint],
                    load: Load) -> ProfileWindow:
    if opts.profile_dir is None:
        raise UsageError("--profile needs --profile-dir DIR: the folder the server writes its traces to")
    since = time.time()
    t_start = post_profile(info.url, "start", 60.0)
    wload = replace(load, duration_s=opts.profile_duration_s)
    point = run(wload, None if opts.profile_duration_s else opts.profile_requests)
    t0 = time.monotonic()
    t_stop = post_profile(info.url, "stop", opts.profile_timeout_s)
    traces = wait_for_traces(opts.profile_dir, since, max(10.0, opts.profile_timeout_s - t_stop))
    export = time.monotonic() - t0
    view, err = None, None
    try:
        view = kernel_view(traces)
    except Exception as e:  # noqa: BLE001 - the benchmark's numbers must survive a trace we cannot read
        err = f"{type(e).__name__}: {e}"
    return ProfileWindow(point, tuple(map(str, traces)), view, t_start, t_stop, export, err)


def benchmark(opts: ServeOptions, progress: Callable[[str], None] | None = None) -> ServeRun:
    """Run ``bench-kernel serve``: launch or connect, load the dataset, run each load point (a
    sweep, ``--sweep auto`` or ``--slo``), then the profiled window. See the module docstring."""
    say = progress or (lambda s: None)
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise UsageError("bench-kernel serve needs aiohttp: pip install 'bench-kernel[serve]'") from None
    if opts.sweep not in (None, "auto"):
        raise UsageError(f"--sweep {opts.sweep!r}: the only automatic sweep is 'auto' (a list of rates or "
                         f"concurrencies is a sweep too)")
    tok = _tokenizer(opts.tokenizer)
    n = opts.num_prompts if opts.duration_s is None else None
    ds: Dataset = load_dataset(opts.dataset_name, opts.num_prompts or 1000, path=opts.dataset_path,
                               input_len=opts.random_input_len, output_len=opts.random_output_len,
                               range_ratio=opts.random_range_ratio, seed=opts.seed, tokenizer=tok,
                               sharegpt_output_len=opts.sharegpt_output_len)
    base = Load(opts.request_rates[0], opts.burstiness, opts.max_concurrencies[0], opts.duration_s)
    loads = sweep_loads(base, list(opts.request_rates), list(opts.max_concurrencies))
    count = (lambda s: len(tok.encode(s, add_special_tokens=False))) if tok is not None else None
    notes: list[str] = list(ds.notes)
    with _server(opts) as (info, alive):
        ep = Endpoint(info.url, opts.endpoint, info.model, ignore_eos=opts.ignore_eos,
                      request_timeout_s=opts.request_timeout_s, headers=opts.headers)
        points: list[ServePoint] = []
        warm = [opts.warmup]

        def run(load: Load, num: int | None = n) -> ServePoint:
            say(f"load point {len(points) + 1}: {load.describe()}")
            p = run_point(info, ep, ds.prompts, load, num_prompts=num, seed=opts.seed, warmup=warm[0],
                          goodput_ms=opts.goodput_ms, alive=alive, count_tokens=count)
            warm[0] = 0  # the server is warm after the first point
            points.append(p)
            return p

        slo_rate = None
        kind = "slo" if opts.slo else "auto" if opts.sweep == "auto" else "list" if len(loads) > 1 else None
        interrupted = None
        try:  # Ctrl-C between points (the driver handles it within one) keeps the points finished
            if opts.slo:
                _, slo_rate = slo_search(base, run, opts.goodput_ms, opts.slo_ratio, notes=notes)
            elif opts.sweep == "auto":
                auto_sweep(base, run, opts.sweep_points, notes)
            else:
                for load in loads:
                    if run(load).aborted is not None:
                        break
        except KeyboardInterrupt:
            interrupted = "interrupted (Ctrl-C) between load points"
        aborted = next((p.aborted for p in points if p.aborted), interrupted)
        window = None
        if opts.profile and aborted is None and points:
            say("profiled window")
            try:
                window = _profile_window(opts, info, lambda ld, num: run_point(
                    info, ep, ds.prompts, ld, num_prompts=num, seed=opts.seed, goodput_ms=opts.goodput_ms,
                    alive=alive, count_tokens=count), points[-1].load)
                aborted = window.point.aborted
            except KeyboardInterrupt:
                aborted = "interrupted (Ctrl-C) in the profiled window"
    notes[:0] = info.notes
    if info.launched and info.log_path:
        notes.append(f"the server's log: {info.log_path}")
    return ServeRun(info, opts, ds.name, tuple(points), kind, slo_rate, window, aborted, tuple(notes))

