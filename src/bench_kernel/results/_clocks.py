"""The SM clock a measurement ran at, and how far apart the clocks of one run's points were.

Every ``Measurement`` records one NVML reading of the SM clock per sample (``sm_clock_mhz``,
empty where NVML is absent: the host method, ROCm, old stored runs). A measurement's clock is
the **median** of its readings, as ``measure``'s clock note reads it: one stray reading while
the clock stepped says nothing about where the samples ran. A reading of 0 or None is no reading.

On a power-capped GPU the clock swings with the load (an H200 here: 1455-1980 MHz), and a
compute-bound kernel's time follows it. ``compare`` uses the clocks to mark verdicts the clock
can explain (``_compare``'s docstring); :func:`clock_spread` says when the points of ONE run ran
at very different clocks, so that their times (and the fastest provider per point) are not
comparable with each other.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.records import PointResult

__all__ = ["ClockSpread", "CLOCK_SPREAD", "clock_spread", "median_clock_mhz", "point_clock_mhz"]

#: A point whose clock is this fraction below the run's highest is flagged (10%: well beyond the
#: 15 MHz steps the clock moves in, and a time difference no threshold would call noise).
CLOCK_SPREAD = 0.10


def median_clock_mhz(readings: Sequence[float | None]) -> float | None:
    """The median of the readings (MHz) that are there, or None when none is."""
    seen = [float(c) for c in readings if c]
    return statistics.median(seen) if seen else None


def point_clock_mhz(point: PointResult, method: str | None = None) -> float | None:
    """The median SM clock (MHz) of ``point``'s ``method`` (default: its primary method), or None."""
    if point.status != "ok":
        return None
    m = point.result.measurements.get(method or point.result.primary_method or "")
    return median_clock_mhz(m.sm_clock_mhz) if m is not None else None


@dataclass(frozen=True)
class ClockSpread:
    """The median SM clocks of one run's measured points, and which ran well below the highest."""

    max_mhz: float
    min_mhz: float
    #: points that recorded a clock (the others are not judged)
    clocked: int
    #: labels (``provider k=v ...``) of the points that ran more than ``fraction`` below ``max_mhz``
    below: tuple[str, ...]
    fraction: float

    def to_dict(self) -> dict[str, Any]:
        return {"max_mhz": self.max_mhz, "min_mhz": self.min_mhz, "clocked": self.clocked,
                "below": list(self.below), "fraction": self.fraction}


def clock_spread(points: Sequence[PointResult], fraction: float = CLOCK_SPREAD) -> ClockSpread | None:
    """How far apart the points' median clocks were; None when no point recorded a clock.

    The reference is the highest clock seen in the run, not the device's maximum: a run held at
    a lower settled clock throughout (``--steady`` on a capped GPU) is self-consistent.
    """
    clocks = [(p.label, c) for p in points if (c := point_clock_mhz(p)) is not None]
    if not clocks:
        return None
    top = max(c for _, c in clocks)
    below = tuple(label for label, c in clocks if c < top * (1.0 - fraction))
    return ClockSpread(top, min(c for _, c in clocks), len(clocks), below, fraction)
