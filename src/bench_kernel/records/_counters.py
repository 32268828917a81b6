"""What the hardware counters measured: one kernel's counts (:class:`KernelCounters`), their join
with the timed call's kernels (:class:`JoinedKernel`), and one case's report (:class:`CounterReport`).

Counts only: bytes, FLOPs, percentages, registers. No record here holds a duration: times come from
bench-kernel's own methods, never from the profiler's replays (which run each kernel alone, cache
flushed, several times over).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Iterable, Literal, Mapping

from bench_kernel.records._base import Record, derive, doc
from bench_kernel.records._notes import Note

__all__ = ["ADDITIVE", "PROPERTIES", "FLOP_KINDS", "PRECISIONS", "KernelCounters", "JoinedKernel", "CounterReport",
           "CounterTool"]

#: Additive fields: a kernel's value is a count that sums over launches and kernels.
ADDITIVE = ("dram_read_bytes", "dram_write_bytes", "l2_bytes", "l1_bytes")
#: Per-launch properties: averaged over launches, never summed.
PROPERTIES = ("memory_sol_pct", "compute_sol_pct", "achieved_occupancy_pct", "registers_per_thread",
              "l2_hit_rate_pct", "passes")
FLOP_KINDS = ("scalar_flops", "tensor_flops")
#: The precisions a FLOP field may name (the peak classes of ``bench_kernel/data/dtypes.tsv``).
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
CounterTool = Literal["ncu", "rocprofv3", "none"]

_TIME_SOURCE = "none: counts only; times come from bench-kernel's methods"


def _finite_map(d: Mapping[str, Any]) -> dict[str, float]:
    return {str(k): float(v) for k, v in d.items() if v is not None and math.isfinite(float(v))}


class KernelCounters(Record, frozen=True):
    """The counts of one kernel (one launch, or several launches of it summed: ``launches``).

    Bytes and FLOPs are totals over the launches; the per-launch properties (``*_pct``,
    ``registers_per_thread``, ``passes``) are their mean. A field the tool did not report is null.
    """

    name: Annotated[str, doc("the kernel name as the tool printed it")]
    launches: Annotated[int, doc("launches summed into this record")] = 1
    dram_read_bytes: Annotated[float | None, doc("bytes read from DRAM")] = None
    dram_write_bytes: Annotated[float | None, doc("bytes written to DRAM")] = None
    l2_bytes: Annotated[float | None, doc("bytes through L2")] = None
    l1_bytes: Annotated[float | None, doc("bytes through L1")] = None
    scalar_flops: Annotated[dict[str, float], doc("precision -> FLOPs on CUDA cores / VALU (FMA = 2)")] = {}
    tensor_flops: Annotated[dict[str, float], doc("precision -> FLOPs on tensor cores / MFMA")] = {}
    memory_sol_pct: Annotated[float | None, doc("memory throughput, % of the chip's peak (mean per launch)")] = None
    compute_sol_pct: Annotated[float | None, doc("compute throughput, % of peak (mean per launch)")] = None
    achieved_occupancy_pct: Annotated[float | None, doc("achieved occupancy, % (mean per launch)")] = None
    registers_per_thread: Annotated[float | None, doc("registers per thread (mean per launch)")] = None
    l2_hit_rate_pct: Annotated[float | None, doc("L2 hit rate, % (mean per launch)")] = None
    passes: Annotated[float | None, doc("replay passes the tool needed for the metrics (ncu)")] = None
    dram_bytes: Annotated[float | None, doc("derived: DRAM bytes read + written (null when neither was reported)")] = None
    flops: Annotated[float | None, doc("derived: all FLOPs, every precision, tensor and not (null when no FLOP counter was reported)")] = None

    def __post_init__(self) -> None:
        parts = [v for v in (self.dram_read_bytes, self.dram_write_bytes) if v is not None]
        values = list(self.scalar_flops.values()) + list(self.tensor_flops.values())
        derive(self, scalar_flops=_finite_map(self.scalar_flops), tensor_flops=_finite_map(self.tensor_flops),
               dram_bytes=sum(parts) if parts else None, flops=sum(values) if values else None)

    def __hash__(self) -> int:
        return hash((self.name, self.launches, self.dram_bytes, self.flops))

    @classmethod
    def from_fields(cls, name: str, fields: Mapping[str, float]) -> "KernelCounters":
        """A launch's record from a table's evaluated fields (``tensor_flops.bf16`` -> ``tensor_flops["bf16"]``)."""
        flops: dict[str, dict[str, float]] = {"scalar_flops": {}, "tensor_flops": {}}
        plain: dict[str, Any] = {}
        for key, value in fields.items():
            kind, _, precision = key.partition(".")
            if precision:
                flops[kind][precision] = value
            else:
                plain[key] = value
        return cls(name=name, **plain, scalar_flops=flops["scalar_flops"], tensor_flops=flops["tensor_flops"])

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


class JoinedKernel(Record, frozen=True):
    """One kernel of the timed call's breakdown with the counts measured for it."""

    name: Annotated[str, doc("the name in bench-kernel's breakdown (the profiler's), or the counter tool's for an unmatched launch")]
    launches_per_call: Annotated[float | None, doc("launches per call in the breakdown; null for a launch the breakdown does not have")]
    counters: Annotated[KernelCounters | None, doc("summed over the launches matched to it; null when the counter tool saw none")]
    matched_by: Annotated[Literal["name", "order", "none"], doc("`name` (same kernel function), `order` (the one kernel left on each side, names differing) or `none` (no partner)")] = "none"


class CounterReport(Record, frozen=True):
    """Counters of one call of a case: what the tool measured per launch, and how it was collected.

    ``error`` set means nothing was measured (no tool, counters not permitted, no GPU, a failing
    child, ...): the reason, in one line. The timings of the case never depend on this record.
    """

    tool: Annotated[CounterTool, doc("`ncu`, `rocprofv3`, or `none` (nothing could collect)")]
    kernels: Annotated[tuple[KernelCounters, ...], doc("the launches of the measured call, in launch order")] = ()
    formulas: Annotated[dict[str, str], doc("field -> the formula that computed it (counter names and factors)")] = {}
    joined: Annotated[tuple[JoinedKernel, ...], doc("the launches joined to the timed call's per-kernel breakdown (empty when there was none)")] = ()
    chip: Annotated[str | None, doc("the chip the formulas were chosen for (`sm_90`, `gfx942`, ...)")] = None
    tool_version: Annotated[str | None, doc("the counter tool's version line")] = None
    wall_s: Annotated[float | None, doc("wall time of the whole collection (the tool, the child process, its replays)")] = None
    command: Annotated[tuple[str, ...], doc("the command line that collected them")] = ()
    notes: Annotated[tuple[Note, ...], doc("what to know or distrust about the counts")] = ()
    error: Annotated[str | None, doc("why nothing was measured")] = None
    ok: Annotated[bool, doc("derived: counts were measured (no error, at least one kernel)")] = False
    time_source: Annotated[str, doc("always says that no time comes from the counter tool")] = _TIME_SOURCE
    total: Annotated[KernelCounters | None, doc("derived: every launch of the call as one record (bytes and FLOPs summed); null without kernels")] = None

    def __post_init__(self) -> None:
        derive(self, ok=self.error is None and bool(self.kernels), time_source=_TIME_SOURCE,
               total=KernelCounters.combine("all kernels", self.kernels) if self.kernels else None)

    def __hash__(self) -> int:
        return hash((self.tool, self.kernels, self.error))

    def with_error(self, error: str) -> "CounterReport":
        return CounterReport(tool=self.tool, formulas=self.formulas, chip=self.chip, tool_version=self.tool_version,
                             wall_s=self.wall_s, command=self.command, notes=self.notes, error=error)
