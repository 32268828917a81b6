"""A callable that never returns: ``run --timeout`` reports it and goes on; Ctrl-C exits 130.

Before: an infinite loop or a sleep hung ``run`` forever, and Ctrl-C printed a blank line and exit 1.
What the time limit can and cannot interrupt is in ``bench_kernel/measure/_limit.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import bench_kernel
from bench_kernel.cli.run import SCHEMA_VERSION as RUN_SCHEMA_VERSION
from bench_kernel.errors import TimeLimitError
from bench_kernel.measure import TimeLimit

HANGING = """
import os, signal, time
def _entered(name):  # so the test knows each case was running when the limit stopped it
    with open(os.environ["HANGING_LOG"], "a") as fh:
        fh.write(name + "\\n")
def spin():
    _entered("spin")
    while True:
        pass
def sleep():
    _entered("sleep")
    time.sleep(600)
def swallow():  # user code that catches Exception cannot swallow the limit
    _entered("swallow")
    while True:
        try:
            time.sleep(600)
        except Exception:
            pass
def stuck():  # SIGALRM blocked + a sleep: like a C call that never returns to the interpreter
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(600)
def cases():
    return [{"name": "ok", "fn": lambda: None}, {"name": "spin", "fn": spin}, {"name": "sleep", "fn": sleep},
            {"name": "swallow", "fn": swallow}, {"name": "ok2", "fn": lambda: None}]
def in_make_inputs():
    return [{"name": "slow inputs", "fn": lambda x: x, "make_inputs": lambda: (sleep(),)}]
def in_c():
    return [{"name": "ok", "fn": lambda: None}, {"name": "stuck", "fn": stuck}, {"name": "never", "fn": lambda: None}]
"""


@pytest.fixture
def hanging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    p = tmp_path / "hanging.py"
    p.write_text(textwrap.dedent(HANGING))
    monkeypatch.setenv("HANGING_LOG", str(tmp_path / "entered.log"))
    return p


@pytest.mark.slow
def test_loops_and_sleeps_time_out_and_the_run_goes_on(run_cli, hanging):
    # No wall-clock bound here (a shared machine makes one flaky): a limit that did not work would
    # leave these callables running forever, so reaching the asserts is the proof that it worked.
    # 2 s leaves the two no-op cases far from their limit however loaded the machine is.
    r = run_cli("run", f"{hanging}:cases", "--timeout", "2", "-m", "host", "--max-time", "0.02", "--rounds", "1",
                "--json")
    assert r.exit_code == 1
    assert r.stderr == ("bench-kernel: error: case 'spin' timed out after 2 s during warm-up\n"
                        "bench-kernel: error: case 'sleep' timed out after 2 s during warm-up\n"
                        "bench-kernel: error: case 'swallow' timed out after 2 s during warm-up\n")
    # each was running its own code when stopped (a busy loop, a sleep, a sleep inside `except Exception`)
    assert (hanging.parent / "entered.log").read_text().split() == ["spin", "sleep", "swallow"]
    # and the run went on: the case after them was measured
    assert [x["name"] for x in json.loads(r.stdout)["results"]] == ["ok", "ok2"]
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # the handler is put back


def test_the_phase_is_named(run_cli, hanging):
    r = run_cli("run", f"{hanging}:in_make_inputs", "--timeout", "0.3", "-m", "host")
    assert r.exit_code == 1
    assert r.stderr == "bench-kernel: error: case 'slow inputs' timed out after 0.3 s during make_inputs\n"


def test_api_timeout_raises_time_limit_error():
    def spin() -> None:
        while True:
            pass

    with pytest.raises(TimeLimitError, match=r"^case 'spin' timed out after 0.3 s during warm-up$"):
        bench_kernel.bench(spin, methods=("host",), timeout_s=0.3)


def test_no_limit_installs_nothing():
    with TimeLimit(0, "x") as limit:
        assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert not limit.enabled and not limit.expired
    assert not TimeLimit(None, "x").enabled and not TimeLimit(float("inf"), "x").enabled


def test_a_limit_outside_the_main_thread_stops_pure_python():
    # no signal handlers off the main thread: PyThreadState_SetAsyncExc instead
    got: list[BaseException] = []

    def worker() -> None:
        try:
            with TimeLimit(0.3, "bg"):
                while True:
                    pass
        except BaseException as e:  # noqa: BLE001 - the test records what arrived
            got.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join(20)
    assert not t.is_alive()
    assert [type(e) for e in got] == [TimeLimitError] and str(got[0]) == "case 'bg' timed out after 0.3 s"


def test_a_finished_block_is_never_interrupted_later():
    # Deterministic: once the block is over the watchdog must drop its deadline without acting. The
    # limit is waited on until the watchdog retires it (it cannot fire after that), and a SIGALRM
    # handler of ours stands in the place a late signal would reach, so a late fire fails here
    # instead of killing the process (SIG_DFL).
    fired: list[int] = []
    old = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        with TimeLimit(0.2, "quick") as limit:
            pass
        assert limit.retired.wait(30)  # at the latest when its 0.2 s are up, finding the block finished
        assert (fired, limit.expired) == ([], False)
        assert signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL  # ours again, restored by the limit
    finally:
        signal.signal(signal.SIGALRM, old)


def test_a_finished_block_off_the_main_thread_is_never_interrupted_later():
    # Off the main thread the watchdog raises asynchronously in the thread; after the block the
    # thread goes on working past the deadline and must see nothing.
    seen: list[BaseException] = []
    done = threading.Event()

    def worker() -> None:
        try:
            with TimeLimit(0.2, "quick-bg") as limit:
                pass
            assert limit.retired.wait(30)  # past its deadline: now it could only have fired late
            for _ in range(100_000):  # bytecodes, where a pending async exception would land
                pass
        except BaseException as e:  # noqa: BLE001 - the test records what arrived
            seen.append(e)
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    t.join(60)
    assert done.is_set() and seen == []


@pytest.mark.parametrize("bad", ["nan", "-1", "abc"])
def test_bad_timeout_values_are_usage_errors(run_cli, bad):
    r = run_cli("run", "--timeout", bad)
    assert r.exit_code == 2 and r.stderr.startswith("bench-kernel: error: Invalid value for '--timeout'")


def test_api_refuses_a_negative_timeout():
    from bench_kernel.errors import UsageError

    with pytest.raises(UsageError, match=r"timeout_s must be > 0 seconds \(0, None or inf: no limit\), got -1"):
        bench_kernel.bench(lambda: None, methods=("host",), timeout_s=-1)


@pytest.mark.slow
@pytest.mark.multiprocess
def test_stuck_in_c_writes_the_results_so_far_and_exits_1(hanging, tmp_path):
    out = tmp_path / "res.json"
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{hanging}:in_c", "--timeout", "0.5",
                        "-m", "host", "--max-time", "0.02", "--rounds", "1", "-o", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1] == (
        "bench-kernel: error: case 'stuck' timed out after 0.5 s in code that cannot be interrupted (a C call or "
        "a GPU wait); stopped the run after 1 finished case(s), their results written")
    assert [x["name"] for x in json.loads(out.read_text())["results"]] == ["ok"]


@pytest.mark.slow
@pytest.mark.multiprocess
def test_ctrl_c_exits_130_with_one_line(tmp_path):
    ready = tmp_path / "ready"
    target = tmp_path / "sleeper.py"
    target.write_text(textwrap.dedent(f"""
        import pathlib, time
        def cases():
            def fn():
                pathlib.Path({str(ready)!r}).touch()
                time.sleep(600)
            return {{"name": "sleeper", "fn": fn}}
    """))
    # Started as a terminal starts a foreground job: with Ctrl-C's default action. A suite started in
    # the background by a non-interactive shell has SIGINT ignored, an ignored signal stays ignored
    # across exec, and a CLI that inherits that rightly ignores Ctrl-C (as under nohup); a handler
    # set here becomes the default action in the child.
    default = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        p = subprocess.Popen([sys.executable, "-m", "bench_kernel", "run", f"{target}:cases", "-m", "host"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, default)
    deadline = time.monotonic() + 300  # generous: at load ~10 the start alone can take a minute
    while not ready.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert ready.exists(), p.communicate()
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=300)  # it ended past 60 s once, at load ~10
    assert p.returncode == 130
    assert err == "bench-kernel: error: interrupted\n" and out == ""


# --- the target itself hangs before returning its cases ----------------------------------------------
# Before: `run T --timeout 3` waited forever when T's function (or its import) never returned.

@pytest.mark.parametrize("func", ["spin", "sleep"])
def test_a_target_that_never_returns_its_cases_times_out(run_cli, hanging, func):
    target = hanging  # its spin() and sleep() never return: as the TARGET's function they hang the load
    t0 = time.perf_counter()
    r = run_cli("run", f"{target}:{func}", "--timeout", "0.5", "-m", "host")
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: loading '{target}:{func}' timed out after 0.5 s (--timeout): its "
                        f"function did not return its cases\n")
    assert time.perf_counter() - t0 < 30  # bounded, not the 600 s the function would take


def test_an_import_that_never_ends_times_out(run_cli, tmp_path):
    target = tmp_path / "slow_import.py"
    target.write_text("import time\ntime.sleep(600)\ndef cases():\n    return lambda: None\n")
    r = run_cli("run", f"{target}:cases", "--timeout", "0.5", "-m", "host")
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: loading '{target}:cases' timed out after 0.5 s "
                                          f"(--timeout): its function did not return its cases\n")


@pytest.mark.multiprocess
@pytest.mark.slow
def test_a_target_stuck_in_c_while_loading_exits_1_with_one_line(hanging):
    target = hanging
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "run", f"{target}:stuck", "--timeout", "0.5",
                        "-m", "host", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert r.stderr == (f"bench-kernel: error: loading '{target}:stuck' timed out after 0.5 s in code that cannot "
                        f"be interrupted (a C call or a GPU wait); nothing was measured\n")
    assert json.loads(r.stdout) == {"schema_version": RUN_SCHEMA_VERSION, "results": [], "errors": []}
