"""Nested host intervals (CPU ops, Python frames) per thread: innermost-containing queries.

Kineto's host events on one thread nest like a call tree. We sort them by (thread, start, -end),
find each one's parent with one sweep, and answer "which event on thread T contains time t,
innermost first" with a binary search plus a short walk up the parents.
"""

from __future__ import annotations

import numpy as np

__all__ = ["IntervalForest"]


class IntervalForest:
    """Innermost-containing lookups over intervals ``[start, start + dur]`` keyed by (pid, tid)."""

    def __init__(self, pid: np.ndarray, tid: np.ndarray, start_us: np.ndarray, dur_us: np.ndarray) -> None:
        end = start_us + np.maximum(dur_us, 0.0)
        # Parents sort before their children: by thread, then start, then the longer first.
        order = np.lexsort((-end, start_us, tid, pid))
        self._order = order
        self._start = start_us[order]
        self._end = end[order]
        p, t = pid[order], tid[order]
        change = np.flatnonzero((p[1:] != p[:-1]) | (t[1:] != t[:-1])) + 1
        bounds = np.concatenate(([0], change, [len(order)]))
        self._threads: dict[tuple[int, int], tuple[int, int]] = {
            (int(p[lo]), int(t[lo])): (int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo
        }
        self._parent = self._parents(bounds)

    def _parents(self, bounds: np.ndarray) -> np.ndarray:
        parent = np.full(len(self._order), -1, dtype=np.int64)
        start, end = self._start.tolist(), self._end.tolist()
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            stack: list[int] = []
            for i in range(lo, hi):
                s = start[i]
                while stack and end[stack[-1]] < s:
                    stack.pop()
                if stack:
                    parent[i] = stack[-1]
                stack.append(i)
        return parent

    def innermost(self, pid: int, tid: int, t_us: float) -> int:
        """Index (into the original arrays) of the innermost interval on (pid, tid) containing
        ``t_us``, or -1."""
        span = self._threads.get((int(pid), int(tid)))
        if span is None:
            return -1
        lo, hi = span
        j = lo + int(np.searchsorted(self._start[lo:hi], t_us, side="right")) - 1
        while j >= lo:
            if self._end[j] >= t_us:
                return int(self._order[j])
            j = int(self._parent[j])
        return -1

    def chain(self, pid: int, tid: int, t_us: float) -> list[int]:
        """Indices of every interval on (pid, tid) containing ``t_us``, outermost first."""
        span = self._threads.get((int(pid), int(tid)))
        if span is None:
            return []
        lo, hi = span
        j = lo + int(np.searchsorted(self._start[lo:hi], t_us, side="right")) - 1
        out = []
        while j >= lo:
            if self._end[j] >= t_us:
                out.append(int(self._order[j]))
            j = int(self._parent[j])
        return out[::-1]
