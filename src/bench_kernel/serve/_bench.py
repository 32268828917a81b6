"""``benchmark(options)``: the whole of ``bench-kernel serve`` as one call, from launching the server
to the kernel view of a profiled window. The CLI parses into :class:`ServeOptions`, calls this,
and renders the ``records.ServeOutput`` it returns (what ``serve --json`` prints).

A run cut short (Ctrl-C, a server that died) still returns: its points hold every request, those
not completed marked failed with the reason, and ``ServeOutput.aborted`` says why. The caller shows
and stores it, then exits non-zero.
"""

from __future__ import annotations

import contextlib
import random
import socket
import statistics
import time
import urllib.parse
from typing import Any, Callable, Iterator, Literal, Sequence

from msgspec import UNSET

from bench_kernel.errors import UsageError
from bench_kernel.records import Load, Note, ProfileWindow, ServeOutput, ServePoint, ServerInfo
from bench_kernel.records import info as note
from bench_kernel.serve._client import Endpoint
from bench_kernel.serve._dataset_common import WORDS, Dataset
from bench_kernel.serve._datasets import load_dataset
from bench_kernel.serve._launch import launched, url_from_command, wait_ready
from bench_kernel.serve._options import ServeOptions
from bench_kernel.serve._profile import kernel_view, post_profile, wait_for_traces
from bench_kernel.serve._records import Prompt
from bench_kernel.serve._repeats import repeat_summary
from bench_kernel.serve._run import Observed, connect, run_point
from bench_kernel.serve._scrape import Scraper, probe_metrics
from bench_kernel.serve._server_view import summarize_scrapes
from bench_kernel.serve._sweep import auto_sweep, slo_search, sweep_loads
from bench_kernel.serve._telemetry import Sampler, open_gpus

__all__ = ["benchmark", "DEFAULT_WARMUP", "WARMUP_MAX_OUTPUT"]

SweepKind = Literal["list", "auto", "slo"]

#: Warm-up requests when no load point caps concurrency (vLLM sends one test prompt; one is too few
#: for a batching server, whose first batches of each size pay graph capture and compilation).
DEFAULT_WARMUP = 8
#: Output tokens of a warm-up request at most: enough decode steps to warm them, little time.
WARMUP_MAX_OUTPUT = 64


def _document(opts: ServeOptions, info: ServerInfo, dataset: str, points: Sequence[ServePoint], sweep: SweepKind | None,
              slo_rate: float | None, window: ProfileWindow | None, aborted: str | None,
              notes: Sequence[Note]) -> ServeOutput:
    """What ``serve --json`` prints: one point's fields at the top level, or a sweep's ``points``."""
    status: Literal["complete", "partial", "interrupted"] = (
        "complete" if aborted is None else "interrupted" if aborted.startswith("interrupted") else "partial")
    run: dict[str, Any] = dict(
        status=status, aborted=aborted, server=info, config=opts.config(), dataset=dataset, sweep=sweep,
        notes=tuple(notes), slo_request_rate=slo_rate if slo_rate is not None or opts.slo else UNSET,
        profile=window if window is not None else UNSET,
        repeats=repeat_summary(points) if opts.num_runs > 1 else UNSET)
    if sweep is None and len(points) == 1:
        p = points[0]
        return ServeOutput(**run | {"notes": tuple(notes) + p.notes}, load=p.load, started_at=p.started_at,
                           duration_s=p.duration_s, metrics=p.metrics, throughput=p.throughput, goodput=p.goodput,
                           requests=p.requests, client=p.client, repeat=p.repeat, server_metrics=p.server_metrics,
                           gpu_telemetry=p.gpu_telemetry, slices=p.slices, turns=p.turns, prefix_groups=p.prefix_groups)
    return ServeOutput(**run, points=tuple(points))


@contextlib.contextmanager
def _server(opts: ServeOptions) -> Iterator[tuple[ServerInfo, Callable[[], str | None] | None]]:
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
    assert opts.profile_dir is not None  # ServeOptions refuses --profile without it
    since = time.time()
    t_start = post_profile(info.url, "start", 60.0)
    wload = load.replace(duration_s=opts.profile_duration_s)
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
    # The window's requests are not kept: its point is there for the kernels, not its latencies.
    return ProfileWindow(point=point.replace(requests=point.requests.replace(records=UNSET)),
                         traces=tuple(map(str, traces)), view=view, start_profile_s=t_start, stop_profile_s=t_stop,
                         export_s=export, error=err)


def _warmup_prompts(opts: ServeOptions, ds: Dataset) -> tuple[Prompt, ...]:
    """The warm-up: one request per concurrency slot of the largest cap (8 without one), of the
    workload's median lengths (output at most 64 tokens), each prompt its own (no prefix shared
    with the measured ones, whose cache hits it would otherwise make)."""
    caps = [c for c in opts.max_concurrencies if c]
    n = opts.warmup if opts.warmup is not None else (max(caps) if caps else DEFAULT_WARMUP)
    if n == 0:
        return ()
    li = int(statistics.median(p.input_len for p in ds.prompts))
    lo = min(WARMUP_MAX_OUTPUT, int(statistics.median(p.output_len for p in ds.prompts)))
    rng = random.Random(f"warmup:{opts.seed}")
    return tuple(Prompt(" ".join([f"warmup{i}"] + [rng.choice(WORDS) for _ in range(li - 1)]), li, lo)
                 for i in range(n))


def _is_local(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host in ("localhost", "::1") or host.startswith("127."):
        return True
    try:
        mine = {socket.gethostname(), socket.getfqdn()}
        return host in mine or socket.gethostbyname(host) in {socket.gethostbyname(h) for h in mine}
    except OSError:
        return False


def _observer(opts: ServeOptions, info: ServerInfo, notes: list[Note]) -> Callable[[], Callable[[float], Observed]] | None:
    """What runs beside each point: the ``/metrics`` scrape and the GPU sampler, each only where it
    can (the notes say why not)."""
    scrape = False
    if opts.server_metrics:
        why = probe_metrics(info.url)
        scrape = why is None
        if why:
            notes.append(note("no-server-metrics", f"no server metrics: {why}"))
    gpus: list[Any] = []
    if opts.gpu_telemetry:
        if info.launched or _is_local(info.url):
            gpus, why = open_gpus()
            if why:
                notes.append(note("no-gpu-telemetry", why))
        else:
            notes.append(note("no-gpu-telemetry", f"no GPU telemetry: the server at {info.url} is not on this host"))
    if not scrape and not gpus:
        return None

    def observe() -> Callable[[float], Observed]:
        scraper = Scraper(info.url).start() if scrape else None
        sampler = Sampler(gpus).start() if gpus else None

        def finish(t0: float) -> Observed:
            sm = None
            if scraper is not None:
                scrapes = scraper.stop(t0)
                sm = summarize_scrapes(scraper.url, scrapes, interval_s=scraper.interval_s, failed=scraper.failed,
                                       bad_lines=scraper.bad_lines)
            return sm, sampler.stop(t0) if sampler is not None else (), ()
        return finish
    return observe


def _dataset(opts: ServeOptions, tok: Any) -> Dataset:
    return load_dataset(opts.dataset_name, opts.num_prompts or 1000, path=opts.dataset_path,
                        input_len=opts.random_input_len, output_len=opts.random_output_len,
                        range_ratio=opts.random_range_ratio, seed=opts.seed, tokenizer=tok,
                        sharegpt_output_len=opts.sharegpt_output_len, prefix_len=opts.prefix_repetition_prefix_len,
                        suffix_len=opts.prefix_repetition_suffix_len, num_prefixes=opts.prefix_repetition_num_prefixes,
                        prefix_output_len=opts.prefix_repetition_output_len, multi_turn=opts.multi_turn,
                        max_turns=opts.max_turns)


def benchmark(opts: ServeOptions, progress: Callable[[str], None] | None = None) -> ServeOutput:
    """Run ``bench-kernel serve``: launch or connect, load the dataset, warm up, run each load point
    ``num_runs`` times (a sweep, ``--sweep auto`` or ``--slo``), then the profiled window. See the
    module docstring. ``opts`` was checked when it was made. Returns what ``serve --json`` prints."""
    say = progress or (lambda s: None)
    try:
        import aiohttp  # noqa: F401 - the client's library: say so before a server is started
    except ImportError:
        raise UsageError("bench-kernel serve needs aiohttp: pip install 'bench-kernel[serve]'") from None
    tok = _tokenizer(opts.tokenizer)
    n = opts.num_prompts if opts.duration_s is None else None
    ds = _dataset(opts, tok)
    if opts.dataset_name == "mooncake":
        n = len(ds.prompts)
    base = Load(request_rate=opts.request_rates[0], burstiness=opts.burstiness,
                max_concurrency=opts.max_concurrencies[0], duration_s=opts.duration_s, **opts.ramp())
    loads = sweep_loads(base, list(opts.request_rates), list(opts.max_concurrencies))
    count = (lambda s: len(tok.encode(s, add_special_tokens=False))) if tok is not None else None
    notes: list[Note] = list(ds.notes)
    with _server(opts) as (info, alive):
        ep = Endpoint(info.url, opts.endpoint, info.model, ignore_eos=opts.ignore_eos,
                      request_timeout_s=opts.request_timeout_s, headers=opts.headers)
        observe = _observer(opts, info, notes)
        points: list[ServePoint] = []
        warm = [_warmup_prompts(opts, ds)]
        if warm[0]:
            notes.append(note("warmup", f"warm-up: {len(warm[0])} requests of {warm[0][0].input_len} tokens in, "
                              f"{warm[0][0].output_len} out, all at once, before the first point (not measured)",
                              requests=len(warm[0])))

        def run(load: Load, num: int | None = n) -> ServePoint:
            p = None
            for k in range(opts.num_runs):
                say(f"load point {len(points) + 1}: {load.describe()}"
                    + (f", run {k + 1} of {opts.num_runs}" if opts.num_runs > 1 else ""))
                p = run_point(info, ep, ds.prompts, load, num_prompts=num, seed=opts.seed, warmup=warm[0],
                              goodput_ms=opts.goodput_ms, alive=alive, count_tokens=count, observe=observe,
                              slice_s=opts.slice_duration_s, repeat=k if opts.num_runs > 1 else None)
                warm[0] = ()  # the server is warm after the first point
                points.append(p)
                if p.aborted is not None:
                    break
            return p  # type: ignore[return-value]

        slo_rate = None
        kind: SweepKind | None = "slo" if opts.slo else "auto" if opts.sweep == "auto" else "list" if len(loads) > 1 else None
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
        notes.append(note("server-log", f"the server's log: {info.log_path}", path=info.log_path))
    return _document(opts, info, ds.name, points, kind, slo_rate, window, aborted, notes)
