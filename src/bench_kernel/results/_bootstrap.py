"""B against A when every sample is an independent trial: a percentile bootstrap of the ratio of medians.

For timing samples this is the wrong test (``_noise`` says why: samples of one run share its
machine state, so their interval misses what moves between runs). It is the right one where each
sample is a trial of its own and the set of them is the unit being compared: the latencies of the
requests of a serving run (``bench_kernel.serve``), each request a separate arrival under load.
``compare`` of two timing measurements uses rounds; this is ``compare_samples``.

Method: median(B*) / median(A*) over 2,000 resamples (with replacement, independently) from a fixed
seed, so the same inputs always give the same interval; the 2.5% and 97.5% quantiles. Verdict as
``compare``'s (``_verdict.verdict``). Fewer than :data:`MIN_SAMPLES` on a side claim no interval
(``inconclusive``, with a note).
"""

from __future__ import annotations

from typing import Any, Sequence

from bench_kernel.errors import InputError
from bench_kernel.records import Comparison, Samples, Verdict
from bench_kernel.results._compare import DEFAULT_THRESHOLD, check_threshold, samples_problem
from bench_kernel.results._verdict import verdict

__all__ = ["compare_samples", "RESAMPLES", "MIN_SAMPLES"]

RESAMPLES = 2000
SEED = 0
#: Fewer samples than this on a side: no interval is claimed, the verdict is "inconclusive".
MIN_SAMPLES = 5
#: Bootstrap medians are computed in blocks of at most this many values (memory bound).
_BLOCK_VALUES = 4_000_000


def _values(x: Samples | Sequence[float]) -> Any:
    import numpy as np

    return np.asarray(x.values_us if isinstance(x, Samples) else x, dtype=np.float64)


def _bootstrap_medians(values: Any, resamples: int, rng: Any) -> Any:
    import numpy as np

    n = len(values)
    out = np.empty(resamples)
    block = max(1, _BLOCK_VALUES // n)
    for start in range(0, resamples, block):
        k = min(block, resamples - start)
        out[start:start + k] = np.median(values[rng.integers(0, n, size=(k, n))], axis=1)
    return out


def compare_samples(a: Samples | Sequence[float], b: Samples | Sequence[float], threshold: float = DEFAULT_THRESHOLD,
                    *, resamples: int = RESAMPLES, seed: int = SEED) -> Comparison:
    """Compare ``a`` (the reference) with ``b``, each a set of independent trials (module docstring);
    values in any one unit (the Comparison's ``a_us``/``b_us`` carry it)."""
    import numpy as np

    check_threshold(threshold, "threshold")
    for side, values in (("A", a), ("B", b)):
        problem = samples_problem(values)
        if problem:
            raise InputError(f"cannot compare: {side} holds {problem}; a sample is a finite number above 0")
    av, bv = _values(a), _values(b)
    am, bm = float(np.median(av)), float(np.median(bv))
    if not (am > 0 and bm > 0):
        raise ValueError(f"medians must be positive times, got A {am!r} and B {bm!r}")
    ratio = bm / am
    lo: float | None = None
    hi: float | None = None
    said: Verdict = "inconclusive"
    significant = False
    note: str | None = None
    if len(av) < MIN_SAMPLES or len(bv) < MIN_SAMPLES:
        note = f"too few samples for an interval (A {len(av)}, B {len(bv)}; need {MIN_SAMPLES})"
    else:
        rng = np.random.default_rng(seed)
        ratios = _bootstrap_medians(bv, resamples, rng) / _bootstrap_medians(av, resamples, rng)
        lo, hi = (float(x) for x in np.quantile(ratios, [0.025, 0.975]))
        said = verdict(ratio, lo, hi, threshold)
        significant = lo > 1.0 or hi < 1.0
    return Comparison(am, bm, ratio, lo, hi, said, significant, threshold, a_n=len(av), b_n=len(bv),
                      confidence=0.95, ci_method="bootstrap-median-ratio", statistic="median of the samples",
                      note=note)
