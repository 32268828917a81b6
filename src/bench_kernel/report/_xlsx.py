"""Tables as an Excel workbook: the spreadsheet a performance engineer pivots on.

One sheet per table with the table's raw view (``Column.only``): numbers stay numbers in the tool's
units (a duration column is microseconds, headed ``Total (us)``, so formulas work on them), a
point's parameters are one column per axis, a 95% CI is two number columns. A number column holds
only numbers: a status standing where a time would be ("unsupported", "failed") leaves the cell
empty with the word as the cell's comment. Sheets are named by the table's short ``sheet`` name;
titles and notes go to a ``notes`` sheet, and where the results were made (device, driver,
versions, clocks, commit, command) to an ``environment`` sheet. Text is kept except control
characters, which the format cannot hold. ``openpyxl`` is optional (the ``xlsx`` extra) and
imported only here, only when a workbook is written.
"""

from __future__ import annotations

import math
import re
from typing import IO, Any, Iterator, Sequence

from bench_kernel.errors import MissingExtraError, OutputError
from bench_kernel.report._table import Table
from bench_kernel.report._text import printable

__all__ = ["to_xlsx", "xlsx_header", "XLSX_MISSING"]

XLSX_MISSING = "writing .xlsx needs openpyxl: pip install 'bench-kernel[xlsx]' (or pip install openpyxl)"

#: hint -> the unit a raw value of that column is in (headers say it, values stay raw).
_UNITS = {"duration_us": "us", "pct": "%", "roof_pct": "%", "ratio": "x", "tflops": "TFLOP/s", "tbps": "TB/s",
          "bytes": "bytes"}
#: Hints whose raw values are numbers.
_NUMERIC = {"int", "float", "duration_us", "pct", "roof_pct", "ratio", "tflops", "tbps", "bytes"}
#: Excel forbids these in sheet names, caps a name at 31 characters and keeps "History" for itself.
_SHEET_BAD = re.compile(r"[\[\]:*?/\\\x00-\x1f]")
_SHEET_MAX = 31


def xlsx_header(header: str, hint: str) -> str:
    """The column header with the unit of its raw values, unless it already names it:
    ``Total`` + duration -> ``Total (us)``; ``TFLOP/s`` stays ``TFLOP/s``; ``Busy %`` stays."""
    unit = _UNITS.get(hint)
    return f"{header} ({unit})" if unit and unit.lower() not in header.lower() else header


def _number(value: object) -> object:
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return None if math.isnan(value) or math.isinf(value) else value


def _text(value: object) -> object:
    if isinstance(value, (list, tuple, set, frozenset)):
        value = " ".join(map(str, value))
    elif isinstance(value, dict):
        from bench_kernel.records import params_text

        value = params_text(value)
    return printable(value) if isinstance(value, str) else value


def _sheet_name(raw: str, index: int, taken: set[str]) -> str:
    """``raw`` (a table's short name, else its title) cleaned of what Excel forbids, cut at a
    word within 31 characters, made unique with `` (2)``."""
    raw = printable(raw)
    base = " ".join(_SHEET_BAD.sub(" ", raw).split()).strip("'")
    if len(base) > _SHEET_MAX:
        cut = base[:_SHEET_MAX + 1].rsplit(" ", 1)[0]
        base = (cut if len(cut) >= 8 else base[:_SHEET_MAX]).rstrip(" ,;.-")
    if not base or base.lower() == "history":
        base = f"Table {index + 1}"
    name, n = base, 2
    while name.lower() in taken:
        name = f"{base[:_SHEET_MAX - 3 - len(str(n))]} ({n})"
        n += 1
    taken.add(name.lower())
    return name


def _flatten(prefix: str, value: object) -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(f"{prefix}.{k}" if prefix else str(k), v)
    elif isinstance(value, (list, tuple)) and not any(isinstance(v, (dict, list, tuple)) for v in value):
        yield prefix, " ".join(map(str, value))
    elif not isinstance(value, (list, tuple)):
        yield prefix, value


def _environment(data: object) -> list[tuple[str, object]]:
    """Where the results were made, from the command's JSON: the stored run (id, name, command,
    commit, dates) and the machine (device, driver, versions, clocks), one fact per row."""
    from bench_kernel.report._version import tool_version

    rows: list[tuple[str, object]] = [("bench-kernel", tool_version())]
    if not isinstance(data, dict):
        return rows
    stored = data.get("run")  # the command's JSON, of whatever shape it printed: only a dict is read
    run: dict[str, Any] = stored if isinstance(stored, dict) else {}
    for key in ("id", "kind", "name", "status", "created_at", "finished_at", "wall_s", "source_path", "source_hash",
                "git_commit", "git_dirty", "command"):
        if run.get(key) not in (None, "", []):
            rows += list(_flatten(f"run.{key}", run[key]))
    env = run.get("env") or {}
    results = data.get("results") if isinstance(data.get("results"), list) else []
    if not env and results and isinstance(results[0], dict):
        env = results[0].get("env") or {}
    rows += list(_flatten("", env))
    for key in ("trace", "rank", "device", "schema_version"):  # what the trace commands name
        if key in data and not isinstance(data[key], (dict, list)) and data[key] is not None:
            rows.append((key, data[key]))
    return rows


def to_xlsx(tables: Sequence[Table], fh: IO[bytes], *, data: object = None) -> None:
    """Write ``tables`` to ``fh`` (a binary file) as a workbook (see the module docstring); ``data``
    is the command's JSON, read for the environment sheet. MissingExtraError when openpyxl is missing."""
    try:
        from openpyxl import Workbook
        from openpyxl.comments import Comment
    except ImportError:
        raise MissingExtraError(XLSX_MISSING) from None
    if not tables:
        raise OutputError("nothing to write as .xlsx: this output has no table (try --json)")
    wb = Workbook()
    wb.remove(wb.active)
    taken: set[str] = set()
    notes: list[tuple[str, str]] = []
    for i, t in enumerate(tables):
        ws = wb.create_sheet(_sheet_name(t.sheet or t.title or "", i, taken))
        columns = t.view("raw")
        ws.append([xlsx_header(printable(c.header), c.hint) for c in columns])
        for r, row in enumerate(t.rows, start=2):
            for col, c in enumerate(columns, start=1):
                value = row.get(c.key)
                if c.hint in _NUMERIC:
                    value = _number(value)
                    if isinstance(value, str):  # a status where the number would be: said, not stored
                        ws.cell(r, col).comment = Comment(printable(value), "bench-kernel")
                        continue
                ws.cell(r, col, _text(value))
        ws.freeze_panes = "A2"
        if t.title:
            notes.append((ws.title, f"title: {printable(t.title)}"))
        notes += [(ws.title, printable(n)) for n in t.notes]
        notes += [(ws.title, f"info: {printable(n)}") for n in t.info]
    if notes:
        ws = wb.create_sheet(_sheet_name("notes", len(tables), taken))
        ws.append(["sheet", "note"])
        for note in notes:
            ws.append(list(note))
    env = wb.create_sheet(_sheet_name("environment", len(tables) + 1, taken))
    env.append(["fact", "value"])
    for key, value in _environment(data):
        env.append([printable(key), _text(_number(value))])
    wb.save(fh)
