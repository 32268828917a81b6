"""The suite's own guards (tests/_guards.py), run on planted tests in an inner pytest session: an
unmarked test that starts a process fails, and so does an unmarked test past its time bound."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

CONFTEST = "from _guards import pytest_configure, pytest_runtest_call, pytest_runtest_setup, pytest_runtest_teardown\n"
INI = """
[pytest]
markers =
    slow: slow
    multiprocess: starts processes
"""
PLANTED = """
import multiprocessing, subprocess, sys, time
import pytest

def test_starts_one():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.mark.multiprocess
def test_starts_one_and_says_so():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_starts_a_multiprocessing_one():
    p = multiprocessing.get_context("spawn").Process(target=print)
    p.start()
    p.join()

def test_runs_git_only():
    subprocess.run(["git", "--version"], capture_output=True)

@pytest.fixture(scope="module")
def server():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    yield p
    p.kill()
    p.wait()

def test_uses_a_fixture_that_starts_one(server):
    assert server.poll() is None

def test_fails_on_its_own():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert 1 == 2

def test_takes_long():
    time.sleep(0.6)

@pytest.mark.slow
def test_takes_long_and_says_so():
    time.sleep(0.6)
"""


#: The one inner session the three tests below read (1.5 s, two planted tests sleep): run once per process.
_session: list = []


@pytest.fixture
def outcomes(request):
    if not _session:
        pytester, monkeypatch = request.getfixturevalue("pytester"), request.getfixturevalue("monkeypatch")
        pytester.makeconftest(CONFTEST)
        pytester.makeini(INI)
        pytester.makepyfile(test_planted=PLANTED)
        monkeypatch.setenv("BENCH_KERNEL_TEST_BOUND_S", "0.3")
        monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))  # the bound is the base bound, unscaled
        result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
        _session.append((result, {r.nodeid.split("::")[1] + (f" {r.when}" if r.when != "call" else ""): r.outcome
                                  for r in result.reprec.getreports("pytest_runtest_logreport")
                                  if r.when == "call" or r.failed}))
    return _session[0]


@pytest.mark.multiprocess
def test_a_process_started_by_an_unmarked_test_fails_it_and_says_what(outcomes):
    result, got = outcomes
    assert got["test_starts_one"] == "failed" and got["test_starts_one_and_says_so"] == "passed"
    assert got["test_starts_a_multiprocessing_one"] == "failed"
    assert got["test_runs_git_only"] == "passed"  # a quick tool the library runs in every command
    assert got["test_uses_a_fixture_that_starts_one setup"] == "failed"  # seen in the fixture's setup
    result.stdout.fnmatch_lines(["*test_starts_one starts a process in its call (subprocess *python*) but is not "
                                 "marked multiprocess*", "*test_starts_a_multiprocessing_one starts a process in its "
                                 "call (multiprocessing SpawnProcess)*"])


@pytest.mark.multiprocess
def test_a_tests_own_failure_comes_first(outcomes):
    result, got = outcomes
    assert got["test_fails_on_its_own"] == "failed"
    assert "test_fails_on_its_own starts a process" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*assert 1 == 2*"])


@pytest.mark.multiprocess
def test_an_unmarked_test_past_the_bound_fails_and_a_slow_one_does_not(outcomes):
    result, got = outcomes
    assert got["test_takes_long"] == "failed" and got["test_takes_long_and_says_so"] == "passed"
    result.stdout.fnmatch_lines(["*test_takes_long took 0.6 s of its own, over the 0.3 s bound of a test not marked slow*"])


def test_the_bound_grows_with_the_load_per_core_and_the_variable_sets_or_lifts_it(monkeypatch):
    import _guards

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.delenv(_guards.BOUND_ENV, raising=False)
    monkeypatch.setattr("os.getloadavg", lambda: (1.0, 0.0, 0.0))
    assert _guards.bound_s() == 5.0
    monkeypatch.setattr("os.getloadavg", lambda: (8.0, 0.0, 0.0))
    assert _guards.bound_s() == 20.0
    monkeypatch.setenv(_guards.BOUND_ENV, "12")
    assert _guards.bound_s() == 48.0
    monkeypatch.setenv(_guards.BOUND_ENV, "0")
    assert _guards.bound_s() == 0.0
    monkeypatch.setenv(_guards.BOUND_ENV, "soon")
    with pytest.raises(pytest.UsageError, match="BENCH_KERNEL_TEST_BOUND_S='soon': give seconds, or 0 for no bound"):
        _guards.bound_s()
    monkeypatch.delenv(_guards.BOUND_ENV)  # before this test's own bound is checked, as it ends


COMPETED = """
import os, subprocess, sys, time
sys.path.insert(0, {tests!r})
import _guards

cpu = min(os.sched_getaffinity(0))
os.sched_setaffinity(0, {{cpu}})  # the child inherits it: both want the one CPU
rival = subprocess.Popen([sys.executable, "-c", "while True: pass"])
time.sleep(0.2)  # the rival is running
before = _guards.runqueue_waits_ns()
t0, c0 = time.perf_counter(), time.thread_time()
while time.perf_counter() - t0 < 1.0:
    pass
wall, ran = time.perf_counter() - t0, time.thread_time() - c0
waited = _guards.waited_s(before)
rival.kill()
print(wall, ran, waited)
"""


@pytest.mark.multiprocess
@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux's per-thread schedstat is absent")
def test_a_tests_own_time_leaves_out_the_time_another_process_held_its_cpu():
    """Wall time less the run-queue wait is the time the test ran: the CPU time it got."""
    tests = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", COMPETED.format(tests=tests)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    wall, ran, waited = map(float, out.split())
    assert 0.2 * wall < waited < wall  # it shared its CPU: about half of the time went to the rival
    assert wall - waited == pytest.approx(ran, abs=0.1 * wall)
