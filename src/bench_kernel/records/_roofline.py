"""Where a result sits under the device's roofs: the modelled point (:class:`RooflineResult`,
against the spec roof and the calibrated one) and the counted one (:class:`MeasuredRoofline`, the
hardware counters' bytes per memory level under each level's ceiling).

Units: FLOP and bytes as counts, times in microseconds, rates in TFLOP/s (1e12 FLOP/s) and TB/s
(1e12 bytes/s); arithmetic intensity in FLOP/byte.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, derive, doc
from bench_kernel.records._notes import Note

__all__ = ["Bound", "LaunchSource", "Level", "Roof", "RoofAnalysis", "RooflineResult", "LevelPoint", "ModelCheck",
           "MeasuredRoofline", "ROOF_SOURCES"]

Bound = Literal["memory", "compute", "launch"]
RoofSource = Literal["spec", "measured"]
ROOF_SOURCES: tuple[RoofSource, ...] = ("spec", "measured")
LaunchSource = Literal["argument", "events-graph", "calibration-graph", "calibration-events"]
Level = Literal["dram", "l2", "l1"]


class Roof(Record, frozen=True):
    """One roof: a compute ceiling and a memory ceiling for one device and dtype."""

    source: Annotated[RoofSource, doc("`spec` (the peak table's dense datasheet figures) or `measured` (the cached calibration)")]
    peak_tflops: Annotated[float, doc("the compute ceiling")]
    peak_tbps: Annotated[float, doc("the memory (DRAM) ceiling")]

    @property
    def ridge_intensity(self) -> float:
        """Arithmetic intensity (FLOP/byte) where the memory roof meets the compute roof."""
        return self.peak_tflops / self.peak_tbps


class RoofAnalysis(Record, frozen=True):
    """Where one measurement sits under one roof."""

    source: Annotated[RoofSource, doc("which roof: `spec` or `measured`")]
    peak_tflops: Annotated[float, doc("the roof's compute ceiling")]
    peak_tbps: Annotated[float, doc("the roof's memory ceiling")]
    memory_us: Annotated[float, doc("time to move the bytes at the memory ceiling")]
    compute_us: Annotated[float, doc("time to do the FLOPs at the compute ceiling")]
    floor_us: Annotated[float, doc("max(memory_us, compute_us): no implementation of this work is faster")]
    pct_of_roof: Annotated[float, doc("100 × floor_us / time_us; above 100 the counts or the roof are wrong (or caches served the data)")]
    headroom: Annotated[float, doc("time_us / floor_us: the speed-up left before the roof")]
    bound: Annotated[Bound, doc("`memory` or `compute` by the larger term, `launch` when launch cost dominates")]
    ridge_intensity: Annotated[float, doc("derived: FLOP/byte where the roof's two ceilings meet")] = 0.0

    def __post_init__(self) -> None:
        derive(self, ridge_intensity=self.peak_tflops / self.peak_tbps)

    @property
    def roof(self) -> Roof:
        return Roof(self.source, self.peak_tflops, self.peak_tbps)


class RooflineResult(RoofAnalysis, frozen=True, kw_only=True):
    """One measurement (FLOPs, bytes, time) on one device and dtype: its placement under the spec roof
    (the fields it shares with :class:`RoofAnalysis`, the headline) and, when the device is
    calibrated, under the measured one (``measured``)."""

    device: Annotated[str, doc("the peak table's name of the device")]
    dtype: Annotated[str, doc("the precision whose peak is the compute roof (`bf16`, `fp32`, ...)")]
    flops: Annotated[float, doc("FLOPs of one call")]
    bytes: Annotated[float, doc("minimal bytes one call moves")]
    time_us: Annotated[float, doc("the measured time of one call")]
    measured: Annotated[RoofAnalysis | None, doc("the placement under the calibrated roof; null when the device is not calibrated for this dtype")] = None
    launch_us: Annotated[float | None, doc("the launch cost used for the `launch` bound; null when unknown")] = None
    launch_source: Annotated[LaunchSource | None, doc("where `launch_us` came from")] = None
    name: Annotated[str | None, doc("what was placed (the case's name)")] = None
    notes: Annotated[tuple[Note, ...], doc("what to know or distrust about the placement")] = ()
    arithmetic_intensity: Annotated[float, doc("derived: FLOP per byte moved")] = 0.0
    achieved_tflops: Annotated[float, doc("derived: flops / time")] = 0.0
    achieved_tbps: Annotated[float, doc("derived: bytes / time")] = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        derive(self, arithmetic_intensity=self.flops / self.bytes if self.bytes else 0.0,
               achieved_tflops=self.flops / self.time_us / 1e6 if self.time_us else 0.0,
               achieved_tbps=self.bytes / self.time_us / 1e6 if self.time_us else 0.0)

    @classmethod
    def placed(cls, spec: RoofAnalysis, **fields: Any) -> "RooflineResult":
        """The result of ``spec`` (the placement under the spec roof) and the other ``fields``."""
        own = {f: getattr(spec, f) for f in RoofAnalysis.__struct_fields__ if f != "ridge_intensity"}
        return cls(**own, **fields)

    @property
    def spec(self) -> RoofAnalysis:
        """The placement under the spec roof, as its own record."""
        return RoofAnalysis(**{f: getattr(self, f) for f in RoofAnalysis.__struct_fields__ if f != "ridge_intensity"})


class LevelPoint(Record, frozen=True):
    """One memory level of the hierarchical roofline: counted bytes, intensity and ceiling."""

    level: Annotated[Level, doc("`dram`, `l2` or `l1`")]
    bytes: Annotated[float, doc("bytes the counters saw at this level, one call")]
    intensity: Annotated[float | None, doc("counted FLOP per byte of this level (null without FLOPs)")]
    achieved_tbps: Annotated[float, doc("bytes over the call's time")]
    ceiling_tbps: Annotated[float | None, doc("this level's bandwidth ceiling (null: no figure)")] = None
    ceiling_source: Annotated[RoofSource | None, doc("`spec` (peak table) or `measured` (calibration)")] = None
    pct_of_ceiling: Annotated[float | None, doc("derived: 100 × achieved / ceiling")] = None

    def __post_init__(self) -> None:
        derive(self, pct_of_ceiling=100.0 * self.achieved_tbps / self.ceiling_tbps if self.ceiling_tbps else None)


class ModelCheck(Record, frozen=True):
    """The model's count of one quantity (``bytes`` = DRAM bytes, ``flops``) against the counters'."""

    quantity: Annotated[Literal["bytes", "flops"], doc("`bytes` (DRAM) or `flops`")]
    modelled: Annotated[float | None, doc("the model's count")]
    measured: Annotated[float | None, doc("the counters' count")]
    note: Annotated[str | None, doc("the likely cause when they differ by more than the tolerance")] = None
    ratio: Annotated[float | None, doc("derived: measured / modelled")] = None

    def __post_init__(self) -> None:
        derive(self, ratio=self.measured / self.modelled if self.modelled and self.measured is not None else None)


class MeasuredRoofline(Record, frozen=True):
    """Counted work of one call on the hierarchical roofline of one device."""

    name: Annotated[str | None, doc("what was placed")]
    device: Annotated[str, doc("the peak table's name of the device")]
    dtype: Annotated[str, doc("the precision of most of the counted FLOPs (its compute peak is the roof)")]
    time_us: Annotated[float, doc("bench-kernel's own time of one call (never the counter tool's)")]
    time_method: Annotated[str, doc("the method that time comes from")]
    flops: Annotated[float, doc("counted FLOPs, every precision")]
    flops_by_precision: Annotated[dict[str, float], doc("precision -> counted FLOPs")]
    tensor_flops: Annotated[float, doc("counted FLOPs on tensor cores / MFMA")]
    compute_peak_tflops: Annotated[float | None, doc("the compute ceiling of `dtype` (null: none in the peak table)")]
    compute_source: Annotated[RoofSource | None, doc("where the compute ceiling came from")]
    levels: Annotated[tuple[LevelPoint, ...], doc("one point per memory level with counted bytes")]
    checks: Annotated[tuple[ModelCheck, ...], doc("the model's bytes and FLOPs against the counts")] = ()
    model_flops: Annotated[float | None, doc("the model's FLOPs of one call")] = None
    model_bytes: Annotated[float | None, doc("the model's bytes of one call")] = None
    notes: Annotated[tuple[Note, ...], doc("what to know or distrust about the placement")] = ()
    achieved_tflops: Annotated[float, doc("derived: counted FLOPs over the time")] = 0.0
    bound: Annotated[str | None, doc("derived: the ceiling that allows least at this kernel's intensities: `compute`, `dram`, `l2` or `l1`")] = None
    modelled_intensity: Annotated[float | None, doc("derived: model FLOPs / model bytes")] = None

    def __post_init__(self) -> None:
        limits: dict[str, float] = {p.level: p.ceiling_tbps * p.intensity for p in self.levels
                                    if p.ceiling_tbps and p.intensity}
        if self.compute_peak_tflops and self.flops:
            limits["compute"] = self.compute_peak_tflops
        derive(self, achieved_tflops=self.flops / self.time_us / 1e6 if self.time_us else 0.0,
               bound=min(limits, key=limits.__getitem__) if limits else None,
               modelled_intensity=self.model_flops / self.model_bytes if self.model_flops and self.model_bytes else None)

    def level(self, name: str) -> LevelPoint | None:
        return next((p for p in self.levels if p.level == name), None)
