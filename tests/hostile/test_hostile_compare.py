"""compare on samples that are not times: never "same", one line, exit 1.

Before: a B median of ``inf`` compared as "same" with exit 0; a few ``inf`` samples gave a CI of
"nan" and numpy warnings on stderr; a NaN, 0 or negative median an "internal error: ValueError"
line. bench-kernel never measures such values, but a ``--json`` file or a database edited by hand,
or damaged, can hold anything: the files here are built that way, from real records.
"""

from __future__ import annotations

import json
import math
import warnings

import pytest

from _results_helpers import gpu_like_samples, result
from bench_kernel.records import BenchResult, Measurement, PointResult, Samples
from bench_kernel.results import (
    best_per_point,
    compare_points,
    open_store,
    samples_problem,
)

GOOD = gpu_like_samples(seed=3, n=50, median_us=100.0)
INF, NAN = math.inf, math.nan
#: name -> B's samples, and what the line says about them
HOSTILE = {
    "median_inf": ([INF] * 50, "50 inf of 50 samples"),
    "some_inf": (GOOD[:45] + [INF] * 5, "5 inf of 50 samples"),
    "median_nan": ([NAN] * 50, "50 NaN of 50 samples"),
    "one_nan": (GOOD[:49] + [NAN], "1 NaN of 50 samples"),
    "negative": ([-x for x in GOOD], "50 <= 0 of 50 samples"),
    "zero": ([0.0] * 50, "50 <= 0 of 50 samples"),
    "mixed": ([NAN, -INF, INF, -1.0] + GOOD[:46], "1 NaN, 2 inf, 1 <= 0 of 50 samples"),
}


def _file(path, points: dict[str, list[float]]):
    """A ``run --json`` file of real records, each point's 50 samples as 5 rounds of 10 (so the good
    points get a verdict across rounds); json writes inf and NaN as Infinity and NaN, as a
    hand-edited file may hold them."""
    def rounds(r: BenchResult) -> dict:
        m = r.measurements["host"]
        return r.replace(measurements={"host": m.replace(round_sizes=(10,) * 5)}).to_dict()

    path.write_text(json.dumps({"results": [rounds(result(name, {"M": 64}, s)) for name, s in points.items()]}))
    return path


def _line(side: str, what: str, n: int = 1, name: str = "k M=64") -> str:
    return (f"bench-kernel: error: {n} point(s) not compared; first: {name}: {side}'s host samples hold {what}: "
            f"not times (a per-call time is finite and above 0)\n")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_samples_that_are_not_times_are_flagged_never_same(run_cli, tmp_path, case):
    samples, what = HOSTILE[case]
    a, b = _file(tmp_path / "a.json", {"k": GOOD}), _file(tmp_path / "b.json", {"k": samples})
    r = run_cli("compare", str(a), str(b), "--json")
    assert r.exit_code == 1
    assert r.stderr == _line("B", what)  # one line: no numpy warning, no internal error
    data = json.loads(r.stdout)
    assert data["points"] == [] and data["counts"] == {"faster": 0, "slower": 0, "same": 0, "inconclusive": 0, "unmatched": 1}
    assert data["unmatched"][0]["invalid"] is True and what in data["unmatched"][0]["reason"]
    # the other way round: A is the damaged side
    r = run_cli("compare", str(b), str(a))
    assert r.exit_code == 1 and r.stderr == _line("A", what)


def test_good_points_are_still_compared_beside_a_damaged_one(run_cli, tmp_path):
    a = _file(tmp_path / "a.json", {"k": GOOD, "ok": GOOD})
    b = _file(tmp_path / "b.json", {"k": GOOD[:45] + [INF] * 5, "ok": gpu_like_samples(seed=4, n=50, median_us=100.0)})
    r = run_cli("compare", str(a), str(b), "--json")
    assert r.exit_code == 1 and r.stderr == _line("B", "5 inf of 50 samples")
    data = json.loads(r.stdout)
    assert [(p["provider"], p["comparison"]["verdict"]) for p in data["points"]] == [("ok", "same")]
    c = data["points"][0]["comparison"]
    assert math.isfinite(c["ci_low"]) and math.isfinite(c["ci_high"])


def test_a_regression_and_a_damaged_point_share_one_line(run_cli, tmp_path):
    a = _file(tmp_path / "a.json", {"k": GOOD, "slow": GOOD})
    b = _file(tmp_path / "b.json", {"k": [INF] * 50, "slow": [x * 1.5 for x in GOOD]})
    r = run_cli("compare", str(a), str(b))
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("bench-kernel: error: 1 significant regression(s) of b.json against a.json; worst: slow M=64")
    assert r.stderr.endswith("; and " + _line("B", "50 inf of 50 samples").removeprefix("bench-kernel: error: "))


def test_a_stored_run_with_damaged_samples(run_cli, tmp_path):
    # The store keeps each point's samples as JSON: Infinity and NaN survive the round trip.
    db = tmp_path / "r.db"
    with open_store(db) as store:
        for samples in (GOOD, GOOD[:45] + [INF] * 5):
            run = store.start_run(kind="run", name="t", config={}, env={}, total_points=1)
            store.save_result(run.id, result("k", {"M": 64}, samples))
            store.finish_run(run.id, status="done")
    r = run_cli("compare", "1", "2", "--db", str(db))
    assert r.exit_code == 1 and r.stderr == _line("B", "5 inf of 50 samples")


def test_samples_problem_names_each_kind_once():
    assert samples_problem(GOOD) is None and samples_problem(Samples.of(GOOD)) is None
    assert samples_problem([]) == "no samples"
    assert samples_problem([1.0, 0.0, 2.0]) == "1 <= 0 of 3 samples"  # a bootstrap median of 0 would divide
    assert samples_problem([-INF]) == "1 inf of 1 samples"  # counted once, as inf
    for samples, what in HOSTILE.values():
        assert samples_problem(samples) == what


def test_best_per_point_does_not_rank_a_damaged_provider():
    def point(provider, samples):
        r = BenchResult(provider, {"M": 1}, {"host": Measurement.of("host", Samples.of(samples), calls_per_sample=1)})
        return PointResult(provider, {"M": 1}, "ok", r)

    fast_but_damaged = point("damaged", [0.0] * 50)
    best = best_per_point([point("a", GOOD), fast_but_damaged, point("b", [x * 2 for x in GOOD])])
    assert [(b.provider, b.runner_up, b.candidates) for b in best] == [("a", "b", 2)]
    rc = compare_points([point("a", GOOD)], [point("a", [NAN] * 50)])
    assert rc.rows == () and [u.invalid for u in rc.unmatched] == [True] and rc.regressions == []


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_damaged_samples_make_records_without_a_warning(case):
    # A warning is an error here: numpy's "invalid value" line would reach a user's stderr.
    samples, _ = HOSTILE[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = Measurement.of("host", Samples.of(samples), calls_per_sample=1)
        point = PointResult("k", {"M": 1}, "ok", BenchResult("k", {"M": 1}, {"host": m}))
        rc = compare_points([point], [point])
    assert rc.rows == () and [u.invalid for u in rc.unmatched] == [True]


@pytest.mark.multiprocess
def test_no_numpy_warning_reaches_stderr(tmp_path):
    # In a process of its own: pytest would catch a RuntimeWarning that a user's terminal shows.
    import subprocess
    import sys

    a = _file(tmp_path / "a.json", {"k": GOOD})
    b = _file(tmp_path / "b.json", {"k": HOSTILE["mixed"][0]})  # inf beside -inf: a NaN spread
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "compare", str(a), str(b)], capture_output=True,
                       text=True)
    assert r.returncode == 1 and r.stderr == _line("B", HOSTILE["mixed"][1])
