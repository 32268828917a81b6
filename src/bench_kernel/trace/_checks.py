"""Events that would make totals silently wrong: found while loading, left out or repaired, and said.

Each of these once gave a wrong total with exit 0: a negative ``dur`` (negative totals),
a complete (``X``) event without ``dur`` (counted as 0 us), kernels written as ``B``/``E`` pairs
(0 us each), and exact duplicate events (counted twice). The loader now

- leaves out ``X`` events whose ``dur`` is missing or negative, and events of other phases
  (instant, counter, ...) that have no duration (one that carries a ``dur`` counts as complete);
- pairs ``B``/``E`` events per (table, pid, tid) into complete events (what Chrome's viewer does);
  an ``E`` with no open ``B``, or a ``B`` never closed, is left out;
- drops exact duplicates of kernel and memcpy/memset events (same name, start, duration, stream,
  correlation and every other field): two identical activities on one stream cannot both have run;

and says what it did in one line (:attr:`EventScreen.note`), which every trace command shows.
"""

from __future__ import annotations

from dataclasses import fields
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

__all__ = ["EventScreen", "drop_duplicates"]

_PH = attrgetter("ph")
_DUR = attrgetter("dur")
_WHAT = {"negative": "with a negative 'dur'", "no_dur": "without 'dur'", "phase": "not a duration event",
         "unopened": "'E' without a 'B'", "unclosed": "'B' never closed"}


class EventScreen:
    """Screens each chunk's events of one table before its columns are built (see the module doc)."""

    def __init__(self) -> None:
        #: (table, problem) -> events left out; problems are the keys of ``_WHAT``.
        self.left_out: dict[tuple[str, str], int] = {}
        #: table -> complete events made from B/E pairs.
        self.paired: dict[str, int] = {}
        #: table -> exact duplicates dropped (filled by the loader with :func:`drop_duplicates`).
        self.duplicates: dict[str, int] = {}
        self._open: dict[tuple[str, Any, Any], list] = {}
        #: (the list :meth:`screen` returned last, its durations) when it read them: the column builder
        #: reuses the array instead of reading every event's ``dur`` a second time.
        self.durations: tuple[list, np.ndarray] | None = None

    def _count(self, table: str, problem: str, n: int = 1) -> None:
        self.left_out[(table, problem)] = self.left_out.get((table, problem), 0) + n

    def screen(self, table: str, evs: list) -> list:
        """The events of ``evs`` (one table's, from one chunk) that are sound complete events, plus
        the complete events that ``E`` events in it close."""
        # The common case costs one C-level pass and a vector test: every event has a duration >= 0
        # (B, E and instant events have none, so any of them sends the chunk down the slow path; an
        # event of another phase that does carry a 'dur' is taken as the complete event it describes).
        dur = np.fromiter(map(_DUR, evs), np.float64, len(evs))
        good = dur >= 0  # False for NaN (missing) and for negatives
        if good.all():
            self.durations = (evs, dur)
            return evs
        self.durations = None
        phs = list(map(_PH, evs))
        if phs.count("X") == len(evs):
            self._count(table, "no_dur", int(np.isnan(dur).sum()))
            self._count(table, "negative", int((dur < 0).sum()))
            kept = [e for e, ok in zip(evs, good.tolist()) if ok]
            self.durations = (kept, dur[good])
            return kept
        out = []
        for e, ph in zip(evs, phs):
            if ph == "X":
                if e.dur >= 0:
                    out.append(e)
                else:
                    self._count(table, "negative" if e.dur < 0 else "no_dur")
            elif ph == "B":
                self._open.setdefault((table, e.pid, e.tid), []).append(e)
            elif ph == "E":
                stack = self._open.get((table, e.pid, e.tid))
                if not stack:
                    self._count(table, "unopened")
                    continue
                begin = stack.pop()
                dur = e.ts - begin.ts
                if dur < 0:
                    self._count(table, "negative")
                    continue
                out.append(msgspec.structs.replace(begin, ph="X", dur=dur))
                self.paired[table] = self.paired.get(table, 0) + 1
            else:
                self._count(table, "phase")
        return out

    def finish(self) -> None:
        """Count the ``B`` events still open at the end of the trace."""
        for (table, _, _), stack in self._open.items():
            if stack:
                self._count(table, "unclosed", len(stack))
        self._open.clear()

    @property
    def note(self) -> str | None:
        """One line saying what was left out, paired or dropped; None when the trace was clean."""
        parts = []
        for table in dict.fromkeys(t for t, _ in self.left_out):
            what = [f"{n:,} {_WHAT[p]}" for (t, p), n in self.left_out.items() if t == table and n]
            total = sum(n for (t, _), n in self.left_out.items() if t == table)
            if total:
                parts.append(f"left out {total:,} {table} {_plural(total, 'event')} ({', '.join(what)})")
        parts += [f"counted {n:,} {t} B/E {_plural(n, 'pair')} as complete events" for t, n in self.paired.items() if n]
        parts += [f"dropped {n:,} exact duplicate {t} {_plural(n, 'event')}" for t, n in self.duplicates.items() if n]
        return ("trace: " + "; ".join(parts)) if parts else None


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def drop_duplicates(table: Any) -> tuple[Any, int]:
    """``table`` in start-time order without exact duplicate rows, and how many were dropped.

    Duplicates share their start; rows are sorted by start once (the caller's order then costs
    nothing more) and only runs of equal starts are compared field by field.
    """
    n = len(table)
    if n == 0:
        return table, 0
    order = np.argsort(table.start_us, kind="stable")
    start = table.start_us[order]
    tied = np.flatnonzero(start[1:] == start[:-1])
    drop: list[int] = []
    if len(tied):
        cols = [c for c in (getattr(table, f.name) for f in fields(table)) if c is not None]
        for run in np.split(tied, np.flatnonzero(np.diff(tied) != 1) + 1):
            seen: set[tuple] = set()
            for i in range(int(run[0]), int(run[-1]) + 2):  # rows run[0] .. run[-1] + 1 share a start
                j = order[i]
                row = tuple(c[j].tobytes() if c.ndim > 1 else c[j] for c in cols)
                if row in seen:
                    drop.append(i)
                else:
                    seen.add(row)
    if not drop:
        return table.take(order), 0
    keep = np.ones(n, dtype=bool)
    keep[drop] = False
    return table.take(order[keep]), len(drop)
