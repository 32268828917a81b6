"""A command's result in the format asked for: JSON, CSV, Markdown, xlsx, HTML or the table as
printed. The CLI picks the format and where it goes (``cli._common``: flags, ``-o``, stdout);
everything that turns its data and tables into text or bytes is here."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from bench_kernel.errors import UsageError
from bench_kernel.report._table import Table, render_rich, to_csv, to_markdown
from bench_kernel.report._text import printable
from bench_kernel.report._version import tool_version

if TYPE_CHECKING:  # rich and the report model load only for the formats that need them
    from rich.console import Console

    from bench_kernel.report_model import ReportModel

__all__ = ["OUTPUT_FORMATS", "dumps", "json_default", "render_body", "render_console", "tool_version"]

#: What :func:`render_body` writes.
OUTPUT_FORMATS = ("table", "json", "csv", "md", "xlsx", "html")


# Any: what comes back is plain JSON of any shape (a record's ``to_dict``, a numpy scalar's value).
def json_default(o: object) -> Any:
    """JSON fallback for records: dataclasses via ``to_dict``, numpy scalars, paths."""
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (Path, set, frozenset, tuple)):
        return list(o) if not isinstance(o, Path) else str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _plain(o: object) -> Any:  # Any: plain JSON of any shape
    """``o`` as plain JSON values in one pass: records through :func:`json_default`, and NaN/inf
    (not JSON) as null, so every consumer can parse what we print. One pass, not a dumps/loads
    round trip: a 10,000-case run's output is 15 MB."""
    if isinstance(o, float):
        return None if (math.isnan(o) or math.isinf(o)) else o
    if o is None or isinstance(o, (str, int)):
        return o
    if isinstance(o, dict):
        return {k: _plain(v) for k, v in o.items()}  # json.dumps writes int, float, bool and None keys itself
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    return _plain(json_default(o))


def dumps(data: object) -> str:
    """Serialise ``data`` as indented, strict JSON (NaN -> null)."""
    return json.dumps(_plain(data), indent=2, ensure_ascii=False)


def render_console(console: Console, tables: Sequence[Table], text: str | None = None) -> None:
    """Print ``tables`` (or ``text``, a tree or a document that is not a table) on a rich console."""
    if text is not None:
        from rich.text import Text

        # soft_wrap: trees and documents are drawn to exact columns; folding them breaks the picture.
        console.print(Text(printable(text, keep="\n")), highlight=False, soft_wrap=True)
        return
    for t in tables:
        render_rich(t, console)


def render_body(fmt: str, data: object, tables: Sequence[Table], text: str | None = None, *,
                command: str = "bench-kernel", model: ReportModel | None = None) -> str | bytes:
    """``data`` (``json``) or ``tables`` in format ``fmt`` (one of :data:`OUTPUT_FORMATS`).

    ``table`` is what the terminal shows, 200 columns wide, without colour; ``html`` is the report
    of ``model`` (a ``report_model.ReportModel`` of the command's results) when there is one, else
    the command's tables, sortable; ``xlsx`` is bytes, every other format text.
    """
    if fmt == "json":
        return dumps(data) + "\n"
    if fmt == "csv":
        return "\n".join(to_csv(t) for t in tables)
    if fmt == "md":
        return "\n".join(to_markdown(t) for t in tables)
    if fmt == "html":
        from bench_kernel.report._report import html_for_output

        return html_for_output(command, tables, model=model)
    if fmt == "xlsx":
        from bench_kernel.report._xlsx import to_xlsx

        book = io.BytesIO()
        to_xlsx(tables, book, data=_plain(data))  # a document record as the JSON it prints
        return book.getvalue()
    if fmt == "table":
        from rich.console import Console

        buf = io.StringIO()
        render_console(Console(file=buf, width=200, color_system=None), tables, text)
        return buf.getvalue()
    raise UsageError(f"unknown output format {fmt!r}; expected one of {', '.join(OUTPUT_FORMATS)}")
