"""The pytest plugin, run for real with ``pytester``: a suite of user tests in a temporary folder
that asks for ``kernel_bench`` (found through the ``pytest11`` entry point, no ``-p``)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from bench_kernel.gpu import has_gpu

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True, scope="module")
def _measuring_code_loaded_once():
    # pytester's in-process runs drop the modules they imported afterwards; loaded here first,
    # torch, the measuring code and hypothesis (its plugin imports it at the end of every
    # session) are kept instead of re-imported by every inner session (2-3 s each).
    import hypothesis  # noqa: F401
    import torch  # noqa: F401

    import bench_kernel.orchestrate  # noqa: F401

#: A host-timed test that passes anywhere: fast bounds so the inner session takes a second.
HOST_TEST = """
def work():
    return sum(range(3000))

def test_sum(kernel_bench):
    # five rounds asked for: left to the time bound, a loaded machine spends it in the first round
    r = kernel_bench(work, methods=("host",), max_time_s=0.05, precision=0.05, bytes=8 * 3000, rounds=5)
    assert r.method == "host"
    assert 0 < r.ci95_us[0] <= r.median_us <= r.ci95_us[1]
    assert r.median_us < 1e6
"""


def test_the_plugin_is_registered_as_a_pytest11_entry_point():
    found = [e for e in entry_points(group="pytest11") if e.name == "bench_kernel"]
    assert [e.value for e in found] == ["bench_kernel.pytest_plugin"]


@pytest.mark.multiprocess
def test_importing_the_plugin_loads_neither_torch_numpy_nor_the_measuring_code():
    code = ("import sys, bench_kernel.pytest_plugin\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy', 'rich')"
            " or m.startswith(('bench_kernel.measure', 'bench_kernel.orchestrate', 'bench_kernel.results'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_host_method_test_passes_and_the_session_ends_with_the_summary_table(pytester):
    pytester.makepyfile(test_k=HOST_TEST)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= kernel_bench summary =*", "*kernel_bench: 1 measurement(s)*",
                                 "*test_k.py::test_sum*host*µs*±*%*"])


def test_the_median_is_the_primary_methods_and_a_failing_bound_fails_the_test(pytester):
    pytester.makepyfile(test_k="""
        def test_too_slow(kernel_bench):
            r = kernel_bench(lambda: sum(range(3000)), methods=("host",), max_time_s=0.05, precision=0.05)
            assert r.median_us == r.result.median_us("host") == r.result.time_us
            assert r.median_us < 0, f"median {r.median_us} us"
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: median * us*"])


@pytest.mark.skipif(has_gpu(), reason="checks the behaviour without a GPU")
def test_without_a_gpu_gpu_methods_skip_with_the_reason_and_host_tests_run(pytester):
    pytester.makepyfile(test_k=HOST_TEST + """
def test_default_methods(kernel_bench):
    kernel_bench(work)

def test_graph_and_host(kernel_bench):
    kernel_bench(work, methods=("graph", "host"))
""")
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=2)
    # Each skip points at the line of the user's test that called kernel_bench, not into the plugin.
    lines = (pytester.path / "test_k.py").read_text().splitlines()
    at = [i + 1 for i, line in enumerate(lines) if line.lstrip().startswith("kernel_bench(work")]
    result.stdout.fnmatch_lines([
        f"SKIPPED [[]1] test_k.py:{at[0]}: kernel_bench: graph, events, kernel need a CUDA/HIP GPU and none is "
        "visible (methods=('host',) times on the host)",
        f"SKIPPED [[]1] test_k.py:{at[1]}: kernel_bench: graph need a CUDA/HIP GPU and none is visible*"])


def test_a_wrong_result_fails_the_test_and_is_not_timed(pytester):
    pytester.makepyfile(test_k="""
        def test_wrong(kernel_bench):
            kernel_bench(lambda x: x + 1, make_inputs=lambda: (1.0,), reference=lambda x: x + 2,
                         methods=("host",), max_time_s=0.05)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*kernel_bench: *test_wrong: wrong result, not timed*"])
    assert "kernel_bench summary" not in result.stdout.str()


def test_the_same_name_and_params_twice_is_refused(pytester):
    pytester.makepyfile(test_k="""
        def test_twice(kernel_bench):
            for n in (1, 2):
                kernel_bench(lambda: None, methods=("host",), max_time_s=0.02, params={"n": n})
            kernel_bench(lambda: None, methods=("host",), max_time_s=0.02, params={"n": 1})
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*with params {'n': 1} was already measured in this session*"])
    result.stdout.fnmatch_lines(["*kernel_bench: 2 measurement(s)*"])


def test_a_bad_threshold_is_a_usage_error(pytester):
    pytester.makepyfile(test_k=HOST_TEST)
    result = pytester.runpytest("--kernel-bench-threshold", "1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--kernel-bench-threshold must be a fraction in [[]0, 1) (0.04 = 4%), got 1.5*"])


def _baseline_file(path, median_us: float, name: str = "test_k.py::test_sum") -> str:
    """A ``run --json`` file (real records) holding ``name`` timed on the host at ``median_us``."""
    import json

    from _results_helpers import gpu_like_samples, result

    r = result(name, {}, gpu_like_samples(seed=1, n=60, median_us=median_us, sigma=0.01))
    path.write_text(json.dumps({"results": [r.to_dict()]}))
    return str(path)


def test_a_significant_regression_against_a_baseline_file_fails_with_both_medians(pytester):
    # The baseline says this test took 1 us; summing 3000 ints takes tens: a certain regression.
    pytester.makepyfile(test_k=HOST_TEST)
    base = _baseline_file(pytester.path / "base.json", median_us=1.0)
    result = pytester.runpytest("--kernel-bench-baseline", base)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*kernel_bench: test_k.py::test_sum: slower than the baseline base.json: * vs * (host, each round's "
        "min), ratio *.* (99% CI *-*, 1+5 rounds, *noise floor +/-*%), beyond the 4% threshold*"])
    result.stdout.fnmatch_lines(["*test_k.py::test_sum*host*µs*973.3 ns*x (*–*)*slower*"])  # the baseline's fastest sample


def test_a_faster_run_passes_and_a_test_not_in_the_baseline_says_so(pytester):
    pytester.makepyfile(test_k=HOST_TEST + """
def test_new(kernel_bench):
    kernel_bench(work, methods=("host",), max_time_s=0.05, precision=0.05, name="new")
""")
    base = _baseline_file(pytester.path / "base.json", median_us=100_000.0)  # 100 ms: surely slower
    result = pytester.runpytest("--kernel-bench-baseline", base)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_k.py::test_sum*97.* ms*faster*", "*new (test_k.py::test_new)*not in base.json*"])


def test_a_baseline_whose_samples_are_not_times_fails_the_test(pytester):
    # A hand-edited baseline holding inf: a gate must not pass on what it cannot read.
    import json

    pytester.makepyfile(test_k=HOST_TEST)
    base = pytester.path / "base.json"
    data = json.loads(open(_baseline_file(base, median_us=10.0)).read())
    data["results"][0]["measurements"]["host"]["samples_us"][:3] = [float("inf")] * 3
    base.write_text(json.dumps(data))
    result = pytester.runpytest("--kernel-bench-baseline", str(base))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*kernel_bench: test_k.py::test_sum: cannot compare with the baseline base.json: "
                                 "A's host samples hold 3 inf of 60 samples: not times*"])


def test_save_then_compare_round_trips_through_the_store(pytester):
    pytester.makepyfile(test_k=HOST_TEST)
    db = str(pytester.path / "results.db")
    first = pytester.runpytest("--kernel-bench-save", "--kernel-bench-db", db)
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines([f"kernel_bench: stored 1 measurement(s) as run 1 in {db}"])
    from bench_kernel.results import open_store

    with open_store(db) as store:
        run = store.run("latest")
        (point,) = store.points(run)
    assert (run.kind, run.status, run.name) == ("run", "done", f"pytest {pytester.path.name}")
    assert run.command[:3] == ("pytest", "--kernel-bench-save", "--kernel-bench-db")
    assert (point.provider, point.status) == ("test_k.py::test_sum", "ok") and point.result.measurements["host"].ok
    # Against that run. Two host timings on a shared machine compare as its load makes them: a busy
    # CI machine once ran the second 1.9x slower than the first (99% CI 1.78-2.06), a real slowdown
    # that no threshold below 100% lets pass. So the verdict is read, and the outcome must follow it.
    second = pytester.runpytest("--kernel-bench-baseline", "latest", "--kernel-bench-db", db,
                                "--kernel-bench-threshold", "0.9")
    [row] = [line for line in second.outlines if "test_k.py::test_sum" in line and "│" in line]
    verdict = row.split("│")[-2].strip()
    assert verdict in ("slower", "same", "inconclusive", "faster")
    if verdict == "slower":
        second.assert_outcomes(failed=1)
        second.stdout.fnmatch_lines(["*kernel_bench: test_k.py::test_sum: slower than the baseline run 1:*"])
    else:
        second.assert_outcomes(passed=1)
    import statistics

    from bench_kernel.units import format_duration_us

    # what compare compares: the geometric mean of the host round minima
    base = statistics.geometric_mean(point.result.measurements["host"].round_times_us)
    # the verdict of two host timings on a shared machine is whatever its load makes it: not asserted here
    second.stdout.fnmatch_lines([f"*test_k.py::test_sum*host*{format_duration_us(base)}*x (*–*)*",
                                 "*baseline run 1: its time and the ratio = this run's time / the baseline's*"])


def test_a_baseline_that_is_not_there_is_a_usage_error_before_any_test(pytester):
    pytester.makepyfile(test_k=HOST_TEST)
    db = str(pytester.path / "empty.db")
    result = pytester.runpytest("--kernel-bench-baseline", "7", "--kernel-bench-db", db)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: kernel_bench: no run 7 in '{db}' (it holds no runs; see 'bench-kernel history')"])
    result = pytester.runpytest("--kernel-bench-baseline", "nope.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: kernel_bench: 'nope.json' is neither a results file nor a stored run*"])


#: The inner suite's conftest: ``bench()`` replays what a power-capped H200 recorded for each test
#: (per-call samples around a median, and the SM clock per sample), so the baseline comparison sees
#: real records with clocks on a machine without NVML. The plugin's verdict logic runs for real.
H200_REPLAY = """
import pytest

import bench_kernel.orchestrate
from bench_kernel.records import BenchResult, Measurement, Samples

#: test -> (median us, median SM clock MHz) of this run
THIS_RUN = {"test_k.py::test_triton": (58.8, 1515.0), "test_k.py::test_torch": (110.0, 1980.0)}


def replay(case, options, **kw):
    name, params = case.name, case.params
    us, mhz = THIS_RUN[name]
    samples = [us * (1 + 0.001 * (i % 7 - 3)) for i in range(60)]
    # three rounds, as the baseline: one round against rounds is bounded by the method's floor
    m = Measurement.of("host", Samples.of(samples), stop_reason="precision", sm_clock_mhz=(mhz,) * 60,
                       round_sizes=(20, 20, 20))
    return BenchResult(name=name, params=dict(params), measurements={"host": m}, correct=None)


@pytest.fixture(autouse=True)
def power_capped_h200(monkeypatch):
    # where every measurement goes through (the plugin, run and sweeps alike)
    monkeypatch.setattr("bench_kernel.orchestrate._cases.bench_case", replay)
"""

CLOCKED_TESTS = """
def test_triton(kernel_bench):
    kernel_bench(lambda: None, methods=("host",))

def test_torch(kernel_bench):
    kernel_bench(lambda: None, methods=("host",))
"""


def _clocked_baseline(path) -> str:
    """The baseline run: triton at 51.8 us and 1980 MHz (this run: 58.8 us at 1515, identical code),
    torch at 100 us and 1980 MHz (this run: 110 us at 1980, a real 10% slowdown)."""
    import json

    from _results_helpers import clocked_point

    results = [clocked_point(f"test_k.py::test_{name}", {}, us, 1980.0, seed=i, method="host").result.to_dict()
               for i, (name, us) in enumerate((("triton", 51.8), ("torch", 100.0)))]
    path.write_text(json.dumps({"results": results}))
    return str(path)


def test_a_slowdown_this_runs_lower_clock_explains_passes_unless_strict(pytester):
    pytester.makeconftest(H200_REPLAY)
    pytester.makepyfile(test_k=CLOCKED_TESTS)
    base = _clocked_baseline(pytester.path / "base.json")
    result = pytester.runpytest("--kernel-bench-baseline", base)
    result.assert_outcomes(passed=1, failed=1)  # the real 10% at equal clocks still fails
    result.stdout.fnmatch_lines(["*test_k.py::test_triton*slower (clock)*",
                                 "*test_k.py::test_triton: slower (clock): SM clock baseline 1980 MHz, this run "
                                 "1515 MHz: the lower clock alone can explain it*"])
    result.stdout.fnmatch_lines(["*kernel_bench: test_k.py::test_torch: slower than the baseline base.json: 1* µs "
                                 "vs * µs (host, each round's min), ratio 1.*, 3+3 rounds, noise floor +/-*), beyond "
                                 "the 4% threshold*"])
    assert "test_triton: slower than the baseline" not in result.stdout.str()
    strict = pytester.runpytest("--kernel-bench-baseline", base, "--kernel-bench-strict-clocks")
    strict.assert_outcomes(failed=2)
    strict.stdout.fnmatch_lines(["*kernel_bench: test_k.py::test_triton: slower than the baseline base.json: "
                                 "58.* µs vs 5*.* µs (host, each round's min), ratio 1.1* beyond the 4% threshold; this run at a lower "
                                 "SM clock (1515 MHz vs the baseline's 1980), counted by --kernel-bench-strict-clocks*"])


def test_the_plugin_threshold_is_compares():
    # written out in the plugin (importing results would load numpy into every pytest session)
    from bench_kernel.pytest_plugin import _DEFAULT_THRESHOLD
    from bench_kernel.pytest_plugin._fixture import SessionState
    from bench_kernel.results import DEFAULT_THRESHOLD

    assert _DEFAULT_THRESHOLD == SessionState().threshold == DEFAULT_THRESHOLD


SESSION_OPTIONS_TESTS = """
import time

def test_defaults_from_the_session(kernel_bench):
    r = kernel_bench(lambda: sum(range(100)))  # no methods here: the session's --kernel-bench-method host
    assert r.method == "host" and r.result.measurements["host"].cache == "warm"

def test_a_call_overrides_the_session(kernel_bench):
    kernel_bench(lambda: time.sleep(5), name="sleeper", timeout_s=0.5)
"""


def test_the_session_takes_runs_measuring_options_and_a_call_overrides_them(pytester):
    pytester.makepyfile(test_k=SESSION_OPTIONS_TESTS)
    result = pytester.runpytest("--kernel-bench-method", "host", "--kernel-bench-cache", "warm",
                                "--kernel-bench-max-time", "0.05", "--kernel-bench-precision", "0.5",
                                "--kernel-bench-timeout", "60")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*TimeLimitError*sleeper*timed out after 0.5 s*"])


def test_a_bad_session_option_is_a_usage_error_before_any_test(pytester):
    pytester.makepyfile(test_k=HOST_TEST)
    result = pytester.runpytest("--kernel-bench-precision", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*kernel_bench: precision must be a finite number > 0*"])
