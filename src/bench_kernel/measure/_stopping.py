"""When to stop sampling: NVBench's stopping criterion, as a small object tested without a GPU.

``add(samples)`` then ``is_finished()``: stop once the median's 95% CI half-width is within
``precision`` of the median (after ``min_samples`` and ``min_time_s``), or when ``max_time_s`` or
``max_samples`` is reached. ``reason`` says which, so a result can say it stopped on time, not on
precision. With ``read_clock``, each ``add`` also records the SM clock for its samples.
A sample added as ``left_out`` (a host sample that waited for a CPU) counts towards the bounds but
not towards the precision: a loaded machine samples on until the bound, and its statistic is that
of the samples that ran through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from bench_kernel.records import Samples

__all__ = ["StoppingRule"]


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
    """

    precision: float = 0.01
    min_samples: int = 10
    max_samples: int = 10_000
    max_time_s: float = 1.0
    min_time_s: float = 0.0
    clock: Callable[[], float] = time.perf_counter
    read_clock: Optional[Callable[[], Optional[float]]] = None
    samples: Samples = field(default_factory=lambda: Samples(()))
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

    def add(self, values_us: Sequence[float], *, left_out: bool = False) -> None:
        """Add per-call samples in microseconds (and the SM clock they ran at, with ``read_clock``);
        ``left_out``: taken, but not to be judged (they count towards the bounds only)."""
        if left_out:
            self.left_out += len(values_us)
        else:
            self.samples = self.samples + Samples.of(values_us)
        if self.read_clock is not None:
            mhz = self.read_clock()
            self.clocks_mhz.extend([mhz] * len(values_us))

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self._t0

    def is_finished(self) -> bool:
        """True once precision is met, or a bound is hit; sets ``reason``."""
        n = self.samples.n
        if n >= self.min_samples and self.samples.rel_ci95 <= self.precision and self.elapsed_s >= self.min_time_s:
            self.reason = "precision"
        elif n + self.left_out >= self.max_samples:
            self.reason = "max_samples"
        elif self.elapsed_s >= self.max_time_s and n + self.left_out >= 1:
            self.reason = "time"
        else:
            return False
        return True

    def remaining(self, batch: int) -> int:
        """How many samples to take next: ``batch``, or fewer near ``max_samples``."""
        return max(1, min(batch, self.max_samples - self.samples.n - self.left_out))
