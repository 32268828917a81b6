"""Is B faster or slower than A? The ratio of medians, its 95% CI, and a noise-aware verdict.

Method: a **percentile bootstrap of the ratio of medians**, median(B*) / median(A*), where A* and
B* are resamples (with replacement, independently) of the stored per-call samples; 2,000
resamples from a fixed seed, so the same inputs always give the same interval. Why this and not
a rank test (Hodges-Lehmann with the Mann-Whitney interval): the rank interval estimates a
*shift* and is exact only when A and B have the same shape. GPU timings are not like that: a
long right tail (interrupted samples), and a regression often changes the tail as well as the
centre. The bootstrap assumes no shape, and it is an interval for the very number we report
(the ratio of the medians). Its caveat: it treats samples as independent, so it cannot see drift
*between* two runs (clocks, another tenant); that is what the threshold is for.

Verdict, for the ratio r = median(B) / median(A) and threshold t (default 4%):
  ``slower``  when r > 1 + t and the CI lies wholly above 1 (material and significant),
  ``faster``  when r < 1 / (1 + t) and the CI lies wholly below 1,
  ``same``    otherwise: within the threshold, or not distinguishable from noise.
Tests (``tests/test_results_compare.py``) check on synthetic samples that the CI excludes the
truth about 5% of the time over many seeds, and that a real 5% difference is found.

Clock-confounded verdicts. The bootstrap sees only the scatter *within* each run, so its interval
is tight (1.125-1.144 on an H200 GEMM) even when the two runs ran at different SM clocks. On a
power-capped GPU the clock swings with the load (1455-1980 MHz on the project's H200), and two
IDENTICAL sweeps gave ``slower`` at 1.135 (1980 vs 1515 MHz) and 1.11 (1845 vs 1560 MHz), and
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
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.errors import InputError, UsageError
from bench_kernel.measure import Samples
from bench_kernel.results._clocks import median_clock_mhz

__all__ = ["Comparison", "check_threshold", "compare", "samples_problem", "clock_explains", "DEFAULT_THRESHOLD", "RESAMPLES", "VERDICTS"]

#: A ratio within this fraction of 1 is "same" even when significant (run-to-run drift). 4%: two
#: pairs of identical --steady GEMM sweeps on the project's H200 differed by up to 3.1% at a point
#: (benchmarks/results/sweep-gemm-h200.md) while each point's bootstrap CI was tighter than that, so
#: the threshold sits above that between-run noise, which within-run samples cannot see, and below
#: the 5% a user wants caught.
DEFAULT_THRESHOLD = 0.04
RESAMPLES = 2000
SEED = 0
VERDICTS = ("faster", "slower", "same")
#: Fewer samples than this on a side: no interval is claimed, the verdict is "same".
MIN_SAMPLES = 5
#: Bootstrap medians are computed in blocks of at most this many values (memory bound).
_BLOCK_VALUES = 4_000_000


@dataclass(frozen=True)
class Comparison:
    """B against A on one pair of sample sets (microseconds per call)."""

    a_median_us: float
    b_median_us: float
    #: median(B) / median(A): above 1 means B is slower
    ratio: float
    ci95_low: float
    ci95_high: float
    verdict: str  # "faster" | "slower" | "same"
    #: the CI excludes 1
    significant: bool
    threshold: float
    a_n: int
    b_n: int
    #: how the interval was computed (the module docstring says why)
    ci_method: str = "bootstrap-median-ratio"
    note: str | None = None
    #: median SM clock of each side's samples (MHz); None where that side recorded none
    clock_a_mhz: float | None = None
    clock_b_mhz: float | None = None
    #: a slower/faster verdict the slower side's lower clock can explain (module docstring)
    clock_limited: bool = False

    def is_regression(self, strict_clocks: bool = False) -> bool:
        """B is significantly slower, and (unless ``strict_clocks``) not by what A's higher clock explains."""
        return self.verdict == "slower" and (strict_clocks or not self.clock_limited)

    @property
    def clock_text(self) -> str | None:
        """Both median clocks as text (``A 1980 MHz, B 1515 MHz``); None unless both sides have one."""
        if self.clock_a_mhz is None or self.clock_b_mhz is None:
            return None
        return f"A {self.clock_a_mhz:.0f} MHz, B {self.clock_b_mhz:.0f} MHz"

    @property
    def speedup(self) -> float:
        """A's time over B's: above 1 means B is faster."""
        return 1.0 / self.ratio if self.ratio else math.nan

    def describe(self) -> str:
        """One line: both medians, the ratio with its CI, and the verdict."""
        clock = f", the slower side at a lower SM clock: {self.clock_text}" if self.clock_limited else ""
        return (f"{self.verdict}: B {self.b_median_us:.4g} us vs A {self.a_median_us:.4g} us, "
                f"ratio {self.ratio:.3f} (95% CI {self.ci95_low:.3f}-{self.ci95_high:.3f}, "
                f"threshold {self.threshold:.0%}){clock}")

    def to_dict(self) -> dict[str, Any]:
        return {"a_median_us": self.a_median_us, "b_median_us": self.b_median_us, "ratio": self.ratio,
                "ci95": [self.ci95_low, self.ci95_high], "verdict": self.verdict,
                "significant": self.significant, "threshold": self.threshold, "a_n": self.a_n,
                "b_n": self.b_n, "ci_method": self.ci_method, "note": self.note,
                "clock_a_mhz": self.clock_a_mhz, "clock_b_mhz": self.clock_b_mhz,
                "clock_limited": self.clock_limited}


def clock_explains(ratio: float, clock_a_mhz: float | None, clock_b_mhz: float | None, threshold: float) -> bool:
    """Whether the slower side's lower SM clock can explain a time ratio ``ratio`` = B/A (the rule
    of the module docstring); False when a clock is missing or the slower side's was not lower."""
    if not clock_a_mhz or not clock_b_mhz or ratio == 1.0:
        return False
    slow_over_fast = ratio if ratio > 1.0 else 1.0 / ratio
    # The faster side's clock over the slower side's: above 1 when the slower side ran lower.
    clock_ratio = clock_a_mhz / clock_b_mhz if ratio > 1.0 else clock_b_mhz / clock_a_mhz
    return clock_ratio > 1.0 + threshold and slow_over_fast <= clock_ratio * (1.0 + threshold)


def _values(x: Samples | Sequence[float]) -> Any:
    import numpy as np

    vals = x.values_us if isinstance(x, Samples) else x
    return np.asarray(vals, dtype=np.float64)


def samples_problem(samples: Samples | Sequence[float]) -> str | None:
    """Why ``samples`` cannot be compared as per-call times, or None when they can.

    Every sample must be a finite number of microseconds above 0. bench-kernel never measures
    anything else, but a results file or a database edited by hand (or damaged) can hold anything:
    a B median of ``inf`` compared as "same", ``inf`` samples gave a CI of "nan", and a NaN, 0 or
    negative median an internal error (issue 24). Says what is wrong: ``"5 inf of 50 samples"``.
    """
    import numpy as np

    v = _values(samples)
    if len(v) == 0:
        return "no samples"
    nan, inf = np.isnan(v), np.isinf(v)
    kinds = (("NaN", nan), ("inf", inf), ("<= 0", ~nan & ~inf & (v <= 0)))
    found = [f"{int(mask.sum())} {name}" for name, mask in kinds if mask.any()]
    return f"{', '.join(found)} of {len(v)} samples" if found else None


def _bootstrap_medians(values: Any, resamples: int, rng: Any) -> Any:
    import numpy as np

    n = len(values)
    out = np.empty(resamples)
    block = max(1, _BLOCK_VALUES // n)
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        idx = rng.integers(0, n, size=(k, n))
        out[start:start + k] = np.median(values[idx], axis=1)
    return out


def check_threshold(threshold: float, option: str = "--threshold") -> float:
    """``threshold`` when it is a fraction in [0, 1): the one range check of every threshold
    (``compare``, ``report``, the pytest plugin, this module). UsageError naming ``option``."""
    if not 0 <= threshold < 1:
        raise UsageError(f"{option} must be a fraction in [0, 1) (0.04 = 4%), got {threshold!r}")
    return threshold


def compare(a: Samples | Sequence[float], b: Samples | Sequence[float], threshold: float = DEFAULT_THRESHOLD,
            *, a_clocks_mhz: Sequence[float | None] = (), b_clocks_mhz: Sequence[float | None] = (),
            resamples: int = RESAMPLES, seed: int = SEED) -> Comparison:
    """Compare sample sets ``a`` (the reference) and ``b`` (per-call times, microseconds).

    threshold: relative difference below which the verdict is ``same`` (0.04 = 4%).
    a_clocks_mhz, b_clocks_mhz: the SM clock readings (MHz) taken while each side sampled
        (``Measurement.sm_clock_mhz``); with both, a verdict the clock explains is ``clock_limited``.
    resamples, seed: the bootstrap's size and its fixed seed (results are reproducible).
    See the module docstring for the method and the verdict rules. InputError when a side holds
    no samples or samples that are not times (:func:`samples_problem`).
    """
    import numpy as np

    check_threshold(threshold, "threshold")
    for side, values in (("A", a), ("B", b)):
        problem = samples_problem(values)
        if problem:
            raise InputError(f"cannot compare: {side} holds {problem}; a per-call time is a finite number of "
                             f"microseconds above 0")
    av, bv = _values(a), _values(b)
    am, bm = float(np.median(av)), float(np.median(bv))
    ratio = bm / am
    clocks = {"clock_a_mhz": median_clock_mhz(a_clocks_mhz), "clock_b_mhz": median_clock_mhz(b_clocks_mhz)}
    if len(av) < MIN_SAMPLES or len(bv) < MIN_SAMPLES:
        return Comparison(am, bm, ratio, math.nan, math.nan, "same", False, threshold, len(av), len(bv),
                          note=f"too few samples for an interval (A {len(av)}, B {len(bv)}; need {MIN_SAMPLES})",
                          **clocks)
    rng = np.random.default_rng(seed)
    ratios = _bootstrap_medians(bv, resamples, rng) / _bootstrap_medians(av, resamples, rng)
    lo, hi = (float(x) for x in np.quantile(ratios, [0.025, 0.975]))
    significant = lo > 1.0 or hi < 1.0
    if significant and lo > 1.0 and ratio > 1.0 + threshold:
        verdict = "slower"
    elif significant and hi < 1.0 and ratio < 1.0 / (1.0 + threshold):
        verdict = "faster"
    else:
        verdict = "same"
    limited = verdict != "same" and clock_explains(ratio, clocks["clock_a_mhz"], clocks["clock_b_mhz"], threshold)
    return Comparison(am, bm, ratio, lo, hi, verdict, significant, threshold, len(av), len(bv), **clocks,
                      clock_limited=limited)
