"""compare(): the bootstrap CI of the median ratio and the verdict, on synthetic samples.

The statistical claims are checked over many fixed seeds: with no real difference the 95% CI
excludes the truth about 5% of the time and the verdict almost never says slower/faster; with a
real 5% difference it is found nearly always.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from _results_helpers import gpu_like_samples, result
from bench_kernel.results import (
    DEFAULT_THRESHOLD,
    PointResult,
    best_per_point,
    compare,
    compare_points,
)

SEEDS = range(200)


@pytest.mark.slow
def test_no_difference_ci_covers_one_at_the_nominal_rate():
    excluded = verdicts = 0
    for seed in SEEDS:
        a = gpu_like_samples(2 * seed, n=60)
        b = gpu_like_samples(2 * seed + 1, n=60)
        c = compare(a, b)
        excluded += c.significant
        verdicts += c.verdict != "same"
    rate = excluded / len(SEEDS)
    assert 0.01 <= rate <= 0.10, rate  # nominal 5%: the interval is neither too narrow nor too wide
    assert verdicts / len(SEEDS) <= 0.01  # and the 4% threshold keeps false regressions rarer still


@pytest.mark.parametrize("factor,verdict", [(1.05, "slower"), (1 / 1.05, "faster")])
def test_a_real_5_percent_difference_is_found(factor, verdict):
    found = 0
    for seed in range(60):
        a = gpu_like_samples(2 * seed, n=100)
        b = (np.asarray(gpu_like_samples(2 * seed + 1, n=100)) * factor).tolist()
        c = compare(a, b)
        found += c.verdict == verdict
        assert c.verdict != ("faster" if verdict == "slower" else "slower")
    assert found >= 57, found  # power >= 95%


def test_a_significant_difference_below_the_threshold_is_same():
    a = gpu_like_samples(1, n=400, sigma=0.005)
    b = (np.asarray(gpu_like_samples(2, n=400, sigma=0.005)) * 1.02).tolist()
    c = compare(a, b)
    assert c.significant and c.ci95_low > 1.0
    assert c.verdict == "same"
    assert compare(a, b, threshold=0.01).verdict == "slower"


def test_values_are_the_medians_ratio_and_reproducible():
    a, b = [10.0, 11, 12, 13, 14, 15, 16], [20.0, 22, 24, 26, 28, 30, 32]
    c = compare(a, b)
    assert (c.a_median_us, c.b_median_us, c.ratio, c.a_n, c.b_n) == (13.0, 26.0, 2.0, 7, 7)
    assert c.ci95_low <= 2.0 <= c.ci95_high
    assert compare(a, b) == c  # fixed seed: the same interval every time
    assert c.verdict == "slower" and c.speedup == 0.5
    assert c.describe().startswith("slower: B 26 us vs A 13 us, ratio 2.000 (95% CI")


def test_too_few_samples_claim_no_interval():
    c = compare([1.0, 1.1], [2.0, 2.1, 2.2])
    assert math.isnan(c.ci95_low) and c.verdict == "same" and not c.significant
    assert c.note == "too few samples for an interval (A 2, B 3; need 5)"


@pytest.mark.parametrize("a,b,kw,message", [
    ([], [1.0], {}, "cannot compare: A holds no samples"),
    ([0.0], [1.0], {}, "cannot compare: A holds 1 <= 0 of 1 samples"),
])
def test_bad_inputs(a, b, kw, message):
    from bench_kernel.errors import InputError

    with pytest.raises(InputError) as e:
        compare(a, b, **kw)
    assert str(e.value) == f"{message}; a per-call time is a finite number of microseconds above 0"


def test_a_threshold_outside_0_1_is_a_usage_error_from_the_one_check():
    from bench_kernel.errors import UsageError
    from bench_kernel.results import check_threshold

    with pytest.raises(UsageError) as e:
        compare([1.0], [1.0], threshold=1.5)
    assert str(e.value) == "threshold must be a fraction in [0, 1) (0.04 = 4%), got 1.5"
    assert check_threshold(0.0) == 0.0 and check_threshold(0.99) == 0.99
    with pytest.raises(UsageError, match=r"^--x must be a fraction in \[0, 1\) \(0.04 = 4%\), got -0.01$"):
        check_threshold(-0.01, "--x")


def test_documented_defaults():
    from bench_kernel.cli.compare import command

    assert inspect.signature(compare).parameters["threshold"].default == DEFAULT_THRESHOLD == 0.04
    assert next(p for p in command.params if p.name == "threshold").default == DEFAULT_THRESHOLD
    assert "threshold t (default 4%)" in inspect.getmodule(compare).__doc__


def _point(provider, m, samples, status="ok", method="host"):
    r = result(provider, {"M": m}, samples, method=method)
    return PointResult(provider, {"M": m}, status, r, error=None if status == "ok" else "why")


def test_compare_points_matches_and_lists_what_it_cannot_compare():
    base = gpu_like_samples(1)
    a = [_point("t", 1, base), _point("t", 2, base), _point("t", 3, base), _point("u", 1, base, status="unsupported"),
         _point("t", 4, base)]
    b = [_point("t", 1, base), _point("t", 2, (np.asarray(base) * 1.2).tolist()), _point("t", 5, base),
         _point("u", 1, base), _point("t", 4, base, method="graph")]
    rc = compare_points(a, b, a_label="run 1", b_label="run 2")
    assert [(r.params["M"], r.comparison.verdict) for r in rc.rows] == [(1, "same"), (2, "slower")]
    assert [(u.provider, u.params, u.reason) for u in rc.unmatched] == [
        ("t", {"M": 3}, "only in A (run 1)"),
        ("u", {"M": 1}, "A is unsupported: why"),
        ("t", {"M": 4}, "no host measurement on B (A has host; B has graph); choose one with --method"),
        ("t", {"M": 5}, "only in B (run 2)"),
    ]
    assert rc.counts() == {"faster": 0, "slower": 1, "same": 1, "unmatched": 4}
    assert [r.params for r in rc.regressions] == [{"M": 2}]


def test_two_providers_are_matched_on_params():
    a = [_point("torch", m, gpu_like_samples(m)) for m in (1, 2)]
    b = [_point("triton", m, (np.asarray(gpu_like_samples(m + 10)) * 0.8).tolist()) for m in (1, 2)]
    rc = compare_points(a, b, by_provider=False)
    assert [(r.provider, r.b_provider, r.comparison.verdict) for r in rc.rows] == [("torch", "triton", "faster")] * 2


def test_best_per_point_gives_margin_and_significance():
    pts = [_point("slow", 1, gpu_like_samples(1, median_us=120)), _point("fast", 1, gpu_like_samples(2)),
           _point("twin", 2, gpu_like_samples(3)), _point("twin2", 2, gpu_like_samples(4)),
           _point("only", 3, gpu_like_samples(5)), _point("bad", 3, [], status="error")]
    b1, b2, b3 = best_per_point(pts)
    assert (b1.provider, b1.runner_up, b1.significant, b1.candidates) == ("fast", "slow", True, 2)
    assert b1.margin == pytest.approx(pts[0].median_us / pts[1].median_us - 1)
    assert 0.1 < b1.margin < 0.3
    assert b2.significant is False and abs(b2.margin) < 0.02  # two draws of the same distribution
    assert (b3.provider, b3.runner_up, b3.margin, b3.candidates) == ("only", None, None, 1)
