"""``bench-kernel serve (--url URL | --launch "CMD") ...``: the serving benchmark.

Flags are named as ``vllm bench serve`` names them wherever the meaning is the same. A list of
rates or concurrencies (``--request-rate 1,2,4``) is a sweep.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import click

from bench_kernel.cli._common import (
    Output,
    command_line,
    db_files,
    db_option,
    emit,
    output_options,
    progress_hook,
)
from bench_kernel.cli._numbers import Number
from bench_kernel.errors import Interrupted, ServerError, UsageError
from bench_kernel.serve import SCHEMA_VERSION as SERVE_SCHEMA_VERSION

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (docs/json.md): the serving run record's own, which
#: its to_dict writes second, after "kind" (how report tells a serving run from other JSON).
SCHEMA_VERSION = SERVE_SCHEMA_VERSION

_GOODPUT_ITEM = re.compile(r"^(ttft|tpot|e2el):")


def _floats(text: str, flag: str, allow_inf: bool) -> tuple[float, ...]:
    out = []
    for part in text.split(","):
        try:
            x = float(part)
        except ValueError:
            raise UsageError(f"{flag} {text!r}: {part!r} is not a number") from None
        if math.isnan(x) or x <= 0 or (math.isinf(x) and not allow_inf):
            raise UsageError(f"{flag} {text!r}: each value must be > 0{' (inf: all at once)' if allow_inf else ''}")
        out.append(x)
    return tuple(out)


def _ints(text: str | None, flag: str) -> tuple[int | None, ...]:
    if text is None:
        return (None,)
    out: list[int | None] = []
    for part in text.split(","):
        if not part.strip().isdigit() or int(part) < 1:
            raise UsageError(f"{flag} {text!r}: {part!r} is not a whole number >= 1")
        out.append(int(part))
    return tuple(out)


def _headers(items: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for h in items:
        k, sep, v = h.partition(":")
        if not sep or not k.strip():
            raise UsageError(f"--header {h!r}: expected NAME:VALUE")
        out.append((k.strip(), v.strip()))
    key = os.environ.get("OPENAI_API_KEY")
    if key and not any(k.lower() == "authorization" for k, _ in out):
        out.append(("Authorization", f"Bearer {key}"))
    return tuple(out)


@click.command("serve", context_settings={"allow_extra_args": True})
@click.option("--url", default=None, help="The server's base URL (http://HOST:PORT).")
@click.option("--launch", default=None, metavar='"CMD ..."',
              help="Start the server with this command (its own process group; stopped on exit, error and Ctrl-C).")
@click.option("--server-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where --launch keeps the server's log (default: a temporary file, named in the notes).")
@click.option("--ready-timeout", "ready_timeout_s", type=Number(min=0, min_open=True), default=600.0,
              show_default=True, help="Seconds --launch waits for /health or /v1/models.")
@click.option("--model", default=None, help="Model name (default: the first the server lists).")
@click.option("--endpoint", type=click.Choice(["chat", "completions"]), default="chat", show_default=True,
              help="/v1/chat/completions or /v1/completions.")
@click.option("--dataset-name", type=click.Choice(["random", "sharegpt", "jsonl"]), default="random",
              show_default=True)
@click.option("--dataset-path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="sharegpt: a JSON list of conversations; jsonl: one {\"prompt\", \"max_tokens\"} per line.")
@click.option("--num-prompts", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--random-input-len", type=click.IntRange(min=1), default=1024, show_default=True)
@click.option("--random-output-len", type=click.IntRange(min=1), default=128, show_default=True)
@click.option("--random-range-ratio", type=Number(min=0, max=0.999999), default=0.0, show_default=True,
              help="vLLM's convention: lengths uniform in [L*(1-r), L*(1+r)] (ATOM/SGLang: [L*r, L]).")
@click.option("--sharegpt-output-len", type=click.IntRange(min=1), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=None,
              help="A Hugging Face tokenizer (name or folder): exact prompt lengths, N_out when the server gives no usage.")
@click.option("--ignore-eos", is_flag=True, help="Ask the server to ignore EOS (resent without it if refused).")
@click.option("--request-rate", default="inf", show_default=True,
              help="Requests per second (Poisson), inf = all at once; a list 1,2,4 is a sweep.")
@click.option("--burstiness", type=Number(min=0, min_open=True), default=1.0, show_default=True,
              help="Gamma shape of the gaps between requests (1: Poisson).")
@click.option("--max-concurrency", default=None, help="Requests in flight at most; a list 1,8,32 is a sweep.")
@click.option("--duration", "duration_s", type=Number(min=0, min_open=True), default=None,
              help="Send for this many seconds (prompts reused) instead of --num-prompts requests.")
@click.option("--warmup", type=click.IntRange(min=0), default=0, show_default=True,
              help="Requests sent and left out before the first point.")
@click.option("--goodput", multiple=True, metavar="NAME:MS",
              help="SLO targets, e.g. --goodput ttft:200 tpot:50 e2el:5000 (ms).")
@click.option("--sweep", default=None, type=click.Choice(["auto"]),
              help="auto: synchronous, max throughput, then rates between, stopping past saturation.")
@click.option("--sweep-points", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--slo", is_flag=True, help="Search the highest rate whose requests meet the --goodput targets.")
@click.option("--slo-ratio", type=Number(min=0, max=1, min_open=True), default=0.9, show_default=True,
              help="The fraction of requests that must meet every target (DistServe's attainment).")
@click.option("--request-timeout", "request_timeout_s", type=Number(min=0, min_open=True), default=300.0,
              show_default=True, help="Seconds one request may take (a stream that never ends fails then).")
@click.option("--header", "headers", multiple=True, metavar="NAME:VALUE", help="Extra HTTP header (repeatable).")
@click.option("--profile", is_flag=True, help="After the load, profile a window with /start_profile and /stop_profile.")
@click.option("--profile-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder the server writes traces to (--launch passes it to SGLang and ATOM).")
@click.option("--profile-requests", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--profile-duration", "profile_duration_s", type=Number(min=0, min_open=True), default=None)
@click.option("--profile-timeout", "profile_timeout_s", type=Number(min=0, min_open=True), default=600.0,
              show_default=True, help="Seconds for /stop_profile and the trace export together.")
@click.option("--save", is_flag=True, help="Store the run in the results database.")
@db_option
@output_options(inputs=lambda kw: db_files(kw["db_path"]) if kw["save"] else [])  # -o never over --db
@click.pass_context
def command(ctx: click.Context, url: str | None, launch: str | None, server_log: Path | None,
            ready_timeout_s: float, model: str | None, endpoint: str, dataset_name: str, dataset_path: Path | None,
            num_prompts: int, random_input_len: int, random_output_len: int, random_range_ratio: float,
            sharegpt_output_len: int | None, seed: int, tokenizer: str | None, ignore_eos: bool, request_rate: str,
            burstiness: float, max_concurrency: str | None, duration_s: float | None, warmup: int,
            goodput: tuple[str, ...], sweep: str | None, sweep_points: int, slo: bool, slo_ratio: float,
            request_timeout_s: float, headers: tuple[str, ...], profile: bool, profile_dir: Path | None,
            profile_requests: int, profile_duration_s: float | None, profile_timeout_s: float, save: bool,
            db_path: str | None, output: Output) -> int:
    """Benchmark an OpenAI-compatible LLM server: TTFT, TPOT, ITL, ICL, E2E, throughput, goodput.

    Give the server with --url, or --launch a command that starts it. Every metric is defined in the
    README ("bench-kernel serve"); the client's own lateness is measured and flagged.
    """
    from rich.console import Console
    from rich.markup import escape

    from bench_kernel.report import serve_tables
    from bench_kernel.serve import ServeOptions, benchmark, parse_goodput

    extra = list(ctx.args)
    bad = [a for a in extra if not _GOODPUT_ITEM.match(a)]
    if bad or (extra and not goodput):
        raise UsageError(f"unexpected argument {(bad or extra)[0]!r}")
    items = [x for g in list(goodput) + extra for x in re.split(r"[,\s]+", g) if x]
    if url is None and launch is None:
        raise UsageError("give the server: --url URL, or --launch \"CMD ...\" to start one")
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
    if profile and profile_dir is None:
        raise UsageError("--profile needs --profile-dir DIR: the folder the server writes its traces to")
    if dataset_name != "random" and dataset_path is None:
        raise UsageError(f"--dataset-name {dataset_name} needs --dataset-path FILE")
    rates = _floats(request_rate, "--request-rate", allow_inf=True)
    opts = ServeOptions(
        url=url, launch=launch, model=model, endpoint=endpoint, dataset_name=dataset_name, dataset_path=dataset_path,
        num_prompts=num_prompts, random_input_len=random_input_len, random_output_len=random_output_len,
        random_range_ratio=random_range_ratio, sharegpt_output_len=sharegpt_output_len, seed=seed,
        tokenizer=tokenizer, ignore_eos=ignore_eos, request_rates=rates, burstiness=burstiness,
        max_concurrencies=_ints(max_concurrency, "--max-concurrency"), duration_s=duration_s, warmup=warmup,
        goodput_ms=parse_goodput(items), sweep=sweep, sweep_points=sweep_points, slo=slo, slo_ratio=slo_ratio,
        request_timeout_s=request_timeout_s, ready_timeout_s=ready_timeout_s, server_log=server_log,
        headers=_headers(headers), profile=profile, profile_dir=profile_dir, profile_requests=profile_requests,
        profile_duration_s=profile_duration_s, profile_timeout_s=profile_timeout_s)
    store = None
    if save:
        from bench_kernel.results import open_store

        store = open_store(db_path)
        ctx.call_on_close(store.close)
    err = Console(stderr=True, highlight=False)
    tell = progress_hook()
    said = 0

    def progress(text: str) -> None:
        nonlocal said
        err.print(f"[dim]{escape(text)}[/dim]")
        tell(said, None, text)  # a serving run announces its phases, not a count of a known total
        said += 1

    run = benchmark(opts, progress=progress)
    if store is not None:
        from bench_kernel.results import save_serve_run

        saved = save_serve_run(store, run.to_dict(), command=command_line())
        err.print(f"stored as run {saved}")
    emit(output, data=run.to_dict(), tables=serve_tables(run))  # "kind" first, then schema_version
    if run.aborted is None and run.nothing_completed() is not None:
        raise ServerError(run.nothing_completed())
    if run.aborted is not None:
        if run.status == "interrupted":
            raise Interrupted(f"{run.aborted}: the partial run was written" + (" and stored" if store else ""))
        raise ServerError(f"{run.aborted} (partial results were written{' and stored' if store else ''})")
    return 0

