"""Names are data: make any string from a trace or from user code safe to show on a terminal.

Kernel, op, case and file names come from outside (a trace, a target's return value) and may hold
anything: rich markup (``[/]``, ``[bold red]x[/bold red]``, ``[rank0]``), which the renderers
never parse because they hand rich ``Text`` objects, never markup strings; and control characters
(an ANSI ``ESC[31m``, a carriage return that overwrites the line, bidi overrides that reorder
what the reader sees), which :func:`printable` turns into visible escapes such as ``\\x1b``.
"""

from __future__ import annotations

__all__ = ["printable"]

#: Bidirectional-text controls ("Trojan Source", CVE-2021-42574): shown escaped, never obeyed.
_BIDI = (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
#: C0 controls, DEL and C1 controls (what a terminal acts on), plus the bidi controls.
_CONTROLS = (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)
_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _CONTROLS}


def printable(text: object, keep: str = "") -> str:
    """``str(text)`` with every control character written as a visible escape (ESC -> ``\\x1b``).

    keep: control characters to leave alone (``"\\n"`` for a multi-line document).
    """
    s = str(text)
    if s.isprintable():  # the fast path: almost every name
        return s
    table = _ESCAPES if not keep else {c: e for c, e in _ESCAPES.items() if chr(c) not in keep}
    return s.translate(table)
