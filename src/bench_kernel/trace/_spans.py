"""Sets of time spans as sorted, disjoint numpy intervals: union, intersection, difference, measure.

``timeline`` asks questions such as "how long was the GPU idle while no work was queued and no
synchronisation was in flight, within step 7?". Each answer is a set operation over a few hundred
thousand intervals followed by a measure inside a window, so every operation here is a handful of
numpy calls (sorts, ``searchsorted``, cumulative sums) -- never a Python loop over intervals.

A :class:`Spans` is half-open ``[start, end)`` intervals, sorted, disjoint and non-touching (two
intervals that touch are merged), in microseconds. Empty and zero-length input intervals are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Spans", "union", "coverage"]


@dataclass(frozen=True)
class Spans:
    """Sorted, disjoint ``[start, end)`` intervals (microseconds)."""

    start: np.ndarray
    end: np.ndarray

    def __len__(self) -> int:
        return len(self.start)

    @property
    def total_us(self) -> float:
        """The measure of the set: the summed length of its intervals."""
        return float((self.end - self.start).sum())

    def __and__(self, other: Spans) -> Spans:
        return _combine(self, other, both=True)

    def __or__(self, other: Spans) -> Spans:
        return union(np.concatenate([self.start, other.start]), np.concatenate([self.end, other.end]))

    def __sub__(self, other: Spans) -> Spans:
        return _combine(self, other, both=False)

    def within(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The measure of the set inside each window ``[lo[k], hi[k])`` (vectorised over windows).

        With C(t) the set's measure in ``(-inf, t)``, the answer is C(hi) - C(lo); C is the prefix
        sum of lengths up to the interval containing t, plus the part of that interval before t.
        """
        return self._cumulative(np.asarray(hi, dtype=np.float64)) - self._cumulative(np.asarray(lo, dtype=np.float64))

    def _cumulative(self, t: np.ndarray) -> np.ndarray:
        if not len(self.start):
            return np.zeros(t.shape)
        before = np.concatenate(([0.0], np.cumsum(self.end - self.start)))
        k = np.searchsorted(self.start, t, side="right")  # intervals starting at or before t
        partial = np.clip(t - self.start[np.clip(k - 1, 0, None)], 0.0, None)
        partial = np.minimum(partial, (self.end - self.start)[np.clip(k - 1, 0, None)])
        return before[np.clip(k - 1, 0, None)] + np.where(k > 0, partial, 0.0)


def empty() -> Spans:
    return Spans(np.zeros(0), np.zeros(0))


def union(start: np.ndarray, end: np.ndarray) -> Spans:
    """The union of possibly overlapping intervals ``[start[i], end[i])``."""
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    keep = end > start
    start, end = start[keep], end[keep]
    if not len(start):
        return empty()
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    # A new run begins where an interval starts after everything before it has ended.
    new = np.concatenate(([True], s[1:] > reach[:-1]))
    first = np.flatnonzero(new)
    last = np.concatenate((first[1:] - 1, [len(s) - 1]))
    return Spans(s[first], reach[last])


def _combine(a: Spans, b: Spans, *, both: bool) -> Spans:
    """``a & b`` (both) or ``a - b``: evaluate membership on the segments between all boundaries."""
    if not len(a) or (both and not len(b)):
        return empty()
    if not len(b):
        return a
    points = np.unique(np.concatenate([a.start, a.end, b.start, b.end]))
    lo, hi = points[:-1], points[1:]
    in_a = _member(a, lo)
    in_b = _member(b, lo)
    keep = in_a & in_b if both else in_a & ~in_b
    return union(lo[keep], hi[keep])


def _member(s: Spans, t: np.ndarray) -> np.ndarray:
    """For each t: is the segment starting at t inside ``s``? (t are boundaries of s or beyond)."""
    k = np.searchsorted(s.start, t, side="right") - 1
    kc = np.clip(k, 0, None)
    return (k >= 0) & (t < s.end[kc])


def coverage(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many intervals cover each moment: (change times, count from that time on), sorted.

    Used for the launch-queue depth: intervals are [launch, kernel start) of every device event.
    """
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    keep = end > start
    t = np.concatenate([start[keep], end[keep]])
    step = np.concatenate([np.ones(int(keep.sum()), np.int64), -np.ones(int(keep.sum()), np.int64)])
    order = np.argsort(t, kind="stable")
    t, step = t[order], step[order]
    times, first = np.unique(t, return_index=True)
    depth = np.cumsum(step)
    last = np.concatenate((first[1:] - 1, [len(t) - 1])) if len(t) else first
    return times, depth[last] if len(t) else np.zeros(0, np.int64)
