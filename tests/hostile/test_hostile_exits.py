"""User code that ends the process: the case's (the point's) error, never the run's silent end.

Before: ``sys.exit(3)`` in a sweep provider ended an inline sweep with exit status 3 and no word;
``os._exit(0)`` in a timed function ended ``run`` and a sweep with status 0, again on every resume.
With ``--workers`` both were already a point's error. Now the inline path says the same thing the
workers do, and the run goes on (why interception, not a child process per point:
``bench_kernel/measure/_exits.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bench_kernel.measure import ProcessExit, exits_raise
from bench_kernel.results import open_store
from bench_kernel.sweeps import load_spec, run_sweep

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]

TARGET = textwrap.dedent('''
    import os, sys

    def _exit_in_reference(x):
        os._exit(5)

    def cases():
        return [
            {"name": "fine", "fn": lambda: sum(range(100))},
            {"name": "os_exit", "fn": lambda: os._exit(0)},
            {"name": "sys_exit", "fn": lambda: sys.exit(4)},
            {"name": "inputs_exit", "fn": lambda x: x, "make_inputs": lambda: os._exit(0)},
            {"name": "reference_exit", "fn": lambda x: x, "make_inputs": lambda: (1,), "reference": _exit_in_reference},
            {"name": "after", "fn": lambda: sum(range(10))},
        ]

    def exits_while_building():
        os._exit(0)
''')

SPEC = textwrap.dedent('''
    import os, sys

    def a(p):
        if p["n"] == 1:
            sys.exit(3)
        return lambda: sum(range(10))

    def b(p):
        def f():
            os._exit(0)
        return f if p["n"] == 2 else (lambda: sum(range(10)))

    def sweep():
        return {"axes": {"n": [1, 2]}, "providers": {"a": a, "b": b}}

    def exits():
        os._exit(0)
''')


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "exits.py"
    p.write_text(TARGET)
    return p


@pytest.fixture
def spec(tmp_path):
    p = tmp_path / "exits_spec.py"
    p.write_text(SPEC)
    return p


def test_run_records_every_exit_as_its_cases_error_and_goes_on(run_cli, target):
    r = run_cli("run", f"{target}:cases", *FAST, "--json")
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "bench-kernel: error: case 'os_exit' called os._exit(0) during warm-up",
        "bench-kernel: error: case 'sys_exit' called sys.exit(4) during warm-up",
        "bench-kernel: error: case 'inputs_exit' called os._exit(0) during make_inputs",
        "bench-kernel: error: ... and 1 more failed case(s), 4 in all; --json lists each under 'errors'",
    ]
    data = json.loads(r.stdout)
    assert [x["name"] for x in data["results"]] == ["fine", "after"]
    assert data["errors"][-1] == {"name": "reference_exit", "params": {},
                                  "error": "case 'reference_exit' called os._exit(5) during the correctness check"}


def test_an_exit_while_loading_the_target_is_one_line(run_cli, target, tmp_path):
    r = run_cli("run", f"{target}:exits_while_building", *FAST)
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: {target}:exits_while_building() called os._exit(0)\n")
    at_import = tmp_path / "at_import.py"
    at_import.write_text("import os\nos._exit(0)\n")
    r = run_cli("run", f"{at_import}:cases", *FAST)
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: importing {str(at_import)!r} called os._exit(0)\n")


@pytest.mark.multiprocess
@pytest.mark.slow
def test_an_inline_sweep_stores_each_exit_as_that_points_error(run_cli, spec, tmp_path):
    db = tmp_path / "r.db"
    r = run_cli("sweep", str(spec), "--db", str(db), *FAST, "--json")
    assert r.exit_code == 1
    assert r.stderr == ("bench-kernel: error: 2 point(s) failed or gave a wrong result (a n=1: error; b n=2: error); "
                        "the reasons are in the table notes and in run 1\n")
    errors = {(p["provider"], p["params"]["n"]): p["error"] for p in json.loads(r.stdout)["points"] if p["error"]}
    assert errors == {("a", 1): "provider 'a' at {'n': 1} called sys.exit(3)",
                      ("b", 2): "case 'b' called os._exit(0) during the correctness check"}
    with open_store(db) as store:
        run = store.run(1)
        assert (run.status, run.n_points) == ("done", 4)
    # Nothing is left to resume: the exits are stored results, not points that killed their process.
    again = run_cli("sweep", str(spec), "--db", str(db), "--resume", "1", "--json")
    assert again.exit_code == 1 and len(json.loads(again.stdout)["points"]) == 4


@pytest.mark.multiprocess
@pytest.mark.slow
def test_workers_and_inline_say_the_same(spec, tmp_path):
    loaded = load_spec(str(spec))
    fast = dict(methods=("host",), precision=0.5, max_time_s=0.02, rounds=1)
    inline = run_sweep(loaded, store=tmp_path / "inline.db", options=fast)
    workers = run_sweep(loaded, store=tmp_path / "workers.db", workers=1, options=fast)
    assert {p.key: (p.status, p.error) for p in inline.points} == {p.key: (p.status, p.error) for p in workers.points}


def test_a_callable_spec_that_exits(run_cli, spec):
    r = run_cli("sweep", f"{spec}:exits", *FAST)
    assert (r.exit_code, r.stderr) == (1, f"bench-kernel: error: {spec}:exits() called os._exit(0)\n")


@pytest.mark.multiprocess
def test_os_exit_is_real_outside_the_block_in_a_forked_child_and_through_a_captured_name():
    with exits_raise():
        with pytest.raises(ProcessExit) as e:
            os._exit(9)
        assert e.value.code == 9
        pid = os.fork()
        if pid == 0:  # the child: multiprocessing ends its children with os._exit
            os._exit(7)
        assert os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 7
    code = ("from bench_kernel.measure import exits_raise\n"
            "with exits_raise():\n    from os import _exit\n"
            "_exit(5)\n"
            "print('not reached')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (5, "")


@pytest.mark.multiprocess
@pytest.mark.slow
def test_an_exit_no_python_code_can_intercept_leaves_the_point_claimed_for_resume(tmp_path):
    # C's _exit (a C extension's exit()) still ends the process, with C's status. Its point stays
    # claimed ('running', one attempt): --resume tries it once more, then stores it as an error
    # (Store.claim_point; tests/test_results_store.py holds that part).
    spec = tmp_path / "c_exit.py"
    spec.write_text("import ctypes\n"
                    "def sweep():\n    return {'axes': {'n': [1, 2]}, 'providers': {'a': lambda p: "
                    "(lambda: ctypes.CDLL(None)._exit(0)) if p['n'] == 2 else (lambda: 1)}}\n")
    db = tmp_path / "r.db"
    # One round runs inline, in the sweep's own process: the exit ends the sweep.
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "sweep", str(spec), "--db", str(db), *FAST],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == ""
    with open_store(db) as store:
        assert store.run(1).status == "running"
        points = {p.params["n"]: p.status for p in store.points(1, include_running=True)}
    assert points == {1: "ok", 2: "running"}
    # Host-method rounds (more than one) each run in fresh processes: the exit ends one worker,
    # and the point is stored as an error naming it; the sweep goes on and exits 1.
    db2 = tmp_path / "r2.db"
    r = subprocess.run([sys.executable, "-m", "bench_kernel", "sweep", str(spec), "--db", str(db2), *FAST,
                        "--rounds", "2"], capture_output=True, text=True)
    assert r.returncode == 1 and "(a n=2: error)" in r.stderr
    with open_store(db2) as store:
        assert store.run(1).status == "done"
        points = {p.params["n"]: (p.status, p.error) for p in store.points(1)}
    assert points[1] == ("ok", None) and points[2][0] == "error" and "died (exit code 0)" in points[2][1]
