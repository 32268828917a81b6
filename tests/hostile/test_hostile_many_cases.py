"""Targets with many cases: errors summarised, messages bounded, no per-case thread.

Before: one failure in a 10,000-case target printed a single 69 KB line (every case name), 5,000
failing cases printed 5,000 lines, and ``run --save`` with a failing case printed the error and a
second "stored as run N" line. The time a 10,000-case run takes is measured in
``benchmarks/many_cases.py`` (a timing is no unit test's business).
"""

from __future__ import annotations

import json
import threading

import pytest

FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.001", "--rounds", "1"]
TARGET = '''
def _boom():
    raise ValueError("boom")

def cases(n=10000, failing=0):
    return [{"name": f"case_{i}", "fn": _boom if i < failing else (lambda: None)} for i in range(n)]

def half_fail():
    return cases(40, failing=20)

def one_fails():
    return cases(3, failing=1)

def two_fail():
    return cases(3, failing=2)
'''


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "many.py"
    p.write_text(TARGET)
    return p


@pytest.mark.parametrize("argv", [("profile", "{t}:cases"), ("profile", "{t}:cases", "--case", "case_99999")])
def test_ten_thousand_case_names_make_a_short_line(run_cli, target, argv):
    r = run_cli(*[a.format(t=target) for a in argv])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and len(r.stderr) < 400, r.stderr[:400]
    assert "10000 cases (case_0, case_1, case_2, case_3, case_4, case_5, case_6, case_7 and 9992 more)" in r.stderr
    if "--case" in argv:
        assert r.stderr.endswith("did you mean 'case_9999', 'case_999', 'case_9998'?\n")


def test_many_failures_are_three_lines_and_a_count(run_cli, target, tmp_path):
    out = tmp_path / "out.json"
    r = run_cli("run", f"{target}:half_fail", *FAST, "--save", "--db", str(tmp_path / "r.db"), "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        f"wrote {out}: 20 result(s), 20 failed case(s)",
        "bench-kernel: error: case 'case_0' raised ValueError during warm-up: boom",
        "bench-kernel: error: case 'case_1' raised ValueError during warm-up: boom",
        "bench-kernel: error: case 'case_2' raised ValueError during warm-up: boom",
        f"bench-kernel: error: ... and 17 more failed case(s), 20 in all; {out} lists each under 'errors'; they are "
        f"stored in run 1 in {tmp_path / 'r.db'}",
    ]
    data = json.loads(out.read_text())
    assert [e["name"] for e in data["errors"]] == [f"case_{i}" for i in range(20)]
    assert data["errors"][19]["error"] == "case 'case_19' raised ValueError during warm-up: boom"
    assert len(data["results"]) == 20
    r = run_cli("run", f"{target}:half_fail", *FAST)
    assert r.stderr.splitlines()[-1] == ("bench-kernel: error: ... and 17 more failed case(s), 20 in all; --json "
                                         "lists each under 'errors'")


def test_run_save_with_a_failing_case_is_one_line(run_cli, target, tmp_path):
    db = tmp_path / "r.db"
    r = run_cli("run", f"{target}:one_fails", *FAST, "--save", "--db", str(db))
    assert r.exit_code == 1
    assert r.stderr == (f"bench-kernel: error: case 'case_0' raised ValueError during warm-up: boom (the run is "
                        f"stored as run 1 in {db})\n")
    r = run_cli("run", f"{target}:two_fail", *FAST, "--save", "--db", str(db))
    assert r.stderr.splitlines()[-1] == f"bench-kernel: error: 2 case(s) failed; the run is stored as run 2 in {db}"
    assert r.stderr.count("\n") == 3


def test_time_limits_share_one_watchdog_thread(run_cli, target, monkeypatch):
    # A thread started per case cost ~1 ms of each (benchmarks/many_cases.py); one serves them all.
    started = []
    start = threading.Thread.start

    def counted(self):
        started.append(self.name)
        return start(self)

    def watchdogs() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "bench-kernel time limits"]

    before = watchdogs()  # an earlier test of this process may have started it: it serves this run too
    monkeypatch.setattr(threading.Thread, "start", counted)
    r = run_cli("run", f"{target}:half_fail", *FAST, "--timeout", "60")
    assert r.exit_code == 1 and r.stderr.count("\n") == 4  # 40 cases ran, each within a time limit
    assert len(watchdogs()) == 1, watchdogs()
    assert [n for n in started if "limit" in n] == ([] if before else ["bench-kernel time limits"]), started
