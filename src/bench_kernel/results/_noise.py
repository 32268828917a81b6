"""Run-to-run noise, and the test across rounds behind every verdict.

Why rounds. Samples within one run are close in time, so a bootstrap of them sees only the scatter
within the run: two identical host-method sweeps on a loaded 2-core machine were called "faster"
with a CI of 0.716-0.735, and the within-run interval on an H200 GEMM was tight while two
identical runs differed by 13%. What moves between runs (another tenant's load, the clock a capped
GPU settles at, a process's memory layout) moves whole rounds, so the unit of evidence is a ROUND:
one full measurement of the point, summarised by its median.

The test: a confidence interval of the ratio B/A from the log round medians -- a two-sample
t-interval with the pooled standard deviation:

    d = mean(log b_j) - mean(log a_i),   se = s * sqrt(1/Ka + 1/Kb),   CI = exp(d -/+ t(df) * se)

with ``s`` the pooled SD of the log round medians within each side and df = Ka + Kb - 2. The ratio
reported is exp(d): the ratio of the geometric means of the round medians (with one round a side,
the ratio of the medians). Why this and not a Mann-Whitney U test: the exact U test cannot reject
at all with 3 rounds a side (its smallest two-sided p is 2/C(6,3) = 0.10) and needs 5 for p < 0.01;
the t-interval gives an interval at any K >= 2 on either side and its width says what the noise
was. Logs, because noise is multiplicative (a slower machine slows every round by a factor). Its
caveat is the normal model: a single disturbed round widens the interval (the verdict leans to
"inconclusive", never to a false "slower"), and rounds are assumed exchangeable -- a sweep interleaves them
over its whole duration so that slow phases of the machine spread over every point and provider.

The level is 99%, not 95%: with noise far above the threshold (a loaded machine) the threshold
no longer filters, and a 95% interval would then call ~5% of identical points slower or faster;
the project's target is at most 1% (``benchmarks/results/verdicts-cpu.md``).

Small K (two-sided 99% quantiles): df 1: t = 63.66, df 2: 9.92, df 4: 4.60, df 8: 3.36, df 18:
2.88. One round a side gives df 0: no interval of its own -- the store may hold this point's history (same run name, provider, point, device and method), whose round
medians give ``s`` with df = n - 1 (at least :data:`MIN_HISTORY` values); else the method's documented worst noise bounds it
(``_verdict.METHOD_FLOORS``).

Rounds of one run share its moment. Rounds are interleaved over a run's whole duration, yet a
machine's slow phase can last longer than a run: on the project's 2-core CPU two consecutive
identical sweeps read both 64-token points 5-9% apart, every round of each, and the t-interval of
their rounds (+/-8.5%) called one of them "slower". Where the store holds the point's earlier runs,
their run-to-run spread bounds the interval from below: the half-width is at least
t(runs - 1) * runs_sd * sqrt(2) (:func:`run_level_half`), runs_sd the robust SD of the log of each
stored run's mean (robust, so that a regression stored among them does not hide the next one).
More rounds of the same run cannot narrow that part. The **noise floor**
printed with every verdict is the interval's relative half-width, exp(t * se) - 1: the smallest
change that this noise lets the test see.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from bench_kernel.records import Noise

__all__ = ["CONFIDENCE", "MIN_HISTORY", "Noise", "RoundTest", "noise_from_rounds", "noise_from_history",
           "round_test", "run_level_half", "t_quantile"]

#: The verdict's confidence level (module docstring: why 99%).
CONFIDENCE = 0.99
#: A point's history gives a noise estimate from this many stored round medians on.
MIN_HISTORY = 3
#: Above this many degrees of freedom the t quantile is the normal one (to 4 digits).
_NORMAL_DF = 1000


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with integer ``df`` >= 1 (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 1:
        total, term = 0.0, math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return (2 / math.pi) * (theta + s * total) if df > 1 else 2 * theta / math.pi
    total, term = 0.0, 1.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * total


@functools.lru_cache(maxsize=4096)  # pure, and asked for the same few (level, df) pairs again and again
def t_quantile(confidence: float, df: int) -> float:
    """The two-sided ``confidence`` quantile of Student's t with ``df`` >= 1 degrees of freedom
    (``t_quantile(0.95, 8)`` = 2.306)."""
    if df < 1:
        raise ValueError(f"a t quantile needs df >= 1, got {df}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if df > _NORMAL_DF:
        return statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, df) < confidence:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_two_sided(mid, df) < confidence else (lo, mid)
    return (lo + hi) / 2


def _logs(values_us: Sequence[float]) -> list[float]:
    out = []
    for v in values_us:
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise ValueError(f"a round median must be a positive time, got {v!r}")
        out.append(math.log(v))
    return out


def noise_from_rounds(a_us: Sequence[float], b_us: Sequence[float]) -> Noise | None:
    """The pooled SD of the log round medians of both sides; None with one round a side (df 0)."""
    a, b = _logs(a_us), _logs(b_us)
    df = len(a) + len(b) - 2
    if df < 1:
        return None
    ss = sum((x - statistics.fmean(a)) ** 2 for x in a) + sum((y - statistics.fmean(b)) ** 2 for y in b)
    return Noise(math.sqrt(ss / df), df, "rounds", len(a) + len(b))


def noise_from_history(values_us: Sequence[float], run_means_us: Sequence[float] = ()) -> Noise | None:
    """The SD of the log of a point's stored round medians; None with fewer than :data:`MIN_HISTORY`.
    run_means_us: each stored run's mean time: their robust SD (1.4826 x the median absolute
    deviation of the logs) is ``runs_sd_log``, the noise a run's rounds share (module docstring),
    from :data:`MIN_HISTORY` runs on."""
    logs = _logs(values_us)
    if len(logs) < MIN_HISTORY:
        return None
    runs = _logs(run_means_us)
    runs_sd = None
    if len(runs) >= MIN_HISTORY:
        mid = statistics.median(runs)
        runs_sd = 1.4826 * statistics.median(abs(x - mid) for x in runs)
    return Noise(statistics.stdev(logs), len(logs) - 1, "history", len(logs), runs_sd_log=runs_sd,
                 runs=len(runs) if runs_sd is not None else 0)


def run_level_half(history: Noise | None, confidence: float = CONFIDENCE) -> float | None:
    """The half-width (log scale) of B/A's interval that the run-to-run noise of ``history`` alone
    allows: t(runs - 1) * runs_sd * sqrt(2), the difference of two runs' means; None without it."""
    if history is None or history.runs_sd_log is None or history.runs < MIN_HISTORY:
        return None
    return t_quantile(confidence, history.runs - 1) * history.runs_sd_log * math.sqrt(2.0)


@dataclass(frozen=True)
class RoundTest:
    """The interval of B/A from the round medians (module docstring)."""

    #: exp(mean log B - mean log A): the ratio of the geometric means of the round medians
    ratio: float
    ci_low: float
    ci_high: float
    #: the interval's relative half-width, exp(t * se) - 1: the smallest change the test can see
    floor: float
    noise: Noise
    confidence: float


def round_test(a_us: Sequence[float], b_us: Sequence[float], noise: Noise,
               confidence: float = CONFIDENCE) -> RoundTest:
    """The ``confidence`` interval of B/A from each side's round medians (us) and the ``noise``."""
    a, b = _logs(a_us), _logs(b_us)
    if not a or not b:
        raise ValueError("round_test needs at least one round median on each side")
    d = statistics.fmean(b) - statistics.fmean(a)
    half = t_quantile(confidence, noise.df) * noise.sd_log * math.sqrt(1 / len(a) + 1 / len(b))
    return RoundTest(math.exp(d), math.exp(d - half), math.exp(d + half), math.expm1(half), noise, confidence)
