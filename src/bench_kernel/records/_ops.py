"""The records of ``ops`` (``bench_kernel.trace``): how fast each op of a trace ran against its
roof, from the shapes the trace recorded. Every microsecond of kernel time is either counted or
named with its reason (``uncounted``); the two sum to the total."""

from __future__ import annotations

from typing import Annotated, Literal

from bench_kernel.records._base import Record, doc
from bench_kernel.records._roofline import Bound
from bench_kernel.records._trace import LOAD_NOTES, TRACE_NAME

__all__ = ["OpsRow", "Uncounted", "OpsReport", "OpsBy", "TimeBase"]

OpsBy = Literal["op", "shape"]
TimeBase = Literal["device", "host"]


class OpsRow(Record, frozen=True, kw_only=True):
    """One op (`--by op`), or one op with one set of recorded shapes and dtypes (`--by shape`). Its
    rates are over the calls that could be counted (`counted_us`), so calls without a formula do not
    dilute them."""

    op: Annotated[str, doc("the op (`aten::mm`, ...)")]
    shapes: Annotated[str | None, doc("its recorded input shapes and dtypes, as text (`--by shape`); null by op")]
    dtype: Annotated[str | None, doc("the dtype its roof is for: the one carrying most of its FLOPs, else bytes")]
    calls: Annotated[int, doc("calls")]
    kernels: Annotated[int, doc("kernels they launched")]
    kernel_us: Annotated[float, doc("device time of every kernel of these calls (host time of the op on a "
                                    "CPU-only trace)")]
    counted_us: Annotated[float, doc("the time of the calls whose FLOPs and bytes were counted: the rates' "
                                     "denominator")]
    flops: Annotated[float | None, doc("FLOPs counted")]
    bytes: Annotated[float | None, doc("bytes counted (a collective's message bytes)")]
    achieved_tflops: Annotated[float | None, doc("FLOPs over the counted time, TFLOP/s")]
    achieved_tbps: Annotated[float | None, doc("bytes over the counted time, TB/s")]
    intensity: Annotated[float | None, doc("FLOP per byte")]
    pct_of_roof: Annotated[float | None, doc("percent of the roof for its dtype (the memory roof alone without "
                                            "a compute peak or counted FLOPs); null without a device")]
    bound: Annotated[Bound | None, doc("which roof binds it")]
    formula: Annotated[str | None, doc("the counting formula used")]
    notes: Annotated[tuple[str, ...], doc("why not counted, estimates, the likely causes of a rate above the "
                                          "roof")] = ()
    estimate: Annotated[bool, doc("some counted call rests on an estimate (a formula's assumption, or shapes "
                                  "from a later step; said in `notes`)")] = False
    origin: Annotated[str, doc("where the calls' shapes came from, `+`-joined: `op`, `capture`, `sequence` (a "
                               "later step)")] = "op"
    collective: Annotated[str | None, doc("`all_reduce`, `all_gather`, ... for a communication call (`bytes` is "
                                          "then the message)")] = None
    algbw_gbps: Annotated[float | None, doc("a collective's message bytes over its time, GB/s (nccl-tests' "
                                            "algbw)")] = None
    busbw_gbps: Annotated[float | None, doc("algbw times the bus factor for its group size, GB/s (nccl-tests' "
                                            "busbw)")] = None
    source: Annotated[str | None, doc("where an engine op's kernel is (project, file, function), which its "
                                      "formula follows")] = None


class Uncounted(Record, frozen=True):
    """Time no formula counted, for one reason."""

    reason: Annotated[str, doc("why no formula counted it")]
    kernels: Annotated[int, doc("kernels (0 on a CPU-only trace)")]
    us: Annotated[float, doc("their time")]
    ops: Annotated[tuple[str, ...], doc("the ops concerned (none for kernels that no op launched)")] = ()


class OpsReport(Record, frozen=True, kw_only=True):
    """Per-op time, FLOPs, bytes, TFLOP/s, TB/s, intensity, % of roof and bound of one trace, from
    the shapes it recorded (`record_shapes=True`), counted with the roofline package's formulas."""

    trace: Annotated[str, doc(TRACE_NAME)]
    device: Annotated[str | None, doc("the peak-table device the roofs come from; null when neither the trace "
                                      "nor `--device` names one")] = None
    device_source: Annotated[Literal["trace", "--device"] | None, doc(
        "where the device came from: the trace's `deviceProperties`, or `--device`")] = None
    by: Annotated[OpsBy, doc("what a row groups (`--by`)")]
    time_base: Annotated[TimeBase, doc("`device`: kernel time; `host`: a CPU-only trace, its ops' own time on "
                                       "the CPU")] = "device"
    total_kernel_us: Annotated[float, doc("all kernel time (host time of the ops on a CPU-only trace)")]
    unlinked_kernels: Annotated[int, doc("kernels placed in no op call (graph replays without a capture, "
                                         "launches with no op)")]
    unlinked_us: Annotated[float, doc("their time")]
    counted_share: Annotated[float, doc("share of the kernel time whose FLOPs and bytes were counted, 0-1")]
    rows: Annotated[tuple[OpsRow, ...], doc("per op (and shapes), most kernel time first (at most `--top`)")]
    uncounted: Annotated[tuple[Uncounted, ...], doc(
        "the time no formula counted, by reason, largest first (with the counted time: the total)")] = ()
    notes: Annotated[tuple[str, ...], doc("what to know: ops that could not be counted and why, the roofs' "
                                          "source, rates above the roof")] = ()
    load_notes: Annotated[tuple[str, ...], doc(LOAD_NOTES)] = ()
    rest_rows: Annotated[int, doc("rows `--top` left out")] = 0
    rest_us: Annotated[float, doc("their kernel time")] = 0.0

    @property
    def counted_us(self) -> float:
        """Kernel time whose FLOPs and bytes were counted, microseconds."""
        return self.total_kernel_us * self.counted_share
