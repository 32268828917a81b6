"""The phrases and the small formatters every part of the Source Trace document uses.

The document's sections (``_render``), its flow diagram (``_flow``) and the shapes the collector
keeps (``_collect``) all format through here, so that none of them imports another for a helper.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from bench_kernel.dtypes import lookup
from bench_kernel.errors import UsageError
from bench_kernel.units import format_duration_us

__all__ = ["LANGS", "strings", "short_dtype", "shape_text", "us", "pct", "kernels", "count", "tuple_text"]

LANGS = ("en", "zh")


@functools.lru_cache(maxsize=1)
def _all_strings() -> dict[str, dict[str, str]]:
    data = json.loads(resources.files("bench_kernel.source_trace").joinpath("data/strings.json").read_text())
    keys = set(data["en"])
    for lang in LANGS:
        if set(data[lang]) != keys:
            raise ValueError(f"strings.json: '{lang}' keys differ from 'en': {sorted(set(data[lang]) ^ keys)}")
    return {lang: data[lang] for lang in LANGS}


def strings(lang: str) -> dict[str, str]:
    """The phrase table of ``lang``; a UsageError names the languages there are."""
    if lang not in LANGS:
        raise UsageError(f"unknown language {lang!r}; expected one of: {', '.join(LANGS)}")
    return _all_strings()[lang]


def us(v: float | None) -> str:
    return "-" if v is None else format_duration_us(v)


def pct(v: float | None) -> str:
    return "-" if v is None else f"{v * 100:.1f}%"


def short_dtype(name: Any) -> str:
    """``bf16`` for ``c10::BFloat16`` (a profiler's input type) or ``torch.bfloat16``; else as given."""
    return lookup(name) or str(name).removeprefix("torch.")


def tuple_text(t: Any) -> str:
    """``(4, 1, 1)``: a grid, a block or a shape as the document writes it."""
    return "(" + ", ".join(str(x) for x in t) + ")"


def shape_text(dims: Any, types: Any) -> str:
    """``(4096, 4096) bf16, (4096, 14336) bf16``: the tensor inputs of an op as recorded."""
    parts = []
    for i, d in enumerate(dims or ()):
        if isinstance(d, (list, tuple)) and d and all(isinstance(x, int) for x in d):
            t = (types[i] if types and i < len(types) else "") or ""
            t = short_dtype(t) if t else ""
            parts.append(f"{tuple_text(d)} {t}".strip())
    return ", ".join(parts)


def count(n: float) -> str:
    """``3``, ``1.33``: a per-call count without trailing zeros."""
    return f"{n:g}" if n == int(n) else f"{n:.2f}".rstrip("0")


def kernels(S: dict[str, str], n: float) -> str:
    """``1 kernel`` / ``42 kernels`` / ``1.33 kernels`` in the document's language."""
    n = round(n, 2)
    return S["kernel_word"] if n == 1 else S["kernels_word"].format(n=count(n))
