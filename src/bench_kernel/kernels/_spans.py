"""Helpers shared by the family decoders: collecting fields with their positions, int parsing."""

from __future__ import annotations

import re
from typing import Any

from bench_kernel.kernels._model import Decoded, Family, Span

__all__ = ["Builder", "Spans", "as_int", "ints", "tokens"]


def as_int(text: str) -> int | str:
    """``"16"`` -> 16; anything that is not a plain integer stays a string."""
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    return t


def ints(text: str, sep: str = "x") -> list[int] | None:
    """``"256x16x64"`` -> [256, 16, 64]; None when a part is not an integer."""
    parts = text.split(sep)
    if not parts or not all(re.fullmatch(r"\d+", p) for p in parts):
        return None
    return [int(p) for p in parts]


class Builder:
    """Accumulates fields, inferred markers and positional spans for one name."""

    def __init__(self, family: Family, tree_text: str = "") -> None:
        self.family = family
        self.tree_text = tree_text
        self.fields: dict[str, Any] = {}
        self.inferred: list[str] = []
        self.spans: list[Span] = []
        self.notes: list[str] = []

    def set(self, names: str | tuple[str, ...] | list[str], values: Any, *, start: int | None = None,
            end: int | None = None, label: str = "", inferred: bool = False) -> None:
        """Set one field (or several from a list of values) and, given a position, its span."""
        if isinstance(names, str):
            names, values = (names,), (values,)
        for n, v in zip(names, values):
            self.fields[n] = v
            if inferred and n not in self.inferred:
                self.inferred.append(n)
        if start is not None and end is not None and label:
            self.spans.append(Span(start, end, label, tuple(names)))

    def groups(self, m: "re.Match[str] | Spans", spec: tuple[tuple[str, str, str], ...], *, inferred: bool = False,
               offset: int = 0) -> None:
        """Set one field per ``(group, field, label)`` of a regex match; all-digit values become ints."""
        for group, name, label in spec:
            value = m[group]
            if value is None:
                continue
            self.set(name, int(value) if value.isdigit() else value, start=offset + m.start(group),
                     end=offset + m.end(group), label=label, inferred=inferred)

    def tile(self, m: int, n: int, k: int | None = None) -> None:
        """The normalised GEMM tile every GEMM-like family gives (``tile_m``/``tile_n``/``tile_k``)."""
        self.fields["tile_m"] = m
        self.fields["tile_n"] = n
        if k is not None:
            self.fields["tile_k"] = k

    def build(self, short: str | None = None) -> Decoded:
        return Decoded(family=self.family, fields=self.fields, inferred=tuple(self.inferred),
                       short=short, spans=tuple(sorted(self.spans, key=lambda s: s.start)),
                       tree_text=self.tree_text, notes=tuple(self.notes))


def tokens(text: str, sep: str = "_", offset: int = 0) -> list[tuple[str, int]]:
    """``text`` split at ``sep`` as (token, offset of its first character + ``offset``) pairs.

    The family decoders walk these tokens instead of matching one long regex with several
    wildcards: a regex like ``^bmm_(.+?)_t…\\w*?_s…\\w*?cga…`` backtracks over every way to place
    its wildcards (cubic time on a crafted name); a walk over tokens is linear.
    """
    out: list[tuple[str, int]] = []
    pos = offset
    for tok in text.split(sep):
        out.append((tok, pos))
        pos += len(tok) + len(sep)
    return out


class Spans:
    """Named spans of a text, read like a regex match: ``m[group]``, ``m.start(group)``, ``m.end(group)``.

    What a token walk returns, so :meth:`Builder.groups` serves regex matches and token walks alike.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._spans: dict[str, tuple[int, int]] = {}

    def put(self, group: str, start: int, end: int) -> None:
        self._spans[group] = (start, end)

    def __getitem__(self, group: str) -> str | None:
        span = self._spans.get(group)
        return None if span is None else self._text[span[0]:span[1]]

    def text(self, group: str) -> str:
        """The text of a group the walk always puts (``m[group]`` is None for one it may leave out);
        KeyError for a group never put, a decoder's own mistake."""
        start, end = self._spans[group]
        return self._text[start:end]

    def start(self, group: str) -> int:
        return self._spans[group][0]

    def end(self, group: str) -> int:
        return self._spans[group][1]
