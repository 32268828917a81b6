"""Per-call samples and their statistics (microseconds).

The 95% confidence interval of the median is distribution-free: the order statistics at
ranks n/2 -/+ 1.96*sqrt(n)/2 (the normal approximation of Binomial(n, 1/2)). GPU timings are
skewed (a long tail of interrupted samples), so neither a mean nor a t-interval fits them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Samples", "median_ci95_ranks"]

#: Below this many samples the CI is the whole observed range: too few to say more.
MIN_SAMPLES_FOR_CI = 6


def median_ci95_ranks(n: int) -> tuple[int, int]:
    """0-based ranks (lo, hi) of the sorted samples that bound a 95% CI of the median of ``n``."""
    if n < MIN_SAMPLES_FOR_CI:
        return 0, max(n - 1, 0)
    half = 1.96 * math.sqrt(n) / 2
    lo = max(int(math.floor(n / 2 - half)), 0)
    hi = min(int(math.ceil(n / 2 + half)), n - 1)
    return lo, hi


@dataclass(frozen=True, eq=False)
class Samples:
    """Per-call times in microseconds; statistics are computed lazily and cached."""

    values_us: tuple[float, ...]

    @classmethod
    def of(cls, values_us: Sequence[float]) -> "Samples":
        return cls(tuple(float(v) for v in values_us))

    @cached_property
    def _sorted(self) -> np.ndarray:
        # numpy is imported when a statistic is first asked for, not with the records: every command
        # module imports them, and shell completion imports every command module it completes
        import numpy as np

        return np.sort(np.asarray(self.values_us, dtype=np.float64))

    @property
    def n(self) -> int:
        return len(self.values_us)

    @cached_property
    def median_us(self) -> float:
        import numpy as np

        return float(np.median(self._sorted)) if self.n else math.nan

    @cached_property
    def mean_us(self) -> float:
        if not self.n:
            return math.nan
        import numpy as np

        with np.errstate(invalid="ignore", over="ignore"):  # inf and -inf make NaN: said, not warned
            return float(self._sorted.mean())

    @cached_property
    def min_us(self) -> float:
        return float(self._sorted[0]) if self.n else math.nan

    @cached_property
    def max_us(self) -> float:
        return float(self._sorted[-1]) if self.n else math.nan

    @cached_property
    def iqr_us(self) -> float:
        if not self.n:
            return math.nan
        import numpy as np

        # Damaged samples (inf beside inf) give NaN, which the records carry as "no value"; numpy's
        # warning about it would reach a user's stderr as a line that is not bench-kernel's.
        with np.errstate(invalid="ignore", over="ignore"):
            q1, q3 = np.percentile(self._sorted, [25, 75])
            return float(q3 - q1)

    @cached_property
    def ci95_us(self) -> tuple[float, float]:
        """(low, high) bounds of the 95% CI of the median, microseconds."""
        if not self.n:
            return (math.nan, math.nan)
        lo, hi = median_ci95_ranks(self.n)
        return float(self._sorted[lo]), float(self._sorted[hi])

    @property
    def rel_ci95(self) -> float:
        """Half-width of the median's 95% CI relative to the median (0.01 = +/-1%)."""
        lo, hi = self.ci95_us
        med = self.median_us
        if not self.n or med <= 0 or math.isnan(med):
            return math.inf
        return (hi - lo) / 2 / med

    def __add__(self, other: "Samples") -> "Samples":
        return Samples(self.values_us + other.values_us)
