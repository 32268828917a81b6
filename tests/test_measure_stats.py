"""Statistics and the stopping rule, on synthetic samples (no GPU)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench_kernel.measure import StoppingRule
from bench_kernel.records import Samples, median_ci95_ranks


def test_samples_statistics_match_numpy():
    vals = [5.0, 1.0, 3.0, 2.0, 4.0, 100.0]
    s = Samples.of(vals)
    assert s.n == 6
    assert s.median_us == 3.5
    assert s.min_us == 1.0
    assert s.mean_us == pytest.approx(115 / 6)
    q1, q3 = np.percentile(vals, [25, 75])
    assert s.iqr_us == pytest.approx(q3 - q1)


def test_ci_ranks_follow_binomial_normal_approximation():
    # n = 100: 50 -/+ 1.96 * 10 / 2 = 40.2 .. 59.8 -> ranks 40 and 60 (0-based)
    assert median_ci95_ranks(100) == (40, 60)
    # too few samples: the whole range
    assert median_ci95_ranks(4) == (0, 3)
    s = Samples.of(range(100))
    assert s.ci95_us == (40.0, 60.0)
    assert s.rel_ci95 == pytest.approx(10 / 49.5)


def test_median_ci_covers_true_median_about_95_percent():
    # A skewed distribution like real timings; the true median of lognormal(0, 0.5) is 1.
    rng = np.random.default_rng(7)
    hits = 0
    trials = 2000
    for _ in range(trials):
        lo, hi = Samples.of(rng.lognormal(0.0, 0.5, size=50)).ci95_us
        hits += lo <= 1.0 <= hi
    assert 0.93 <= hits / trials <= 0.985


def test_empty_samples_are_nan_not_errors():
    s = Samples(())
    assert math.isnan(s.median_us) and s.rel_ci95 == math.inf


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_stops_on_precision_after_min_samples():
    rule = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    rule.add([10.0] * 9)
    assert not rule.is_finished()
    rule.add([10.0])
    assert rule.is_finished() and rule.reason == "precision"


def test_noisy_samples_need_more_samples_than_quiet_ones():
    rng = np.random.default_rng(0)

    def samples_needed(spread: float) -> int:
        rule = StoppingRule(precision=0.01, min_samples=10, max_samples=100_000, clock=FakeClock())
        while not rule.is_finished():
            rule.add(list(100 + spread * rng.standard_normal(10)))
        return rule.samples.n

    quiet, noisy = samples_needed(0.5), samples_needed(5.0)
    assert quiet <= 20
    assert noisy > 5 * quiet


def test_stops_on_time_bound_and_on_max_samples():
    clock = FakeClock()
    rule = StoppingRule(precision=1e-6, max_time_s=1.0, clock=clock)
    rule.add([1.0, 2.0, 3.0])
    assert not rule.is_finished()
    clock.t = 1.5
    assert rule.is_finished() and rule.reason == "time"

    rule = StoppingRule(precision=1e-6, min_samples=5, max_samples=20, clock=FakeClock())
    rule.add(list(range(1, 21)))
    assert rule.is_finished() and rule.reason == "max_samples"
    assert rule.remaining(50) == 1


@pytest.mark.parametrize("kwargs", [{"precision": 0}, {"min_samples": 0}, {"max_time_s": -1},
                                    {"min_samples": 10, "max_samples": 5}])
def test_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        StoppingRule(**kwargs)


@pytest.mark.parametrize("seed", range(4))
def test_running_order_statistics_equal_samples_after_every_add(seed):
    # The rule keeps the median and the CI's ranks as running order statistics; they must be the
    # very numbers Samples computes from the same values, after every add (batches of 1-7, ties,
    # a long tail, values added in rising and falling runs).
    rng = np.random.default_rng(seed)
    rule = StoppingRule(precision=1e-9, max_samples=100_000, clock=FakeClock())
    values: list[float] = []
    while len(values) < 600:
        kind = rng.integers(4)
        k = int(rng.integers(1, 8))
        batch = (list(np.round(rng.lognormal(1.0, 0.4, k), 1)) if kind == 0 else
                 sorted(rng.normal(3.0, 0.1, k)) if kind == 1 else
                 sorted(rng.normal(3.0, 0.1, k), reverse=True) if kind == 2 else [float(rng.integers(1, 4))] * k)
        rule.add(batch)
        values += [float(v) for v in batch]
        s = Samples.of(values)
        assert rule.n == s.n
        assert rule.median_us == s.median_us
        assert rule.rel_ci95 == s.rel_ci95
    assert rule.samples.values_us == tuple(values)


def test_rank_tracker_answers_any_rank_in_any_order():
    from bench_kernel.measure._stopping import RankTracker

    rng = np.random.default_rng(3)
    t, vals = RankTracker(), []
    for _ in range(300):
        v = float(rng.normal())
        t.add(v)
        vals.append(v)
        k = int(rng.integers(len(vals)))
        assert t.at(k) == sorted(vals)[k]
    with pytest.raises(IndexError):
        t.at(len(vals))
    assert t.pair(10) == tuple(sorted(vals)[10:12])


def test_rule_statistics_with_no_samples():
    rule = StoppingRule(clock=FakeClock())
    assert math.isnan(rule.median_us) and rule.rel_ci95 == math.inf and rule.n == 0
    assert rule.samples.n == 0 and not rule.is_finished()


def test_a_ticking_timer_stops_the_rule_at_one_step_not_at_the_time_bound():
    # The profiler's durations on an H200 come in 32 ns steps: a 1.12 us kernel reads 1.088, 1.120 or
    # 1.152 us, and the interval stays +/-1.4% however long it samples (it hit the bound every round).
    from bench_kernel.measure._stopping import note_step, timer_step_us

    ticks = [1.088] * 12 + [1.12] * 14 + [1.152] * 4  # the interval: ranks 9 and 21, 1.088 to 1.120
    assert timer_step_us(ticks) == pytest.approx(0.032)
    assert timer_step_us(list(np.random.default_rng(1).normal(10, 0.1, 50))) == 0.0  # continuous: no step
    assert timer_step_us([2.0] * 5) == 0.0
    rule = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    rule.add(ticks)
    assert rule.rel_ci95 > 0.01 and not rule.is_finished()  # the interval alone never gets there
    note_step(rule, ticks)
    assert rule.resolution_us == pytest.approx(0.032)
    assert rule.is_finished() and rule.reason == "resolution"
    note_step(rule, [1.0, 1.064, 1.128])  # a batch that shows two steps does not widen the step kept
    assert rule.resolution_us == pytest.approx(0.032)
    assert timer_step_us([1.0, 1.5]) == 0.0  # two values: any gap is their step; no tick is shown
    # the one-element add on the H200: median 1.056 us, its interval a tick either side (1.024-1.088)
    wide = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    spread = [1.024] * 14 + [1.056] * 10 + [1.088] * 14
    wide.add(spread)
    assert wide.ci95_us == (1.024, 1.088) and wide.rel_ci95 > 0.03 and not wide.is_finished()
    note_step(wide, spread)
    assert wide.is_finished() and wide.reason == "resolution"


def test_a_batch_on_two_values_only_takes_their_gap_as_the_step():
    # The H100's profiler read a one-element add as 1.344 or 1.376 us only: no third value shows the
    # tick, and the interval spanned both (+/-1.2%) until 520 samples had it collapse onto one.
    from bench_kernel.measure._stopping import TWO_VALUE_SAMPLES, note_step

    two = [1.344] * 42 + [1.376] * 38
    rule = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    rule.add(two)
    assert rule.ci95_us == (1.344, 1.376) and not rule.is_finished()
    note_step(rule, two)
    assert rule.resolution_us == pytest.approx(0.032)
    assert rule.is_finished() and rule.reason == "resolution"
    few = StoppingRule(precision=0.01, min_samples=2, clock=FakeClock())
    note_step(few, [1.0, 1.5] * ((TWO_VALUE_SAMPLES - 1) // 2))  # too few samples to call it a timer's tick
    assert few.resolution_us == 0.0
    continuous = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    note_step(continuous, list(np.random.default_rng(2).normal(10, 0.1, 40)))
    assert continuous.resolution_us == 0.0


def test_a_tick_read_in_whole_nanoseconds_is_still_a_tick():
    # A 31.25 ns tick rounded to whole ns: 42, 43 and 44 ticks read 1312 or 1313, 1344, 1375 ns.
    from bench_kernel.measure._stopping import note_step, timer_step_us

    ns = [1313] * 7 + [1312] * 7 + [1344] * 12 + [1375] * 14
    us = [v / 1000 for v in ns]
    assert timer_step_us(us) == pytest.approx(0.03125, abs=0.001)
    rule = StoppingRule(precision=0.01, min_samples=10, clock=FakeClock())
    rule.add(us)
    assert not rule.is_finished()  # the interval spans 1.312-1.375: 2.4%
    note_step(rule, us)
    assert rule.is_finished() and rule.reason == "resolution"
    # continuous values are no tick, however close two of them fall
    wide = list(np.random.default_rng(3).normal(10, 0.5, 60))
    assert timer_step_us(wide) == 0.0


def test_checks_come_early_and_batches_double_up_to_the_method_s_own():
    rule = StoppingRule(precision=1e-9, min_samples=10, max_samples=1000, clock=FakeClock())
    sizes = []
    while not rule.is_finished():
        n = rule.next_batch(200)
        sizes.append(n)
        rule.add([1.0 + 1e-3 * i for i in range(n)])
    assert sizes[:6] == [10, 10, 20, 40, 80, 160] and max(sizes) == 200 and rule.n == 1000
    assert StoppingRule(clock=FakeClock()).next_batch(5) == 5  # a method's batch smaller than the first


def test_the_time_bound_can_start_when_sampling_does():
    clock = FakeClock()
    rule = StoppingRule(precision=1e-9, max_time_s=1.0, clock=clock)
    clock.t = 3.0  # e.g. waiting for the profiler's first session
    rule.restart_clock()
    rule.add([1.0, 2.0])
    assert not rule.is_finished()
    clock.t = 4.1
    assert rule.is_finished() and rule.reason == "time"


def test_triton_version_is_read_without_importing_triton(tmp_path, monkeypatch):
    import sys

    from bench_kernel.measure._env import triton_version

    pkg = tmp_path / "triton"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("__version__ = '9.8.7'\nraise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "triton", raising=False)
    assert triton_version() == "9.8.7"
    assert "triton" not in sys.modules


def test_without_a_gpu_driver_the_env_reads_torch_s_version_without_importing_it(tmp_path, monkeypatch):
    # A sweep worker or fresh round process timing pure-Python code paid torch's import (2-7 s)
    # only for this version string.
    import sys

    from bench_kernel.measure import _env

    pkg = tmp_path / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (pkg / "version.py").write_text("__version__ = '9.8.7+cpu'\ncuda = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(_env, "no_gpu_driver", lambda: True)
    env = _env.capture_env()
    assert (env["torch"], env["backend"], "cpu_threads" in env) == ("9.8.7+cpu", "cpu", False)
    assert "torch" not in sys.modules


@pytest.mark.multiprocess
def test_bench_of_pure_python_code_in_a_fresh_process_loads_no_torch():
    # The whole path of a bench() call -- the env, the check's types, the host method -- without
    # torch's 2-7 s import, where the measured code never loads it and no GPU can be here.
    import subprocess
    import sys

    from bench_kernel.gpu import no_gpu_driver

    torch = pytest.importorskip("torch")
    if not no_gpu_driver():
        pytest.skip("with a GPU driver, torch is asked whether a GPU is there")
    code = ("import sys, bench_kernel\n"
            "r = bench_kernel.bench(lambda: sum(range(100)), reference=lambda: 4950, max_time_s=0.02,"
            " rounds=1, precision=0.5)\n"
            "print(r.correct, r.measurements['host'].median_us > 0, 'torch' in sys.modules, r.env['torch'],"
            " r.env.get('cpu_threads'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "False", str(torch.__version__), "None"]


def test_a_measurement_made_again_from_its_samples_reuses_their_statistics_and_no_other_does():
    from bench_kernel.records import Measurement

    rng = np.random.default_rng(3)
    values = tuple(float(v) for v in rng.lognormal(0.0, 0.2, 801))
    first = Measurement.of("graph", values)
    again = first.replace(sm_clock_mhz=tuple(1980.0 for _ in values))  # what each round's clocks do
    assert again.samples is first.samples and again.median_us == first.median_us == float(np.median(values))
    other = Measurement.of("graph", values[:-1] + (values[-1] * 100.0,))
    assert other.samples is not first.samples and other.mean_us > first.mean_us
    # What is derived depends on the method and the rounds too, not on the samples alone.
    host = Measurement.of("host", values, round_sizes=(400, 401))
    assert host.round_statistic == "min" and host.round_times_us == (min(values[:400]), min(values[400:]))
    assert host.median_us == float(np.median([np.median(values[:400]), np.median(values[400:])]))
    waited = Measurement.of("host", values, cpu_wait_us=(values[0],) + (0.0,) * 800)  # its first sample waited
    assert (waited.n, waited.disturbed) == (800, 1) and waited.min_us == min(values[1:])
    # Lists, as a caller building the record by hand may give them, read as tuples do.
    listed = Measurement(method="host", samples_us=list(values), round_sizes=[400, 401], cpu_wait_us=[0.0] * 801)
    assert listed.samples_us == values and listed.round_times_us == host.round_times_us
    missing = Measurement.of("events", (None,) + values[1:])  # read back from JSON's null
    assert missing.samples_us[0] != missing.samples_us[0] and missing.median_us is None  # NaN: refused
