"""``--tree``: a name with each positional field labelled by a line, like this::

    a8w8_blockscale_1x128x128_256x16x128x256_16x16_…
                    │         │             └─ AK1 x BK1 (…): ak1=16, bk1=16
                    │         └─ BlockSize x MPerBlock x NPerBlock x KPerBlock: block_size=256, …
                    └─ ScaleBlockM x ScaleBlockN x ScaleBlockK: scale_block_m=1, …

The rightmost field is labelled first, so no line crosses another.
"""

from __future__ import annotations

from typing import Any

from bench_kernel.kernels._decode import tree_layout
from bench_kernel.kernels._model import KernelName

__all__ = ["render_tree", "key_fields", "MAX_TREE_FIELDS"]


def _value(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(str(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


#: at most this many fields are drawn (a crafted name can have thousands; real ones have < 30).
MAX_TREE_FIELDS = 64


def render_tree(kn: KernelName) -> str:
    """The name with one labelled line per positional field; a one-line note when there are none.

    Fields that start at the same offset share one line (``triton_poi_fused_0`` has no ops: a
    zero-width field used to sit on its index and made the drawing raise IndexError).
    """
    text, spans = tree_layout(kn)
    by_start: dict[int, list] = {}
    for s in spans:
        if 0 <= s.start < len(text) and s.end > s.start:
            by_start.setdefault(s.start, []).append(s)
    if not text or not by_start:
        return f"{kn.name}\n(no positional fields for family {kn.family!r})"
    inferred = set(kn.inferred)
    cols = sorted(by_start)
    more = len(cols) - MAX_TREE_FIELDS
    cols = cols[:MAX_TREE_FIELDS]
    lines = [text]
    if more > 0:
        lines.append(f"({more} more fields not drawn; see --json)")
    for i in range(len(cols) - 1, -1, -1):
        row = [" "] * cols[i]
        for c in cols[:i]:
            row[c] = "│"
        labels = []
        for s in by_start[cols[i]]:
            values = ", ".join(f"{f}={_value(kn.fields[f])}" for f in s.fields if f in kn.fields)
            mark = " (inferred)" if any(f in inferred for f in s.fields) else ""
            labels.append(f"{s.label}{mark}: {values}" if values else f"{s.label}{mark}")
        lines.append("".join(row) + "└─ " + "; ".join(labels))
    return "\n".join(lines)


# Fields shown first in a one-line summary; the rest follow in decode order.
_KEY_ORDER = ("op", "ops", "dtype", "collective", "stage", "arch", "layout", "stages", "cluster", "head_dim",
              "causal", "kind", "vector_width", "block_size", "scale_block_m", "pipeline", "scheduler")
_SKIP = {"tile_m", "tile_n", "tile_k", "kernel", "index", "macro_tile", "types", "flags"}


def key_fields(kn: KernelName, max_chars: int = 60) -> str:
    """A one-line summary of the decoded fields for tables: ``tile=16x128x256 layout=TN …``."""
    f = kn.fields
    parts: list[str] = []
    tile = [str(f[k]) for k in ("tile_m", "tile_n", "tile_k") if k in f]
    if tile:
        parts.append("tile=" + "x".join(tile))
    keys = [k for k in _KEY_ORDER if k in f] + [k for k in f if k not in _KEY_ORDER and k not in _SKIP]
    for k in keys:
        if k in _SKIP:
            continue
        v = f[k]
        text = f"{k}={'+'.join(str(x) for x in v) if isinstance(v, (list, tuple)) else _value(v)}"
        if sum(len(p) + 1 for p in parts) + len(text) > max_chars:
            break
        parts.append(text)
    return " ".join(parts)
