"""The results store: one SQLite file holding every run and every point, committed as it finishes.

Why SQLite: one file, no server, transactions, and readers (``history``, ``report``) that never
block a sweep that is writing (WAL). Durability: every point is its own transaction, committed as
it ends, so a process killed at any moment (Ctrl-C, SIGKILL, a segfaulting provider) loses at most
the point it was measuring: in WAL mode a commit is in the file once it returns, synced or not.
What a sync (fsync) adds is surviving a power cut or an OS crash, and it costs milliseconds a
commit: results are synced at most once every :data:`SYNC_INTERVAL_S` (the first commit after that
long syncs every one before it), and a run's start and end always are, so a power cut loses at
most the last second of points, never a finished run. A point is marked ``running`` before it is
measured: if the process dies, ``--resume`` sees which point killed it (see ``claim_point``).

Opening the file (creating, migrating, refusing what is not ours) is ``_open.open_store``'s.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from bench_kernel.errors import StoreError
from bench_kernel.records import (
    BenchResult,
    PointResult,
    PointStatus,
    RunInfo,
    params_key,
    status_of,
    to_builtins,
)
from bench_kernel.results._records import merge_rounds

__all__ = ["Store", "DEFAULT_TIMEOUT_S", "TIMEOUT_ENV"]

#: A locked database is waited for this long (seconds) before one error line.
DEFAULT_TIMEOUT_S = 10.0
#: Environment variable overriding that wait (seconds).
TIMEOUT_ENV = "BENCH_KERNEL_DB_TIMEOUT"

#: SQLite's largest integer (64-bit signed): a Python int beyond it is an OverflowError when bound.
SQL_INT_MAX = 2**63 - 1
#: A crashing point is claimed at most this often (the first try plus one resume) before it is
#: recorded as an error instead of being run again.
MAX_ATTEMPTS = 2
#: Results are synced to disk (fsync) at most this often, seconds (the module docstring).
SYNC_INTERVAL_S = 1.0


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Store:
    """An open results database. Use :func:`open_store`; close it (or use ``with``) when done.

    Only the thread that opened it may use it: sweeps funnel results from workers to that thread.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, timeout_s: float) -> None:
        self._conn = conn
        self.path = path
        self.timeout_s = timeout_s
        self._synced_at = -math.inf  # time.monotonic() of the last synced commit
        self._mode: str | None = None  # the connection's synchronous setting, once set here

    # -- plumbing -------------------------------------------------------------------------------
    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def use_connection(self, conn: sqlite3.Connection) -> None:
        """Read through ``conn`` from now on, closing the one before (a reader's in-memory copy of an
        older file, upgraded there so that reading writes nothing)."""
        old, self._conn = self._conn, conn
        old.close()

    def error(self, e: sqlite3.Error, doing: str) -> StoreError:
        """The one-line StoreError for ``e``, raised while ``doing``: a lock held past the store's
        timeout says who to wait for, anything else quotes SQLite."""
        msg = str(e)
        if "locked" in msg or "busy" in msg:
            return StoreError(f"results database {str(self.path)!r} is locked by another process "
                              f"(waited {self.timeout_s:g} s while {doing}); retry when it is done, "
                              f"or set {TIMEOUT_ENV}")
        return StoreError(f"results database {str(self.path)!r} failed while {doing}: {msg}")

    def _read(self, sql: str, args: Sequence[Any] = (), doing: str = "reading") -> list[tuple]:
        try:
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise self.error(e, doing) from None

    def _write(self, statements: list[tuple[str, Sequence[Any]]], doing: str, durable: bool = True,
               sync: bool = False) -> list[int | None]:
        """Run ``statements`` in one transaction; returns each statement's lastrowid.

        Every commit survives a killed process. durable: sync this commit to disk too
        (``synchronous=FULL``) if none was synced in the last :data:`SYNC_INTERVAL_S`, or always
        with ``sync``; durable=False never syncs it (``synchronous=NORMAL``), and the next synced
        commit syncs it too. Claims are not durable; results are, at most once a second.
        """
        now = time.monotonic()
        full = sync or (durable and now - self._synced_at >= SYNC_INTERVAL_S)
        try:
            mode = "FULL" if full else "NORMAL"
            if mode != self._mode:
                self._conn.execute(f"PRAGMA synchronous = {mode}")
                self._mode = mode
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                ids = [self._conn.execute(sql, args).lastrowid for sql, args in statements]
                self._conn.execute("COMMIT")
                if full:
                    self._synced_at = now
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise self.error(e, doing) from None
        return ids

    # -- runs -----------------------------------------------------------------------------------
    def start_run(self, *, kind: str, name: str, config: dict[str, Any], env: dict[str, Any],
                  command: Sequence[str] = (), source: dict[str, Any] | None = None,
                  total_points: int | None = None) -> RunInfo:
        """Store a new run (status ``running``) and return it with its id.

        source: ``Provenance.to_dict()`` of the file that defined the run (path, sha256,
        git_commit, git_dirty), or None.
        """
        src = source or {}
        dirty = src.get("git_dirty")
        (run_id,) = self._write([(
            "INSERT INTO runs (kind, name, status, created_at, source_path, source_hash, git_commit,"
            " git_dirty, command, config, env, total_points) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (kind, name, "running", _now(), src.get("path"), src.get("sha256"), src.get("git_commit"),
             None if dirty is None else int(dirty), json.dumps(list(command)),
             json.dumps(config, default=str), json.dumps(env, default=str), total_points))],
            "starting a run", sync=True)
        assert run_id is not None  # an INSERT's lastrowid is the new row's id
        return self.run(run_id)

    def finish_run(self, run_id: int, *, status: str = "done", wall_s: float | None = None,
                   env: dict[str, Any] | None = None) -> RunInfo:
        """Mark a run done (or ``interrupted``/``failed``); ``env`` replaces the stored env."""
        stmts: list[tuple[str, Sequence[Any]]] = [(
            "UPDATE runs SET status = ?, finished_at = ?, wall_s = COALESCE(?, wall_s) WHERE id = ?",
            (status, _now(), wall_s, run_id))]
        if env is not None:
            stmts.append(("UPDATE runs SET env = ? WHERE id = ?", (json.dumps(env, default=str), run_id)))
        self._write(stmts, "finishing a run", sync=True)
        return self.run(run_id)

    def reopen_run(self, run_id: int, total_points: int | None = None) -> RunInfo:
        """Mark a run ``running`` again (``--resume``)."""
        self._write([("UPDATE runs SET status = 'running', finished_at = NULL,"
                      " total_points = COALESCE(?, total_points) WHERE id = ?", (total_points, run_id))],
                    "resuming a run", sync=True)
        return self.run(run_id)

    _RUN_COLS = ("id, kind, name, status, created_at, finished_at, wall_s, source_path, source_hash,"
                 " git_commit, git_dirty, command, config, env, total_points,"
                 " (SELECT COUNT(DISTINCT p.provider || ' ' || p.params_key) FROM points p"
                 " WHERE p.run_id = runs.id AND p.status != 'running')")

    @staticmethod
    def _run_from_row(row: tuple) -> RunInfo:
        (rid, kind, name, status, created, finished, wall, spath, shash, commit, dirty, command,
         config, env, total, n) = row
        return RunInfo(id=rid, kind=kind, name=name, status=status, created_at=created,
                       finished_at=finished, wall_s=wall, source_path=spath, source_hash=shash,
                       git_commit=commit, git_dirty=None if dirty is None else bool(dirty),
                       command=tuple(json.loads(command)), config=json.loads(config),
                       env=json.loads(env), total_points=total, n_points=n)

    def runs(self, limit: int | None = None) -> list[RunInfo]:
        """Stored runs, newest first."""
        sql = f"SELECT {self._RUN_COLS} FROM runs ORDER BY id DESC"
        # SQLite's integers are 64-bit: a limit beyond them is "all", not an OverflowError
        limit = min(limit, SQL_INT_MAX) if limit else limit
        rows = self._read(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [self._run_from_row(r) for r in rows]

    def run(self, ref: int | str) -> RunInfo:
        """A run by id (``12``, ``"12"``), ``"latest"`` or ``"latest~N"`` (N runs before it)."""
        text = str(ref).strip()
        m = re.fullmatch(r"latest(?:~(\d+))?", text)
        if m:
            back = int(m.group(1) or 0)
            if back > SQL_INT_MAX:  # no store holds that many runs; SQLite would raise OverflowError
                back = SQL_INT_MAX
            rows = self._read(f"SELECT {self._RUN_COLS} FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?", (back,))
            if not rows:
                count = self._read("SELECT COUNT(*) FROM runs")[0][0]
                raise StoreError(f"no run {text!r} in {str(self.path)!r}: it holds {count} run(s)")
            return self._run_from_row(rows[0])
        if not text.isdigit():
            raise StoreError(f"run {text!r} is not a run id: give a number, 'latest' or 'latest~N'")
        # an id past SQLite's 64-bit integers names no run (asking would raise OverflowError)
        rows = self._read(f"SELECT {self._RUN_COLS} FROM runs WHERE id = ?", (int(text),)) \
            if int(text) <= SQL_INT_MAX else []
        if not rows:
            span = self._read("SELECT MIN(id), MAX(id), COUNT(*) FROM runs")[0]
            held = f"runs {span[0]}..{span[1]}" if span[2] else "no runs"
            raise StoreError(f"no run {text} in {str(self.path)!r} (it holds {held}; see 'bench-kernel history')")
        return self._run_from_row(rows[0])

    # -- points ---------------------------------------------------------------------------------
    def claim_point(self, run_id: int, provider: str, params: dict[str, Any],
                    worker: str | None = None, round: int = 1) -> bool:
        """Mark round ``round`` of a point ``running`` before measuring it; False when it must not be run.

        A round already final is never claimed (never measured twice). A round left ``running``
        by a process that died is claimed again once; after :data:`MAX_ATTEMPTS` it is stored as
        an ``error`` instead, so a provider that kills its process cannot loop a resume forever.
        """
        key = params_key(params)
        rows = self._read("SELECT status, attempts FROM points WHERE run_id = ? AND params_key = ?"
                          " AND provider = ? AND round = ?", (run_id, key, provider, round))
        if rows and rows[0][0] != "running":
            return False
        if rows and rows[0][1] >= MAX_ATTEMPTS:
            result = BenchResult(name=provider, params=dict(params))
            self.save_result(run_id, result, status="error", worker=worker, round=round,
                             error=f"the process died while running this point, {rows[0][1]} times; not retried")
            return False
        if rows:
            sql = ("UPDATE points SET attempts = attempts + 1, worker = ?, started_at = ?"
                   " WHERE run_id = ? AND params_key = ? AND provider = ? AND round = ?")
            args: tuple = (worker, _now(), run_id, key, provider, round)
        else:
            sql = ("INSERT INTO points (run_id, provider, params_key, status, worker, started_at, round)"
                   " VALUES (?,?,?,'running',?,?,?)")
            args = (run_id, provider, key, worker, _now(), round)
        self._write([(sql, args)], "claiming a point", durable=False)
        return True

    def save_result(self, run_id: int, result: BenchResult, *, status: PointStatus | None = None,
                    error: str | None = None, worker: str | None = None, wall_s: float | None = None,
                    round: int = 1) -> PointResult:
        """Commit one finished point (provider ``result.name`` at ``result.params``; its round
        ``round`` of a run in rounds) with its raw samples, and return it as stored (this round).
        ``status`` defaults to :func:`status_of` the result.

        Raises StoreError if that round of the point is already stored final in this run: nothing
        is measured, or stored, twice.
        """
        status = status or status_of(result)
        # Python's json writes NaN and Infinity as they are, so a damaged sample is read back as the
        # same damage (and refused by a comparison) rather than as null; a params value JSON cannot
        # hold is kept as its text, as a point is matched by that text.
        text = json.dumps(to_builtins(result, other=str))
        method, median = result.primary_method, result.time_us
        key = params_key(result.params)
        finished = _now()
        existing = self._read("SELECT status FROM points WHERE run_id = ? AND params_key = ? AND provider = ?"
                              " AND round = ?", (run_id, key, result.name, round))
        if existing and existing[0][0] != "running":
            raise StoreError(f"run {run_id} already holds {result.name} at {key}" + (f" round {round}" if round > 1 else "")
                             + ": a point is stored once")
        values = (status, worker, wall_s, finished, error, text, method, median)
        if existing:
            sql = ("UPDATE points SET status = ?, worker = COALESCE(?, worker), wall_s = ?, finished_at = ?,"
                   " error = ?, result = ?, method = ?, median_us = ? WHERE run_id = ? AND params_key = ?"
                   " AND provider = ? AND round = ?")
            args: tuple = (*values, run_id, key, result.name, round)
        else:
            sql = ("INSERT INTO points (status, worker, wall_s, finished_at, error, result, method, median_us,"
                   " run_id, params_key, provider, started_at, round) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
            args = (*values, run_id, key, result.name, finished, round)
        self._write([(sql, args)], "saving a point")
        return PointResult(provider=result.name, params=dict(result.params), status=status, result=result,
                           error=error, worker=worker, wall_s=wall_s, run_id=run_id, finished_at=finished)

    _POINT_COLS = "run_id, provider, params_key, status, error, worker, wall_s, finished_at, result, round"

    @staticmethod
    def _point_from_row(row: tuple) -> tuple[int, PointResult]:
        run_id, provider, key, status, error, worker, wall_s, finished, text, round_ = row
        data = json.loads(text) if text else None
        # The result keeps the point's own axis order; the key is sorted for matching.
        params = dict((data or {}).get("params") or json.loads(key))
        result = BenchResult.from_dict(data) if data else BenchResult(name=provider, params=params)
        return round_, PointResult(provider=provider, params=params, status=status, result=result, error=error,
                                   worker=worker, wall_s=wall_s, run_id=run_id, finished_at=finished)

    def _merged(self, rows: list[tuple]) -> list[PointResult]:
        """Rows (ordered) -> one point per (run, provider, params), its rounds joined, in the order
        each point first appears."""
        groups: dict[tuple[int, str, str], list[tuple[int, PointResult]]] = {}
        for row in rows:
            groups.setdefault((row[0], row[1], row[2]), []).append(self._point_from_row(row))
        return [merge_rounds(g) for g in groups.values()]

    def points(self, run: int | str | RunInfo, *, include_running: bool = False) -> list[PointResult]:
        """The points of a run in the order they (their first round) finished, each with its rounds
        joined (``running`` rounds only if asked)."""
        run_id = run.id if isinstance(run, RunInfo) else self.run(run).id
        where = "" if include_running else " AND status != 'running'"
        rows = self._read(f"SELECT {self._POINT_COLS} FROM points WHERE run_id = ?{where} ORDER BY"
                          " finished_at IS NULL, id", (run_id,))
        return self._merged(rows)

    def rounds_done(self, run_id: int) -> dict[tuple[str, str], dict[int, str]]:
        """(provider, params key) -> {round: status} of every round of the run stored final."""
        out: dict[tuple[str, str], dict[int, str]] = {}
        for p, k, r, st in self._read("SELECT provider, params_key, round, status FROM points WHERE run_id = ?"
                                      " AND status != 'running'", (run_id,)):
            out.setdefault((p, k), {})[r] = st
        return out

    def history(self, pattern: str = "*", where: dict[str, Any] | None = None,
                kind: str | None = None) -> Iterator[tuple[RunInfo, PointResult]]:
        """Every stored point whose provider/case name matches the glob ``pattern`` and whose
        params include ``where``, oldest run first, with its run (rounds joined)."""
        runs = {r.id: r for r in self.runs()}
        # GLOB is SQLite's case-sensitive shell pattern (*, ?, [...]), as fnmatch.fnmatchcase:
        # only the matching points' JSON is read and parsed.
        rows = self._read(f"SELECT {self._POINT_COLS} FROM points WHERE status != 'running' AND provider GLOB ?"
                          " ORDER BY run_id, id", (pattern,))
        for point in self._merged(rows):
            if where and any(str(point.params.get(k)) != str(v) for k, v in where.items()):
                continue
            run = runs[point.run_id]
            if kind is None or run.kind == kind:
                yield run, point

    def round_times(self, run: RunInfo, provider: str, params: dict[str, Any], method: str,
                    exclude_runs: Sequence[int] = ()) -> list[float]:
        """The round times (us: ``Measurement.round_times_us``) of ``provider`` at ``params`` by
        ``method`` in every other stored run of the same name, kind and device as ``run``: the
        point's history, for its run-to-run noise (``results._noise.noise_from_history``)."""
        return [v for times in self.run_round_times(run, provider, params, method, exclude_runs) for v in times]

    def run_round_times(self, run: RunInfo, provider: str, params: dict[str, Any], method: str,
                        exclude_runs: Sequence[int] = ()) -> list[list[float]]:
        """:meth:`round_times` kept apart by run: one list per other stored run, in run order."""
        rows = self._read(f"SELECT {', '.join('p.' + c.strip() for c in self._POINT_COLS.split(','))}"
                          " FROM points p JOIN runs r ON r.id = p.run_id WHERE p.provider = ? AND p.params_key = ?"
                          " AND p.status = 'ok' AND r.name = ? AND r.kind = ? ORDER BY p.run_id, p.id",
                          (provider, params_key(params), run.name, run.kind))
        skip = set(exclude_runs) | {run.id}
        out: list[list[float]] = []
        for point in self._merged([r for r in rows if r[0] not in skip]):
            m = point.result.measurements.get(method)
            if m is not None and m.ok and point.result.env.get("device") == run.device:
                out.append([v for v in m.round_times_us if v is not None and v > 0])
        return out
