"""What a plot may be written as: the one list of plot formats and the one check of a plot's path
(``run --plot``, ``sweep --plot``, ``history --plot``, ``roofline --plot`` and the API's plot functions).
The format comes from the extension; anything else is refused before any work, never guessed.

And how every log axis is labelled (:func:`label_log_axes`): matplotlib's own tick choice, written
in Unicode superscripts (10³, 2×10²) instead of the TeX strings its math-text parser lays out. That
parser (pyparsing) cost ~0.3 s of a report's first plot and a fifth to a third of each later plot's
drawing (a sweep plot on a 2-core machine).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from bench_kernel.errors import UsageError

__all__ = ["PLOT_FORMATS", "plot_path", "label_log_axes", "plain_tick_label"]

#: The extensions a plot is written as (matplotlib's raster and vector formats every browser shows).
PLOT_FORMATS = (".png", ".svg")


def plot_path(path: str | Path, flag: str = "plot file") -> Path:
    """``path`` as a Path when it ends in one of :data:`PLOT_FORMATS`; else a UsageError naming
    ``flag`` (the option that gave it) and what it must end in."""
    out = Path(path)
    if out.suffix.lower() not in PLOT_FORMATS:
        raise UsageError(f"{flag} {str(out)!r} must end in {' or '.join(PLOT_FORMATS)} "
                         f"(got {out.suffix or 'no extension'!r})")
    return out


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
_MATH = re.compile(r"\$\\mathdefault\{(.*)\}\$")
_POWER = re.compile(r"\^\{(-?\d+)\}")


def plain_tick_label(label: str) -> str:
    """matplotlib's log tick ``label`` (``$\\mathdefault{2\\times10^{3}}$``) as plain text (``2×10³``);
    any other label unchanged, so an unforeseen one is still drawn by matplotlib as before."""
    m = _MATH.fullmatch(label)
    if m is None:
        return label
    text = _POWER.sub(lambda p: p.group(1).translate(_SUPERSCRIPT), m.group(1)).replace("\\times", "\u00d7")
    return label if any(c in text for c in "\\^{}$") else text


@functools.cache
def _formatter_class() -> type:
    from matplotlib.ticker import LogFormatterSciNotation

    class PlainLogFormatter(LogFormatterSciNotation):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_tick_label(super().__call__(x, pos))

    return PlainLogFormatter


def label_log_axes(ax: Any, *, minor: bool = True) -> None:
    """Label the log axes of matplotlib Axes ``ax`` as :func:`plain_tick_label` does (call it after
    the scales are set): the ticks matplotlib would label, as it would choose them; ``minor=False``
    labels the decades only (matplotlib labels minor ticks on an axis that spans under a decade)."""
    from matplotlib.ticker import NullFormatter

    cls = _formatter_class()
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            base = axis.get_transform().base
            axis.set_major_formatter(cls(base, labelOnlyBase=not minor))
            axis.set_minor_formatter(cls(base, labelOnlyBase=False) if minor else NullFormatter())
