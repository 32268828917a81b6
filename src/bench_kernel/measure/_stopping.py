"""When to stop sampling: NVBench's stopping criterion, as a small object tested without a GPU.

``add(samples)`` then ``is_finished()``: stop once the median's 95% CI half-width is within
``precision`` of the median (after ``min_samples`` and ``min_time_s``), or when ``max_time_s`` or
``max_samples`` is reached. ``reason`` says which, so a result can say it stopped on time, not on
precision. With ``read_clock``, each ``add`` also records the SM clock for its samples.
A sample added as ``left_out`` (a host sample that waited for a CPU) counts towards the bounds but
not towards the precision: a loaded machine samples on until the bound, and its statistic is that
of the samples that ran through. With none of those at the bound, sampling goes on up to
:data:`LEFT_OUT_GRACE` times the bound (at least :data:`LEFT_OUT_GRACE_S`) for one: a round of a
few ms can fall wholly inside one wait for a CPU (a 7 ms round was refused on a 2-core machine at
load 10), where a wait that lasts the grace too is the machine's state, not chance. The floor is a
quarter second because a 1 ms sample spans a preemption whenever the scheduler's slices are shorter:
with 12 busy loops on its core, a sweep of 20 ms rounds had 10 and 25 of 105 points refused under a
50 ms floor, and 0 and 1 of 105 under this one, in the same time. A round where any sample ran
through never waits for it.

Resolution. A timer ticks: the profiler's kernel durations on an H200 come in steps of 32 ns, so
a 1.056 us kernel's samples read 1.024, 1.056 or 1.088 us, and its interval spans a tick on either
side (+/-3%) however many samples are taken: the kernel method of a one-element add sampled to its
time bound in most rounds, first with the old bound, then with a one-step criterion (the interval
was two steps wide; measured on the H200). A method that knows its timer's step sets
``resolution_us`` (:func:`timer_step_us` estimates it from samples), and the rule also stops once
the interval is no wider than a step on either side of the median (``reason`` "resolution"): the
median known to one tick, the finest that timer can say.

Checks come early. :meth:`next_batch` sizes the next batch so that the samples double between two
checks (``min_samples`` first, then as many again, up to the method's own batch): a quiet method
stops after ``min_samples``, not after a full batch of 200 of them.

The check after every add must not cost more as samples accumulate. Sorting every sample again on
each check (what this rule did) made 10,000 one-sample adds take 1.9 s on a quiet machine and 21 s
on a loaded one: quadratic. The three order statistics the check needs -- the median and the two
ranks bounding its interval (``_stats.median_ci95_ranks``) -- are kept as running order
statistics instead: each is a split of the samples into a max-heap of the smallest ``k`` and a
min-heap of the rest, so an add costs O(log n) per sample, and as the ranks only creep up with
``n`` (by less than one per sample), rebalancing moves O(1) values per sample. The values are the
ones :class:`~bench_kernel.records.Samples` computes from the same samples, exactly
(``tests/test_measure_stats.py`` compares them after every add); ``samples`` builds that record
once, when asked. benchmarks/stopping_rule.py times both.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from bench_kernel.records import Samples, median_ci95_ranks

#: With only left-out samples at the time bound, sample on up to this many times the bound ...
LEFT_OUT_GRACE = 2.0
#: ... and at least this long (s): enough of the scheduler's slices for one to hold a whole sample.
LEFT_OUT_GRACE_S = 0.25

__all__ = ["StoppingRule", "RankTracker", "timer_step_us", "note_step", "TWO_VALUE_SAMPLES"]


#: Values closer than this (us) are one tick of the timer read twice: device timestamps converted
#: to whole nanoseconds put one tick's duration at, e.g., 1312 or 1313 ns (a 31.25 ns tick).
JITTER_US = 0.004
#: A gap counts as a whole number of steps within this fraction of a step.
STEP_SLACK = 0.1


def _ticks(values_us: Sequence[float]) -> list[float]:
    """The distinct values, those within :data:`JITTER_US` of their neighbour merged (their mean)."""
    groups: list[list[float]] = []
    for v in sorted(set(values_us)):
        if groups and v - groups[-1][-1] <= JITTER_US:
            groups[-1].append(v)
        else:
            groups.append([v])
    return [sum(g) / len(g) for g in groups]


def timer_step_us(values_us: Sequence[float]) -> float:
    """The step of a ticking timer (us): the smallest gap between two distinct values, when every
    gap between neighbouring distinct values is a whole number of it; 0.0 otherwise (continuous
    values, or fewer than three distinct ones). Values within :data:`JITTER_US` count as one, and a
    gap may miss a whole number of steps by :data:`STEP_SLACK` of one (a 31.25 ns tick rounded to
    whole nanoseconds reads 31 or 32 ns apart; float32 event times carry their own rounding)."""
    ticks = _ticks(values_us)
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    if len(gaps) < 2:  # two values are any gap's multiples: a tick shows in three or more
        return 0.0
    step = min(gaps)
    if any(abs(g / step - round(g / step)) > STEP_SLACK for g in gaps):
        return 0.0
    return step


#: A batch of at least this many samples on only two distinct values comes from a ticking timer.
TWO_VALUE_SAMPLES = 10


def note_step(rule: "StoppingRule", batch_us: Sequence[float]) -> None:
    """Narrow ``rule.resolution_us`` to the smallest step seen in one more batch of samples (a batch
    with few distinct values can show a multiple of the step; the smallest over batches is kept).

    A batch of :data:`TWO_VALUE_SAMPLES` or more that reads only two distinct values shows no step
    (:func:`timer_step_us` needs three), yet only a ticking timer reads that few: their gap is taken
    as the step. It may be two ticks, never less than one, so the rule stops with the median known
    to that gap: the H100's profiler read a one-element add as 1.344 or 1.376 us, and without this
    its kernel rounds sampled on to 520 calls until the interval collapsed onto one value."""
    step = timer_step_us(batch_us)
    if not step and len(batch_us) >= TWO_VALUE_SAMPLES:
        ticks = _ticks(batch_us)
        if len(ticks) == 2:
            step = ticks[1] - ticks[0]
    if step > 0 and (not rule.resolution_us or step < rule.resolution_us):
        rule.resolution_us = step


class RankTracker:
    """The ``k``-th smallest of a growing multiset (0-based) for a ``k`` that may change between
    adds: the smallest values in a max-heap (stored negated), the rest in a min-heap.

    ``add`` is O(log n); :meth:`at` moves values between the heaps until the lower one holds
    exactly ``k + 1`` values, one move per unit of change in ``k``.
    """

    __slots__ = ("_low", "_high")

    def __init__(self) -> None:
        self._low: list[float] = []   # negated: -_low[0] is the largest of the low part
        self._high: list[float] = []  # _high[0] is the smallest of the high part

    def __len__(self) -> int:
        return len(self._low) + len(self._high)

    def add(self, x: float) -> None:
        # Every low value stays <= every high value: x joins the low part only if it is no larger
        # than the low part's largest.
        if self._low and x <= -self._low[0]:
            heapq.heappush(self._low, -x)
        else:
            heapq.heappush(self._high, x)

    def _split(self, size: int) -> None:
        """Leave the ``size`` smallest values in the low heap."""
        low, high = self._low, self._high
        while len(low) > size:
            heapq.heappush(high, -heapq.heappop(low))
        while len(low) < size:
            heapq.heappush(low, -heapq.heappop(high))

    def at(self, k: int) -> float:
        """The ``k``-th smallest value (0-based); IndexError outside ``0 <= k < len``."""
        if not 0 <= k < len(self):
            raise IndexError(f"rank {k} of {len(self)} values")
        self._split(k + 1)
        return -self._low[0]

    def pair(self, k: int) -> tuple[float, float]:
        """The ``k``-th and ``k + 1``-th smallest values (0-based): a median of an even count."""
        if not 0 <= k < len(self) - 1:
            raise IndexError(f"ranks {k}, {k + 1} of {len(self)} values")
        self._split(k + 1)
        return -self._low[0], self._high[0]


@dataclass
class StoppingRule:
    """Adaptive stopping on the relative precision of the median.

    precision: target half-width of the 95% CI of the median, relative (0.01 = 1%).
    min_samples: never stop on precision before this many samples.
    max_samples: hard cap on the number of samples.
    max_time_s: wall-clock bound in seconds, measured from construction.
    min_time_s: never stop on precision before this many seconds (steady mode samples long
        enough to average a power cap's clock swings).
    read_clock: the SM clock now (MHz, None when unreadable), read once per ``add``.
    resolution_us: the timer's step (us); 0 = unknown. An interval no wider than one step on either
        side of the median stops the rule.
    """

    precision: float = 0.01
    min_samples: int = 10
    max_samples: int = 10_000
    max_time_s: float = 1.0
    min_time_s: float = 0.0
    clock: Callable[[], float] = time.perf_counter
    read_clock: Optional[Callable[[], Optional[float]]] = None
    resolution_us: float = 0.0
    #: the SM clock (MHz) when each sample was added (left out ones too); empty without ``read_clock``
    clocks_mhz: list = field(default_factory=list)
    reason: str | None = None
    #: samples taken but left out of :attr:`samples` (and so of the precision)
    left_out: int = 0

    def __post_init__(self) -> None:
        if not (self.precision > 0):
            raise ValueError(f"precision must be > 0, got {self.precision!r}")
        if self.min_samples < 1 or self.max_samples < self.min_samples:
            raise ValueError(f"need 1 <= min_samples <= max_samples, got {self.min_samples}, {self.max_samples}")
        if not (self.max_time_s > 0):
            raise ValueError(f"max_time_s must be > 0, got {self.max_time_s!r}")
        if not (0 <= self.min_time_s <= self.max_time_s):
            raise ValueError(f"need 0 <= min_time_s <= max_time_s, got {self.min_time_s!r}, {self.max_time_s!r}")
        self._t0 = self.clock()
        self._values: list[float] = []
        self._samples: Samples | None = Samples(())
        # one tracker per order statistic: the interval's low and high ranks, and the median
        self._lo, self._hi, self._mid = RankTracker(), RankTracker(), RankTracker()

    def add(self, values_us: Sequence[float], *, left_out: bool = False) -> None:
        """Add per-call samples in microseconds (and the SM clock they ran at, with ``read_clock``);
        ``left_out``: taken, but not to be judged (they count towards the bounds only)."""
        new = [float(v) for v in values_us]
        if left_out:
            self.left_out += len(new)
            if self.read_clock is not None:
                self.clocks_mhz.extend([self.read_clock()] * len(new))
            return
        self._values += new
        for v in new:
            self._lo.add(v)
            self._hi.add(v)
            self._mid.add(v)
        self._samples = None
        if self.read_clock is not None:
            mhz = self.read_clock()
            self.clocks_mhz.extend([mhz] * len(new))

    @property
    def n(self) -> int:
        """Samples so far."""
        return len(self._values)

    @property
    def samples(self) -> Samples:
        """Every sample so far, in the order added (built once per change, on demand)."""
        if self._samples is None:
            self._samples = Samples(tuple(self._values))
        return self._samples

    @property
    def median_us(self) -> float:
        """The median so far, as :attr:`Samples.median_us` computes it (NaN with no samples)."""
        n = self.n
        if not n:
            return math.nan
        if n % 2:
            return self._mid.at(n // 2)
        a, b = self._mid.pair(n // 2 - 1)
        return (a + b) / 2

    @property
    def ci95_us(self) -> tuple[float, float]:
        """(low, high) of the median's 95% CI, as :attr:`Samples.ci95_us` (NaN with no samples)."""
        if not self.n:
            return (math.nan, math.nan)
        lo, hi = median_ci95_ranks(self.n)
        return self._lo.at(lo), self._hi.at(hi)

    @property
    def rel_ci95(self) -> float:
        """Half-width of the median's 95% CI relative to the median, as :attr:`Samples.rel_ci95`."""
        med = self.median_us
        if not self.n or med <= 0 or math.isnan(med):
            return math.inf
        lo, hi = self.ci95_us
        return (hi - lo) / 2 / med

    def _resolved(self) -> bool:
        """The interval is within one step of the timer on either side of the median (a relative
        slack for float sums)."""
        if self.resolution_us <= 0 or not self.n:
            return False
        lo, hi = self.ci95_us
        return hi - lo <= 2 * self.resolution_us * (1 + 1e-6)

    def restart_clock(self) -> None:
        """Count the time bound from now: what a method spent before its first sample (waiting for
        the profiler's first session) is not sampling."""
        self._t0 = self.clock()

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self._t0

    def is_finished(self) -> bool:
        """True once precision is met, or a bound is hit; sets ``reason``."""
        n = self.n
        elapsed = self.elapsed_s
        ready = n >= self.min_samples and elapsed >= self.min_time_s
        if ready and self.rel_ci95 <= self.precision:
            self.reason = "precision"
        elif ready and self._resolved():
            self.reason = "resolution"
        elif n + self.left_out >= self.max_samples:
            self.reason = "max_samples"
        elif elapsed >= self.max_time_s and (n >= 1 or (
                self.left_out and elapsed >= max(LEFT_OUT_GRACE * self.max_time_s, LEFT_OUT_GRACE_S))):
            self.reason = "time"
        else:
            return False
        return True

    def remaining(self, batch: int) -> int:
        """How many samples to take next: ``batch``, or fewer near ``max_samples``."""
        return max(1, min(batch, self.max_samples - self.n - self.left_out))

    def next_batch(self, batch: int, first: int | None = None) -> int:
        """How many samples to take before the next check: ``first`` (default ``min_samples``) to
        start, then as many as there are so far (the count doubles between checks), at most
        ``batch`` (the method's own) and what ``max_samples`` leaves."""
        start = self.min_samples if first is None else first
        return self.remaining(min(batch, max(start, self.n)))
