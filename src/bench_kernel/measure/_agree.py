"""When the timing methods disagree: say by how much, why, and which answers which question.

On a power-capped 8192^3 bf16 GEMM held steady on an H200 (issue 20), three repeats read graph
1618-1634 us, events 1485-1528 us and kernel 1366-1380 us, while a 200-call profiler sum after 3 s
of back-to-back load read 1608 us: each method is right about a different situation. ``graph``
replays calls back to back, so the device never rests and its clock sits at the power cap;
``kernel`` times one call per sample behind an L2 flush and the profiler's bookkeeping, so the
device idles between samples and the clock recovers; ``events`` lies between. Two things tell them
apart and are recorded for every measurement: each sample's SM clock, and (from the method's wall
time) the share of its sampling time the device spent in the timed calls. :func:`agreement_note`
names both when the methods' medians differ by more than :data:`DISAGREE_FRACTION`.

Launch overhead (events above graph on small calls: the ``launch ovh`` column) and a sub-2-us
call's graph node cost (``graph_floor_note``) are known causes with their own place; the note
names launch cost as the likely cause when the clocks and busy shares do not differ.
"""

from __future__ import annotations

import statistics
from typing import Any, Mapping

from bench_kernel.measure._steady import GRAPH_NODE_FLOOR_US
from bench_kernel.records import Note, warning
from bench_kernel.units import format_duration_us

__all__ = ["agreement_note", "busy_fraction", "DISAGREE_FRACTION", "QUESTIONS"]

#: Methods whose medians differ by more than this (max / min - 1) get a note.
DISAGREE_FRACTION = 0.05
#: Median SM clocks this far apart (max / min - 1) are named as a cause.
CLOCK_APART = 0.02
#: Busy shares this far apart (absolute) are named as a cause.
BUSY_APART = 0.15
#: The question each method answers, in the note.
QUESTIONS = {
    "graph": "graph: the cost per call in sustained back-to-back work (launches removed)",
    "events": "events: what eager code pays per call, launches included",
    "kernel": "kernel: the kernels' own device time, at the clock they ran at",
    "host": "host: the wall time a Python caller sees",
}


def busy_fraction(m: Any) -> float | None:
    """The share (0..1) of ``m``'s sampling wall time spent in the timed calls; None without a wall time."""
    if not m.ok or m.wall_s <= 0:
        return None
    busy_us = sum(m.samples.values_us) * m.calls_per_sample
    return min(1.0, busy_us / (m.wall_s * 1e6))


def _clock(m: Any) -> float | None:
    seen = [c for c in m.sm_clock_mhz if c]
    return statistics.median(seen) if seen else None


def _known_cause(medians: dict[str, float]) -> bool:
    """True when only a cause shown elsewhere separates the methods: events above the others that
    agree (launch cost, the ``launch ovh`` column), or a sub-2-us graph above its kernels (the graph
    node's own cost, ``graph_floor_note``)."""
    rest = {k: v for k, v in medians.items() if k != "events"}
    if "events" in medians and medians["events"] >= max(rest.values()) and (
            len(rest) < 2 or max(rest.values()) / min(rest.values()) - 1 <= DISAGREE_FRACTION):
        return True
    g = medians.get("graph")
    return g is not None and g < GRAPH_NODE_FLOOR_US and g == max(medians.values())


def agreement_note(measurements: Mapping[str, Any]) -> Note | None:
    """A note when the GPU methods' medians differ by more than 5%: each method's median, median
    SM clock and busy share, the likely cause, and which question each method answers."""
    ms = {k: m for k, m in measurements.items() if k != "host" and m.ok}
    if len(ms) < 2:
        return None
    medians = {k: m.median_us for k, m in ms.items()}
    lo, hi = min(medians.values()), max(medians.values())
    if lo <= 0 or hi / lo - 1 <= DISAGREE_FRACTION:
        return None
    clocks = {k: _clock(m) for k, m in ms.items()}
    busy = {k: busy_fraction(m) for k, m in ms.items()}
    parts = []
    for k in ms:
        extra = [f"{clocks[k]:.0f} MHz" if clocks[k] else None, f"busy {busy[k]:.0%}" if busy[k] is not None else None]
        extra = [x for x in extra if x]
        parts.append(f"{k} {format_duration_us(medians[k])}" + (f" ({', '.join(extra)})" if extra else ""))
    seen_clocks = [c for c in clocks.values() if c]
    seen_busy = [b for b in busy.values() if b is not None]
    causes = []
    if len(seen_clocks) >= 2 and max(seen_clocks) / min(seen_clocks) - 1 > CLOCK_APART:
        causes.append("the methods ran at different SM clocks (a power- or thermal-capped GPU runs slower "
                      "under sustained load)")
    if len(seen_busy) >= 2 and max(seen_busy) - min(seen_busy) > BUSY_APART:
        causes.append("the device rested between samples for some methods and not others (gaps let the "
                      "clock recover)")
    if not causes and _known_cause(medians):
        return None
    why = "; ".join(causes) if causes else "no recorded clock or gap explains it"
    answers = "; ".join(QUESTIONS[k] for k in ms)
    return warning("methods-disagree", f"methods disagree by {hi / lo - 1:.0%}: {', '.join(parts)}; why: {why}. "
                   f"Which to read: {answers}", spread=hi / lo - 1, medians_us=medians)
