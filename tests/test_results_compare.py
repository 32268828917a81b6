"""compare(): the interval across rounds and the verdict, on synthetic rounds.

The statistical claims are checked over many fixed seeds: with no real difference the verdict says
slower/faster at most ~1% of the time (the 99% interval), also when the run-to-run noise is far
above the threshold; a real 10% difference is found at a GPU's noise, a 2x one at a loaded CPU's;
one round a side is bounded by the method's documented noise floor unless the point's history
gives the noise; "same" is said only when the interval lies within the threshold.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from _results_helpers import gpu_like_samples, result, rounds_measurement, rounds_point
from bench_kernel.records import BenchResult, Measurement, PointResult, Samples
from bench_kernel.results import (
    CONFIDENCE,
    DEFAULT_THRESHOLD,
    METHOD_FLOORS,
    Noise,
    best_per_point,
    compare,
    compare_points,
    noise_from_history,
    t_quantile,
)

SEEDS = range(400)


@pytest.mark.parametrize("rounds,between", [(3, 0.02), (5, 0.25)])
def test_identical_sides_are_called_slower_or_faster_at_most_about_1_percent_of_the_time(rounds, between):
    # (5, 0.25): a loaded CPU's run-to-run noise, far above the 4% threshold, which then filters nothing
    excluded = verdicts = 0
    for seed in SEEDS:
        c = compare(rounds_measurement(2 * seed, rounds, between=between),
                    rounds_measurement(2 * seed + 1, rounds, between=between))
        excluded += c.significant
        verdicts += c.verdict in ("slower", "faster")
    assert excluded / len(SEEDS) <= 0.025, excluded  # nominal 1%
    assert verdicts / len(SEEDS) <= 0.02, verdicts


def test_same_is_said_only_when_the_interval_lies_within_the_threshold():
    same = inconclusive = 0
    for seed in range(100):
        quiet = compare(rounds_measurement(2 * seed, 5, between=0.002), rounds_measurement(2 * seed + 1, 5, between=0.002))
        loud = compare(rounds_measurement(2 * seed, 3, between=0.25), rounds_measurement(2 * seed + 1, 3, between=0.25))
        same += quiet.verdict == "same"
        inconclusive += loud.verdict == "inconclusive"
        for c in (quiet, loud):
            if c.verdict == "same":
                assert 1 / 1.04 <= c.ci_low and c.ci_high <= 1.04
    assert same == 100 and inconclusive >= 95, (same, inconclusive)  # a 25% noise shows nothing within 4%


@pytest.mark.parametrize("factor,verdict", [(1.10, "slower"), (1 / 1.10, "faster")])
def test_a_real_10_percent_difference_is_found_at_a_gpus_noise(factor, verdict):
    found = 0
    for seed in range(100):
        a = rounds_measurement(2 * seed, 3, between=0.01)
        b = rounds_measurement(2 * seed + 1, 3, median_us=100.0 * factor, between=0.01)
        c = compare(a, b)
        found += c.verdict == verdict
        assert c.verdict != ("faster" if verdict == "slower" else "slower")
    assert found >= 95, found


def test_a_2x_slowdown_is_found_at_a_loaded_cpus_noise():
    found = sum(compare(rounds_measurement(2 * s, 5, between=0.15, method="host"),
                        rounds_measurement(2 * s + 1, 5, median_us=200.0, between=0.15, method="host")).verdict
                == "slower" for s in range(100))
    assert found >= 95, found


def _one(samples: list[float], method: str) -> Measurement:
    return Measurement.of(method, Samples.of(samples))


@pytest.mark.parametrize("method", ["host", "graph", "kernel", "events"])
def test_one_round_a_side_is_bounded_by_the_methods_floor(method):
    f = METHOD_FLOORS[method]
    a = gpu_like_samples(1)
    c = compare(_one(a, method), _one((np.asarray(gpu_like_samples(2)) * 3).tolist(), method))
    assert (c.verdict, c.significant, c.noise.source, c.a_rounds, c.b_rounds) == ("slower", True, "floor", 1, 1)
    assert c.ci_low == pytest.approx(c.ratio / (1 + f)) and c.ci_high == pytest.approx(c.ratio * (1 + f))
    assert c.noise_floor == pytest.approx(f) and c.is_regression() and "worst run-to-run noise" in c.describe()
    assert compare(_one(a, method), _one([x / 3 for x in a], method)).verdict == "faster"
    within = compare(_one(a, method), _one([x * 1.05 for x in a], method))
    assert within.verdict == "inconclusive"  # never "same": the floor is wider than 4%
    # 5% at the floor's noise: a GPU method resolves it in a few rounds; the host's 190% not within 100
    assert (within.rounds_needed is None) == (method == "host")


def test_the_floors_are_the_documented_ones():
    from pathlib import Path

    # every method has a floor, the GPU methods one alike (they follow one SM clock), and the page
    # states each as the code has it, with the results it comes from
    assert set(METHOD_FLOORS) == {"graph", "kernel", "events", "host"}
    assert METHOD_FLOORS["graph"] == METHOD_FLOORS["kernel"] == METHOD_FLOORS["events"] < METHOD_FLOORS["host"]
    doc = " ".join((Path(__file__).resolve().parent.parent / "docs" / "store-and-compare.md").read_text().split())
    assert f"**±{METHOD_FLOORS['graph']:.0%}** for `graph`, `kernel` and `events`" in doc
    assert f"**±{METHOD_FLOORS['host']:.0%}** (×{1 + METHOD_FLOORS['host']:g}) for `host`" in doc
    assert "busy-cpu.md" in doc and "verdicts-cpu.md" in doc and "verdicts-h200.md" in doc and "trust-h200.md" in doc


def test_the_verdict_rule_at_its_edges():
    from bench_kernel.results import verdict

    t = 0.04
    assert verdict(1.10, 1.05, 1.15, t) == "slower"
    assert verdict(1.03, 1.01, 1.05, t) == "inconclusive"  # significant, within t at one end only
    assert verdict(1.02, 1.01, 1.03, t) == "same"  # significant but shown within t
    assert verdict(1.0, 0.001, 14051.0, t) == "inconclusive"  # a CI that cannot tell is no "same"
    assert verdict(0.90, 0.85, 0.95, t) == "faster"
    assert verdict(1.0, 1 / 1.04, 1.04, t) == "same"
    assert verdict(1.0, None, None, t) == "inconclusive"


def test_rounds_needed_follows_the_noise():
    from bench_kernel.results import rounds_to_resolve

    quiet, loud = Noise(sd_log=0.01, df=4, source="rounds", n=6), Noise(sd_log=0.05, df=4, source="rounds", n=6)
    assert rounds_to_resolve(1.10, quiet, 0.04) == 3  # 10% at 1% noise: two rounds' t(2) = 9.9 is too wide
    assert rounds_to_resolve(1.10, quiet, 0.04) < rounds_to_resolve(1.10, loud, 0.04) <= 100
    assert rounds_to_resolve(1.0, quiet, 0.04) == 3 and rounds_to_resolve(1.0, loud, 0.04) > 3
    assert rounds_to_resolve(1.0399, quiet, 0.04) is None  # at the threshold's edge nothing resolves it


def test_one_round_a_side_takes_the_noise_of_the_points_history():
    a, b = gpu_like_samples(1), (np.asarray(gpu_like_samples(2)) * 1.2).tolist()
    history = noise_from_history([100.0, 101.0, 99.0, 100.5, 99.5])  # a quiet point: ~0.8% between runs
    c = compare(a, b, history=history)
    assert c.verdict == "slower" and c.noise is history and c.noise.source == "history"
    half = t_quantile(CONFIDENCE, 4) * history.sd_log * math.sqrt(2)
    assert c.noise_floor == pytest.approx(math.expm1(half))
    assert c.ci_low == pytest.approx(c.ratio * math.exp(-half)) and c.ci_high == pytest.approx(c.ratio * math.exp(half))
    noisy = noise_from_history([100.0, 130.0, 80.0, 120.0])  # a noisy point: 20% is within its noise
    assert compare(a, b, history=noisy).verdict == "inconclusive"
    assert noise_from_history([100.0, 101.0]) is None  # fewer than 3 stored rounds say nothing


def test_rounds_win_over_history():
    a, b = rounds_measurement(1, 3, between=0.01), rounds_measurement(2, 3, between=0.01)
    huge = Noise(sd_log=1.0, df=50, source="history", n=51)
    c = compare(a, b, history=huge)
    assert c.noise.source == "rounds" and c.noise.df == 4 and c.noise_floor < 0.1


def _exact(round_medians: list[float], method: str = "graph") -> Measurement:
    """One sample per round: the round medians are exactly these."""
    return Measurement.of(method, Samples.of(round_medians), round_sizes=(1,) * len(round_medians))


def test_the_host_method_compares_each_rounds_minimum():
    # a round disturbed by another process: its median moves, its fastest sample does not
    a = Measurement.of("host", Samples.of([10.0, 30.0, 30.0, 10.1, 11.0, 11.0, 10.0, 10.2, 10.5]), round_sizes=(3, 3, 3))
    b = Measurement.of("host", Samples.of([10.1, 10.4, 10.6, 10.0, 10.3, 10.2, 10.1, 40.0, 40.0]), round_sizes=(3, 3, 3))
    assert a.round_times_us == (10.0, 10.1, 10.0) and a.round_medians_us == (30.0, 11.0, 10.2)
    c = compare(a, b)
    assert (c.statistic, c.verdict) == ("min", "same")
    assert c.a_us == pytest.approx((10.0 * 10.1 * 10.0) ** (1 / 3)) and c.b_us == pytest.approx((10.1 * 10.0 * 10.1) ** (1 / 3))
    assert compare(_exact([10.0, 10.1]), _exact([12.0, 12.1])).statistic == "median"


def test_values_are_the_t_interval_of_the_log_round_medians():
    a, b = _exact([10.0, 11.0, 12.0]), _exact([20.0, 22.0, 25.0])
    c = compare(a, b)
    la, lb = np.log([10.0, 11.0, 12.0]), np.log([20.0, 22.0, 25.0])
    d = lb.mean() - la.mean()
    s = math.sqrt((((la - la.mean()) ** 2).sum() + ((lb - lb.mean()) ** 2).sum()) / 4)
    half = 4.604094 * s * math.sqrt(2 / 3)  # t(0.995, 4 df)
    assert c.ratio == pytest.approx(math.exp(d)) and c.ci_low == pytest.approx(math.exp(d - half), rel=1e-5)
    assert c.ci_high == pytest.approx(math.exp(d + half), rel=1e-5) and c.noise_floor == pytest.approx(math.expm1(half), rel=1e-5)
    # what is shown is what the ratio is of: the geometric means of the round times
    assert c.a_us == pytest.approx(math.exp(la.mean())) and c.b_us == pytest.approx(math.exp(lb.mean()))
    assert c.ratio == pytest.approx(c.b_us / c.a_us)
    assert (c.a_rounds, c.b_rounds, c.confidence, c.statistic) == (3, 3, 0.99, "median")
    assert c.verdict == "slower" and c.noise.df == 4 and c.noise.source == "rounds"
    assert compare(a, b) == c  # no randomness: the same interval every time
    assert c.describe().startswith("slower: B 22.24 µs vs A 10.97 µs (geometric means of round medians), ratio 2.027 "
                                   "(99% CI 1.381-2.976; ")
    assert "3+3 rounds, noise floor" in c.describe()


def test_small_k_two_rounds_a_side_gives_a_wide_interval():
    c = compare(_exact([10.0, 10.5]), _exact([11.0, 11.5]))  # df 2: t = 9.92
    s = c.noise.sd_log
    assert c.noise.df == 2 and c.noise_floor == pytest.approx(math.expm1(9.9248 * s), rel=1e-4)
    assert c.verdict == "inconclusive" and c.rounds_needed > 2  # 10% apart: two rounds cannot tell at this noise
    # one side with rounds, the other with one: the single round may sit anywhere within the
    # method's floor, so the noise is at least the floor's; 15% is within it, 2x beyond
    one = compare(_exact([10.0, 10.1, 9.9, 10.05]), _exact([11.5]))
    assert (one.noise.source, one.verdict, one.a_rounds, one.b_rounds) == ("floor", "inconclusive", 4, 1)
    assert compare(_exact([10.0, 10.1, 9.9, 10.05]), _exact([20.0])).verdict == "slower"
    noisy = compare(_exact([10.0, 14.0, 7.0, 12.0]), _exact([30.0]))  # rounds noisier than the floor: theirs
    assert noisy.noise.source == "rounds" and noisy.noise.df == 3


def test_a_significant_difference_below_the_threshold_is_same():
    a = rounds_measurement(1, 5, between=0.002)
    b = rounds_measurement(2, 5, median_us=102.0, between=0.002)
    c = compare(a, b)
    assert c.significant and c.ci_low > 1.0
    assert c.verdict == "same"
    assert compare(a, b, threshold=0.01).verdict == "slower"


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


def test_t_quantiles_match_the_tables():
    for conf, df, want in [(0.95, 1, 12.706), (0.95, 8, 2.306), (0.99, 1, 63.657), (0.99, 2, 9.925),
                           (0.99, 4, 4.604), (0.99, 8, 3.355), (0.99, 18, 2.878), (0.99, 5000, 2.576)]:
        assert t_quantile(conf, df) == pytest.approx(want, abs=1e-3), (conf, df)
    with pytest.raises(ValueError):
        t_quantile(0.99, 0)


def test_documented_defaults():
    from bench_kernel.cli.compare import command

    assert inspect.signature(compare).parameters["threshold"].default == DEFAULT_THRESHOLD == 0.04
    assert inspect.signature(compare).parameters["confidence"].default == CONFIDENCE == 0.99
    assert next(p for p in command.params if p.name == "threshold").default == DEFAULT_THRESHOLD
    assert "threshold t, default\n4%" in inspect.getmodule(compare).__doc__
    assert "The level is 99%" in inspect.getmodule(noise_from_history).__doc__


def _point(provider, m, samples, status="ok", method="host"):
    r = result(provider, {"M": m}, samples, method=method)
    return PointResult(provider, {"M": m}, status, r, error=None if status == "ok" else "why")


def test_compare_points_matches_and_lists_what_it_cannot_compare():
    base = gpu_like_samples(1)
    a = [rounds_point("t", {"M": 1}, rounds_measurement(1, 3, method="host")),
         rounds_point("t", {"M": 2}, rounds_measurement(2, 3, method="host")),
         _point("t", 3, base), _point("u", 1, base, status="unsupported"), _point("t", 4, base), _point("t", 6, base)]
    b = [rounds_point("t", {"M": 1}, rounds_measurement(3, 3, method="host")),
         rounds_point("t", {"M": 2}, rounds_measurement(4, 3, median_us=150.0, method="host")),
         _point("t", 5, base), _point("u", 1, base), _point("t", 4, base, method="graph"), _point("t", 6, base)]
    rc = compare_points(a, b, a_label="run 1", b_label="run 2")
    assert [(r.params["M"], r.comparison.verdict) for r in rc.rows] == [(1, "inconclusive"), (2, "slower"),
                                                                        (6, "inconclusive")]
    assert [(u.provider, u.params, u.reason) for u in rc.unmatched] == [
        ("t", {"M": 3}, "only in A (run 1)"),
        ("u", {"M": 1}, "A is unsupported: why"),
        ("t", {"M": 4}, "no host measurement on B (A has host; B has graph); choose one with --method"),
        ("t", {"M": 5}, "only in B (run 2)"),
    ]
    assert rc.counts() == {"faster": 0, "slower": 1, "same": 0, "inconclusive": 2, "unmatched": 4}
    assert [r.params for r in rc.regressions] == [{"M": 2}] and rc.failed() and rc.failed("inconclusive")
    floors = rc.noise_floors()
    assert (floors.rounds, floors.history, floors.floor) == (2, 0, 1)
    assert floors.min == min(r.comparison.noise_floor for r in rc.rows[:2])
    out = rc.output("inconclusive").to_dict()
    assert out["noise_floors"] == floors.to_dict() and out["points"][2]["comparison"]["verdict"] == "inconclusive"
    assert (out["schema_version"], out["fail_on"], out["failed"], out["regressions"]) == (3, "inconclusive", True, 1)
    assert [r.explanation is None for r in rc.rows] == [False, False, False]


def test_an_ok_point_that_holds_no_measurement_is_unmatched_without_naming_none():
    # a hand-edited or damaged file: A says ok but measured nothing, so there is no method to compare;
    # the reason read "no None measurement on A and B", and B had one
    empty = PointResult("t", {"M": 1}, "ok", BenchResult(name="t", params={"M": 1}))
    rc = compare_points([empty], [_point("t", 1, gpu_like_samples(1))])
    assert rc.rows == () and [u.reason for u in rc.unmatched] == [
        "no measurement on A (A has none; B has host); choose one with --method"]


def test_compare_points_asks_every_point_its_history():
    asked = []

    def history(pa, pb, method):
        asked.append((pa.params["M"], method))
        return Noise(sd_log=0.01, df=9, source="history", n=10)

    a = [_point("t", 1, gpu_like_samples(1)), rounds_point("t", {"M": 2}, rounds_measurement(1, 3, method="host"))]
    b = [_point("t", 1, (np.asarray(gpu_like_samples(2)) * 1.3).tolist()),
         rounds_point("t", {"M": 2}, rounds_measurement(2, 3, method="host"))]
    rc = compare_points(a, b, history=history)
    assert asked == [(1, "host"), (2, "host")]
    # rounds of their own keep theirs (no runs' noise here); one host round a side keeps the host's
    # floor whatever the history says (one round sees one moment of the CPU)
    assert [(r.comparison.verdict, r.comparison.noise.source) for r in rc.rows] == [("inconclusive", "floor"),
                                                                                   ("inconclusive", "rounds")]
    # a GPU method's one round takes the history's rounds noise: 30% is slower
    g = compare_points([_point("t", 1, gpu_like_samples(1), method="graph")],
                       [_point("t", 1, (np.asarray(gpu_like_samples(2)) * 1.3).tolist(), method="graph")],
                       history=history)
    assert [(r.comparison.verdict, r.comparison.noise.source) for r in g.rows] == [("slower", "history")]


def test_the_runs_spread_bounds_an_interval_that_the_rounds_of_one_run_make_too_narrow():
    # Two identical CPU sweeps read a 64-token point 8.6% apart in every round (a machine's slow phase
    # outlasting a run); the rounds' t-interval (+/-8.5%) called it slower. The point's stored runs had
    # spread as much, run to run: their noise bounds the interval, and the verdict cannot tell.
    a = rounds_measurement(3, 5, median_us=100.0, between=0.01, method="host")
    b = rounds_measurement(4, 5, median_us=108.6, between=0.01, method="host")
    alone = compare(a, b)
    assert alone.verdict == "slower"
    runs = [100.0, 93.0, 106.0, 97.0, 104.0, 108.0, 95.0, 101.0]  # stored runs' means: ~5% apart
    history = noise_from_history([v for r in runs for v in (r * 0.99, r, r * 1.01)], runs)
    assert history.runs == 8 and 0.03 < history.runs_sd_log < 0.08
    held = compare(a, b, history=history)
    assert held.verdict == "inconclusive" and held.noise.source == "history"
    assert held.noise_floor > alone.noise_floor and "stored runs" in held.ci_method
    assert held.rounds_needed is None  # more rounds of one run cannot narrow the runs' noise
    # a real 2x change still reads slower, even with a stored regression among the runs: the runs'
    # spread is robust (their median absolute deviation), so one 2x run does not swamp it
    slow = rounds_measurement(5, 5, median_us=200.0, between=0.01, method="host")
    with_regression = noise_from_history([v for r in runs + [200.0] for v in (r * 0.99, r, r * 1.01)], runs + [200.0])
    assert compare(a, slow, history=with_regression).verdict == "slower"
    # a quiet history leaves a tight interval as it is
    quiet = [100.0, 100.1, 99.95, 100.05, 99.98, 100.02]
    q = noise_from_history([v for r in quiet for v in (r, r * 1.001)], quiet)
    assert compare(a, b, history=q).noise_floor == alone.noise_floor and compare(a, b, history=q).verdict == "slower"


def test_two_providers_are_matched_on_params():
    a = [rounds_point("torch", {"M": m}, rounds_measurement(m, 3)) for m in (1, 2)]
    b = [rounds_point("triton", {"M": m}, rounds_measurement(m + 10, 3, median_us=80.0)) for m in (1, 2)]
    rc = compare_points(a, b, by_provider=False)
    assert [(r.provider, r.b_provider, r.comparison.verdict) for r in rc.rows] == [("torch", "triton", "faster")] * 2


def test_best_per_point_gives_margin_and_significance():
    pts = [rounds_point("slow", {"M": 1}, rounds_measurement(1, 3, median_us=120.0)),
           rounds_point("fast", {"M": 1}, rounds_measurement(2, 3)),
           rounds_point("twin", {"M": 2}, rounds_measurement(3, 3)),
           rounds_point("twin2", {"M": 2}, rounds_measurement(4, 3)),
           rounds_point("only", {"M": 3}, rounds_measurement(5, 3)), _point("bad", 3, [], status="error"),
           _point("one", 4, gpu_like_samples(6)), _point("round", 4, gpu_like_samples(7, median_us=150))]
    b1, b2, b3, b4 = best_per_point(pts)
    assert (b1.provider, b1.runner_up, b1.verdict, b1.significant, b1.candidates) == ("fast", "slow", "slower", True, 2)
    assert b1.margin == pytest.approx(pts[0].median_us / pts[1].median_us - 1)
    assert 0.1 < b1.margin < 0.3 and b1.ci[0] > 1.0 and b1.confidence == 0.99 and b1.noise_floor > 0
    assert (b2.verdict, b2.significant) == ("inconclusive", False) and abs(b2.margin) < 0.06  # two draws of one
    assert (b3.provider, b3.runner_up, b3.margin, b3.verdict, b3.candidates) == ("only", None, None, None, 1)
    # one round each: a 50% margin is within the host's floor (+/-190%), so it is not shown
    assert (b4.provider, b4.verdict, b4.significant) == ("one", "inconclusive", False)
    assert b4.noise_floor == pytest.approx(METHOD_FLOORS["host"])
