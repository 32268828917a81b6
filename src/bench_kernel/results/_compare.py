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

Verdict, for the ratio r = median(B) / median(A) and threshold t (default 3%):
  ``slower``  when r > 1 + t and the CI lies wholly above 1 (material and significant),
  ``faster``  when r < 1 / (1 + t) and the CI lies wholly below 1,
  ``same``    otherwise: within the threshold, or not distinguishable from noise.
Tests (``tests/test_results_compare.py``) check on synthetic samples that the CI excludes the
truth about 5% of the time over many seeds, and that a real 5% difference is found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.measure import Samples

__all__ = ["Comparison", "compare", "DEFAULT_THRESHOLD", "RESAMPLES", "VERDICTS"]

#: A ratio within this fraction of 1 is "same" even when significant (run-to-run drift).
DEFAULT_THRESHOLD = 0.03
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

    @property
    def speedup(self) -> float:
        """A's time over B's: above 1 means B is faster."""
        return 1.0 / self.ratio if self.ratio else math.nan

    def describe(self) -> str:
        """One line: both medians, the ratio with its CI, and the verdict."""
        return (f"{self.verdict}: B {self.b_median_us:.4g} us vs A {self.a_median_us:.4g} us, "
                f"ratio {self.ratio:.3f} (95% CI {self.ci95_low:.3f}-{self.ci95_high:.3f}, "
                f"threshold {self.threshold:.0%})")

    def to_dict(self) -> dict[str, Any]:
        return {"a_median_us": self.a_median_us, "b_median_us": self.b_median_us, "ratio": self.ratio,
                "ci95": [self.ci95_low, self.ci95_high], "verdict": self.verdict,
                "significant": self.significant, "threshold": self.threshold, "a_n": self.a_n,
                "b_n": self.b_n, "ci_method": self.ci_method, "note": self.note}


def _values(x: Samples | Sequence[float]) -> Any:
    import numpy as np

    vals = x.values_us if isinstance(x, Samples) else x
    return np.asarray(vals, dtype=np.float64)


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


def compare(a: Samples | Sequence[float], b: Samples | Sequence[float], threshold: float = DEFAULT_THRESHOLD,
            *, resamples: int = RESAMPLES, seed: int = SEED) -> Comparison:
    """Compare sample sets ``a`` (the reference) and ``b`` (per-call times, microseconds).

    threshold: relative difference below which the verdict is ``same`` (0.03 = 3%).
    resamples, seed: the bootstrap's size and its fixed seed (results are reproducible).
    See the module docstring for the method and the verdict rule.
    """
    import numpy as np

    if not (0 <= threshold < 1):
        raise ValueError(f"threshold must be a fraction in [0, 1), got {threshold!r}")
    av, bv = _values(a), _values(b)
    if len(av) == 0 or len(bv) == 0:
        raise ValueError("compare needs at least one sample on each side")
    am, bm = float(np.median(av)), float(np.median(bv))
    if not (am > 0 and bm > 0):
        raise ValueError(f"medians must be positive times, got A {am!r} us and B {bm!r} us")
    ratio = bm / am
    if len(av) < MIN_SAMPLES or len(bv) < MIN_SAMPLES:
        return Comparison(am, bm, ratio, math.nan, math.nan, "same", False, threshold, len(av), len(bv),
                          note=f"too few samples for an interval (A {len(av)}, B {len(bv)}; need {MIN_SAMPLES})")
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
    return Comparison(am, bm, ratio, lo, hi, verdict, significant, threshold, len(av), len(bv))
