"""Is B faster or slower than A? The ratio, its confidence interval across rounds, and a verdict.

Method (``_noise``, which says why): each side is a point measured in one or more ROUNDS, each
summarised by one time (its median; on the host method its minimum); the interval of B/A is a 99%
t-interval on the log round times with their pooled SD, and the ratio is exp(mean log B - mean log A). The interval sees what moves
between runs, which samples within one run cannot: a bootstrap of those (what this module did
before rounds) called identical CPU runs "faster" with a CI of 0.716-0.735.

Verdict: ``_verdict``'s one rule (``slower``/``faster`` shown beyond the threshold t, default
4%; ``same`` only with the whole interval inside [1/(1+t), 1+t]; else ``inconclusive``, with the
rounds a side that would likely resolve it). With one round on each side and no noise from the
point's stored history, the interval is bounded by the method's documented worst run-to-run noise
(``_verdict.METHOD_FLOORS``): a 3x slowdown is ``slower``, a 5% one ``inconclusive``.
The **noise floor** of a verdict (``noise_floor``) is the interval's relative half-width: a change
smaller than it cannot be told from noise, whatever the threshold. Tests
(``tests/test_results_compare.py``) check on synthetic rounds that identical sides are called
slower/faster at most ~1% of the time over many seeds, and that a real 10% change is found.

What is shown is what is compared: ``a_us`` and ``b_us`` are the geometric means of each side's
round times, so ``ratio`` is exactly ``b_us / a_us`` (a table of medians beside a ratio of
geometric means once read A 1.144 ms, B 1.13 ms, B/A 0.42).

Clock-confounded verdicts. A within-run interval is tight (1.125-1.144 on an H200 GEMM, from the
bootstrap this module used before rounds) even when the two runs ran at different SM clocks, and
rounds of one run share its thermal and power state too. On a power-capped GPU the clock swings
with the load (1455-1980 MHz on the project's H200), and two IDENTICAL sweeps gave ``slower`` at 1.135 (1980 vs 1515 MHz) and 1.11 (1845 vs 1560 MHz), and
``faster`` at 0.883 (1515 vs 1860 MHz): false regressions that no threshold of a few percent
absorbs. Each measurement records the SM clock per sample, so where both sides did, a verdict
is marked ``clock_limited`` when the clock alone can explain it. With c_fast and c_slow the
median clocks (``_clocks.median_clock_mhz``) of the faster and the slower side, and R >= 1 the
slower side's time over the faster side's (r or 1/r):
  the slower side ran at a clock more than t lower:   c_fast / c_slow > 1 + t,   and
  the clock ratio covers the time ratio (within t):  R <= (c_fast / c_slow) * (1 + t).
For a compute-bound kernel time scales as 1/clock, so R ~ c_fast / c_slow is what the lower
clock alone produces. The verdict keeps its direction (``slower`` stays ``slower``: something did
differ) but a clock-limited ``slower`` is not a regression (:meth:`Comparison.is_regression`)
unless ``strict_clocks`` (``compare --strict-clocks``, ``--kernel-bench-strict-clocks``). Caveats:
  - This is a BOUND, not a model. A memory-bound kernel barely slows at a lower SM clock, so for it
    a real regression up to the clock ratio would be excused too. The rule only ever excuses what
    the clock ratio could cover; ``--strict-clocks``, or measuring both runs at the settled clock
    (``--steady``), removes the doubt.
  - A slower side that ran at the HIGHER (or equal) clock is never excused: the clock cannot explain
    it (it hides part of it). A slowdown beyond the clock ratio (x (1 + t)) is never excused either.
  - Without clocks on either side (host method, no NVML, runs stored before clocks were) verdicts
    are exactly the rule above, ``clock_limited`` is False and the clocks are None.
``tests/test_results_clocks.py`` holds the three H200 cases, the rule's edges, and the CLI's exit.
"""

from __future__ import annotations

import math
from typing import Sequence

from bench_kernel.errors import InputError, UsageError
from bench_kernel.records import Comparison, Measurement, Noise, Samples
from bench_kernel.results._clocks import median_clock_mhz
from bench_kernel.results._noise import CONFIDENCE, RoundTest, noise_from_rounds, round_test, run_level_half
from bench_kernel.results._verdict import (
    DEFAULT_FLOOR,
    FLOOR_HOLDS_ONE_ROUND,
    METHOD_FLOORS,
    floor_noise,
    geometric_mean,
    rounds_to_resolve,
    verdict,
)

__all__ = ["check_threshold", "compare", "samples_problem", "clock_explains", "DEFAULT_THRESHOLD"]

#: A change within this fraction of 1 is no change: ``same`` needs the whole interval within it,
#: ``slower``/``faster`` a ratio beyond it. 4%: two pairs of identical --steady GEMM sweeps on the
#: project's H200 differed by up to 3.1% at a point (benchmarks/results/sweep-gemm-h200.md), and a
#: user wants 5% caught. Run-to-run noise above it is handled by the interval across rounds
#: (``noise_floor``), not by this number.
DEFAULT_THRESHOLD = 0.04


def clock_explains(ratio: float, clock_a_mhz: float | None, clock_b_mhz: float | None, threshold: float) -> bool:
    """Whether the slower side's lower SM clock can explain a time ratio ``ratio`` = B/A (the rule
    of the module docstring); False when a clock is missing or the slower side's was not lower."""
    if not clock_a_mhz or not clock_b_mhz or ratio == 1.0:
        return False
    slow_over_fast = ratio if ratio > 1.0 else 1.0 / ratio
    # The faster side's clock over the slower side's: above 1 when the slower side ran lower.
    clock_ratio = clock_a_mhz / clock_b_mhz if ratio > 1.0 else clock_b_mhz / clock_a_mhz
    return clock_ratio > 1.0 + threshold and slow_over_fast <= clock_ratio * (1.0 + threshold)


def _measurement(x: Measurement | Samples | Sequence[float], clocks: Sequence[float | None]) -> Measurement:
    """A side as a Measurement: as given, or samples of one round (with ``clocks``)."""
    if isinstance(x, Measurement):
        return x
    values = x.values_us if isinstance(x, Samples) else tuple(float(v) for v in x)
    return Measurement(method="compare", samples_us=tuple(values), sm_clock_mhz=tuple(clocks))


def samples_problem(samples: Samples | Sequence[float]) -> str | None:
    """Why ``samples`` cannot be compared as per-call times, or None when they can.

    Every sample must be a finite number of microseconds above 0. bench-kernel never measures
    anything else, but a results file or a database edited by hand (or damaged) can hold anything:
    a B median of ``inf`` compared as "same", ``inf`` samples gave a CI of "nan", and a NaN, 0 or
    negative median an internal error. Says what is wrong: ``"5 inf of 50 samples"``.
    """
    import numpy as np

    v = np.asarray(samples.values_us if isinstance(samples, Samples) else samples, dtype=np.float64)
    if len(v) == 0:
        return "no samples"
    nan, inf = np.isnan(v), np.isinf(v)
    kinds = (("NaN", nan), ("inf", inf), ("<= 0", ~nan & ~inf & (v <= 0)))
    found = [f"{int(mask.sum())} {name}" for name, mask in kinds if mask.any()]
    return f"{', '.join(found)} of {len(v)} samples" if found else None


def check_threshold(threshold: float, option: str = "--threshold") -> float:
    """``threshold`` when it is a fraction in [0, 1): the one range check of every threshold
    (``compare``, ``report``, the pytest plugin, this module). UsageError naming ``option``."""
    if not 0 <= threshold < 1:
        raise UsageError(f"{option} must be a fraction in [0, 1) (0.04 = 4%), got {threshold!r}")
    return threshold


def compare(a: Measurement | Samples | Sequence[float], b: Measurement | Samples | Sequence[float],
            threshold: float = DEFAULT_THRESHOLD, *, a_clocks_mhz: Sequence[float | None] = (),
            b_clocks_mhz: Sequence[float | None] = (), history: Noise | None = None,
            confidence: float = CONFIDENCE) -> Comparison:
    """Compare ``a`` (the reference) with ``b``: each a :class:`Measurement` (its rounds and SM
    clocks come with it) or the per-call samples of one round (microseconds).

    threshold: relative difference below which the verdict is ``same`` (0.04 = 4%).
    a_clocks_mhz, b_clocks_mhz: SM clock readings for plain samples (a Measurement brings its own).
    history: the point's noise from its stored earlier runs (``noise_from_history``): its rounds'
        noise where the rounds give none (one round a side; without either, the method's floor),
        and its runs' noise as a lower bound on the interval's half-width (``run_level_half``).
    confidence: the interval's level (default 0.99; ``_noise`` says why).
    See the module docstring for the verdict rules. InputError when a side holds no samples or
    samples that are not times (:func:`samples_problem`).
    """
    check_threshold(threshold, "threshold")
    ma, mb = _measurement(a, a_clocks_mhz), _measurement(b, b_clocks_mhz)
    for side, m in (("A", ma), ("B", mb)):
        problem = samples_problem(m.samples)
        if problem:
            raise InputError(f"cannot compare: {side} holds {problem}; a per-call time is a finite number of "
                             f"microseconds above 0")
    ra = [v for v in ma.round_times_us if v is not None]
    rb = [v for v in mb.round_times_us if v is not None]
    if not ra or not rb:
        raise InputError(f"cannot compare: {'A' if not ra else 'B'} has no round with a time")
    am, bm = geometric_mean(ra), geometric_mean(rb)
    clock_a_mhz, clock_b_mhz = median_clock_mhz(ma.sm_clock_mhz), median_clock_mhz(mb.sm_clock_mhz)
    noise = noise_from_rounds(ra, rb) or history or floor_noise(ma.method, confidence)
    one_side_once = min(len(ra), len(rb)) == 1
    if noise.source == "rounds" and one_side_once or (
            noise.source == "history" and one_side_once and ma.method in FLOOR_HOLDS_ONE_ROUND):
        # One side timed once: the other side's rounds saw only their own run's moment (a 5+1 host
        # comparison on a machine whose load rose between the runs read 1.34x on identical code),
        # so the single round is taken to sit anywhere within the method's floor, at the least; and
        # for the host a stored history cannot vouch for this one round either (_verdict).
        floor = floor_noise(ma.method, confidence)
        noise = floor if floor.sd_log > noise.sd_log else noise
    test = round_test(ra, rb, noise, confidence)
    run_half = run_level_half(history, confidence)
    widened = False
    if history is not None and run_half is not None and run_half > math.log1p(test.floor):
        # the rounds of one run share its moment: the stored runs' spread bounds the interval (_noise)
        test = RoundTest(test.ratio, test.ratio * math.exp(-run_half), test.ratio * math.exp(run_half),
                         math.expm1(run_half), history, confidence)
        noise, widened = history, True
    said = verdict(test.ratio, test.ci_low, test.ci_high, threshold)
    limited = said in ("slower", "faster") and clock_explains(test.ratio, clock_a_mhz, clock_b_mhz,
                                                              threshold)
    method = {"rounds": "t-interval of log round times", "history": "t-interval, noise from the point's stored history",
              "floor": f"the method's worst run-to-run noise (+/-{METHOD_FLOORS.get(ma.method, DEFAULT_FLOOR):.0%}) as a bound"}
    if widened:
        method["history"] = (f"t-interval widened to the run-to-run noise of the point's {noise.runs} stored runs "
                             "(more rounds of one run cannot narrow it)")
    # more rounds narrow an interval of rounds, not one set by the runs' spread
    needed = rounds_to_resolve(test.ratio, noise, threshold, confidence) if said == "inconclusive" and not widened else None
    return Comparison(am, bm, test.ratio, test.ci_low, test.ci_high, said, test.ci_low > 1.0 or test.ci_high < 1.0,
                      threshold, a_n=ma.samples.n, b_n=mb.samples.n, a_rounds=len(ra), b_rounds=len(rb),
                      statistic=ma.round_statistic, confidence=confidence, noise=noise, noise_floor=test.floor,
                      ci_method=method[noise.source], rounds_needed=needed,
                      clock_a_mhz=clock_a_mhz, clock_b_mhz=clock_b_mhz, clock_limited=limited)
