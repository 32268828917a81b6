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

VERDICTS = ("faster", "slower", "same")


def _raw(value: Any) -> str:
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


def verdict_badge(verdict: str, clocks: str | None = None) -> Markup:
    """A coloured pill for ``faster``/``slower``/``same`` (text stays, so it prints in grey too);
    a clock-limited one (``slower (clock)``) in amber, with both SM clocks (``clocks``) on hover."""
    word = verdict.split()[0] if verdict else ""
    cls = f"verdict verdict-{word}" if word in VERDICTS else "verdict"
    if verdict.endswith("(clock)"):
        cls += " verdict-clock"
    title = f"SM clock {clocks}: the lower clock alone can explain this" if clocks else None
    return el("span", {"class": cls, "title": title}, verdict)


def html_table(table: Table, *, hover: Mapping[str, str] | None = None,
               cells: Mapping[str, Callable[[Mapping[str, Any]], Markup]] | None = None,
               titles: Mapping[str, Callable[[Mapping[str, Any]], str | None]] | None = None,
               sortable: bool = True, caption: bool = True) -> Markup:
    """``table`` as a scrollable, sortable HTML table followed by its notes.

    hover: column key -> row key whose text is the cell's ``title`` (the full kernel name
        behind a short one). cells: column key -> custom cell content (a verdict badge).
    titles: column key -> a row's hover text for that cell (a median's CI and sample count).
    """
    hover, cells, titles = hover or {}, cells or {}, titles or {}
    numeric = {c.key: c.hint != "text" and c.justify != "left" for c in table.columns}
    heads = []
    for c in table.columns:
        label = el("button", {"class": "sort", "type": "button"}, c.header) if sortable else c.header
        heads.append(el("th", {"class": "num" if numeric[c.key] else None, "scope": "col"}, label))
    rows = []
    for row in table.rows:
        tds = []
        for c in table.columns:
            value = row.get(c.key)
            if c.key in cells:
                tds.append(el("td", {"class": "num" if numeric[c.key] else None, "data-v": _raw(value)},
                              cells[c.key](row)))
            elif numeric[c.key]:
                tip = titles[c.key](row) if c.key in titles else None
                # A word in a number column is a status the row has instead of a number ("error").
                text = value if isinstance(value, str) else format_value(value, c.hint)
                tds.append(el("td", {"class": "num", "data-v": _raw(value), "title": tip}, text))
            else:
                full = row.get(hover[c.key]) if c.key in hover else None
                tds.append(_text_cell(format_value(value, c.hint), None if full is None else str(full)))
        rows.append(el("tr", None, *tds))
    parts = [el("caption", None, table.title) if caption and table.title else None,
             el("thead", None, el("tr", None, *heads)), el("tbody", None, *rows)]
    out = el("div", {"class": "table-wrap"}, el("table", {"class": "sortable" if sortable else None}, *parts))
    if table.notes:
        out = Markup(out + el("ul", {"class": "muted"}, *(el("li", None, n) for n in table.notes)))
    return out
