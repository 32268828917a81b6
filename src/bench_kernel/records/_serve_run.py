"""What a serving run has beyond its load points: each load's metrics across ``--num-runs``, and the
profiled window (``--profile``) with the kernels of its traces."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from bench_kernel.records._base import Record, doc
from bench_kernel.records._layers import TopKernel
from bench_kernel.records._serve import Load, ServePoint

__all__ = ["RepeatStat", "Repeats", "KernelView", "ProfileWindow"]


class RepeatStat(Record, frozen=True, kw_only=True):
    """One metric of one load across its runs."""

    metric: Annotated[str, doc("`ttft_ms.p50`, `itl_ms.p99`, `output_tokens_per_s`, ...")]
    unit: Annotated[Literal["ms", "req/s", "tokens/s"], doc("the unit of every number of the row")]
    values: Annotated[tuple[float, ...], doc("one per complete run, in run order")]
    mean: Annotated[float, doc("their geometric mean (the centre of the interval; the arithmetic mean where a value is 0)")]
    ci_low: Annotated[float | None, doc("the t-interval of the mean of the values' logs, back on their scale, so never below 0 (null with one run)")]
    ci_high: Annotated[float | None, doc("its upper end")]
    rel_half_width: Annotated[float | None, doc("the interval's relative half-width, sqrt(ci_high / ci_low) - 1: 0.03 is about +/-3%")]


class Repeats(Record, frozen=True, kw_only=True):
    """One load point over its runs (``--num-runs``)."""

    load: Annotated[Load, doc("the load (as each point's `load`)")]
    runs: Annotated[int, doc("runs of this load")]
    complete_runs: Annotated[int, doc("of them, the runs that ran to their end")]
    confidence: Annotated[float, doc("the intervals' level")]
    stats: Annotated[tuple[RepeatStat, ...], doc("per metric")]


class KernelView(Record, frozen=True, kw_only=True):
    """The kernels of the profiled window beside its serving metrics (rank 0's trace)."""

    traces: Annotated[tuple[str, ...], doc("the traces read")]
    kernels: Annotated[int, doc("kernels in the trace")]
    kernel_us: Annotated[float, doc("their summed device time")]
    phase_method: Annotated[str | None, doc("how steps were told prefill or decode (`phases`' method); null when not told")]
    steps: Annotated[dict[str, int], doc("steps per phase (`prefill`, `decode`, `mixed`, `unknown`)")]
    decode_step_us: Annotated[float | None, doc("median wall time of a decode step (host annotation interval); null without decode steps")]
    kernels_per_decode_step: Annotated[float | None, doc("median kernels per decode step")]
    kernels_per_prefill_step: Annotated[float | None, doc("median kernels per prefill step")]
    top_prefill: Annotated[tuple[TopKernel, ...], doc("the costliest kernels of the prefill steps (as `phases --json` lists them)")]
    top_decode: Annotated[tuple[TopKernel, ...], doc("the costliest kernels of the decode steps")]
    top_ops: Annotated[tuple[dict[str, Any], ...], doc("a trace without kernels (a CPU server): its costliest CPU ops (`name`, `count`, `total_us` inclusive)")] = ()
    ops: Annotated[int, doc("CPU ops in the trace")] = 0
    analyses: Annotated[dict[str, Any], doc("the trace commands' documents of the trace: `inventory`, `timeline`, `layers`, `phases` (or, without kernels, its `steps`)")] = {}
    notes: Annotated[tuple[str, ...], doc("what could not be analysed, and why")] = ()


class ProfileWindow(Record, frozen=True, kw_only=True):
    """The profiled window (``--profile``): its own load point after the measured ones, the traces
    the server wrote, the kernel view and how long each step took."""

    point: Annotated[ServePoint, doc("the window's load point (its requests not kept)")]
    traces: Annotated[tuple[str, ...], doc("the traces the server wrote in the window")]
    view: Annotated[KernelView | None, doc("the kernels of the window; null when the traces could not be read (`error`)")]
    start_profile_s: Annotated[float, doc("seconds /start_profile took")]
    stop_profile_s: Annotated[float, doc("seconds /stop_profile took")]
    export_s: Annotated[float, doc("seconds from /stop_profile to the traces on disk")]
    error: Annotated[str | None, doc("why the traces could not be read")] = None
