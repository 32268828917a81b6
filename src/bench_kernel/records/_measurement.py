"""How long one callable took by one method (:class:`Measurement`), what its kernels took
(:class:`KernelStat`), and whether its output was right (:class:`Check`).

Every time is microseconds per call. A measurement keeps its raw samples; its statistics are
derived from them (``_base``: recomputed on reading, never read from a file).
"""

from __future__ import annotations

import functools
import math
from typing import Annotated, Any, Literal

from msgspec import Meta

from bench_kernel.records._base import Record, derive, doc, finite
from bench_kernel.records._notes import Note
from bench_kernel.records._samples import Samples

__all__ = ["Method", "MeasuredBy", "Cache", "StopReason", "RoundStatistic", "ROUND_STATISTICS",
           "Measurement", "KernelStat", "Check", "ActivityKind", "CPU_WAIT_SHARE", "waited_for_cpu"]

#: The timing methods (DESIGN.md, "Measurement").
Method = Literal["graph", "events", "kernel", "host"]
#: What a measurement may be of: a method, or ``compare``, the per-round times a comparison was made of.
MeasuredBy = Literal["graph", "events", "kernel", "host", "compare"]
Cache = Literal["cold", "warm"]
StopReason = Literal["precision", "resolution", "time", "max_samples"]
RoundStatistic = Literal["median", "min"]
ActivityKind = Literal["kernel", "memcpy", "memset"]

#: method -> the statistic of a round that comparisons across rounds use (default "median"): on the
#: host, noise from other processes only ever slows a sample, so a round's fastest sample is its
#: least disturbed one (Python's ``timeit`` docs: "the min() of the result is probably the only
#: number you should be interested in"); measured: benchmarks/results/verdicts-cpu.md.
ROUND_STATISTICS: dict[str, RoundStatistic] = {"host": "min"}
#: A clock reading above this (MHz) is no clock (an infinity in a hand-edited file): refused when
#: read, as a comparison that weighs clocks must never weigh a wrong one.
MAX_CLOCK_MHZ = 100_000.0
#: A host sample whose threads waited for a CPU (run-queue wait, summed over threads) for more than
#: this share of its wall time timed the scheduler, not the callable: it is left out of the
#: statistics. Measured on a 2-core machine (benchmarks/results/busy-cpu.md): a sample's wait share
#: is either ~0 (the sample ran through) or near and above 100% (preempted for a time slice), so the
#: cut is not a fine line; 5% is the share a quiet machine's wake-ups of torch's threads stay under.
CPU_WAIT_SHARE = 0.05


def waited_for_cpu(sample_us: float, wait_us: float) -> bool:
    """True when a sample of ``sample_us`` per call waited ``wait_us`` per call for a CPU beyond
    :data:`CPU_WAIT_SHARE` (a NaN sample is never judged: a comparison must see and refuse it)."""
    return wait_us > CPU_WAIT_SHARE * sample_us


@functools.lru_cache(maxsize=4)
def _statistics(method: str, values: tuple[float, ...], sizes: tuple[int, ...], waits: tuple[float, ...]
                ) -> tuple[dict[str, Any], Samples, tuple[Samples, ...]]:
    """A measurement's derived fields (all but ``ok``), its kept samples and each round's. Cached
    for the last few: a measurement is made again from the same samples by every ``replace`` (the
    clock readings added to a round, a sweep point's record) and by joining a single round, and each
    time this cost 0.4-0.6 ms for 500 samples."""
    keep = [not waited_for_cpu(v, w) for v, w in zip(values, waits)] if waits else None
    s = Samples(values if keep is None else tuple(v for v, k in zip(values, keep) if k))
    parts = (s,) if len(sizes) < 2 and values else _split(values, sizes, keep)
    medians = tuple(p.median_us for p in parts)
    joined = Samples(medians) if len(sizes) >= 2 else s
    statistic = ROUND_STATISTICS.get(method, "median")
    lo, hi = joined.ci95_us
    derived = dict(n=s.n, disturbed=len(values) - s.n, rounds=len(sizes) if sizes else int(s.n > 0),
                   median_us=finite(joined.median_us), iqr_us=finite(s.iqr_us),
                   ci95_us=(finite(lo), finite(hi)) if s.n else None,
                   rel_ci95=finite(joined.rel_ci95), min_us=finite(s.min_us), mean_us=finite(s.mean_us),
                   round_medians_us=tuple(finite(m) for m in medians), round_statistic=statistic,
                   round_times_us=tuple(finite(p.min_us if statistic == "min" else p.median_us) for p in parts))
    return derived, s, parts


def _split(values: tuple[float, ...], sizes: tuple[int, ...], keep: list[bool] | None) -> tuple[Samples, ...]:
    """Each round's kept samples (``keep`` None: all; a round whose every sample waited is empty:
    its median is NaN, which a comparison refuses, where its disturbed samples would read 100x slow)."""
    out, start = [], 0
    for k in sizes or ((len(values),) if values else ()):
        chunk = values[start:start + k]
        out.append(Samples(chunk if keep is None else tuple(v for v, ok in zip(chunk, keep[start:start + k]) if ok)))
        start += k
    return tuple(out)


class Measurement(Record, frozen=True, dict=True):
    """One method on one callable: per-call samples and how they were taken.

    ``error`` is set (and the samples empty) when the method could not measure, e.g. a callable that
    cannot be captured in a graph; the reason is the whole point of the record then.

    Rounds: a measurement made in K rounds holds every round's samples, in order, and
    ``round_sizes`` says how many each round took; its median is the median of the round medians.
    ``round_sizes`` empty means one round.

    A CPU that was not there: host samples carry the run-queue wait of their threads
    (``cpu_wait_us``); a sample that waited beyond :data:`CPU_WAIT_SHARE` of its time stays in
    ``samples_us`` but is left out of every statistic (``disturbed`` counts them), so a loaded
    machine's number is that of the samples that ran through.
    """

    method: Annotated[MeasuredBy, doc("`graph`, `events`, `kernel` or `host`")]
    samples_us: Annotated[tuple[float | None, ...], doc("every per-call sample, in the order taken (rounds one after another); a sample that is not a finite number is written as null, and read as NaN, so that a comparison refuses it")] = ()
    calls_per_sample: Annotated[int, doc("calls averaged into one sample (a graph of N calls, a batch of host calls)")] = 1
    cache: Annotated[Cache, doc("`cold` (L2 flushed / inputs rotated beyond L2) or `warm`")] = "cold"
    stop_reason: Annotated[StopReason | None, doc("why sampling stopped: `precision`, `resolution` (the interval is within one step of the timer on either side of the median: no finer one exists), `time` (the bound) or `max_samples`")] = None
    wall_s: Annotated[float, doc("wall time this method took, warm-up and sampling, seconds")] = 0.0
    notes: Annotated[tuple[Note, ...], doc("what to know or distrust about this method's samples")] = ()
    error: Annotated[str | None, doc("why the method could not measure (a capture that failed, ...)")] = None
    sm_clock_mhz: Annotated[tuple[Annotated[float, Meta(ge=0, le=MAX_CLOCK_MHZ)] | None, ...], doc("the SM clock (NVML) when each sample was taken, aligned with `samples_us`; empty where unreadable")] = ()
    round_sizes: Annotated[tuple[int, ...], doc("samples per round, in order, summing to the length of `samples_us`; empty: one round")] = ()
    cpu_wait_us: Annotated[tuple[float, ...], doc("host method: this process's threads' run-queue wait (waiting for a CPU), summed over its threads, during each sample, per call, aligned with `samples_us`; empty where not read (then no sample is left out)")] = ()
    cpu_us: Annotated[tuple[float, ...], doc("host method: the process's CPU time (all threads) during each sample, per call, aligned with `samples_us`; empty where not read")] = ()
    # Derived (recomputed from the samples whenever the record is made or read):
    ok: Annotated[bool, doc("derived: it measured (no `error`, at least one sample)")] = False
    n: Annotated[int, doc("derived: number of samples the statistics are of (those that did not wait for a CPU)")] = 0
    disturbed: Annotated[int, doc("derived: host samples left out of the statistics because their threads waited for a CPU more than 5% of their wall time (`cpu_wait_us`)")] = 0
    rounds: Annotated[int, doc("derived: rounds the samples come from (0 when nothing was measured)")] = 0
    median_us: Annotated[float | None, doc("derived: median per call; with several rounds, the median of the round medians")] = None
    iqr_us: Annotated[float | None, doc("derived: interquartile range of the per-call samples")] = None
    ci95_us: Annotated[tuple[float | None, float | None] | None, doc("derived: [low, high] 95% CI of the median (with several rounds, of the median of the round medians); null without samples")] = None
    rel_ci95: Annotated[float | None, doc("derived: the CI's half-width relative to the median (0.01 = ±1%)")] = None
    min_us: Annotated[float | None, doc("derived: fastest sample")] = None
    mean_us: Annotated[float | None, doc("derived: mean of the samples")] = None
    round_medians_us: Annotated[tuple[float | None, ...], doc("derived: the median per call of each round")] = ()
    round_statistic: Annotated[RoundStatistic, doc("derived: what summarises one round for a comparison: `min` on the host method, `median` on GPU methods")] = "median"
    round_times_us: Annotated[tuple[float | None, ...], doc("derived: each round summarised by `round_statistic`")] = ()

    def __post_init__(self) -> None:
        raw = self.samples_us
        # The usual samples (floats, none missing) are kept as they are: a per-sample Python loop
        # here cost ~0.1 ms per 500 samples.
        values = raw if type(raw) is tuple and set(map(type, raw)) <= {float} else \
            tuple(math.nan if v is None else float(v) for v in raw)
        sizes = self.round_sizes
        if sizes and (sum(sizes) != len(values) or min(sizes) < 1):
            raise ValueError(f"round_sizes {list(sizes)} must be positive and sum to the {len(values)} samples")
        for name in ("cpu_wait_us", "cpu_us"):
            if getattr(self, name) and len(getattr(self, name)) != len(values):
                raise ValueError(f"{name} holds {len(getattr(self, name))} values for {len(values)} samples: "
                                 f"it must be empty or one per sample")
        # Tuples: the statistics are cached by these, and a caller may have given lists.
        derived, s, parts = _statistics(self.method, values, tuple(sizes), tuple(self.cpu_wait_us))
        derive(self, samples_us=values, ok=self.error is None and s.n > 0, **derived)
        self.__dict__["_samples"] = s
        self.__dict__["_parts"] = parts

    @property
    def samples(self) -> Samples:
        """The samples the statistics are of, with their statistics (microseconds per call): every
        sample but those that waited for a CPU (``disturbed``)."""
        samples: Samples = self.__dict__["_samples"]
        return samples

    @property
    def round_samples(self) -> tuple[Samples, ...]:
        """Each round's samples (those the statistics are of), in order."""
        parts: tuple[Samples, ...] = self.__dict__["_parts"]
        return parts

    @property
    def ci95(self) -> tuple[float, float]:
        """:attr:`ci95_us` with NaN for unknown bounds (for arithmetic)."""
        lo, hi = self.ci95_us or (None, None)
        return (math.nan if lo is None else lo, math.nan if hi is None else hi)

    @property
    def median(self) -> float:
        """:attr:`median_us`, NaN when nothing was measured (for arithmetic)."""
        return math.nan if self.median_us is None else self.median_us

    @property
    def rel_ci(self) -> float:
        """:attr:`rel_ci95`, infinity when unknown (for comparisons against a precision)."""
        return math.inf if self.rel_ci95 is None else self.rel_ci95

    @classmethod
    def failed(cls, method: str, reason: str, cache: str = "cold", wall_s: float = 0.0) -> "Measurement":
        """A method that could not measure, with the reason."""
        return cls(method=method, cache=cache, wall_s=wall_s, error=reason)  # type: ignore[arg-type]

    @classmethod
    def of(cls, method: str, samples: Samples | tuple[float, ...], **fields: Any) -> "Measurement":
        """A measurement of ``samples`` (a :class:`Samples` or per-call times in microseconds)."""
        values = samples.values_us if isinstance(samples, Samples) else tuple(samples)
        return cls(method=method, samples_us=values, **fields)  # type: ignore[arg-type]


class KernelStat(Record, frozen=True):
    """One distinct device activity (kernel, memcpy, memset) of one call, from the profiler."""

    name: Annotated[str, doc("the full name as the profiler recorded it")]
    short: Annotated[str, doc("a short readable name (templates and arguments dropped)")]
    category: Annotated[str, doc("the kernel's category (`gemm`, `attention`, `elementwise`, ...; `other` when none applies)")]
    kind: Annotated[ActivityKind, doc("`kernel`, `memcpy` or `memset`")]
    count_per_call: Annotated[float, doc("launches per call of the callable")]
    us_per_call: Annotated[float, doc("device time per call, summed over its launches")]
    share: Annotated[float, doc("share of the call's summed device time, 0-1")]
    grid: Annotated[tuple[int, ...] | None, doc("launch grid (blocks in x, y, z), where the profiler recorded it")] = None
    block: Annotated[tuple[int, ...] | None, doc("threads per block (x, y, z), where recorded")] = None
    registers_per_thread: Annotated[int | None, doc("registers per thread, where recorded")] = None
    shared_memory_bytes: Annotated[int | None, doc("shared memory per block (static + dynamic), where recorded")] = None


class Check(Record, frozen=True):
    """The correctness check of one call: the largest error found and what was allowed.

    ``where`` names the output value (``out``, ``out[1]``): the first that failed, or the one with
    the largest relative error when all passed.
    """

    passed: Annotated[bool, doc("the output matched the reference within the tolerance")]
    where: Annotated[str, doc("which output value: `out`, `out[1]`, ...")] = "out"
    dtype: Annotated[str | None, doc("that output's dtype")] = None
    rel_error: Annotated[float | None, doc("||out - ref|| / ||ref|| (null for a failure that is not about size: a shape, a NaN, a type)")] = None
    max_abs_error: Annotated[float | None, doc("the largest element-wise difference, in the output's units")] = None
    rtol: Annotated[float | None, doc("the relative tolerance applied (the dtype's default unless given)")] = None
    atol: Annotated[float, doc("the RMS allowance applied, in the output's units")] = 0.0
    reason: Annotated[str | None, doc("a failure that is not an error size: `shape (2, 3) != reference (3, 2)`")] = None

    def describe(self) -> str:
        """One sentence: the error and the tolerance (``reason`` for a failure of another kind)."""
        if self.reason is not None:
            return f"{self.where}: {self.reason}"
        rtol = self.rtol if self.rtol is not None else math.nan
        rel = self.rel_error if self.rel_error is not None else math.nan
        mx = self.max_abs_error if self.max_abs_error is not None else math.nan
        allowed = f"the {self.dtype} tolerance rtol {rtol:.3g}" + (f" + atol {self.atol:.3g}" if self.atol else "")
        err = f"relative error {rel:.3g} (max abs {mx:.3g})"
        if self.passed:
            return f"{self.where}: {err} within {allowed}"
        return (f"{self.where}: {err} exceeds {allowed}; a reference that is another formula may need "
                f"rtol=/atol= on the case or the sweep spec")
