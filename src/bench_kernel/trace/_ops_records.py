"""The records of ``ops``: one row per op (or op and shapes), the time not counted by reason, and
the report that holds them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["OpsRow", "OpsReport", "Uncounted"]


@dataclass(frozen=True)
class OpsRow:
    """One op (``--by op``) or one op with one set of recorded shapes (``--by shape``)."""

    op: str
    shapes: str | None
    """``--by shape``: the recorded input shapes and dtypes, as text."""
    dtype: str | None
    calls: int
    kernels: int
    kernel_us: float
    """Device time of every kernel of these calls (host time of the op on a CPU-only trace)."""
    counted_us: float
    """Time of the calls whose FLOPs and bytes were counted: the rates' denominator."""
    flops: float | None
    bytes: float | None
    achieved_tflops: float | None
    achieved_tbps: float | None
    intensity: float | None
    pct_of_roof: float | None
    bound: str | None
    formula: str | None
    notes: tuple[str, ...] = ()
    estimate: bool = False
    """Some counted call rests on an estimate (said in ``notes``): a formula's assumption, or shapes
    borrowed from a later step."""
    origin: str = "op"
    """Where the calls' shapes came from, ``+``-joined: op | capture | sequence (``_ops_calls``)."""
    collective: str | None = None
    """all_reduce, all_gather, ... for a communication call (then ``bytes`` is the message)."""
    algbw_gbps: float | None = None
    """A collective's message bytes over its time, GB/s (nccl-tests' algbw)."""
    busbw_gbps: float | None = None
    """algbw times the collective's bus factor for its group size (nccl-tests' busbw)."""
    source: str | None = None
    """Where an engine op's kernel is (project, file, function), which its formula follows."""

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Uncounted:
    """Time no formula counted, for one reason."""

    reason: str
    kernels: int
    us: float
    ops: tuple[str, ...] = ()
    """The ops concerned (none for kernels with no op)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"ops": list(self.ops)}


@dataclass(frozen=True)
class OpsReport:
    """Per-op performance of one trace."""

    trace: str
    device: str | None
    """The peak-table row the roofs come from; None when neither the trace nor ``--device`` gave one."""
    device_source: str | None
    """``trace`` (its ``deviceProperties``) or ``--device``."""
    by: str
    rows: tuple[OpsRow, ...]
    total_kernel_us: float
    unlinked_kernels: int
    unlinked_us: float
    """Kernels placed in no op call (graph replays without a capture, launches with no op)."""
    counted_share: float
    """Share of the kernel time whose FLOPs and bytes were counted, 0..1."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    uncounted: tuple[Uncounted, ...] = ()
    """The time not counted, by reason, largest first; with the counted time it sums to the total."""
    time_base: str = "device"
    """``device``: kernel time; ``host``: a CPU-only trace, its ops' own time on the CPU."""

    @property
    def counted_us(self) -> float:
        return self.total_kernel_us * self.counted_share

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "device": self.device, "device_source": self.device_source, "by": self.by,
                "time_base": self.time_base, "total_kernel_us": self.total_kernel_us,
                "unlinked_kernels": self.unlinked_kernels, "unlinked_us": self.unlinked_us,
                "counted_share": self.counted_share, "rows": [r.to_dict() for r in self.rows],
                "uncounted": [u.to_dict() for u in self.uncounted], "notes": list(self.notes)}
