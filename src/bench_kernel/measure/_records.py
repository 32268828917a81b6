"""Result records: one per level (Measurement -> BenchResult), plain-JSON serialisable.

Every number carries its unit in its name; times are microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from bench_kernel.counters import CounterReport
from bench_kernel.measure._check import Check
from bench_kernel.measure._stats import Samples

__all__ = ["Measurement", "KernelStat", "BenchResult", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1
#: method -> the statistic of a round that comparisons across rounds use (default "median"): on the
#: host, noise from other processes only ever slows a sample, so a round's fastest sample is its
#: least disturbed one (Python's ``timeit`` docs: "the min() of the result is probably the only
#: number you should be interested in"); measured: benchmarks/results/verdicts-cpu.md.
ROUND_STATISTICS = {"host": "min"}


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and (math.isnan(x) or math.isinf(x))) else x


@dataclass(frozen=True)
class Measurement:
    """One method on one callable: per-call samples and how they were taken.

    ``error`` is set (and ``samples`` empty) when the method could not measure, e.g. a callable
    that cannot be captured in a graph; the reason is the whole point of the record then.

    Rounds: a measurement made in K rounds (``Options.rounds``) holds every round's samples, in
    order, and ``round_sizes`` says how many each round took; its median is the median of the
    round medians. ``round_sizes`` empty means one round (every record stored before rounds existed).
    """

    method: str
    samples: Samples
    calls_per_sample: int = 1
    cache: str = "cold"
    stop_reason: str | None = None
    wall_s: float = 0.0
    notes: tuple[str, ...] = ()
    error: str | None = None
    #: SM clock (MHz, NVML) when each sample was taken, aligned with ``samples``; () where unreadable.
    sm_clock_mhz: tuple[float | None, ...] = ()
    #: samples per round, in order, summing to ``samples.n``; () = one round
    round_sizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        sizes = self.round_sizes
        if sizes and (sum(sizes) != self.samples.n or min(sizes) < 1):
            raise ValueError(f"round_sizes {list(sizes)} must be positive and sum to the {self.samples.n} samples")

    @property
    def ok(self) -> bool:
        return self.error is None and self.samples.n > 0

    @property
    def rounds(self) -> int:
        """How many rounds the samples come from (0 when nothing was measured)."""
        return len(self.round_sizes) if self.round_sizes else int(self.samples.n > 0)

    @property
    def round_samples(self) -> tuple[Samples, ...]:
        """Each round's samples, in order."""
        if not self.round_sizes:
            return (self.samples,) if self.samples.n else ()
        out, start = [], 0
        for n in self.round_sizes:
            out.append(Samples(self.samples.values_us[start:start + n]))
            start += n
        return tuple(out)

    @property
    def round_medians_us(self) -> tuple[float, ...]:
        """The median per call of each round, microseconds."""
        return tuple(s.median_us for s in self.round_samples)

    @property
    def ci95_us(self) -> tuple[float, float]:
        """The 95% CI of :attr:`median_us`, microseconds: of the samples' median with one round; with
        several, the distribution-free interval of the median of the round medians (with fewer than 6
        rounds, their whole range: ``Samples.ci95_us``)."""
        if len(self.round_sizes) < 2:
            return self.samples.ci95_us
        return Samples.of(self.round_medians_us).ci95_us

    @property
    def rel_ci95(self) -> float:
        """Half-width of :attr:`ci95_us` relative to :attr:`median_us`."""
        if len(self.round_sizes) < 2:
            return self.samples.rel_ci95
        return Samples.of(self.round_medians_us).rel_ci95

    @property
    def round_statistic(self) -> str:
        """What summarises one round for a comparison across rounds: ``"min"`` on the host method,
        ``"median"`` on the GPU methods (``bench_kernel.results._noise`` says why)."""
        return ROUND_STATISTICS.get(self.method, "median")

    @property
    def round_times_us(self) -> tuple[float, ...]:
        """Each round summarised by :attr:`round_statistic`, microseconds per call."""
        if self.round_statistic == "min":
            return tuple(s.min_us for s in self.round_samples)
        return self.round_medians_us

    @property
    def median_us(self) -> float:
        """The median per call, microseconds; with several rounds, the median of the round medians
        (each round weighs the same, however many samples its stopping rule took)."""
        if len(self.round_sizes) < 2:
            return self.samples.median_us
        return Samples.of(self.round_medians_us).median_us

    @classmethod
    def failed(cls, method: str, reason: str, cache: str = "cold", wall_s: float = 0.0) -> "Measurement":
        return cls(method=method, samples=Samples(()), cache=cache, wall_s=wall_s, error=reason)

    def to_dict(self) -> dict[str, Any]:
        s = self.samples
        lo, hi = self.ci95_us
        return {
            "method": self.method,
            "ok": self.ok,
            "error": self.error,
            "median_us": _num(self.median_us),
            "iqr_us": _num(s.iqr_us),
            "ci95_us": [_num(lo), _num(hi)] if s.n else None,
            "rel_ci95": _num(self.rel_ci95),
            "min_us": _num(s.min_us),
            "mean_us": _num(s.mean_us),
            "n": s.n,
            "calls_per_sample": self.calls_per_sample,
            "cache": self.cache,
            "stop_reason": self.stop_reason,
            "wall_s": round(self.wall_s, 4),
            "notes": list(self.notes),
            "samples_us": list(s.values_us),
            "sm_clock_mhz": list(self.sm_clock_mhz),
            "rounds": self.rounds,
            "round_sizes": list(self.round_sizes),
            "round_medians_us": [_num(x) for x in self.round_medians_us],
            "round_statistic": self.round_statistic,
            "round_times_us": [_num(x) for x in self.round_times_us],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Measurement":
        """Inverse of :meth:`to_dict`: the statistics are recomputed from ``samples_us``."""
        return cls(method=d["method"], samples=Samples.of(d.get("samples_us") or ()),
                   calls_per_sample=int(d.get("calls_per_sample", 1)), cache=d.get("cache", "cold"),
                   stop_reason=d.get("stop_reason"), wall_s=float(d.get("wall_s") or 0.0),
                   notes=tuple(d.get("notes") or ()), error=d.get("error"),
                   sm_clock_mhz=_clocks(d.get("sm_clock_mhz") or ()),
                   round_sizes=tuple(int(n) for n in d.get("round_sizes") or ()))


def _clocks(values: Any) -> tuple[float | None, ...]:
    """Stored SM clock readings read back: each a number of MHz, or None (unreadable; 0 is read
    the same way where they are used, as NVML has no clock 0).

    Anything else (a word, a negative or infinite clock) is a ValueError naming the value: a
    comparison that weighs clocks must never weigh a wrong one (``results.compare``).
    """
    if isinstance(values, (str, bytes, dict)):
        raise ValueError(f"sm_clock_mhz must be a list of MHz readings, got {values!r}")
    out = []
    for v in values:
        ok = v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < math.inf)
        if not ok:
            raise ValueError(f"sm_clock_mhz holds {v!r}: a reading is a number of MHz (>= 0), or null")
        out.append(None if v is None else float(v))
    return tuple(out)


@dataclass(frozen=True)
class KernelStat:
    """One distinct device activity (kernel, memcpy, memset) of one call, from the profiler."""

    name: str
    short: str
    category: str
    kind: str  # "kernel" | "memcpy" | "memset"
    count_per_call: float
    us_per_call: float
    share: float  # of the call's summed device time, 0..1

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "short": self.short, "category": self.category, "kind": self.kind,
            "count_per_call": self.count_per_call, "us_per_call": self.us_per_call,
            "share": self.share,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "KernelStat":
        return cls(**{k: d[k] for k in ("name", "short", "category", "kind", "count_per_call",
                                         "us_per_call", "share")})


@dataclass(frozen=True)
class BenchResult:
    """Everything measured about one callable."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    measurements: dict[str, Measurement] = field(default_factory=dict)
    kernels: tuple[KernelStat, ...] = ()
    env: dict[str, Any] = field(default_factory=dict)
    correct: bool | None = None
    flops: float | None = None
    bytes: float | None = None
    notes: tuple[str, ...] = ()
    #: A ``bench_kernel.roofline.RooflineResult`` when asked for (``run --roofline``); else None.
    roofline: Any = None
    #: What the hardware counters measured for one call (``run --counters``): counts only, never times.
    counters: CounterReport | None = None
    #: A ``bench_kernel.roofline.MeasuredRoofline``: the counted bytes and FLOPs under the DRAM, L2 and L1
    #: ceilings, beside the modelled point (``run --counters``); else None.
    measured_roofline: Any = None
    #: the correctness check against the reference (None: the case has no reference)
    check: Check | None = None
    #: what this result cost, in wall seconds: check, inputs, warm-up, every method's rounds, counting
    wall_s: float = 0.0

    def with_work(self, *, flops: float | None, bytes: float | None, notes: Sequence[str] = ()) -> "BenchResult":
        """This result with the work of one call (FLOP, bytes) set, and ``notes`` that say where it came from."""
        return replace(self, flops=flops, bytes=bytes, notes=self.notes + tuple(notes))

    def median_us(self, method: str) -> float | None:
        m = self.measurements.get(method)
        return m.median_us if m is not None and m.ok else None

    @property
    def primary_method(self) -> str | None:
        """The method whose time speaks for the callable: graph, else kernel, events, host."""
        for method in ("graph", "kernel", "events", "host"):
            if self.median_us(method) is not None:
                return method
        return None

    @property
    def time_us(self) -> float | None:
        m = self.primary_method
        return self.median_us(m) if m else None

    @property
    def launch_overhead_us(self) -> float | None:
        """events - graph: what launching each kernel from the host costs per call."""
        e, g = self.median_us("events"), self.median_us("graph")
        return None if e is None or g is None else e - g

    @property
    def graph_gap_us(self) -> float | None:
        """graph - kernel: idle device time between kernels even inside a graph."""
        g, k = self.median_us("graph"), self.median_us("kernel")
        return None if g is None or k is None else g - k

    @property
    def kernels_per_call(self) -> float | None:
        if not self.kernels:
            return None
        return sum(k.count_per_call for k in self.kernels if k.kind == "kernel")

    @property
    def achieved_tflops(self) -> float | None:
        t = self.time_us
        return None if self.flops is None or not t else self.flops / (t * 1e-6) / 1e12

    @property
    def achieved_tbps(self) -> float | None:
        t = self.time_us
        return None if self.bytes is None or not t else self.bytes / (t * 1e-6) / 1e12

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "params": dict(self.params),
            "correct": self.correct,
            "time_us": _num(self.time_us),
            "primary_method": self.primary_method,
            "measurements": {k: m.to_dict() for k, m in self.measurements.items()},
            "launch_overhead_us": _num(self.launch_overhead_us),
            "graph_gap_us": _num(self.graph_gap_us),
            "kernels_per_call": self.kernels_per_call,
            "kernels": [k.to_dict() for k in self.kernels],
            "flops": self.flops,
            "bytes": self.bytes,
            "achieved_tflops": _num(self.achieved_tflops),
            "achieved_tbps": _num(self.achieved_tbps),
            "roofline": self.roofline.to_dict() if self.roofline is not None else None,
            "counters": self.counters.to_dict() if self.counters is not None else None,
            "measured_roofline": self.measured_roofline.to_dict() if self.measured_roofline is not None else None,
            "env": dict(self.env),
            "notes": list(self.notes),
            "check": self.check.to_dict() if self.check is not None else None,
            "wall_s": round(self.wall_s, 4),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BenchResult":
        """Inverse of :meth:`to_dict` (derived fields are recomputed, not read).

        ``roofline`` and ``measured_roofline`` are not rebuilt: they are records of the ``roofline``
        package, which this one may not import; readers that need them take ``d["roofline"]`` (the
        results store keeps it). ``counters`` is rebuilt.
        """
        version = d.get("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise ValueError(f"BenchResult schema_version {version!r}; this bench-kernel reads {SCHEMA_VERSION}")
        return cls(name=d["name"], params=dict(d.get("params") or {}),
                   measurements={k: Measurement.from_dict(m) for k, m in (d.get("measurements") or {}).items()},
                   kernels=tuple(KernelStat.from_dict(k) for k in d.get("kernels") or ()),
                   env=dict(d.get("env") or {}), correct=d.get("correct"), flops=d.get("flops"),
                   bytes=d.get("bytes"), notes=tuple(d.get("notes") or ()),
                   counters=CounterReport.from_dict(d["counters"]) if d.get("counters") else None,
                   check=Check.from_dict(d["check"]) if d.get("check") else None,
                   wall_s=float(d.get("wall_s") or 0.0))
