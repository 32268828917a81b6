"""A sweep killed with SIGKILL mid-way loses nothing it finished, and --resume completes it
with every point present exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from _sweep_helpers import write_spec
from bench_kernel.results import open_store

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]

FAST_ARGS = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]


def _stored(db, include_running=False):
    with open_store(db) as store:
        return store.points(1, include_running=include_running)


def test_sigkill_then_resume(tmp_path, run_cli, monkeypatch):
    spec, db, log, ready = write_spec(tmp_path), tmp_path / "r.db", tmp_path / "calls.log", tmp_path / "ready"
    # Units run point by point (add, wrong, picky at M=1, then M=2, ...). wrong's factory at M=2 says
    # it started and hangs: the process is killed there, with exactly four points finished.
    env = {**os.environ, "SWEEP_TEST_HANG_AT": "2", "SWEEP_TEST_READY": str(ready), "SWEEP_TEST_LOG": str(log),
           "BENCH_KERNEL_DB": str(db)}
    err = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "bench_kernel", "sweep", str(spec), *FAST_ARGS], env=env,
                            stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 120  # only so that a broken sweep fails here instead of hanging
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    err.close()
    assert ready.exists(), (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == -signal.SIGKILL
    before = {p.key: p.finished_at for p in _stored(db)}
    assert sorted(before) == sorted([("add", '{"M":1,"kind":"a"}'), ("wrong", '{"M":1,"kind":"a"}'),
                                     ("picky", '{"M":1,"kind":"a"}'), ("add", '{"M":2,"kind":"a"}')])
    # the point it died in is there too, marked running: nothing finished is lost, nothing is guessed
    running = [p.key for p in _stored(db, include_running=True) if p.status == "running"]
    assert running == [("wrong", '{"M":2,"kind":"a"}')]
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
    # Each factory ran once, but wrong at M=2: once when killed, once on --resume. Nothing finished ran again.
    assert log.read_text().split() == ["wrong", "1", "picky", "1", "wrong", "2",   # before the kill
                                       "wrong", "2", "picky", "2", "wrong", "3", "picky", "3"]  # --resume
