"""One device of the peak table (``bench_kernel/hardware/data/peaks.json``): its spec (datasheet)
ceilings, every compute figure DENSE, each with its source. What ``devices --json`` prints, and the
roof ``roofline`` and ``run --roofline`` place a measurement under."""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any, Literal, Mapping

from bench_kernel.dtypes import peak_class
from bench_kernel.errors import DeviceError
from bench_kernel.records._base import Record, derive, doc

__all__ = ["DeviceSpec", "Vendor"]

Vendor = Literal["NVIDIA", "AMD"]


class DeviceSpec(Record, frozen=True):
    """One device of the peak table. Table rows are shared, so ``peak_tflops`` and ``sources`` are
    read-only."""

    name: Annotated[str, doc("the table name, e.g. `H200`: what `--device` takes")]
    vendor: Annotated[Vendor, doc("who makes it")]
    arch: Annotated[str, doc("architecture and its compiler target (`Hopper (sm_90)`, `CDNA 3 (gfx942)`, ...)")]
    aliases: Annotated[tuple[str, ...], doc("names PyTorch reports for it (`torch.cuda.get_device_name()`) and "
                                            "common spellings")]
    memory_tbps: Annotated[float, doc("DRAM bandwidth, TB/s (1e12 bytes/s)")]
    peak_tflops: Annotated[Mapping[str, float], doc(
        "dense peak per canonical dtype, TFLOP/s (TOPS for int8); dtypes without a figure are absent")]
    l2_bytes: Annotated[int | None, doc("L2 size, bytes")]
    llc_bytes: Annotated[int | None, doc("last-level cache beyond L2 (AMD Infinity Cache), bytes; null where L2 "
                                         "is the last level")]
    sm_count: Annotated[int, doc("SMs (NVIDIA) or CUs (AMD) of one torch device")]
    boost_clock_mhz: Annotated[int | None, doc("boost clock, MHz")]
    sources: Annotated[Mapping[str, str], doc(
        "figure (`memory_tbps`, a dtype, `l2_mib`, ...) -> where the number comes from")]
    notes: Annotated[str, doc("caveats of the figures")] = ""
    l2_tbps: Annotated[float | None, doc("L2 bandwidth, TB/s, all SMs together; null where no figure can be "
                                         "sourced")] = None
    l1_tbps: Annotated[float | None, doc("L1/shared-memory bandwidth, TB/s, all SMs together; null where no "
                                         "figure can be sourced")] = None

    def __post_init__(self) -> None:
        for name in ("peak_tflops", "sources"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                derive(self, **{name: MappingProxyType(dict(value))})

    def __hash__(self) -> int:
        # the mappings are unhashable; the table name identifies a row
        return hash((self.name, self.memory_tbps, self.sm_count))

    def peak(self, dtype: Any) -> float:
        """Dense peak for ``dtype`` (any alias or torch dtype) in TFLOP/s; DeviceError if none."""
        canon = peak_class(dtype)
        value = self.peak_tflops.get(canon)
        if value is None:
            have = ", ".join(self.peak_tflops)
            why = f" ({self.notes})" if self.notes else ""
            raise DeviceError(
                f"device {self.name!r} has no dense {canon} peak in the peak table{why}; "
                f"choose --dtype from: {have}"
            )
        return value
