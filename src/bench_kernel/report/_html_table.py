"""A :class:`Table` as an HTML ``<table>``: formatted by the same hints as the terminal, sortable.

Cells show ``format_value`` text (so µs, MiB, % read the same as in the terminal) and keep the
raw number in ``data-v`` for the sort script; long names are clipped with the full text in
``title``. Nothing here computes a number: the table arrives built.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from bench_kernel.report._html import Markup, clipped, el
from bench_kernel.report._table import Table, format_value

__all__ = ["html_table", "verdict_badge"]

#: verdict word -> its badge's colour class; yes/no: is the fastest provider's margin significant
VERDICTS = {"faster": "faster", "slower": "slower", "same": "same", "inconclusive": "inconclusive", "yes": "faster", "no": "same"}


def _raw(value: object) -> str:
    """The sort key of a number cell: its repr, or "" (sorts last) for none, NaN or a word."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return "" if math.isnan(value) or math.isinf(value) else repr(value)


#: Text up to this long never wraps (a params cell "M=128 N=4096 K=4096" reads as one unit).
_NOWRAP_CHARS = 24


def _text_cell(text: str, full: str | None) -> Markup:
    shown, clipped_full = clipped(text)
    title = full if full and full != shown else clipped_full
    return el("td", {"class": "name nowrap" if len(shown) <= _NOWRAP_CHARS else "name", "title": title}, shown)


def verdict_badge(verdict: str, title: str | None = None) -> Markup:
    """A coloured pill for ``faster``/``slower``/``same`` (text stays, so it prints in grey too);
    a clock-limited one (``slower (clock)``) in amber, with ``title`` (both SM clocks) on hover."""
    word = verdict.split()[0] if verdict else ""
    cls = f"verdict verdict-{VERDICTS[word]}" if word in VERDICTS else "verdict"
    if verdict.endswith("(clock)"):
        cls += " verdict-clock"
    return el("span", {"class": cls, "title": title}, verdict)


# Any: a row's cells are raw values of any kind (``Table.rows``).
def html_table(table: Table, *, cells: Mapping[str, Callable[[Mapping[str, Any]], Markup]] | None = None,
               sortable: bool = True, caption: bool = True) -> Markup:
    """``table`` as a scrollable, sortable HTML table followed by its notes.

    Each column's ``detail`` row key is the cell's hover text (the full kernel name behind a
    short one, a median's CI and sample count); a ``verdict`` column is drawn as coloured badges.
    cells: column key -> custom cell content (a share with its bar).
    """
    cells = cells or {}
    if not table.rows and table.empty:  # a sentence, not headers over nothing
        said = f"{table.title}: {table.empty}" if caption and table.title else table.empty
        return _with_notes(el("p", None, said), table)
    columns = table.view("display")
    numeric = {c.key: c.hint not in ("text", "verdict") and c.justify != "left" for c in columns}
    heads = []
    for c in columns:
        label = el("button", {"class": "sort", "type": "button"}, c.header) if sortable else c.header
        heads.append(el("th", {"class": "num" if numeric[c.key] else None, "scope": "col"}, label))
    rows = []
    for row in table.rows:
        tds = []
        for c in columns:
            value = row.get(c.key)
            tip = row.get(c.detail) if c.detail else None
            tip = None if tip is None else str(tip)
            if c.key in cells:
                tds.append(el("td", {"class": "num" if numeric[c.key] else None, "data-v": _raw(value)},
                              cells[c.key](row)))
            elif c.hint == "verdict":
                tds.append(el("td", None, verdict_badge(str(value or ""), tip)))
            elif numeric[c.key]:
                # A word in a number column is a status the row has instead of a number ("error").
                text = value if isinstance(value, str) else format_value(value, c.hint)
                tds.append(el("td", {"class": "num", "data-v": _raw(value), "title": tip}, text))
            else:
                tds.append(_text_cell(format_value(value, c.hint), tip))
        rows.append(el("tr", None, *tds))
    parts = [el("caption", None, table.title) if caption and table.title else None,
             el("thead", None, el("tr", None, *heads)), el("tbody", None, *rows)]
    return _with_notes(el("div", {"class": "table-wrap"}, el("table", {"class": "sortable" if sortable else None},
                                                           *parts)), table)


def _with_notes(out: Markup, table: Table) -> Markup:
    """``out`` followed by the table's notes, if any."""
    if table.notes or table.info:
        out = Markup(out + el("ul", {"class": "muted"}, *(el("li", None, n) for n in table.notes),
                              *(el("li", {"class": "info"}, "info: ", n) for n in table.info)))
    return out
