"""The one loop over cases (``run``, ``run --save``, the pytest plugin) and a sweep point's time limit."""

from __future__ import annotations

import time

import pytest

import bench_kernel.orchestrate._bench as bench_module
from _sweep_helpers import FAST
from bench_kernel.errors import DeviceError, MeasurementError, UsageError
from bench_kernel.measure import Case
from bench_kernel.options import Options
from bench_kernel.orchestrate import CaseRunner, run_cases
from bench_kernel.results import open_store

OPTS = Options(**FAST)


def _boom() -> None:
    raise ValueError("no such shape")


def test_a_failing_case_is_recorded_and_the_run_goes_on(tmp_path):
    cases = [Case(fn=lambda: 1, name="a"), Case(fn=_boom, name="b"), Case(fn=lambda: 2, name="c")]
    with open_store(tmp_path / "r.db") as store:
        out = run_cases(cases, OPTS, store=store, name="three")
        points = store.points(out.run.id)
    assert [r.name for r in out.results] == ["a", "c"]
    [err] = out.errors
    assert err.label == "b" and err.message == "case 'b' raised ValueError during warm-up: no such shape"
    assert out.run.status == "done" and out.run.config["options"] == OPTS.to_dict()
    assert {p.provider: p.status for p in points} == {"a": "ok", "b": "error", "c": "ok"}


def test_the_only_case_failing_raises_after_the_run_is_finished(tmp_path):
    with open_store(tmp_path / "r.db") as store:
        with pytest.raises(MeasurementError, match="no such shape"):
            run_cases([Case(fn=_boom, name="b")], OPTS, store=store)
        [run] = store.runs()
        assert run.status == "done" and [p.status for p in store.points(run.id)] == ["error"]


def test_the_machine_state_is_captured_once_per_run(monkeypatch):
    calls = []
    real = bench_module.capture_env  # run_env, the one start of a run, captures it
    monkeypatch.setattr(bench_module, "capture_env", lambda i=0: calls.append(i) or real(i))
    out = run_cases([Case(fn=lambda k=k: k, name=f"c{k}") for k in range(4)], OPTS)
    assert len(out.results) == 4 and calls == [0]
    assert all(r.env is out.results[0].env or r.env == out.results[0].env for r in out.results)


def test_a_case_past_its_limit_is_an_error_and_the_next_runs():
    def slow() -> None:
        time.sleep(5)

    t0 = time.perf_counter()
    out = run_cases([Case(fn=slow, name="slow"), Case(fn=lambda: 1, name="fast")], Options.build(OPTS, timeout_s=0.5))
    assert time.perf_counter() - t0 < 4
    assert [r.name for r in out.results] == ["fast"]
    assert "timed out after 0.5 s" in out.errors[0].message


def test_a_call_may_override_the_runs_options():
    runner = CaseRunner(OPTS)
    r = runner.run(Case(fn=lambda: 1, name="x"), options=Options.build(OPTS, cache="warm"))
    assert r.measurements["host"].cache == "warm"
    assert runner.finish().results == [r]


def test_a_wrong_device_fails_before_anything_runs():
    ran = []
    with pytest.raises(DeviceError, match="unknown device 'H2000'; close matches: H200"):
        run_cases([Case(fn=lambda: ran.append(1), name="x")], Options.build(OPTS, roofline=True, device="H2000"))
    assert ran == []
    with pytest.raises(DeviceError, match="unknown device 'H2000'"):  # the runner checks it as it is made
        CaseRunner(Options.build(OPTS, roofline=True, device="H2000"))


def test_sweep_timeout_bounds_each_point(tmp_path, run_cli):
    spec = tmp_path / "slow.py"
    spec.write_text("import time\n"
                    "def sweep():\n"
                    "    return {'axes': {'s': [0.0, 30.0]}, 'providers': {'p': lambda p: (lambda: time.sleep(p['s']))}}\n")
    t0 = time.perf_counter()
    r = run_cli("sweep", str(spec), "--db", str(tmp_path / "s.db"), "-m", "host", "--max-time", "0.05",
                "--precision", "0.5", "--timeout", "1", "--rounds", "1", "--json")
    assert time.perf_counter() - t0 < 25
    assert r.exit_code == 1 and r.stderr.count("bench-kernel: error:") == 1
    with open_store(tmp_path / "s.db") as store:
        [run] = store.runs()
        statuses = {p.params["s"]: (p.status, p.error) for p in store.points(run.id)}
        assert run.config["options"]["timeout_s"] == 1.0
    assert statuses[0.0][0] == "ok"
    assert statuses[30.0][0] == "error" and "timed out after 1 s" in statuses[30.0][1]


def test_a_bad_option_is_refused_before_the_target_loads(tmp_path, run_cli):
    target = tmp_path / "t.py"
    target.write_text("raise SystemExit('the target was imported')\n")
    r = run_cli("run", f"{target}:cases", "--precision", "0", "--json")
    assert r.exit_code == 2 and "imported" not in r.stderr and "--precision" in r.stderr
    with pytest.raises(UsageError):
        Options(precision=0)


@pytest.mark.slow
@pytest.mark.multiprocess
def test_torch_is_imported_before_the_target_loads_under_its_time_limit(tmp_path):
    # A target's `import torch` took 2-6 s on a cold disk and used up `--timeout 2` before any case
    # ran (seen on the H200): bench-kernel imports torch itself, outside the loading limit.
    import json
    import subprocess
    import sys

    torch = pytest.importorskip("torch")
    del torch
    target = tmp_path / "t.py"
    target.write_text("import sys\nBEFORE = 'torch' in sys.modules\nimport torch\n"
                      "def cases():\n    return [{'name': f'torch_before_{BEFORE}', 'fn': lambda: None}]\n")
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", "--timeout", "30",
                        "-m", "host", "--max-time", "0.02", "--rounds", "1", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [x["name"] for x in json.loads(out.read_text())["results"]] == ["torch_before_True"]


def test_a_run_s_cost_is_split_into_parts_that_sum_to_its_wall():
    from bench_kernel.orchestrate import RunCost
    from bench_kernel.records import BenchResult, Measurement

    def result(held, timing, counting=None, profiler=None):
        env = {"device_warmup": {"action": "held" if held else "skipped", "held_s": held}}
        env.update({"counting_s": counting} if counting else {})
        env.update({"profiler_start_s": profiler} if profiler else {})
        return BenchResult(name="x", env=env, measurements={
            m: Measurement.of(m, (1.0,), wall_s=t) for m, t in zip(("graph", "kernel"), timing)})

    results = [result(0.15, (0.1, 0.2), profiler=2.5), result(0.0, (0.05, 0.05), counting=0.3)]
    cost = RunCost.of(results, {"device_warmup": {"held_s": 0.2}}, total_s=5.0, load_s=1.0)
    assert (cost.warmup_s, cost.profiler_s, cost.timing_s, cost.counting_s) == pytest.approx((0.35, 2.5, 0.4, 0.3))
    parts = cost.load_s + cost.warmup_s + cost.profiler_s + cost.timing_s + cost.counting_s + cost.other_s
    assert parts == pytest.approx(cost.total_s) and cost.other_s == pytest.approx(0.45)
    from bench_kernel.report import cost_line

    assert cost_line(cost) == ("took 5 s: timing 400 ms, loading 1 s, warm-up 350 ms, profiler start-up 2.5 s, "
                               "counting 300 ms, other (checks, inputs, case warm-ups) 450 ms")


def test_a_case_no_method_could_time_fails_the_run_with_the_methods_reason():
    from bench_kernel.orchestrate import CasesRun
    from bench_kernel.records import BenchResult, Measurement

    # What the host method records when every sample waited for a CPU: samples, no time, the reason.
    why = "every one of the 2 samples waited for a CPU for 97% of the time; no sample ran through"
    refused = Measurement.of("host", (700.0, 810.0), cpu_wait_us=(650.0, 790.0), cpu_us=(20.0, 20.0), error=why)
    timed = BenchResult(name="a", measurements={"host": Measurement.of("host", (10.0, 11.0, 12.0))})
    assert CasesRun(results=[timed]).exit_code == 0 and CasesRun(results=[timed]).failures() == []
    out = CasesRun(results=[timed, BenchResult(name="b", measurements={"host": refused})])
    assert [r.name for r in out.untimed] == ["b"] and out.results[1].time_us is None
    assert out.exit_code == 1
    assert out.failures() == [f"case 'b': no method gave a time: {why}"]
    assert out.failure_lines(stored=None, listed="--json") == out.failures()
    # Past the lines shown, the count says where the rest are: refused results are not 'errors'.
    many = CasesRun(results=[BenchResult(name=f"b{i}", measurements={"host": refused}) for i in range(4)])
    assert many.failure_lines(stored=None, listed="--json", shown=3)[-1] == (
        "... and 1 more failed case(s), 4 in all; --json lists each under 'results' (correct false, or no time)")
