"""``--tree``: a name with each positional field labelled by a line, like this::

    a8w8_blockscale_1x128x128_256x16x128x256_16x16_…
                    │         │             └─ AK1 x BK1 (…): ak1=16, bk1=16
                    │         └─ BlockSize x MPerBlock x NPerBlock x KPerBlock: block_size=256, …
                    └─ ScaleBlockM x ScaleBlockN x ScaleBlockK: scale_block_m=1, …

The rightmost field is labelled first, so no line crosses another.
"""

from __future__ import annotations

from typing import Any

from bench_kernel.kernels._model import KernelName

__all__ = ["render_tree", "key_fields"]


def _value(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(str(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render_tree(kn: KernelName) -> str:
    """The name with one labelled line per positional field; a one-line note when there are none."""
    text = kn.tree_text
    spans = [s for s in kn.spans if 0 <= s.start < len(text)]
    if not text or not spans:
        return f"{kn.name}\n(no positional fields for family {kn.family!r})"
    inferred = set(kn.inferred)
    lines = [text]
    cols = [s.start for s in spans]
    for i in range(len(spans) - 1, -1, -1):
        s = spans[i]
        row = [" "] * cols[i]
        for c in cols[:i]:
            row[c] = "│"
        values = ", ".join(f"{f}={_value(kn.fields[f])}" for f in s.fields if f in kn.fields)
        mark = " (inferred)" if any(f in inferred for f in s.fields) else ""
        label = f"{s.label}{mark}: {values}" if values else f"{s.label}{mark}"
        lines.append("".join(row) + "└─ " + label)
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
