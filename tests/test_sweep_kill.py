"""A sweep killed with SIGKILL mid-way loses nothing it finished, and --resume completes it
with every point present exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from _sweep_helpers import write_spec
from bench_kernel.results import open_store

FAST_ARGS = ["-m", "host", "--precision", "0.5", "--max-time", "0.02"]


def _final_points(db):
    if not db.exists():
        return []
    try:
        with open_store(db, timeout_s=1) as store:
            runs = store.runs()
            return store.points(runs[0]) if runs else []
    except Exception:  # noqa: BLE001 - the file may be half-created when polled
        return []


def test_sigkill_then_resume(tmp_path, run_cli, monkeypatch):
    spec, db, log = write_spec(tmp_path), tmp_path / "r.db", tmp_path / "calls.log"
    env = {**os.environ, "SWEEP_TEST_SLEEP_S": "0.4", "SWEEP_TEST_LOG": str(log), "BENCH_KERNEL_DB": str(db)}
    proc = subprocess.Popen([sys.executable, "-m", "bench_kernel", "sweep", str(spec), *FAST_ARGS], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(_final_points(db)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    before = {p.key: p.finished_at for p in _final_points(db)}
    assert 3 <= len(before) < 9
    with open_store(db) as store:
        assert store.run(1).status == "running"  # killed: nobody could mark it
    monkeypatch.setenv("SWEEP_TEST_LOG", str(log))
    r = run_cli("sweep", str(spec), "--db", str(db), "--resume", "1", "--json")
    assert r.exit_code == 1  # wrong@M=2 is a mismatch; it says so in one line
    assert r.stderr.splitlines()[-1] == ("bench-kernel: error: 1 point(s) failed or gave a wrong result (wrong M=2 "
                                         "kind=a: mismatch); the reasons are in the table notes and in run 1")
    with open_store(db) as store:
        points = store.points(1, include_running=True)
        run = store.run(1)
    keys = [p.key for p in points]
    assert len(keys) == len(set(keys)) == 9  # every point exactly once
    assert all(p.status != "running" for p in points) and run.status == "done" and run.n_points == 9
    assert {p.key: p.finished_at for p in points if p.key in before} == before  # finished ones not re-run
    calls = log.read_text().split("\n")
    for provider, key in before:  # a point finished before the kill was built once, not again
        if provider in ("wrong", "picky"):
            m = key.split('"M":')[1].split(",")[0]
            assert calls.count(f"{provider} {m}") == 1, (provider, m)
    assert sum(calls.count(f"{p} {m}") for p in ("wrong", "picky") for m in (1, 2, 3)) <= 6 + 1  # + the one cut off
