"""The results store: round trip, durability settings, schema migration, refusal of foreign files."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time

import pytest

from _results_helpers import gpu_like_samples, result, v1_database
from bench_kernel.errors import StoreError
from bench_kernel.records import BenchResult, PointResult, RunInfo, info
from bench_kernel.results import SCHEMA_VERSION, default_db_path, open_store, provenance
from bench_kernel.results._schema import APP_ID


@pytest.fixture
def db(tmp_path):
    return tmp_path / "r.db"


def _columns(path, table):
    with sqlite3.connect(path) as c:
        return [(r[1], r[2], r[3], r[4]) for r in c.execute(f"PRAGMA table_info({table})")]


def test_round_trip_keeps_raw_samples_env_and_provenance(db, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    spec = repo / "spec.py"
    spec.write_text("x = 1\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "spec.py"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "spec"], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    prov = provenance(spec)
    assert (prov.git_commit, prov.git_dirty) == (head, False)
    spec.write_text("x = 2\n")
    assert provenance(spec).git_dirty is True

    samples = gpu_like_samples(1, n=40)
    with open_store(db) as store:
        run = store.start_run(kind="sweep", name="spec.py:sweep", config={"providers": ["a"], "baseline": "a"},
                              env={"device": "H200", "state_before": {"sm_clock_mhz": 1980}},
                              command=["bench-kernel", "sweep", "spec.py"], source=prov.to_dict(), total_points=1)
        assert run.status == "running" and run.n_points == 0
        assert store.claim_point(run.id, "a", {"M": 1, "N": 8})
        store.save_result(run.id, result("a", {"M": 1, "N": 8}, samples, flops=1e9), worker="host:1", wall_s=0.5)
        store.finish_run(run.id, wall_s=1.5, env={**run.env, "state_after": {"sm_clock_mhz": 1755}})
    with open_store(db) as store:
        got = store.run("latest")
        (point,) = store.points(got)
    assert got.source_hash == prov.sha256 and got.git_commit == head and got.git_dirty is False
    assert got.command == ("bench-kernel", "sweep", "spec.py")
    assert got.env["state_before"] == {"sm_clock_mhz": 1980} and got.env["state_after"] == {"sm_clock_mhz": 1755}
    assert (got.status, got.n_points, got.total_points, got.wall_s) == ("done", 1, 1, 1.5)
    assert point.result.measurements["host"].samples.values_us == tuple(samples)
    assert list(point.params) == ["M", "N"] and point.params == {"M": 1, "N": 8}
    assert (point.status, point.worker, point.wall_s, point.result.flops) == ("ok", "host:1", 0.5, 1e9)
    assert point.median_us == pytest.approx(float(sorted(samples)[19] + sorted(samples)[20]) / 2)


def test_records_round_trip_through_dicts():
    r = result("k", {"M": 4}, [1.0, 2.0, 3.0], notes=(info("n", "n"),), correct=True, bytes=64.0)
    assert BenchResult.from_dict(r.to_dict()).to_dict() == r.to_dict()
    p = PointResult("k", {"M": 4}, "ok", r, worker="gpu:1", wall_s=0.1, run_id=3, finished_at="t")
    assert PointResult.from_dict(json.loads(json.dumps(p.to_dict()))).to_dict() == p.to_dict()
    run = RunInfo(1, "sweep", "s", "done", "2026-01-01T00:00:00Z", command=("a",), config={"x": 1})
    assert RunInfo.from_dict(json.loads(json.dumps(run.to_dict()))) == run


def test_file_is_wal_versioned_and_marked(db):
    open_store(db).close()
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert c.execute("PRAGMA application_id").fetchone()[0] == APP_ID


def test_a_real_v1_file_is_migrated_in_place(db, tmp_path):
    # A file laid out exactly as version 1 wrote it, with a run and a point in it.
    v1_database(db, result("torch", {"M": 16}, [10.0, 11.0, 12.0, 13.0, 14.0]))
    with open_store(db) as store:
        run = store.run(1)
        (p,) = store.points(run)
    assert (run.name, run.source_hash, run.git_commit, run.git_dirty, run.device) == (
        "old.py:sweep", "ab12", "c0ffee", None, "H100")
    assert p.result.measurements["host"].samples.values_us == (10.0, 11.0, 12.0, 13.0, 14.0)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == 3
        # the new indexed figures were filled from the stored JSON; an old point is round 1
        assert c.execute("SELECT method, median_us, attempts, round FROM points").fetchone() == ("host", 12.0, 1, 1)
        # v3's uniqueness is per round: the same point's round 2 can be stored, its round 1 not again
        c.execute("INSERT INTO points (run_id, provider, params_key, status, round) VALUES (1, 'torch', '{\"M\":16}', 'ok', 2)")
        with pytest.raises(sqlite3.IntegrityError):
            c.execute("INSERT INTO points (run_id, provider, params_key, status, round) VALUES (1, 'torch', '{\"M\":16}', 'ok', 1)")
        c.rollback()
    fresh = tmp_path / "fresh.db"
    open_store(fresh).close()
    for table in ("runs", "points"):
        assert sorted(_columns(db, table)) == sorted(_columns(fresh, table))


def test_a_point_timed_in_rounds_is_one_row_per_round_and_read_back_as_one_point(db):
    rounds = [[10.0, 11.0, 12.0], [20.0, 21.0, 22.0, 23.0], [11.0, 12.0, 13.0]]
    with open_store(db) as store:
        run = store.start_run(kind="sweep", name="s.py:sweep", config={}, env={"device": "cpu"})
        for r, samples in enumerate(rounds, 1):
            assert store.claim_point(run.id, "a", {"M": 1}, worker="proc", round=r)
            store.save_result(run.id, result("a", {"M": 1}, samples), worker="proc", wall_s=0.5, round=r)
        assert store.claim_point(run.id, "a", {"M": 1}, round=2) is False  # a round is measured once
        with pytest.raises(StoreError, match="already holds a at .* round 2: a point is stored once"):
            store.save_result(run.id, result("a", {"M": 1}, [1.0]), round=2)
        store.save_result(run.id, result("b", {"M": 1}, [5.0]), status="mismatch", error="wrong", round=1)
        assert store.rounds_done(run.id) == {("a", '{"M":1}'): {1: "ok", 2: "ok", 3: "ok"},
                                             ("b", '{"M":1}'): {1: "mismatch"}}
        (a, b) = store.points(run.id)
        assert store.run(run.id).n_points == 2  # points, not rows
    m = a.result.measurements["host"]
    assert m.round_sizes == (3, 4, 3) and m.round_medians_us == (11.0, 21.5, 12.0) and m.median_us == 12.0
    assert m.samples.values_us == tuple(v for r in rounds for v in r) and m.rounds == 3
    assert (a.status, a.worker, a.wall_s) == ("ok", "proc", 1.5)
    assert [r["round"] for r in a.result.env["rounds"]] == [1, 2, 3]
    assert (b.status, b.error) == ("mismatch", "wrong")


def test_a_points_history_is_its_round_medians_in_other_runs_of_the_same_spec_and_device(db):
    with open_store(db) as store:
        ids = []
        for name, device, us in [("s.py:sweep", "cpu", 10.0), ("s.py:sweep", "cpu", 11.0), ("other.py:sweep", "cpu", 50.0),
                                 ("s.py:sweep", "gpu", 70.0), ("s.py:sweep", "cpu", 12.0)]:
            run = store.start_run(kind="sweep", name=name, config={}, env={"device": device})
            r = result("a", {"M": 1}, [us, us, us])
            store.save_result(run.id, r.replace(env={**r.env, "device": device}))
            store.save_result(run.id, result("a", {"M": 2}, [99.0]))
            ids.append(run.id)
        last = store.run(ids[-1])
        # same name, kind, device, provider, point and method; the run itself left out
        assert store.round_times(last, "a", {"M": 1}, "host") == [10.0, 11.0]
        assert store.round_times(last, "a", {"M": 1}, "host", exclude_runs=[ids[0]]) == [11.0]
        assert store.round_times(last, "a", {"M": 1}, "graph") == []


def test_a_newer_schema_is_refused(db):
    open_store(db).close()
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA user_version = 7")
    with pytest.raises(StoreError, match="schema version 7, newer than this bench-kernel reads"):
        open_store(db)


def test_a_point_is_stored_once(db):
    with open_store(db) as store:
        run = store.start_run(kind="sweep", name="s", config={}, env={})
        store.save_result(run.id, result("a", {"M": 1}, [1.0]))
        assert store.claim_point(run.id, "a", {"M": 1}) is False
        with pytest.raises(StoreError, match="already holds a at"):
            store.save_result(run.id, result("a", {"M": 1}, [2.0]))
        assert [p.result.time_us for p in store.points(run)] == [1.0]


def test_a_point_whose_process_died_twice_becomes_an_error(db):
    with open_store(db) as store:
        run = store.start_run(kind="sweep", name="s", config={}, env={})
        assert store.claim_point(run.id, "a", {"M": 1})  # the process dies here ...
        assert store.claim_point(run.id, "a", {"M": 1})  # ... resumed once, dies again
        assert store.claim_point(run.id, "a", {"M": 1}) is False
        (p,) = store.points(run)
        assert p.status == "error" and p.error == "the process died while running this point, 2 times; not retried"
        assert len(store.points(run, include_running=True)) == 1


def test_a_locked_database_waits_then_fails_in_one_line(db):
    open_store(db).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with open_store(db, timeout_s=0.2) as store:
            t0 = time.perf_counter()
            with pytest.raises(StoreError) as e:
                store.start_run(kind="sweep", name="s", config={}, env={})
            waited = time.perf_counter() - t0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(e.value) == (f"results database {str(db)!r} is locked by another process (waited 0.2 s while "
                            f"starting a run); retry when it is done, or set BENCH_KERNEL_DB_TIMEOUT")
    assert 0.15 <= waited < 5  # bounded: it waited, then gave up
    with open_store(db) as store:  # and the lock gone, the same file works
        assert store.start_run(kind="sweep", name="s", config={}, env={}).id == 1


@pytest.mark.parametrize("content,match", [
    (b"hello, not a database\n" * 10, "is not a SQLite database; bench-kernel leaves it untouched"),
    (None, "is a SQLite database of another program \\(customers\\)"),
    (b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\xff" * 2000, "failed while reading its header"),
])
def test_foreign_or_corrupted_files_are_refused_and_left_untouched(db, content, match):
    if content is None:
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE customers (id INTEGER)")
    else:
        db.write_bytes(content)
    before = db.read_bytes()
    with pytest.raises(StoreError, match=match):
        open_store(db)
    assert db.read_bytes() == before


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a directory; give a file path with --db or BENCH_KERNEL_DB"):
        open_store(tmp_path)


def test_an_empty_file_becomes_a_store(db):
    db.write_bytes(b"")
    with open_store(db) as store:
        assert store.runs() == []


def test_default_path_follows_env_then_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("BENCH_KERNEL_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "bench-kernel" / "results.db"
    # The default on Linux, as it was before platformdirs computed it: ~/.local/share/bench-kernel.
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "bench-kernel" / "results.db"
    monkeypatch.setenv("BENCH_KERNEL_DB", str(tmp_path / "mine.db"))
    assert default_db_path() == tmp_path / "mine.db"


def test_run_references(db):
    with open_store(db) as store:
        with pytest.raises(StoreError, match="no run 'latest' in .*: it holds 0 run"):
            store.run("latest")
        ids = [store.start_run(kind="run", name=f"r{i}", config={}, env={}).id for i in range(3)]
        assert [store.run(r).id for r in ("latest", "latest~1", "latest~2", "2", 1)] == [3, 2, 1, 2, 1]
        assert [r.id for r in store.runs()] == ids[::-1]
        with pytest.raises(StoreError, match=r"no run 9 in .* \(it holds runs 1\.\.3; see 'bench-kernel history'\)"):
            store.run(9)
        with pytest.raises(StoreError, match="'x1' is not a run id"):
            store.run("x1")


def test_recorder_stores_one_run_point_by_point(db, tmp_path):
    from bench_kernel.results import Recorder

    target = tmp_path / "cases.py"
    target.write_text("def cases(): ...\n")
    with open_store(db) as store:
        rec = Recorder(store, name=f"{target}:cases", config={"methods": ["host"]}, env={"device": "cpu"},
                       command=["bench-kernel", "run"], source=target, total=2)
        rec.save(result("add", {"n": 4}, [1.0, 2.0, 3.0]))
        assert store.run(rec.run.id).n_points == 1  # committed before the run is finished
        rec.save_error("boom", {"n": 4}, "'boom' raised ZeroDivisionError during warm-up: division by zero")
        run = rec.finish()
        points = store.points(run)
    assert (run.kind, run.status, run.n_points, run.total_points) == ("run", "done", 2, 2)
    assert run.source_hash == provenance(target).sha256 and run.wall_s > 0
    assert [(p.provider, p.status, p.error) for p in points] == [
        ("add", "ok", None), ("boom", "error", "'boom' raised ZeroDivisionError during warm-up: division by zero")]


KILLED_MID_RUN = r"""
import os, sys
sys.path.insert(0, sys.argv[2])
from _results_helpers import result
from bench_kernel.results import open_store
store = open_store(sys.argv[1])
run = store.start_run(kind="sweep", name="s", config={}, env={})
for m in range(5):
    store.claim_point(run.id, "a", {"M": m})
    store.save_result(run.id, result("a", {"M": m}, [float(m + 1)]))
store.claim_point(run.id, "a", {"M": 5})
os._exit(9)  # no close, no finish: a process killed in the middle of its sixth point
"""


@pytest.mark.multiprocess
def test_results_are_synced_at_most_once_a_second_and_none_is_lost_when_the_process_dies(db, tmp_path):
    from pathlib import Path

    from bench_kernel.results import _store

    with open_store(db) as store:
        modes: list[str] = []
        store._conn.set_trace_callback(lambda sql: modes.append(sql) if sql.startswith("PRAGMA synchronous") else None)
        run = store.start_run(kind="sweep", name="s", config={}, env={})
        for m in range(4):  # well within SYNC_INTERVAL_S of the start's sync
            store.claim_point(run.id, "a", {"M": m})
            store.save_result(run.id, result("a", {"M": m}, [1.0]))
        store._synced_at -= _store.SYNC_INTERVAL_S  # a second later: the next result is synced
        store.save_result(run.id, result("a", {"M": 9}, [1.0]))
        store.finish_run(run.id)
    # one sync for the start, none for the four results and claims, one for the result a second
    # later, and the finish is synced however soon it comes
    assert modes == ["PRAGMA synchronous = FULL", "PRAGMA synchronous = NORMAL", "PRAGMA synchronous = FULL"]
    killed = tmp_path / "killed.db"
    p = subprocess.run([__import__("sys").executable, "-c", KILLED_MID_RUN, str(killed), str(Path(__file__).parent)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 9, p.stderr[-2000:]
    with open_store(killed) as store:
        done = store.points(store.run("latest"))
        assert sorted(pt.params["M"] for pt in done) == [0, 1, 2, 3, 4]
        assert store.claim_point(store.run("latest").id, "a", {"M": 5}) is True  # resumable: the sixth runs again


def test_a_file_migrated_by_another_process_after_its_version_was_read_is_not_migrated_again(tmp_path):
    # Two sweeps opening one new database at once both read version 0; the second to take the write
    # lock found the first one's tables and failed ("table runs already exists"), ending its sweep.
    from bench_kernel.results._schema import migrate

    db = tmp_path / "r.db"
    late = sqlite3.connect(db, isolation_level=None)
    assert late.execute("PRAGMA user_version").fetchone()[0] == 0  # read before the other process ran
    with open_store(db) as first:
        first.start_run(kind="sweep", name="s", config={}, env={})
    migrate(late, 0)
    late.close()
    with open_store(db) as store:
        assert [r.name for r in store.runs()] == ["s"]  # the other process's run is kept
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def _open_at_once(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        open_store(path).close()
    except StoreError as e:
        results.put(str(e))
        return
    results.put("ok")


@pytest.mark.multiprocess
def test_processes_that_open_one_new_database_at_once_all_open_it(tmp_path):
    import multiprocessing

    ctx = multiprocessing.get_context("fork")  # started in a blink: they must meet at the file at once
    results = ctx.Queue()
    for i in range(6):
        barrier = ctx.Barrier(4)
        procs = [ctx.Process(target=_open_at_once, args=(str(tmp_path / f"r{i}.db"), barrier, results))
                 for _ in range(4)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(timeout=60)
    assert sorted(results.get(timeout=10) for _ in range(24)) == ["ok"] * 24
