"""matplotlib figures as inline SVG for the HTML report.

Text is drawn as paths (``svg.fonttype = "path"``): the plot then looks the same on every
machine whatever fonts it has, and labels keep the spacing matplotlib laid them out with, so
they cannot grow into each other in a browser with wider fonts. Ids are prefixed per plot:
several SVGs in one page must not share clip-path or glyph ids. The date is left out of the
metadata, so the same inputs give the same file.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from bench_kernel.report._html import Markup, esc

if TYPE_CHECKING:  # matplotlib is optional (the ``plot`` extra), imported only when a plot is drawn
    from matplotlib.figure import Figure

__all__ = ["figure_svg", "have_matplotlib", "NO_MATPLOTLIB"]

NO_MATPLOTLIB = "plots left out: matplotlib is not installed (pip install 'bench-kernel[plot]')"

_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^)"]+)')


def have_matplotlib() -> bool:
    """True when matplotlib imports (the ``plot`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def figure_svg(fig: Figure, prefix: str, label: str) -> Markup:
    """``fig`` as an ``<svg>`` element (no XML prolog) that scales with the page.

    prefix: made of [a-z0-9-], unique in the page; label: the plot's accessible name.
    """
    from matplotlib import rc_context

    buf = io.StringIO()
    with rc_context({"svg.fonttype": "path", "svg.hashsalt": prefix}):
        # A constrained layout already fits every label in the figure; "tight" would draw it twice.
        tight = None if fig.get_constrained_layout() else "tight"
        fig.savefig(buf, format="svg", bbox_inches=tight, metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    svg = text[text.index("<svg"):]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)  # RDF boilerplate
    svg = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)
    # The fixed pt size would overflow a narrow window: the viewBox keeps the aspect, CSS the width.
    svg = re.sub(r'^<svg([^>]*?) width="[^"]*" height="[^"]*"', r"<svg\1", svg, count=1)
    svg = svg.replace("<svg", f'<svg role="img" aria-label="{esc(label)}"', 1)
    return Markup(svg)
