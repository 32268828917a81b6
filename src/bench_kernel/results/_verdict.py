"""The one verdict rule, the noise floor used where nothing measured the noise, and the rounds
that would resolve an ``inconclusive`` verdict.

The rule (DESIGN.md), for the ratio r = B/A, its interval [lo, hi] and the threshold t:
  ``slower``        lo > 1 and r > 1 + t: B is slower, shown, and by more than t;
  ``faster``        hi < 1 and r < 1 / (1 + t);
  ``same``          1 / (1 + t) <= lo and hi <= 1 + t: no change beyond t is consistent with the data
                    (equivalence by two one-sided tests, each at the interval's level);
  ``inconclusive``  anything else: no interval, an interval wider than the threshold, or a change
                    that is significant but within t on one end and beyond it on the other.
An interval that spans both 1/(1+t) and 1+t cannot tell; it never reads ``same`` (it did before:
``same`` at a CI of 0.001-14,051). ``compare``, ``sweep --best``, the pytest plugin and serving
comparisons all call :func:`verdict`.

One side timed in one round: its round saw one moment of the machine, which the other side's rounds
cannot tell about, so the noise is at least the floor below (a 5+1 host comparison of identical
code read 1.34x when the load rose between the runs).

One round a side and no stored history: the run-to-run noise is not measured, so the interval uses
the method's documented worst noise, :data:`METHOD_FLOORS`, as a bound: the interval of B/A is
r / (1 + f) .. r * (1 + f). A change far beyond that floor (3x on the host, 2x on a GPU) is
``slower`` or ``faster``; anything within it is ``inconclusive`` (never ``same``: f > t). The
floors are the largest run-to-run differences of one point on identical code in the committed
results; each figure says where it comes from.
"""

from __future__ import annotations

import math
import statistics

from bench_kernel.records import Noise, Verdict
from bench_kernel.results._noise import CONFIDENCE, t_quantile

__all__ = ["verdict", "METHOD_FLOORS", "DEFAULT_FLOOR", "FLOOR_HOLDS_ONE_ROUND", "floor_noise", "rounds_to_resolve",
           "MAX_ROUNDS_NEEDED", "geometric_mean"]

#: method -> the worst run-to-run difference of one point between identical runs (a fraction),
#: measured on the project's machines:
#: - graph, kernel, events 0.25: H200, ``benchmarks/results/verdicts-h200.md`` (torch RMSNorm at
#:   tokens=16 read 5.0 us in round 1 and 5.8-6.0 us in rounds 2-3 of every cold sweep: x1.20) and
#:   ``trust-h200.md`` (an 8192^3 GEMM's graph time 1412 -> 1632 us between default repeats under
#:   the power cap: x1.156); rounded up past x1.22, the kernel time of one torch.compile'd RMSNorm
#:   after two fresh compiles of the same code (2.112 against 1.728 us, the same kernel name: each
#:   compile may pick another configuration). The kernel and events times follow the same SM
#:   clock (1455-1980 MHz on that H200), so they get the same bound (their largest committed
#:   spreads, 2.7% and 4.6% in trust-h200.md, were measured at one settled clock and are no bound).
#: - host 1.90 (x2.9): the project's 2-core CPU, ``benchmarks/results/verdicts-cpu.md``: two
#:   identical one-round sweeps at load 1 read a 16-token RMSNorm at 65.7 and 27.5 us (x2.39) and a
#:   1-token one at 59.6 and 21.6 us (x2.76), the process's own CPU time per call 2.7x higher with
#:   no wait for a CPU (a host-side slowdown the run-queue wait cannot see, lasting the whole 3 s
#:   run), rounded up; before it, ``busy-cpu.md`` (x1.68 at load 12-17) and a 0.4 us add read 398
#:   and 747 ns (x1.88) in two one-round sweeps while the test suite loaded the machine.
METHOD_FLOORS: dict[str, float] = {"graph": 0.25, "kernel": 0.25, "events": 0.25, "host": 1.90}
#: Methods whose one-round side is never narrowed below the floor by a stored history: one round
#: of the host method sees one moment of the CPU, and the x2.76 run above sat among runs whose
#: history said +/-5-16%, so history would have called identical code "faster".
FLOOR_HOLDS_ONE_ROUND = frozenset({"host"})
#: A method not in the table (``compare`` of plain samples) gets the largest floor.
DEFAULT_FLOOR = max(METHOD_FLOORS.values())
#: An inconclusive verdict names the rounds a side that would resolve it only up to this many.
MAX_ROUNDS_NEEDED = 100
#: Degrees of freedom above which t_quantile uses the normal quantile: a floor is a bound, not an
#: estimate from a few values.
_FLOOR_DF = 1001


def verdict(ratio: float, lo: float | None, hi: float | None, threshold: float) -> Verdict:
    """The verdict of B/A = ``ratio`` with interval [lo, hi] at ``threshold`` (module docstring)."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "inconclusive"
    if lo > 1.0 and ratio > 1.0 + threshold:
        return "slower"
    if hi < 1.0 and ratio < 1.0 / (1.0 + threshold):
        return "faster"
    if lo >= 1.0 / (1.0 + threshold) and hi <= 1.0 + threshold:
        return "same"
    return "inconclusive"


def floor_noise(method: str, confidence: float = CONFIDENCE) -> Noise:
    """The noise that makes one round a side's interval exactly ratio / (1 + f) .. ratio * (1 + f),
    f the method's :data:`METHOD_FLOORS` (module docstring): sd = log(1 + f) / (z * sqrt(2))."""
    f = METHOD_FLOORS.get(method, DEFAULT_FLOOR)
    z = t_quantile(confidence, _FLOOR_DF)
    return Noise(sd_log=math.log1p(f) / (z * math.sqrt(2.0)), df=_FLOOR_DF, source="floor", n=0)


def rounds_to_resolve(ratio: float, noise: Noise, threshold: float, confidence: float = CONFIDENCE) -> int | None:
    """Rounds a side (K on each) after which, at this ``noise`` and ``ratio``, the interval would
    resolve: exclude 1 where the ratio is beyond the threshold, or lie within it where it is not.
    The interval's half-width on the log scale is t(2K - 2) * sd * sqrt(2 / K): it shrinks as
    1/sqrt(K). None where no K up to :data:`MAX_ROUNDS_NEEDED` does it (a ratio at the threshold's
    edge never resolves). An estimate: the next rounds' noise and ratio will differ."""
    d, edge = abs(math.log(ratio)), math.log1p(threshold)
    target = d if d > edge else edge - d  # the half-width that would resolve it
    if target <= 0 or noise.sd_log <= 0:
        return None if target <= 0 else 2
    for k in range(2, MAX_ROUNDS_NEEDED + 1):
        if t_quantile(confidence, 2 * k - 2) * noise.sd_log * math.sqrt(2.0 / k) < target:
            return k
    return None


def geometric_mean(values_us: list[float]) -> float:
    """exp(mean(log v)): the time a ratio of geometric means is of (positive values)."""
    return math.exp(statistics.fmean(math.log(v) for v in values_us))
