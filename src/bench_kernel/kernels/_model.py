"""The records of ``kernels/``: a positional span, and what a family decoder returns. A decoded name
(:class:`KernelName`), the families and the categories are records (``bench_kernel.records``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench_kernel.records import CATEGORIES, FAMILIES, Category, Family, KernelName

__all__ = ["FAMILIES", "CATEGORIES", "Family", "Category", "Span", "KernelName", "Decoded"]


@dataclass(frozen=True)
class Span:
    """One positional field of a name: where it sits in ``text`` and what it means (for ``--tree``)."""

    #: offset of the field's first character in the text the tree is drawn under (0-based).
    start: int
    #: offset one past its last character.
    end: int
    #: what the field means, e.g. ``"MPerXDL x NPerXDL"``.
    label: str
    #: the decoded field names this span sets, e.g. ``("m_per_xdl", "n_per_xdl")``.
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decoded:
    """What one family decoder returns (internal; :func:`decode` turns it into a :class:`KernelName`)."""

    family: Family
    fields: dict[str, Any] = field(default_factory=dict)
    #: field names whose meaning was inferred from observed names, not read from a published grammar.
    inferred: tuple[str, ...] = ()
    #: the short name, or None to let the generic shortener make one from the demangled name.
    short: str | None = None
    #: positional fields for ``--tree``, with offsets into ``tree_text``.
    spans: tuple[Span, ...] = ()
    #: the text the spans index into (the raw instance name or the demangled template).
    tree_text: str = ""
    notes: tuple[str, ...] = ()
