"""Rounds in a sweep: interleaved across points and providers, each host-method round in a fresh
process, one stored row per round, joined when read, and a killed sweep resumed round by round."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import bench_kernel
from _sweep_helpers import FAST, write_spec
from bench_kernel.results import open_store
from bench_kernel.sweeps import load_spec, run_sweep

TWO = {**FAST, "rounds": 2}

pytestmark = [pytest.mark.slow, pytest.mark.multiprocess]  # fresh worker processes, a killed CLI


def test_rounds_are_interleaved_and_each_host_round_runs_in_a_fresh_process(tmp_path, monkeypatch):
    spec, db, log = write_spec(tmp_path), tmp_path / "r.db", tmp_path / "calls.log"
    monkeypatch.setenv("SWEEP_TEST_LOG", str(log))
    res = run_sweep(load_spec(str(spec)), store=db, options=TWO)
    # round 1 of every point and provider, then round 2 of those whose round 1 measured: the
    # mismatch (wrong M=2) and the unsupported point (picky M=3) are not run again
    assert log.read_text().split() == ["wrong", "1", "picky", "1", "wrong", "2", "picky", "2", "wrong", "3", "picky",
                                       "3", "wrong", "1", "picky", "1", "picky", "2", "wrong", "3"]
    by = {(p.provider, p.params["M"]): p for p in res.points}
    assert len(res.points) == 9 and res.run.n_points == 9
    ok = [p for p in res.points if p.status == "ok"]
    assert len(ok) == 7
    for p in ok:
        m = p.result.measurements["host"]
        assert m.rounds == 2 and len(m.round_medians_us) == 2 and m.median_us > 0
        pids = [r["pid"] for r in p.result.env["rounds"]]
        assert len(pids) == 2 and pids[0] != pids[1] and os.getpid() not in pids  # a fresh process per round
    assert by[("wrong", 2)].status == "mismatch" and by[("picky", 3)].status == "unsupported"
    assert by[("wrong", 2)].result.measurements == {} and "rounds" not in by[("wrong", 2)].result.env
    assert by[("wrong", 1)].result.correct is True  # checked in round 1, that verdict kept
    assert res.run.config["rounds"] == 2 and res.run.config["options"]["rounds"] == 2
    assert res.run.config["sharding"]["round_processes"] == "fresh"
    with open_store(db) as store:
        rows = store.rounds_done(res.run.id)
    assert sum(len(v) for v in rows.values()) == 9 + 7  # one row per point and round


def test_a_sweep_from_the_api_keeps_its_rounds_in_this_process():
    res = bench_kernel.sweep({"n": [8, 64]}, {"a": lambda p: (lambda: sum(range(p["n"])))}, **{**FAST, "rounds": 3})
    assert [p.result.measurements["host"].rounds for p in res.points] == [3, 3]
    assert res.run.config["sharding"]["round_processes"] == "kept" and res.run.config["rounds"] == 3
    assert {p.worker for p in res.points} == {"main"}


def test_a_pool_of_kept_workers_runs_every_round(tmp_path):
    # --gpus workers keep their processes across rounds (a CUDA context and compiled kernels cost
    # seconds): the pool must take a second round. It did not (each worker quit when a round ran
    # out of units, and round 2 waited forever: seen on the H200). The slot only sets
    # CUDA_VISIBLE_DEVICES, so this runs without a GPU; a child process bounds a hang.
    spec = tmp_path / "s.py"
    spec.write_text("def sweep():\n    return {'axes': {'n': [1, 2, 3]}, "
                    "'providers': {'a': lambda p: (lambda: sum(range(p['n'] * 100)))}}\n")
    code = ("import json, os, sys\n"
            "from bench_kernel.sweeps import load_spec, run_sweep\n"
            f"res = run_sweep(load_spec({str(spec)!r}), store={str(tmp_path / 'r.db')!r}, gpus=[0], "
            f"options={{**{FAST!r}, 'rounds': 3}})\n"
            "print(json.dumps([[p.status, p.worker, p.result.measurements['host'].rounds,\n"
            "                   sorted({r['pid'] for r in p.result.env['rounds']})] for p in res.points]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    points = __import__("json").loads(r.stdout)
    assert [p[:3] for p in points] == [["ok", "gpu:0", 3]] * 3
    assert len({pid for p in points for pid in p[3]}) == 1  # one worker process served every round


def _rows(db):
    if not db.exists():
        return {}
    try:
        with open_store(db, timeout_s=1) as store:
            runs = store.runs()
            return store.rounds_done(runs[0].id) if runs else {}
    except Exception:  # noqa: BLE001 - the file may be half-created when polled
        return {}


def test_a_killed_sweep_resumes_the_missing_rounds_only(tmp_path, run_cli):
    spec, db = write_spec(tmp_path), tmp_path / "r.db"
    env = {**os.environ, "SWEEP_TEST_SLEEP_S": "0.1", "BENCH_KERNEL_DB": str(db)}
    args = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "bench_kernel", "sweep", str(spec), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not any(2 in v for v in _rows(db).values()) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _rows(db)
    assert sum(len(v) for v in before.values()) < 16 and all(1 in v for v in before.values())
    r = run_cli("sweep", str(spec), "--db", str(db), "--resume", "1", "--json")
    assert r.exit_code == 1  # wrong M=2 is a mismatch
    with open_store(db) as store:
        after = store.rounds_done(1)
        points = store.points(1)
        run = store.run(1)
    assert sum(len(v) for v in after.values()) == 16 and run.status == "done" and run.n_points == 9
    assert all(after[k][r] == st for k, v in before.items() for r, st in v.items())  # nothing re-run
    assert {p.key: p.result.measurements["host"].rounds for p in points if p.status == "ok"} == {
        k: 2 for k, v in after.items() if v.get(1) == "ok"}
