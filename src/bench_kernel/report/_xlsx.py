"""Tables as an Excel workbook: one sheet per table, raw values, units in the headers.

The spreadsheet TraceLens users paste into. Values stay numbers in the tool's units (a duration
column is microseconds, headed ``Total (us)``), so formulas work on them; text is kept except
control characters, which Excel's format cannot hold. ``openpyxl`` is optional (the ``xlsx``
extra) and imported only here, only when a workbook is written.
"""

from __future__ import annotations

import math
import re
from typing import IO, Any, Sequence

from bench_kernel.errors import OutputError
from bench_kernel.report._table import Table
from bench_kernel.report._text import printable

__all__ = ["to_xlsx", "xlsx_header", "XLSX_MISSING"]

XLSX_MISSING = "writing .xlsx needs openpyxl: pip install 'bench-kernel[xlsx]' (or pip install openpyxl)"

#: hint -> the unit a raw value of that column is in (headers say it, values stay raw).
_UNITS = {"duration_us": "us", "pct": "%", "ratio": "x", "tflops": "TFLOP/s", "tbps": "TB/s", "bytes": "bytes"}
#: Excel forbids these in sheet names, and caps a name at 31 characters.
_SHEET_BAD = re.compile(r"[\[\]:*?/\\]")


def xlsx_header(header: str, hint: str) -> str:
    """The column header with the unit of its raw values: ``Total`` + duration -> ``Total (us)``."""
    unit = _UNITS.get(hint)
    return f"{header} ({unit})" if unit and f"({unit})" not in header else header


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and (math.isnan(value) or math.isinf(value))):
        return None
    if isinstance(value, (bool, int, float)):
        return value
    if hasattr(value, "item"):  # numpy scalars
        return _cell(value.item())
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        value = " ".join(map(str, value)) if not isinstance(value, dict) else \
            " ".join(f"{k}={v}" for k, v in value.items())
    return printable(value)


def _sheet_name(title: str | None, index: int, taken: set[str]) -> str:
    base = " ".join(_SHEET_BAD.sub(" ", printable(title or "")).split()).strip("'")[:31] or f"Table {index + 1}"
    name, n = base, 2
    while name.lower() in taken:
        name = f"{base[:28 - len(str(n))]} ({n})"
        n += 1
    taken.add(name.lower())
    return name


def to_xlsx(tables: Sequence[Table], fh: IO[bytes]) -> None:
    """Write ``tables`` to ``fh`` (a binary file) as a workbook: one sheet per table; titles and
    notes go to a last sheet named ``notes``. OutputError when openpyxl is missing."""
    try:
        from openpyxl import Workbook
    except ImportError:
        raise OutputError(XLSX_MISSING) from None
    if not tables:
        raise OutputError("nothing to write as .xlsx: this output has no table (try --json)")
    wb = Workbook()
    wb.remove(wb.active)
    taken: set[str] = set()
    notes: list[tuple[str, str]] = []
    for i, t in enumerate(tables):
        ws = wb.create_sheet(_sheet_name(t.title, i, taken))
        ws.append([xlsx_header(printable(c.header), c.hint) for c in t.columns])
        for row in t.rows:
            ws.append([_cell(row.get(c.key)) for c in t.columns])
        ws.freeze_panes = "A2"
        if t.title:
            notes.append((ws.title, f"title: {printable(t.title)}"))
        notes += [(ws.title, printable(n)) for n in t.notes]
    if notes:
        ws = wb.create_sheet(_sheet_name("notes", len(tables), taken))
        ws.append(["sheet", "note"])
        for row in notes:
            ws.append(list(row))
    wb.save(fh)
