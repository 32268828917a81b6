"""Display of the tool's units: the one duration and byte-size formatter, and the one way a long
list is cut short in a message (:func:`first_and_more`).

Inside bench-kernel times are microseconds and sizes bytes (the names say so: ``median_us``,
``bytes``). Only at display time do they become text, here, so that a table, a note and a
Source Trace document print the same value the same way.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["SIGNIFICANT_DIGITS", "format_duration_us", "format_bytes", "first_and_more"]

#: Durations show 4 significant digits: enough to see a 0.1% difference between two 10 us kernels.
SIGNIFICANT_DIGITS = 4


def format_duration_us(us: float) -> str:
    """``12.38 µs``, ``1.234 ms``, ``850 ns``: 4 significant digits, the unit chosen by magnitude."""
    a = abs(us)
    if a == 0:
        return "0"
    for scale, unit in ((1e-3, "ns"), (1.0, "µs"), (1e3, "ms")):
        if a < scale * 1e3:
            return f"{us / scale:.{SIGNIFICANT_DIGITS}g} {unit}"
    return f"{us / 1e6:.{SIGNIFICANT_DIGITS}g} s"


def format_bytes(n: float) -> str:
    """``512 B``, ``1.5 KiB``, ``60 MiB``: binary units, 3 significant digits."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def first_and_more(items: Sequence[str], shown: int = 3, sep: str = ", ") -> str:
    """``a, b, c and 9 more``: the first ``shown`` of ``items`` and a count of the rest, so that a
    message about 10,000 cases stays one short line (one such line once ran to 69 KB)."""
    head = sep.join(items[:shown])
    return head + (f" and {len(items) - shown} more" if len(items) > shown else "")
