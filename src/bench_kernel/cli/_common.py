"""Options and output shared by every command: ``--json``, ``--csv``, ``--md``, ``-o FILE``."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import click

from bench_kernel.errors import UsageError
from bench_kernel.report import Table, render_rich, to_csv, to_markdown

__all__ = ["Output", "output_options", "emit", "json_default", "dumps", "print_error", "remember_argv",
           "command_line", "db_option"]

_ARGV: list[str] = []


def remember_argv(args: list[str]) -> None:
    """Keep the command line (``main`` calls this) so stored runs can say how they were made."""
    _ARGV[:] = list(args)


def command_line() -> list[str]:
    """``["bench-kernel", *args]`` of the running command."""
    return ["bench-kernel", *_ARGV]


def db_option(f: Callable) -> Callable:
    """``--db PATH``: the results database (default ``$BENCH_KERNEL_DB`` or the user data dir)."""
    return click.option("--db", "db_path", default=None, metavar="PATH",
                        help="Results database (default: $BENCH_KERNEL_DB, else "
                             "~/.local/share/bench-kernel/results.db or the platform's data dir).")(f)


def print_error(message: object) -> None:
    """``bench-kernel: error: <message>`` on stderr, folded to ONE line so scripts can grep it."""
    click.echo(f"bench-kernel: error: {' '.join(str(message).split())}", err=True)


@dataclass(frozen=True)
class Output:
    """Where and how a command's result goes."""

    fmt: str  # "table" | "json" | "csv" | "md" | "html"
    path: Path | None


def output_options(csv: bool = True, md: bool = True) -> Callable:
    """Add ``--json`` [``--csv``] [``--md``] and ``-o/--output FILE``; pass ``output: Output``."""

    def deco(f: Callable) -> Callable:
        opts = [
            click.option("--json", "as_json", is_flag=True, help="Print JSON (the stable schema)."),
            click.option(
                "-o", "--output", "output_path", type=click.Path(dir_okay=False, path_type=Path),
                default=None, help="Write to FILE instead of stdout (format from the flag or the extension).",
            ),
        ]
        if csv:
            opts.append(click.option("--csv", "as_csv", is_flag=True, help="Print CSV (raw values)."))
        if md:
            opts.append(click.option("--md", "as_md", is_flag=True, help="Print a Markdown table."))

        def wrapper(*args: Any, as_json: bool = False, as_csv: bool = False, as_md: bool = False,
                    output_path: Path | None = None, **kwargs: Any) -> Any:
            chosen = [n for n, on in (("json", as_json), ("csv", as_csv), ("md", as_md)) if on]
            if len(chosen) > 1:
                raise UsageError(f"choose one output format, got --{' --'.join(chosen)}")
            fmt = chosen[0] if chosen else None
            if fmt is None and output_path is not None:
                fmt = {".json": "json", ".csv": "csv", ".md": "md", ".html": "html",
                       ".htm": "html"}.get(output_path.suffix.lower())
            return f(*args, output=Output(fmt or "table", output_path), **kwargs)

        wrapper.__name__ = f.__name__
        wrapper.__doc__ = f.__doc__
        for opt in reversed(opts):
            wrapper = opt(wrapper)
        return wrapper

    return deco


def json_default(o: Any) -> Any:
    """JSON fallback for records: dataclasses via ``to_dict``, numpy scalars, paths."""
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (Path, set, frozenset, tuple)):
        return list(o) if not isinstance(o, Path) else str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _clean(o: Any) -> Any:
    # NaN/inf are not JSON: they become null, so every consumer can parse what we print.
    if isinstance(o, float):
        return None if (math.isnan(o) or math.isinf(o)) else o
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def dumps(data: Any) -> str:
    """Serialise ``data`` as indented, strict JSON (NaN -> null)."""
    return json.dumps(_clean(json.loads(json.dumps(data, default=json_default))), indent=2,
                      ensure_ascii=False)


def emit(output: Output, *, data: Any, tables: list[Table] | Table | None = None,
         text: str | None = None) -> None:
    """Write a command's result: ``data`` for ``--json``, ``tables`` for the other formats.

    ``text`` replaces the tables in the default (terminal) format when a command renders
    something that is not a table (a tree, a document).
    """
    if isinstance(tables, Table):
        tables = [tables]
    tables = tables or []
    if output.fmt == "json":
        body = dumps(data) + "\n"
    elif output.fmt == "csv":
        body = "\n".join(to_csv(t) for t in tables)
    elif output.fmt == "md":
        body = "\n".join(to_markdown(t) for t in tables)
    elif output.fmt == "html":  # -o x.html: the HTML report of this command's output
        from bench_kernel.report import html_for_output

        ctx = click.get_current_context(silent=True)
        body = html_for_output(ctx.command_path if ctx else "bench-kernel", data, tables)
    else:
        body = None

    if body is not None:
        if output.path:
            output.path.write_text(body, encoding="utf-8")
        else:
            sys.stdout.write(body)
        return

    from rich.console import Console

    if output.path:
        with output.path.open("w", encoding="utf-8") as fh:
            console = Console(file=fh, width=200, color_system=None)
            _render(console, tables, text)
    else:
        # Piped output has no terminal width: rich would assume 80 columns and fold every table.
        _render(Console(width=None if sys.stdout.isatty() else 240, soft_wrap=False), tables, text)


def _render(console: Any, tables: list[Table], text: str | None) -> None:
    if text is not None:
        # soft_wrap: trees and documents are drawn to exact columns; folding them breaks the picture.
        console.print(text, highlight=False, markup=False, soft_wrap=True)
    for t in tables:
        render_rich(t, console)
