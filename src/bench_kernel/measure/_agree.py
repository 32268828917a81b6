"""When the timing methods disagree: say by how much, why, and which answers which question.

On a power-capped 8192^3 bf16 GEMM held steady on an H200, three repeats read graph 1618-1634 us,
events 1485-1528 us and kernel 1366-1380 us, while a 200-call profiler sum after 3 s of
back-to-back load read 1608 us: each method is right about a different situation. ``graph``
replays calls back to back, so the device never rests and its clock sits at the power cap;
``kernel`` times one call per sample behind an L2 flush and the profiler's bookkeeping, so the
device idles between samples and the clock recovers. Two things tell them apart and are recorded
for every measurement: each sample's SM clock, and (from the method's wall time) the share of its
sampling time the device spent in the timed calls. :func:`agreement_note` names both when the two
methods' medians differ by more than :data:`DISAGREE_FRACTION`.

Like with like. Only ``graph`` and ``kernel`` are compared, and only when both ran with the same
L2 state: both time the device's work without the launches. ``events`` includes each launch by
definition, so events above graph is the launch overhead (the ``launch ovh`` column), not a
disagreement; a cold ``kernel`` (L2 flushed) against a warm ``graph`` (one input set, as a
one-element add gets) differs by the cache, which the ``L2`` column shows; and a sub-2-us graph
above its kernels is the graph node's own cost (``graph_floor_note``). The note once compared every
pair and fired on nearly every small kernel ("methods disagree by 148-235%", once per round):
a box that always fills is read by nobody.
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


def agreement_note(measurements: Mapping[str, Any]) -> Note | None:
    """A note when ``graph`` and ``kernel`` (same L2 state, graph above the node floor) differ by more
    than 5%: each one's median, median SM clock and busy share, the likely cause, and which
    question each answers (module docstring: why only these two)."""
    g, k = measurements.get("graph"), measurements.get("kernel")
    if g is None or k is None or not g.ok or not k.ok or g.cache != k.cache:
        return None
    ms = {"graph": g, "kernel": k}
    medians = {name: m.median_us for name, m in ms.items()}
    lo, hi = min(medians.values()), max(medians.values())
    if lo <= 0 or hi / lo - 1 <= DISAGREE_FRACTION or medians["graph"] < GRAPH_NODE_FLOOR_US:
        return None
    clocks = {name: _clock(m) for name, m in ms.items()}
    busy = {name: busy_fraction(m) for name, m in ms.items()}
    parts = []
    for name in ms:
        shown = [f"{clocks[name]:.0f} MHz" if clocks[name] else None,
                 f"busy {busy[name]:.0%}" if busy[name] is not None else None]
        extra = [x for x in shown if x]
        parts.append(f"{name} {format_duration_us(medians[name])}" + (f" ({', '.join(extra)})" if extra else ""))
    seen_clocks = [c for c in clocks.values() if c]
    seen_busy = [b for b in busy.values() if b is not None]
    causes = []
    if len(seen_clocks) == 2 and max(seen_clocks) / min(seen_clocks) - 1 > CLOCK_APART:
        causes.append("they ran at different SM clocks (a power- or thermal-capped GPU runs slower "
                      "under sustained load)")
    if len(seen_busy) == 2 and max(seen_busy) - min(seen_busy) > BUSY_APART:
        causes.append("the device rested between samples for one and not the other (gaps let the clock recover)")
    why = "; ".join(causes) if causes else "no recorded clock or gap explains it"
    answers = "; ".join(QUESTIONS[name] for name in ms)
    return warning("methods-disagree", f"graph and kernel disagree by {hi / lo - 1:.0%}: {', '.join(parts)}; "
                   f"why: {why}. Which to read: {answers}", spread=hi / lo - 1, medians_us=medians)
