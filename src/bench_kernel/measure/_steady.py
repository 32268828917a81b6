"""Steady state on power-capped GPUs: hold the load until the clock settles, and flag when it did not.

An H200 running back-to-back 8192^3 bf16 GEMMs hits its power cap: the SM clock swings between
1440 and 1785 MHz (max 1980) and three short repeats spread 9.6% (benchmarks/results/
fidelity-h200.md). A short measurement lands somewhere on the way from the idle boost clock down
to the sustained one. Two answers:

- ``steady=True`` (``--steady``): before sampling, call the function back to back in windows of
  ~100 ms until the last windows agree on the per-call time (within 1%) and the SM clock (within
  1%); then sample for at least ``STEADY_MIN_SAMPLE_S`` per method, re-holding before each one.
  The number is the sustained one: what a long-running job gets.
- by default: every sample records the SM clock (NVML, where available) and
  :func:`stability_notes` says when the clock ran below its maximum while sampling, or the
  per-call time drifted from the first to the last third of the samples.

The decisions (:func:`settled`, :func:`clock_note`, :func:`trend_note`) are pure functions of
numbers, tested without a GPU. Without a GPU there is no SM clock to settle: a drift of host
times is the machine's load moving (``_cpuwait`` says how much the samples waited for a CPU), and
the notes say that, never a GPU's clock or ``--steady``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from bench_kernel.measure._budget import calls_to_fill
from bench_kernel.measure._runner import Runner
from bench_kernel.records import Note, Samples, info, warning
from bench_kernel.units import format_duration_us

__all__ = ["Settle", "hold_until_settled", "settled", "clock_note", "trend_note", "graph_floor_note",
           "stability_notes", "STEADY_MAX_S", "STEADY_MIN_SAMPLE_S"]

#: One settling window lasts about this long (us) ...
WINDOW_US = 100_000.0
#: ... and the last WINDOWS windows must agree within these for the load to count as settled.
WINDOWS = 4
TIME_TOLERANCE = 0.01
CLOCK_TOLERANCE = 0.01
#: Give up holding after this long (s): the note then says the clock never settled.
STEADY_MAX_S = 20.0
#: Before a method after the first, hold again at most this long (s): the gap may have cooled it.
REHOLD_MAX_S = 3.0
#: In steady mode each method samples at least this long (s), to average the cap's oscillation.
STEADY_MIN_SAMPLE_S = 1.0
#: A clock this far below its maximum while sampling is flagged (fraction).
CLOCK_BELOW_MAX = 0.05
#: A drift of the per-call median this large between the first and last third is flagged (fraction).
TREND_FRACTION = 0.03
#: Fewer samples than this say nothing about a trend.
TREND_MIN_SAMPLES = 9


@dataclass(frozen=True)
class Settle:
    """How long the load was held and what it settled at."""

    settled: bool
    held_s: float
    #: (per-call us, SM clock MHz or None) of each window, in order
    windows: tuple[tuple[float, float | None], ...]

    @property
    def us_per_call(self) -> float | None:
        return self.windows[-1][0] if self.windows else None

    @property
    def clock_mhz(self) -> float | None:
        return self.windows[-1][1] if self.windows else None

    def note(self) -> Note:
        clocked = any(c for _, c in self.windows)
        clock = f", SM clock {self.clock_mhz:.0f} MHz" if self.clock_mhz else ""
        what, either = ("the time and clock", "the time or the clock") if clocked else ("the per-call time",) * 2
        if self.settled:
            return info("steady-held", f"steady: held the load {self.held_s:.1f} s until {what} "
                        f"settled{clock}", held_s=self.held_s, sm_clock_mhz=self.clock_mhz)
        return warning("steady-unsettled", f"steady: {either} did not settle within {self.held_s:.1f} "
                       f"s{clock}: the numbers may still drift", held_s=self.held_s, sm_clock_mhz=self.clock_mhz)

    def to_dict(self) -> dict[str, Any]:
        return {"settled": self.settled, "held_s": round(self.held_s, 3),
                "windows": [{"us_per_call": us, "sm_clock_mhz": c} for us, c in self.windows]}


def settled(windows: Sequence[tuple[float, float | None]], n: int = WINDOWS,
            time_tolerance: float = TIME_TOLERANCE, clock_tolerance: float = CLOCK_TOLERANCE) -> bool:
    """True when the last ``n`` windows agree: per-call times within ``time_tolerance`` of each
    other (max/min - 1), and SM clocks too (where read)."""
    if len(windows) < n:
        return False
    last = windows[-n:]
    times = [t for t, _ in last]
    if min(times) <= 0 or max(times) / min(times) - 1 > time_tolerance:
        return False
    clocks = [c for _, c in last if c]
    return len(clocks) < n or max(clocks) / min(clocks) - 1 <= clock_tolerance


def hold_until_settled(runner: Runner, read_clock: Callable[[], float | None],
                       max_s: float | None = None) -> Settle:
    """Call ``runner`` back to back in windows of ~100 ms until :func:`settled`, or ``max_s``
    seconds (default :data:`STEADY_MAX_S`, read at call time)."""
    max_s = STEADY_MAX_S if max_s is None else max_s
    calls = calls_to_fill(WINDOW_US, runner.est_us, hi=1_000_000)
    windows: list[tuple[float, float | None]] = []
    t_start = time.perf_counter()

    def hold() -> bool:
        while True:
            t0 = time.perf_counter()
            for _ in range(calls):
                runner.call()
            runner.sync()
            windows.append(((time.perf_counter() - t0) / calls * 1e6, read_clock()))
            if settled(windows):
                return True
            if time.perf_counter() - t_start >= max_s:
                return False

    ok = runner.guarded("steady-state hold", hold)
    return Settle(ok, time.perf_counter() - t_start, tuple(windows))


def clock_note(method: str, clocks_mhz: Sequence[float | None], max_clock_mhz: float | None) -> Note | None:
    """A note when the median SM clock while ``method`` sampled was more than 5% below its maximum
    (the median: one stray reading says nothing)."""
    seen = sorted(c for c in clocks_mhz if c)
    if not seen or not max_clock_mhz:
        return None
    lo, hi, mid = seen[0], seen[-1], seen[len(seen) // 2]
    if mid >= max_clock_mhz * (1 - CLOCK_BELOW_MAX):
        return None
    span = f"{lo:.0f} MHz" if lo == hi else f"{lo:.0f}-{hi:.0f} MHz"
    return warning("clock-below-max", f"{method}: the SM clock ran at {span} while sampling (max "
                   f"{max_clock_mhz:.0f}): the GPU is power- or thermal-capped and times follow the clock; "
                   f"steady=True (--steady) measures at the settled clock", method=method, sm_clock_mhz=mid,
                   max_sm_clock_mhz=max_clock_mhz)


def trend_note(method: str, samples: Samples, steady: bool = False, where: str = "the samples",
               gpu: bool = True) -> Note | None:
    """A note when the median of the last third of the samples differs from the first third's by
    more than 3% and their 95% CIs do not overlap (the clock was still settling). ``steady``: the
    load was already held until it settled, so the note does not suggest holding it. ``where``
    names the samples in the note ("round 2 of 5"). ``gpu`` False: host times without a GPU, where
    a drift is the machine's load, and the note says so."""
    v = samples.values_us
    if len(v) < TREND_MIN_SAMPLES:
        return None
    third = len(v) // 3
    first, last = Samples.of(v[:third]), Samples.of(v[-third:])
    drift = last.median_us / first.median_us - 1 if first.median_us > 0 else 0.0
    (f_lo, f_hi), (l_lo, l_hi) = first.ci95_us, last.ci95_us
    apart = l_lo > f_hi or l_hi < f_lo
    if abs(drift) <= TREND_FRACTION or not apart:
        return None
    if not gpu:
        return warning("time-drifted", f"{method}: the per-call time drifted {drift:+.1%} from the first to the last "
                       f"third of {where}: the machine's load changed while sampling (other processes, or this "
                       f"CPU's own frequency)", method=method, drift=drift)
    if steady:
        return warning("time-drifted", f"{method}: the per-call time drifted {drift:+.1%} from the first to the "
                       f"last third of {where} even after the steady hold", method=method, drift=drift)
    return warning("time-drifted", f"{method}: the per-call time drifted {drift:+.1%} from the first to the last "
                   f"third of {where} (the clock settling?); steady=True (--steady) holds the load until it "
                   f"settles", method=method, drift=drift)


#: Below this per-call time (us) a CUDA-graph node's own cost shows in ``graph``: 1.09-1.11 us per
#: extra node on an H200, whatever the graph's size, stream or input rotation
#: (benchmarks/results/trust-h200.md, from benchmarks/gpu/sub_us.py).
GRAPH_NODE_FLOOR_US = 2.0
#: ... when ``graph`` reads this much above the kernels' own device time (fraction).
GRAPH_ABOVE_KERNEL = 0.10


def graph_floor_note(graph_us: float | None, kernel_us: float | None) -> Note | None:
    """A note when a sub-2-us call reads >10% higher under ``graph`` than its kernels' device time."""
    if not graph_us or not kernel_us or graph_us >= GRAPH_NODE_FLOOR_US or graph_us <= kernel_us * (1 + GRAPH_ABOVE_KERNEL):
        return None
    return warning("graph-node-floor", f"graph: {format_duration_us(graph_us)} per call is {graph_us / kernel_us - 1:.0%} above "
                f"the kernels' own {format_duration_us(kernel_us)}: below ~2 µs a CUDA-graph node's own cost shows (~1.1 µs per "
                f"node on an H200); 'kernel' is the device time of the kernels, 'graph' the cost of the call inside "
                f"a graph", graph_us=graph_us, kernel_us=kernel_us)


def _round_trend(method: str, m: Any, steady: bool, gpu: bool) -> Note | None:
    """:func:`trend_note` within each round: the rounds' own levels differ by the run-to-run noise
    (which the rounds are there to measure), so a trend over the joined samples would call that
    noise a settling clock. The first round that drifted is named, with how many did."""
    rounds = m.round_samples
    if len(rounds) <= 1:
        return trend_note(method, m.samples, steady, gpu=gpu)
    drifted = [i for i, s in enumerate(rounds) if trend_note(method, s, steady, gpu=gpu)]
    if not drifted:
        return None
    k, more = len(rounds), len(drifted) - 1
    where = f"round {drifted[0] + 1} of {k}" + (f" (and within {more} more of the {k} rounds)" if more else "")
    return trend_note(method, rounds[drifted[0]], steady, where=where, gpu=gpu)


def stability_notes(measurements: dict[str, Any], max_clock_mhz: float | None, steady: bool = False,
                    gpu: bool = True) -> list[Note]:
    """:func:`clock_note` and :func:`trend_note` for every measurement that has samples, and
    :func:`graph_floor_note` for the graph against the kernel method. ``gpu`` False: measured
    without a GPU (no clock, and no GPU advice, in the notes).

    ``steady``: the clock was held until it settled; a settled clock below the maximum is the
    point (the hold's own note says which), so only a drift after it is noted.
    """
    notes: list[Note] = []
    for method, m in measurements.items():
        if not m.ok:
            continue
        clock = None if steady else clock_note(method, m.sm_clock_mhz, max_clock_mhz)
        notes += [n for n in (clock, _round_trend(method, m, steady, gpu)) if n]
    g, k = measurements.get("graph"), measurements.get("kernel")
    floor = graph_floor_note(g.median_us if g is not None and g.ok else None,
                             k.median_us if k is not None and k.ok else None)
    return notes + ([floor] if floor else [])
