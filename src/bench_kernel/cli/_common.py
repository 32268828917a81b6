"""Options and output shared by every command: ``--json``, ``--csv``, ``--md``, ``-o FILE``.

Here the format is chosen (a flag, else ``-o``'s extension) and the output placed (stdout or a
file); ``report.render_body`` makes the text or bytes. Output never costs the user data: a file is written to a temporary file in its folder and renamed
over the target only once complete (:func:`write_output`), an output that is also an input is
refused before any work, and a missing folder, a full disk or a closed stdout is one clear line.
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import click

from bench_kernel.errors import OutputError, UsageError
from bench_kernel.report import (
    Table,
    dumps,
    json_default,
    os_error_text,
    printable,
    render_body,
    render_console,
    write_output,
)

__all__ = ["Output", "output_options", "emit", "json_default", "dumps", "print_error", "Invocation",
           "command_line", "db_option", "db_files", "write_output", "check_output_path", "to_stdout", "to_stdout_bytes",
           "FORMATS", "Progress", "progress_hook", "ERROR_PREFIX"]

#: -o FILE's extension -> format. No extension means the table as printed (like .txt). A new format
#: adds its extension here and its renderer in _render_body.
_BY_EXTENSION = {".json": "json", ".csv": "csv", ".md": "md", ".xlsx": "xlsx", ".html": "html", ".htm": "html",
                 ".txt": "table"}
#: What -o accepts, for error messages.
FORMATS = ".txt (the table as printed; also no extension), .json, .csv, .md, .xlsx, .html"

#: ``progress(done, total, message)``: units of work finished (cases, points, phases of a serving run),
#: all of them (None: not known), and what is under way. What a terminal shows as a spinner or a bar;
#: what the MCP server sends as progress notifications.
Progress = Callable[[int, "int | None", str], None]


@dataclass(frozen=True)
class Invocation:
    """What one invocation of the CLI was given, passed down as click's context object (``ctx.obj``):
    no global, so two invocations in one process (the MCP server, tests) never see each other's.

    progress: told as long work advances (``run``'s cases, ``sweep``'s points, ``serve``'s phases),
    besides what the terminal shows; None: the terminal only.
    """

    argv: tuple[str, ...] = ()
    debug: bool = False
    progress: Progress | None = None


def progress_hook() -> Progress:
    """The running invocation's :attr:`Invocation.progress`, or a callable that does nothing."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    hook = obj.progress if isinstance(obj, Invocation) else None
    return hook if hook is not None else (lambda done, total, message: None)


def command_line() -> list[str]:
    """``["bench-kernel", *args]`` of the running command, so stored runs can say how they were made."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return ["bench-kernel", *(obj.argv if isinstance(obj, Invocation) else ())]


def db_option(f: Callable) -> Callable:
    """``--db PATH``: the results database (default ``$BENCH_KERNEL_DB`` or the user data dir)."""
    return click.option("--db", "db_path", default=None, metavar="PATH",
                        help="Results database (default: $BENCH_KERNEL_DB, else "
                             "~/.local/share/bench-kernel/results.db or the platform's data dir).")(f)


def db_files(db_path: str | None) -> list[Path]:
    """The results database (``--db`` or its default) and SQLite's files beside it, which ``-o`` may
    not overwrite. ``results`` is imported here, when a command runs, not with the command's module:
    shell completion imports the module of every command it completes."""
    from bench_kernel.results import store_files

    return store_files(db_path)

#: Suffixes of files the trace loader reads from a folder of per-rank traces.
_TRACE_SUFFIXES = (".json", ".json.gz")


#: How every error line starts (stderr), so scripts and the MCP server can pick them out.
ERROR_PREFIX = "bench-kernel: error: "


def print_error(message: object) -> None:
    """``bench-kernel: error: <message>`` on stderr, folded to ONE line so scripts can grep it;
    control characters in it (from a name) are shown escaped, never sent to the terminal."""
    click.echo(f"{ERROR_PREFIX}{printable(' '.join(str(message).split()))}", err=True)


@dataclass(frozen=True)
class Output:
    """Where and how a command's result goes: ``path`` None is stdout."""

    fmt: str  # "table" | "json" | "csv" | "md" | "xlsx" | "html"
    path: Path | None


def _format_for(path: Path) -> str:
    suffix = path.suffix.lower()
    if not suffix:
        return "table"
    if suffix not in _BY_EXTENSION:
        raise UsageError(f"cannot write {path}: unknown output format {suffix!r}; -o takes {FORMATS}")
    return _BY_EXTENSION[suffix]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_output_path(path: Path | None, inputs: Iterable[Path] = (), option: str = "-o") -> None:
    """Refuse, before any work, an output that would destroy an input or cannot be created.

    UsageError when ``path`` is one of ``inputs`` (the same file: symlinks and hard links included;
    a folder input covers the trace files in it) or a folder; OutputError when its folder does not
    exist or it is something never written (a block device, a socket). A character device or a
    pipe (``/dev/null``, ``/dev/stdout`` on a terminal) is written as a stream and replaces nothing,
    so it may also be an input (``/dev/stdin`` on the same terminal).
    """
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"{option} {path} is a directory: give a file name")
    from bench_kernel.atomic import is_stream

    try:
        if is_stream(path) and not path.is_file():
            return
    except OSError as e:
        raise OutputError(f"cannot write {path}: {os_error_text(e)}") from None
    for inp in inputs:
        clash = _same_file(path, inp) or (
            inp.is_dir() and path.is_file() and Path(os.path.realpath(path)).parent == Path(os.path.realpath(inp))
            and path.name.lower().endswith(_TRACE_SUFFIXES))
        if clash:
            raise UsageError(f"{option} {path} is also an input ({inp}): it would be overwritten; "
                             f"write the output somewhere else")
    parent = path.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: folder {parent} does not exist")


def output_options(csv: bool = True, md: bool = True, outputs: Mapping[str, str] | None = None,
                   inputs: Callable[[dict[str, Any]], Iterable[Path | None]] | None = None) -> Callable:
    """Add ``--json`` [``--csv``] [``--md``] and ``-o/--output FILE``; pass ``output: Output``.

    Every other ``Path`` argument of the command is an input that ``-o`` may not overwrite;
    ``inputs(kwargs)`` names the rest, which are not paths to click (a TARGET's or a spec's file,
    the results database ``--db`` or its default, a results file named as a run): each is compared
    with ``-o`` by identity (links and hard links included) before any work. ``outputs`` names
    the command's other written files by parameter and flag (``{"plot_path": "--plot"}``): each is
    checked the same way, and against ``-o``.
    """
    others = dict(outputs or {})

    def deco(f: Callable) -> Callable:
        opts = [
            click.option("--json", "as_json", is_flag=True, help="Print JSON (versioned; every field is in docs/json.md)."),
            click.option(
                "-o", "--output", "output_path", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                default=None, help=f"Write to FILE ('-' is stdout); the format comes from the flag or the "
                                   f"extension: {FORMATS}.",
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
            if output_path is not None and str(output_path) == "-":
                output_path = None
            given = [p for k, v in kwargs.items() if k not in others
                     for p in (v if isinstance(v, (tuple, list)) else (v,)) if isinstance(p, Path)]
            named = [Path(p) for p in (inputs(kwargs) if inputs else ()) if p is not None]
            check_output_path(output_path, given + named)
            written = [output_path] if output_path is not None else []
            for name, flag in others.items():
                if kwargs.get(name) is not None:
                    check_output_path(Path(kwargs[name]), given + named + written, flag)
                    written.append(Path(kwargs[name]))
            fmt = chosen[0] if chosen else None
            if fmt is None and output_path is not None:
                fmt = _format_for(output_path)
            return f(*args, output=Output(fmt or "table", output_path), **kwargs)

        wrapper.__name__ = f.__name__
        wrapper.__doc__ = f.__doc__
        for opt in reversed(opts):
            wrapper = opt(wrapper)
        return wrapper

    return deco


def to_stdout_bytes(body: bytes) -> None:
    """:func:`to_stdout` for bytes (a trace written to ``-o -``)."""
    out = sys.stdout
    if out is None:
        raise OutputError("cannot write to stdout: it is closed")
    try:
        out.flush()
        if hasattr(out, "buffer"):
            out.buffer.write(body)
        else:  # a text-only stdout (a test's capture): the trace is UTF-8 JSON
            out.write(body.decode("utf-8"))
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write to stdout: {os_error_text(e)}") from None


def to_stdout(body: str) -> None:
    """Write ``body`` to stdout and flush, so a full disk fails here as one line.

    BrokenPipeError (the reader closed the pipe) is left to ``main``, which says so once.
    """
    out = sys.stdout
    if out is None:
        raise OutputError("cannot write to stdout: it is closed")
    try:
        out.write(body)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write to stdout: {os_error_text(e)}") from None


def emit(output: Output, *, data: Any, tables: list[Table] | Table | None = None,
         text: str | None = None) -> None:
    """Write a command's result: ``data`` for ``--json``, ``tables`` for the other formats.

    ``text`` replaces the tables in the default (terminal) format when a command renders
    something that is not a table (a tree, a document).
    """
    if isinstance(tables, Table):
        tables = [tables]
    tables = tables or []
    if output.fmt == "table" and output.path is None:
        _print_terminal(tables, text)
        return
    # The report and the workbook read a command's JSON as plain values. A record's package is loaded
    # when there is a record; a command that printed a dict does not pay for importing it (numpy).
    records = sys.modules.get("bench_kernel.records")
    if records is not None and isinstance(data, records.Record):
        data = data.to_dict()
    ctx = click.get_current_context(silent=True)
    command = ctx.command_path if ctx else "bench-kernel"
    model = None
    if output.fmt == "html":  # -o x.html of a command that measured: the report of its results
        from bench_kernel.report_model import report_for_output

        model = report_for_output(command, data)
    body = render_body(output.fmt, data, tables, text, command=command, model=model)
    if output.path is not None:
        write_output(output.path, body)
    elif isinstance(body, bytes):
        raise UsageError(f"{output.fmt} cannot go to stdout: give -o FILE.{output.fmt}")
    else:
        to_stdout(body)


def _print_terminal(tables: list[Table], text: str | None) -> None:
    from rich.console import Console

    class _Stdout(Console):
        # rich's default answer to a closed pipe is a silent SystemExit(1): let main say it.
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    if sys.stdout is None:
        raise OutputError("cannot write to stdout: it is closed")
    # Piped output has no terminal width: rich would assume 80 columns and fold every table.
    console = _Stdout(width=None if sys.stdout.isatty() else 240, soft_wrap=False)
    try:
        render_console(console, tables, text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write to stdout: {os_error_text(e)}") from None
