"""``bench-kernel serve (--url URL | --launch "CMD") ...``: the serving benchmark.

Its options are generated from ``bench_kernel.serve.ServeOptions`` (the help is each field's
description, the default its default) and ``SERVE_FIELDS`` (the flag and how it is typed), so the
command and the API take the same options with the same defaults and refuse the same values: the
checks are the record's own. Flags are ``vllm bench serve``'s wherever the meaning is the same. A
list of rates or concurrencies (``--request-rate 1,2,4``) is a sweep.
"""

from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path
from typing import Any, Callable

import click
import msgspec

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
from bench_kernel.records import SERVE_SCHEMA_VERSION
from bench_kernel.serve import SERVE_FIELDS, ServeField, ServeOptions, field_choices, field_help

__all__ = ["command", "SCHEMA_VERSION"]

#: The version of this command's --json document (``bench_kernel.records.ServeOutput``), written
#: second, after "kind" (how report tells a serving run from other JSON).
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


def _store_files(db_path: str | None) -> list[Path]:
    """The results database (``--db`` or its default) and SQLite's files beside it: -o may not be one."""
    from bench_kernel.results import store_files

    return store_files(db_path)


@functools.cache
def _fields() -> dict[str, Any]:
    # Each read of the record's fields resolves every annotation (~4 ms): once per process,
    # not once per option of the 46 that `serve` builds at import.
    return {f.name: f for f in msgspec.structs.fields(ServeOptions)}


def _default(name: str) -> Any:
    f = _fields()[name]
    return f.default_factory() if f.default is msgspec.NODEFAULT else f.default


def _option(f: ServeField) -> Callable:
    """One click option from a ServeOptions field: the flag and type from ``f``, the help and the
    default from the record."""
    d = _default(f.name)
    text = field_help(f.name)
    shown = not (d is None or isinstance(d, bool) or d in ((), {}, (None,)))
    kw: dict[str, Any] = {"help": text}
    if f.metavar:
        kw["metavar"] = f.metavar
    types: dict[str, Any] = {
        "text": str, "file": click.Path(dir_okay=False, path_type=Path), "dir": click.Path(file_okay=False, path_type=Path),
        "count": click.IntRange(min=1), "count0": click.IntRange(min=0), "int": int,
        "number": Number(min=0, min_open=True), "fraction": Number(min=0, max=0.999999),
        "share": Number(min=0, max=1, min_open=True),
    }
    if f.kind == "flag":
        return click.option(f.flag, f.name, is_flag=True, default=d, **kw)
    if f.kind == "switch":
        neg = "--no-" + f.flag.removeprefix("--")
        return click.option(f"{f.flag}/{neg}", f.name, default=d, **kw)
    if f.kind in ("goodput", "header"):
        return click.option(f.flag, f.name, multiple=True, **kw)
    if f.kind == "choice":
        return click.option(f.flag, f.name, type=click.Choice(field_choices(f.name)), default=d, show_default=shown, **kw)
    if f.kind == "rates":
        return click.option(f.flag, f.name, default=",".join("inf" if math.isinf(r) else f"{r:g}" for r in d),
                            show_default=True, **kw)
    if f.kind == "concurrencies":
        return click.option(f.flag, f.name, default=None, **kw)
    return click.option(f.flag, f.name, type=types[f.kind], default=d, show_default=shown, **kw)


def serve_options(command: Callable) -> Callable:
    """Every ServeOptions field as an option of ``command`` (in SERVE_FIELDS' order in --help)."""
    for f in reversed(SERVE_FIELDS):
        command = _option(f)(command)
    return command


def _given(kw: dict[str, Any], extra: list[str]) -> dict[str, Any]:
    """The ServeOptions fields from the parsed options (lists and items turned into their values)."""
    bad = [a for a in extra if not _GOODPUT_ITEM.match(a)]
    if bad or (extra and not kw["goodput_ms"]):
        raise UsageError(f"unexpected argument {(bad or extra)[0]!r}")
    from bench_kernel.serve import parse_goodput

    out = {f.name: kw.pop(f.name) for f in SERVE_FIELDS}
    out["request_rates"] = _floats(out["request_rates"], "--request-rate", allow_inf=True)
    out["max_concurrencies"] = _ints(out["max_concurrencies"], "--max-concurrency")
    items = [x for g in list(out["goodput_ms"]) + extra for x in re.split(r"[,\s]+", g) if x]
    out["goodput_ms"] = parse_goodput(items)
    out["headers"] = _headers(out["headers"])
    return out


@click.command("serve", context_settings={"allow_extra_args": True})
@serve_options
@click.option("--save", is_flag=True, help="Store the run in the results database.")
@db_option
@output_options(inputs=lambda kw: db_files(kw["db_path"]) if kw["save"] else [])  # -o never over --db
@click.pass_context
def command(ctx: click.Context, save: bool, db_path: str | None, output: Output, **kw: Any) -> int:
    """Benchmark an OpenAI-compatible LLM server: TTFT, TPOT, ITL, ICL, E2E, throughput, goodput.

    Give the server with --url, or --launch a command that starts it. Every metric, workload and
    option is explained in docs/serving.md; the client's own lateness is measured and flagged.
    """
    from rich.console import Console
    from rich.markup import escape

    from bench_kernel.report import serve_tables
    from bench_kernel.serve import benchmark

    opts = ServeOptions(**_given(kw, list(ctx.args)))  # every check of the options, before anything runs
    if db_path and not save:
        raise UsageError("--db is where --save stores the run: add --save")
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
    data = run.to_dict()  # "kind" first, then schema_version
    if store is not None:
        from bench_kernel.results import save_serve_run

        saved = save_serve_run(store, data, command=command_line())
        err.print(f"stored as run {saved}")
    emit(output, data=data, tables=serve_tables(run))
    if run.aborted is None and run.nothing_completed() is not None:
        raise ServerError(run.nothing_completed())
    if run.aborted is not None:
        if run.status == "interrupted":
            raise Interrupted(f"{run.aborted}: the partial run was written" + (" and stored" if store else ""))
        raise ServerError(f"{run.aborted} (partial results were written{' and stored' if store else ''})")
    return 0

