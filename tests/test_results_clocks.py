"""Clock-confounded verdicts: ``compare`` with the SM clock each side sampled at, on real records
(``PointResult``/``BenchResult``/``Measurement`` with ``sm_clock_mhz``) with synthetic samples.

The three H200 cases are the false verdicts two IDENTICAL GEMM sweeps gave on a power-capped
H200 (medians and median clocks as stored); the rest pin the rule's edges: equal clocks, the
slower side at the higher clock, a slowdown beyond the clock ratio, and no clocks at all.
"""

from __future__ import annotations

import json

import pytest

from _results_helpers import clocked_point, clocks_around, rounds_measurement
from bench_kernel.records import Measurement, RunInfo
from bench_kernel.results import (
    clock_explains,
    clock_spread,
    compare,
    compare_points,
    median_clock_mhz,
    open_store,
)

GEMM = {"N": 4096, "K": 4096}
#: (provider, M, (A median us, A median clock MHz), (B ...), the verdict's direction)
H200_CASES = [
    ("triton_128x128x64", 1024, (51.8, 1980), (58.8, 1515), "slower"),   # time 1.135, clock 1.307
    ("torch", 8192, (353.5, 1845), (392.5, 1560), "slower"),             # time 1.110, clock 1.183
    ("triton_128x256x64", 8192, (428.6, 1515), (378.3, 1860), "faster"),  # time 0.883, clock 1/1.228
]
H200_IDS = [f"{c[0]}-M{c[1]}" for c in H200_CASES]


def _pair(a: tuple[float, float | None], b: tuple[float, float | None], provider: str = "k", m: int = 1024,
          seed: int = 0):
    params = {"M": m, **GEMM}
    return ([clocked_point(provider, params, a[0], a[1], seed=2 * seed)],
            [clocked_point(provider, params, b[0], b[1], seed=2 * seed + 1)])


@pytest.mark.parametrize("provider,m,a,b,direction", H200_CASES, ids=H200_IDS)
def test_h200_identical_runs_are_clock_limited_not_regressions(provider, m, a, b, direction):
    pa, pb = _pair(a, b, provider, m, seed=m)
    rc = compare_points(pa, pb)
    (row,) = rc.rows
    c = row.comparison
    # What the rounds alone say: each run's rounds share its clock, so a tight CI wholly on one side of 1.
    assert c.verdict == direction and c.significant
    assert c.ci_high - c.ci_low < 0.08
    assert c.ratio == pytest.approx(b[0] / a[0], rel=0.01)
    assert (c.clock_a_mhz, c.clock_b_mhz) == (a[1], b[1])
    assert c.clock_limited and rc.clock_limited == [row]
    assert rc.regressions == [] and not c.is_regression()
    strict = compare_points(pa, pb, strict_clocks=True)
    assert [r.comparison.verdict for r in strict.regressions] == (["slower"] if direction == "slower" else [])


@pytest.mark.parametrize("provider,m,a,b,direction", H200_CASES, ids=H200_IDS)
def test_h200_cases_the_other_way_round_swap_the_direction_and_stay_clock_limited(provider, m, a, b, direction):
    pb, pa = _pair(a, b, provider, m, seed=m)  # B is now the first run
    c = compare_points(pa, pb).rows[0].comparison
    assert c.verdict == ("faster" if direction == "slower" else "slower") and c.clock_limited
    assert compare_points(pa, pb).regressions == []
    assert len(compare_points(pa, pb, strict_clocks=True).regressions) == (direction == "faster")


def test_a_10_percent_slowdown_at_equal_clocks_is_a_regression():
    rc = compare_points(*_pair((100.0, 1980), (110.0, 1980)))
    c = rc.rows[0].comparison
    assert (c.verdict, c.clock_limited, c.clock_a_mhz, c.clock_b_mhz) == ("slower", False, 1980, 1980)
    assert c.ratio == pytest.approx(1.10, abs=0.01) and rc.regressions == list(rc.rows)


def test_a_slowdown_on_the_side_with_the_higher_clock_is_never_excused():
    # B ran at 1980 MHz, A at 1515: the clock would make B FASTER; its slowdown is all real.
    rc = compare_points(*_pair((100.0, 1515), (110.0, 1980)))
    c = rc.rows[0].comparison
    assert (c.verdict, c.clock_limited) == ("slower", False) and rc.regressions == list(rc.rows)


def test_a_slowdown_beyond_what_the_clock_ratio_covers_is_a_regression():
    # Clock ratio 1980/1515 = 1.307; a 1.50x slowdown is more than 1.307 * 1.03 = 1.346.
    rc = compare_points(*_pair((100.0, 1980), (150.0, 1515)))
    assert rc.rows[0].comparison.verdict == "slower" and not rc.rows[0].comparison.clock_limited
    assert len(rc.regressions) == 1


@pytest.mark.parametrize("a_clock,b_clock", [(None, None), (1980, None), (None, 1515)])
def test_without_clocks_on_both_sides_verdicts_are_exactly_as_before(a_clock, b_clock):
    pa, pb = _pair((51.8, a_clock), (58.8, b_clock))
    c = compare_points(pa, pb).rows[0].comparison
    ma, mb = pa[0].result.measurements["graph"], pb[0].result.measurements["graph"]
    before = compare(ma.replace(sm_clock_mhz=()), mb.replace(sm_clock_mhz=()))  # the comparison without any clock
    assert c.replace(clock_a_mhz=None, clock_b_mhz=None) == before
    assert (c.clock_a_mhz, c.clock_b_mhz) == (a_clock, b_clock)
    assert before.verdict == "slower" and not c.clock_limited
    assert len(compare_points(pa, pb).regressions) == 1


@pytest.mark.parametrize("ratio,ca,cb,t,explained", [
    (1.135, 1980, 1515, 0.03, True),
    (1.346, 1980, 1515, 0.03, True),     # 1.307 * 1.03 = 1.3462: at the edge
    (1.347, 1980, 1515, 0.03, False),
    (1.03, 1030, 1000, 0.03, False),      # clocks 3.0% apart: not more than the threshold
    (1.03, 1031, 1000, 0.03, True),
    (1.10, 1980, 1980, 0.03, False),
    (1.10, 1515, 1980, 0.03, False),      # the slower side had the higher clock
    (1 / 1.135, 1515, 1980, 0.03, True),  # faster: A was the slower side, at the lower clock
    (1 / 1.135, 1980, 1515, 0.03, False),
    (1.10, None, 1515, 0.03, False),
    (1.0, 1980, 1515, 0.03, False),
])
def test_the_rule_at_its_edges(ratio, ca, cb, t, explained):
    assert clock_explains(ratio, ca, cb, t) is explained


def test_a_sides_clock_is_the_median_of_its_readings():
    assert median_clock_mhz(clocks_around(1515, 100)) == 1515
    assert median_clock_mhz(clocks_around(1980, 100)) == 1980  # capped readings: 1950, 1965, then 1980
    assert median_clock_mhz([None, 0, 1500.0, 1530.0, 1980.0]) == 1530.0  # None and 0 are no reading
    assert median_clock_mhz([None, 0]) is None and median_clock_mhz(()) is None


def test_the_record_says_it_in_to_dict_and_describe():
    pa, pb = _pair((51.8, 1980), (58.8, 1515))
    rc = compare_points(pa, pb, a_label="run 1", b_label="run 2")
    d = rc.output().to_dict()
    assert (d["strict_clocks"], d["clock_limited"], d["regressions"], d["counts"]["slower"]) == (False, 1, 0, 1)
    point = d["points"][0]["comparison"]
    assert (point["verdict"], point["clock_limited"], point["clock_a_mhz"], point["clock_b_mhz"]) == (
        "slower", True, 1980, 1515)
    c = rc.rows[0].comparison
    assert c.describe().endswith(
        f"(99% CI {c.ci_low:.3f}-{c.ci_high:.3f}; 3+3 rounds, noise floor +/-{c.noise_floor:.1%}; threshold 4%), "
        f"the slower side at a lower SM clock: A 1980 MHz, B 1515 MHz")
    assert compare_points(pa, pb, strict_clocks=True).output().regressions == 1
    assert rc.rows[0].explanation.summary == "the machine differs: median SM clock 1980 -> 1515 MHz"


def test_clocks_survive_the_store_and_results_files(tmp_path):
    (point,) = _pair((51.8, 1980), (58.8, 1515))[1]
    stored_clocks = point.result.measurements["graph"].sm_clock_mhz
    with open_store(tmp_path / "r.db") as store:
        run = store.start_run(kind="sweep", name="s", config={}, env={})
        store.save_result(run.id, point.result)
        (back,) = store.points(run.id)
    assert back.result.measurements["graph"].sm_clock_mhz == stored_clocks
    m = Measurement.from_dict(json.loads(json.dumps(point.result.measurements["graph"].to_dict())))
    assert m.sm_clock_mhz == stored_clocks and len(stored_clocks) == m.samples.n


@pytest.mark.parametrize("clocks,message", [
    ("fast", "Expected `array`, got `str` - at `$.sm_clock_mhz`"),
    ([1500, -5], "Expected `float` >= 0.0 - at `$.sm_clock_mhz[1]`"),
    ([1500, True], "Expected `float | null`, got `bool` - at `$.sm_clock_mhz[1]`"),
    ([1500, "1500"], "Expected `float | null`, got `str` - at `$.sm_clock_mhz[1]`"),
])
def test_stored_clocks_that_are_not_clocks_are_refused(clocks, message):
    d = clocked_point("k", {}, 10.0, 1500, seed=0).result.measurements["graph"].to_dict()
    with pytest.raises(ValueError) as e:
        Measurement.from_dict({**d, "sm_clock_mhz": clocks})
    assert str(e.value) == message


def _run(points) -> RunInfo:
    providers = list(dict.fromkeys(p.provider for p in points))
    return RunInfo(1, "sweep", "sweep_gemm.py:sweep", "done", "2026-01-01T00:00:00+00:00",
                   config={"axes": {"M": [1024, 8192], **{k: [v] for k, v in GEMM.items()}},
                           "providers": providers, "baseline": providers[0]},
                   env={"device": "NVIDIA H200"})


def _sweep_points(clocks: dict[tuple[str, int], float | None]):
    base = {("torch", 1024): 50.0, ("triton", 1024): 52.0, ("torch", 8192): 350.0, ("triton", 8192): 360.0}
    return [clocked_point(p, {"M": m, **GEMM}, us, clocks[(p, m)], seed=i)
            for i, ((p, m), us) in enumerate(base.items())]


def test_the_sweep_table_and_best_say_when_points_ran_at_very_different_clocks():
    from bench_kernel.report import best_table, sweep_table
    from bench_kernel.results import best_per_point

    points = _sweep_points({("torch", 1024): 1980, ("triton", 1024): 1515, ("torch", 8192): 1845,
                            ("triton", 8192): 1560})
    spread = clock_spread(points)
    assert (spread.max_mhz, spread.min_mhz, spread.clocked) == (1980, 1515, 4)
    # 1980 * 0.9 = 1782: 1845 is within 10%, 1515 and 1560 are not.
    assert spread.below == ("triton M=1024 N=4096 K=4096", "triton M=8192 N=4096 K=4096")
    run = _run(points)
    best = best_per_point(points)
    expected = ("SM clock: 2 of 4 points ran more than 10% below this run's highest median clock (1980 MHz; "
                "lowest 1515 MHz): triton M=1024 N=4096 K=4096, triton M=8192 N=4096 K=4096; ")
    (note,) = [n for n in sweep_table(run, points, best).notes if n.startswith("SM clock")]
    assert note == expected + ("a compute-bound kernel's time follows the clock, so their times are not "
                               "comparable with the others'; --steady holds each point's load until the clock settles")
    (note,) = [n for n in best_table(run, best, points).notes if n.startswith("SM clock")]
    assert note.startswith(expected) and "can look fastest for that alone; --steady" in note
    # A run made with --steady: the low clocks are each point's settled state, and the note says so
    # instead of suggesting the option that was used (seen in the H200 GEMM sweep).
    held = run.replace(config={**run.config, "options": {"steady": True}})
    (note,) = [n for n in sweep_table(held, points, best).notes if n.startswith("SM clock")]
    assert note == ("SM clock: 2 of 4 points settled more than 10% below this run's highest median clock (1980 MHz; "
                    "lowest 1515 MHz): triton M=1024 N=4096 K=4096, triton M=8192 N=4096 K=4096; measured with "
                    "--steady, each is its sustained, power-capped time (reproducible run to run), not the burst a "
                    "single call after an idle moment gets")


@pytest.mark.parametrize("clock", [None, 1980.0, 1515.0])
def test_no_clock_note_without_clocks_or_with_one_steady_clock(clock):
    from bench_kernel.report import best_table, sweep_table
    from bench_kernel.results import best_per_point

    points = _sweep_points({k: clock for k in (("torch", 1024), ("triton", 1024), ("torch", 8192), ("triton", 8192))})
    assert (clock_spread(points) is None) == (clock is None)
    best = best_per_point(points)
    notes = sweep_table(_run(points), points, best).notes + best_table(_run(points), best, points).notes
    assert not [n for n in notes if "SM clock" in n]


def _store_runs(db, runs: list[dict[tuple[str, int], tuple[float, float | None]]]) -> None:
    with open_store(db) as store:
        for i, points in enumerate(runs):
            run = store.start_run(kind="sweep", name="sweep_gemm.py:sweep", config={"providers": ["torch", "triton"]},
                                  env={"device": "NVIDIA H200"})
            for j, ((provider, m), (us, clock)) in enumerate(points.items()):
                store.save_result(run.id, clocked_point(provider, {"M": m, **GEMM}, us, clock, seed=10 * i + j).result)
            store.finish_run(run.id)


def test_cli_exit_status_counts_clock_limited_slowdowns_only_with_strict_clocks(tmp_path, run_cli):
    db = str(tmp_path / "r.db")
    _store_runs(db, [
        {("triton", 1024): (51.8, 1980), ("torch", 8192): (353.5, 1845)},
        {("triton", 1024): (58.8, 1515), ("torch", 8192): (392.5, 1560)},   # identical code, lower clocks
        {("triton", 1024): (57.0, 1980), ("torch", 8192): (353.5, 1845)},   # triton made 10% slower
    ])
    r = run_cli("compare", "1", "2", "--db", db)
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.count("slower (clock)") == 5  # two rows, their two notes and the rule
    assert "triton M=1024 N=4096 K=4096: slower (clock): SM clock A 1980 MHz, B 1515 MHz (clock ratio 1.307" in r.stdout
    assert "torch M=8192 N=4096 K=4096: slower (clock): SM clock A 1845 MHz, B 1560 MHz (clock ratio 1.183" in r.stdout
    assert "slower (clock) is not counted as a regression (--strict-clocks counts it)" in r.stdout
    assert "0 faster, 2 slower, 0 same, 0 inconclusive, 0 unmatched (2 of them marked (clock))" in r.stdout
    strict = run_cli("compare", "1", "2", "--db", db, "--strict-clocks", "--json")
    assert strict.exit_code == 1
    data = json.loads(strict.stdout)
    assert (data["strict_clocks"], data["clock_limited"], data["regressions"]) == (True, 2, 2)
    assert strict.stderr.startswith("bench-kernel: error: 2 significant regression(s) of run 2 against run 1; worst: "
                                    "triton M=1024 N=4096 K=4096: slower: B ")
    assert strict.stderr.endswith(", the slower side at a lower SM clock: A 1980 MHz, B 1515 MHz; the machine differs: "
                                  "median SM clock 1980 -> 1515 MHz\n")
    real = run_cli("compare", "1", "3", "--db", db, "--json")
    assert real.exit_code == 1
    verdicts = {p["provider"]: (p["comparison"]["verdict"], p["comparison"]["clock_limited"])
                for p in json.loads(real.stdout)["points"]}
    assert verdicts == {"triton": ("slower", False), "torch": ("same", False)}


def test_cli_without_clocks_behaves_as_before(tmp_path, run_cli):
    db = str(tmp_path / "r.db")
    _store_runs(db, [{("triton", 1024): (51.8, None)}, {("triton", 1024): (58.8, None)}])
    for extra in ((), ("--strict-clocks",)):
        r = run_cli("compare", "1", "2", "--db", db, *extra)
        assert r.exit_code == 1 and "(clock)" not in r.stdout and "SM clock" not in r.stdout
    data = json.loads(run_cli("compare", "1", "2", "--db", db, "--json").stdout)
    assert [(c["verdict"], c["clock_a_mhz"], c["clock_b_mhz"], c["clock_limited"])
            for c in (p["comparison"] for p in data["points"])] == [
        ("slower", None, None, False)]


def test_samples_with_a_tail_still_give_the_clock_verdict():
    # gpu_like_samples puts 5% of samples 20-60% slower: the round medians, not the tails, decide.
    a = rounds_measurement(3, 3, median_us=51.8, between=0.005, n=70, clock_mhz=1980)
    b = rounds_measurement(4, 3, median_us=58.8, between=0.005, n=70, clock_mhz=1515)
    c = compare(a, b)
    assert (c.verdict, c.clock_limited, c.is_regression(), c.is_regression(strict_clocks=True)) == (
        "slower", True, False, True)
