"""The records of ``kernels/``: families, categories, a positional span, and :class:`KernelName`."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

__all__ = ["FAMILIES", "CATEGORIES", "Span", "KernelName", "Decoded"]

#: Every value ``KernelName.family`` can take, in the order decoders are tried (``other`` last).
FAMILIES: tuple[str, ...] = (
    "ck", "tensile", "cublas", "cutlass", "inductor", "triton", "flash_attn", "flashinfer", "cudnn",
    "aiter", "nccl", "aten", "other",
)

#: Every value ``KernelName.category`` can take; ``other`` is what no rule claimed. ``copy`` and
#: ``fill`` are kernels that copy or fill memory; ``memcpy`` and ``memset`` are the runtime's copy and
#: set activities (``Memcpy HtoD``), which are not kernels (one word for both hid which was which).
#: ``topk`` and ``sort`` serve sampling and MoE routing alike, so they are not called ``sampling``.
CATEGORIES: tuple[str, ...] = (
    "gemm", "attention", "norm", "activation", "elementwise", "reduction", "softmax", "rope",
    "kv_cache", "quant", "moe", "communication", "copy", "fill", "memcpy", "memset", "sampling", "topk",
    "sort", "embedding", "other",
)


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

    family: str
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


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _thaw(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class KernelName:
    """One kernel name, decoded.

    ``fields`` is read-only (decoded names are cached and shared): lists are stored as tuples and
    come back as lists from :meth:`to_dict`.
    """

    #: the name exactly as the profiler showed it.
    name: str
    #: the demangled name (``name`` itself when it was not mangled or demangling failed).
    demangled: str
    #: one of :data:`FAMILIES`.
    family: str
    #: a readable name of at most 80 characters for tables; the same name always gives the same short.
    short: str
    #: one of :data:`CATEGORIES`.
    category: str
    #: decoded fields: normalised ``tile_m``/``tile_n``/``tile_k`` for GEMM-like kernels, then
    #: family fields in snake_case. Integers are ints.
    fields: Mapping[str, Any] = field(default_factory=dict)
    #: caveats: demangling unavailable, fields inferred, a name part that is not what it looks like.
    notes: tuple[str, ...] = ()
    #: names of fields inferred from observed names rather than from a published grammar.
    inferred: tuple[str, ...] = ()
    #: positional fields of ``tree_text`` (see :func:`bench_kernel.kernels.render_tree`).
    spans: tuple[Span, ...] = ()
    tree_text: str = ""
    #: id of the category rule that matched (None: no rule, category ``other``).
    rule: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fields, MappingProxyType):
            frozen = {k: _freeze(v) for k, v in dict(self.fields).items()}
            object.__setattr__(self, "fields", MappingProxyType(frozen))

    def __hash__(self) -> int:
        # fields is a read-only mapping (unhashable); name + rules-dependent category identify a decode.
        return hash((self.name, self.family, self.category))

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form: name, family, short, category, fields (+ demangled, inferred, notes)."""
        return {
            "name": self.name, "family": self.family, "short": self.short,
            "category": self.category, "fields": {k: _thaw(v) for k, v in self.fields.items()},
            "demangled": self.demangled, "inferred": list(self.inferred), "notes": list(self.notes),
            "rule": self.rule,
        }
