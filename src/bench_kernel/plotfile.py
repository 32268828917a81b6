"""What a plot may be written as: the one list of plot formats and the one check of a plot's path
(``run --plot``, ``sweep --plot``, ``history --plot``, ``roofline --plot`` and the API's plot functions).
The format comes from the extension; anything else is refused before any work, never guessed."""

from __future__ import annotations

from pathlib import Path

from bench_kernel.errors import UsageError

__all__ = ["PLOT_FORMATS", "plot_path"]

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
