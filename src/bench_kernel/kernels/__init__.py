"""Kernel names: demangle, shorten, decode per family, classify into categories.

CONTRACT (used by trace/, measure/, source_trace/, report/):
``decode(name) -> KernelName`` with ``.name .demangled .family .short .category .fields``.
The fallback below keeps the contract until the real decoders land; it must be replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = ["KernelName", "decode"]


@dataclass(frozen=True)
class KernelName:
    """One kernel name, decoded."""

    name: str
    demangled: str
    family: str
    short: str
    category: str
    fields: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "short": self.short,
                "category": self.category, "fields": dict(self.fields)}


@lru_cache(maxsize=65536)
def decode(name: str) -> KernelName:
    """Decode a kernel name as a profiler shows it (fallback: no decoding yet)."""
    short = name if len(name) <= 80 else name[:77] + "..."
    return KernelName(name=name, demangled=name, family="other", short=short, category="other")
