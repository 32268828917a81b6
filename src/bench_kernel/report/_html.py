"""HTML building blocks for the report: every string is escaped unless it is :class:`Markup`.

Names in a report come from traces and user code (``add<script>``, ``void f<T&>(...)``,
``"quoted"``): they are data. So the builder escapes by default and only what this package
produced itself (its tags, matplotlib's SVG) is wrapped as ``Markup``. A forgotten ``esc`` then
shows ``&lt;b&gt;`` on the page instead of running a script.
"""

from __future__ import annotations

import html
from typing import Iterable, Mapping

__all__ = ["Markup", "esc", "el", "join", "clipped"]

#: Names longer than this are shown shortened, the full text on hover (``title``).
NAME_LIMIT = 64
_HEAD, _TAIL = 40, 18


class Markup(str):
    """Text that is already HTML (built here, or an SVG from matplotlib): never escaped again."""

    __slots__ = ()


#: Control characters a name may carry (ANSI ESC, CR, bidi overrides that reorder what a reader
#: sees: "Trojan Source"): shown as visible escapes such as ``\x1b``, as on the terminal.
_BIDI = (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_VISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}")
            for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)}


def esc(value: object) -> Markup:
    """``value`` as HTML text: Markup passes through, anything else is escaped (quotes included)
    and its control characters made visible (tab and newline stay: they are HTML whitespace)."""
    if isinstance(value, Markup):
        return value
    text = str(value)
    if not text.isprintable():
        text = text.translate(_VISIBLE)
    return Markup(html.escape(text, quote=True))


def join(parts: Iterable[object], sep: str = "") -> Markup:
    """Escape each part and join them; None parts are skipped."""
    return Markup(esc(sep).join(esc(p) for p in parts if p is not None))


def _attrs(attrs: Mapping[str, object]) -> str:
    out = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")  # class_ -> class, data_v -> data-v
        out.append(f" {name}" if value is True else f' {name}="{esc(value)}"')
    return "".join(out)


def el(tag: str, attrs: Mapping[str, object] | None = None, *children: object) -> Markup:
    """``<tag attrs>children</tag>``: attribute values and non-Markup children are escaped;
    None children are skipped. Void elements (``meta``, ``br``) take no children."""
    open_tag = f"<{tag}{_attrs(attrs or {})}>"
    if tag in ("meta", "br", "hr", "img", "link"):
        return Markup(open_tag)
    return Markup(open_tag + "".join(esc(c) for c in children if c is not None) + f"</{tag}>")


def clipped(text: str, limit: int = NAME_LIMIT) -> tuple[str, str | None]:
    """(what to show, the full text for ``title`` or None): long names keep their head and tail,
    where kernel names carry the family and the tile shape."""
    if len(text) <= limit:
        return text, None
    return f"{text[:_HEAD]}…{text[-_TAIL:]}", text
