"""Counter records: one kernel launch's counts, the case's report, and its join with the timed kernels.

Counts only: bytes, FLOPs, percentages, registers. No record here holds a duration: times come from
bench-kernel's own methods, never from the profiler's replays (which run each kernel alone, cache
flushed, several times over).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from bench_kernel.counters._table import ADDITIVE, PROPERTIES

__all__ = ["KernelCounters", "JoinedKernel", "CounterReport"]


def _clean(d: Mapping[str, Any]) -> dict[str, float]:
    return {str(k): float(v) for k, v in d.items() if v is not None and math.isfinite(float(v))}


@dataclass(frozen=True)
class KernelCounters:
    """The counts of one kernel (one launch, or several launches of it summed: ``launches``).

    Bytes and FLOPs are totals over the launches; the per-launch properties (``*_pct``,
    ``registers_per_thread``, ``passes``) are their mean. A field the tool did not report is None
    (a FLOP precision it did not report is absent from the mapping).
    """

    name: str
    """The kernel name as the tool printed it."""
    launches: int = 1
    dram_read_bytes: float | None = None
    dram_write_bytes: float | None = None
    l2_bytes: float | None = None
    l1_bytes: float | None = None
    scalar_flops: Mapping[str, float] = field(default_factory=dict, hash=False)
    """precision -> FLOP on CUDA cores / VALU (FMA = 2)."""
    tensor_flops: Mapping[str, float] = field(default_factory=dict, hash=False)
    """precision -> FLOP on tensor cores / MFMA."""
    memory_sol_pct: float | None = None
    compute_sol_pct: float | None = None
    achieved_occupancy_pct: float | None = None
    registers_per_thread: float | None = None
    l2_hit_rate_pct: float | None = None
    passes: float | None = None
    """Replay passes the tool needed for the metrics (ncu)."""

    @classmethod
    def from_fields(cls, name: str, fields: Mapping[str, float]) -> "KernelCounters":
        """A launch's record from a table's evaluated fields (``tensor_flops.bf16`` -> ``tensor_flops["bf16"]``)."""
        flops: dict[str, dict[str, float]] = {"scalar_flops": {}, "tensor_flops": {}}
        plain: dict[str, float] = {}
        for key, value in fields.items():
            kind, _, precision = key.partition(".")
            if precision:
                flops[kind][precision] = value
            else:
                plain[key] = value
        return cls(name=name, **plain, scalar_flops=flops["scalar_flops"], tensor_flops=flops["tensor_flops"])

    @property
    def dram_bytes(self) -> float | None:
        """DRAM bytes read + written (None when neither was reported)."""
        parts = [v for v in (self.dram_read_bytes, self.dram_write_bytes) if v is not None]
        return sum(parts) if parts else None

    @property
    def flops(self) -> float | None:
        """All FLOPs, every precision, tensor and not (None when no FLOP counter was reported)."""
        values = list(self.scalar_flops.values()) + list(self.tensor_flops.values())
        return sum(values) if values else None

    def flops_by_precision(self) -> dict[str, float]:
        """precision -> FLOP (tensor and scalar together), precisions with none left out."""
        out: dict[str, float] = {}
        for m in (self.scalar_flops, self.tensor_flops):
            for p, v in m.items():
                if v:
                    out[p] = out.get(p, 0.0) + v
        return out

    @staticmethod
    def combine(name: str, parts: Iterable["KernelCounters"]) -> "KernelCounters":
        """Several launches as one record: counts summed, per-launch properties averaged."""
        parts = list(parts)
        if not parts:
            raise ValueError("combine needs at least one launch")
        launches = sum(p.launches for p in parts)

        def total(attr: str) -> float | None:
            vals = [getattr(p, attr) for p in parts if getattr(p, attr) is not None]
            return sum(vals) if vals else None

        def mean(attr: str) -> float | None:
            pairs = [(getattr(p, attr), p.launches) for p in parts if getattr(p, attr) is not None]
            n = sum(w for _, w in pairs)
            return sum(v * w for v, w in pairs) / n if n else None

        def merged(attr: str) -> dict[str, float]:
            out: dict[str, float] = {}
            for p in parts:
                for k, v in getattr(p, attr).items():
                    out[k] = out.get(k, 0.0) + v
            return out

        return KernelCounters(name=name, launches=launches, **{a: total(a) for a in ADDITIVE},
                              **{a: mean(a) for a in PROPERTIES}, scalar_flops=merged("scalar_flops"),
                              tensor_flops=merged("tensor_flops"))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "launches": self.launches,
                **{a: getattr(self, a) for a in ADDITIVE}, "dram_bytes": self.dram_bytes,
                "flops": self.flops, "scalar_flops": dict(self.scalar_flops), "tensor_flops": dict(self.tensor_flops),
                **{a: getattr(self, a) for a in PROPERTIES}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "KernelCounters":
        return cls(name=str(d["name"]), launches=int(d.get("launches", 1)),
                   **{a: d.get(a) for a in ADDITIVE + PROPERTIES},
                   scalar_flops=_clean(d.get("scalar_flops") or {}), tensor_flops=_clean(d.get("tensor_flops") or {}))


@dataclass(frozen=True)
class JoinedKernel:
    """One kernel of the timed call's breakdown with the counts measured for it."""

    name: str
    """The name in bench-kernel's breakdown (the profiler's), or the counter tool's for an unmatched launch."""
    launches_per_call: float | None
    """Launches per call in the breakdown; None for a launch the breakdown does not have."""
    counters: KernelCounters | None
    """Summed over the launches matched to it; None when the counter tool saw none."""
    matched_by: str
    """``name`` (same kernel function), ``order`` (the one kernel left on each side, names differing) or
    ``none`` (no partner)."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "launches_per_call": self.launches_per_call, "matched_by": self.matched_by,
                "counters": self.counters.to_dict() if self.counters else None}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "JoinedKernel":
        c = d.get("counters")
        return cls(str(d["name"]), d.get("launches_per_call"), KernelCounters.from_dict(c) if c else None,
                   str(d.get("matched_by", "none")))


@dataclass(frozen=True)
class CounterReport:
    """Counters of one call of a case: what the tool measured per launch, and how it was collected.

    ``error`` set means nothing was measured (no tool, counters not permitted, no GPU, a failing
    child, ...): the reason, in one line. The timings of the case never depend on this record.
    """

    tool: str
    """``ncu`` or ``rocprofv3``."""
    kernels: tuple[KernelCounters, ...] = ()
    """The launches of the measured call, in launch order."""
    formulas: Mapping[str, str] = field(default_factory=dict, hash=False)
    """field -> the formula that computed it (counter names and factors)."""
    joined: tuple[JoinedKernel, ...] = ()
    """The launches joined to the timed call's per-kernel breakdown (empty when there was none)."""
    chip: str | None = None
    tool_version: str | None = None
    wall_s: float | None = None
    """Wall time of the whole collection (the tool, the child process, its replays)."""
    command: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.kernels)

    def total(self) -> KernelCounters:
        """Every launch of the call as one record (bytes and FLOPs summed)."""
        return KernelCounters.combine("all kernels", self.kernels)

    def with_error(self, error: str) -> "CounterReport":
        return replace(self, error=error, kernels=(), joined=())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": self.tool, "tool_version": self.tool_version, "chip": self.chip, "ok": self.ok,
            "error": self.error, "wall_s": self.wall_s, "command": list(self.command),
            "time_source": "none: counts only; times come from bench-kernel's methods",
            "kernels": [k.to_dict() for k in self.kernels], "joined": [j.to_dict() for j in self.joined],
            "formulas": dict(self.formulas), "notes": list(self.notes)}
        if self.kernels:
            out["total"] = self.total().to_dict()
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CounterReport":
        return cls(tool=str(d["tool"]), kernels=tuple(KernelCounters.from_dict(k) for k in d.get("kernels") or ()),
                   formulas=MappingProxyType(dict(d.get("formulas") or {})),
                   joined=tuple(JoinedKernel.from_dict(j) for j in d.get("joined") or ()),
                   chip=d.get("chip"), tool_version=d.get("tool_version"), wall_s=d.get("wall_s"),
                   command=tuple(d.get("command") or ()), notes=tuple(d.get("notes") or ()), error=d.get("error"))
