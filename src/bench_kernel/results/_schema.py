"""The results database's layout, its version and the migrations between versions.

The file is marked twice in its SQLite header: ``PRAGMA application_id`` (:data:`APP_ID`, so a
database of another program is recognised and never touched) and ``PRAGMA user_version``
(the schema version). A file at an older version is migrated in place, one step per version,
inside one transaction; a newer version is refused (written by a newer bench-kernel).

Versions:
  0  an empty SQLite file (no tables, no application id): the schema is created.
  1  the first layout: runs, and points with their full JSON result (raw samples included).
  2  adds ``runs.git_dirty``; ``points.worker`` (which GPU or host worker ran the
     point), ``points.attempts`` (the guard that a crashing point is not retried forever), and
     ``points.method``/``points.median_us``, indexed figures of the primary method so ``history``
     reads a case over time without parsing every result.
  3  (current) ``points.round``: a point timed in K rounds (``--rounds``) is K rows, one per round,
     unique per (run, point, provider, round); every older row is round 1. SQLite cannot change a
     UNIQUE constraint in place, so the step rebuilds the table (copy, drop, rename) in the
     migration's one transaction. Why rows and not one row rewritten per round: a sweep interleaves
     the rounds over its whole duration, so a point's rounds end minutes apart; as rows, each round
     is committed once when it ends (a killed sweep keeps every finished round, ``--resume`` runs
     the missing ones, and the crash guard of ``claim_point`` works per round unchanged), and a
     committed round is never rewritten. Readers (``points``, ``history``, ``compare``) get one
     point with its rounds joined (``Measurement.round_sizes``), so none of them counts rows.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable

__all__ = ["APP_ID", "SCHEMA_VERSION", "SCHEMA_V1", "SCHEMA", "migrate", "primary_figures"]

#: "bkdb" big-endian: what ``PRAGMA application_id`` holds in every bench-kernel database.
APP_ID = int.from_bytes(b"bkdb", "big")
SCHEMA_VERSION = 3

#: Version 1, kept verbatim: migrations start from it and tests build real v1 files with it.
SCHEMA_V1 = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  wall_s REAL,
  source_path TEXT,
  source_hash TEXT,
  git_commit TEXT,
  command TEXT NOT NULL,
  config TEXT NOT NULL,
  env TEXT NOT NULL,
  total_points INTEGER
);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  provider TEXT NOT NULL,
  params_key TEXT NOT NULL,
  status TEXT NOT NULL,
  wall_s REAL,
  started_at TEXT,
  finished_at TEXT,
  error TEXT,
  result TEXT,
  UNIQUE (run_id, params_key, provider)
);
"""

#: The current layout. JSON columns: runs.command (argv list), runs.config, runs.env,
#: points.params_key (canonical JSON of the point), points.result (``BenchResult.to_dict()``).
SCHEMA = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  wall_s REAL,
  source_path TEXT,
  source_hash TEXT,
  git_commit TEXT,
  command TEXT NOT NULL,
  config TEXT NOT NULL,
  env TEXT NOT NULL,
  total_points INTEGER,
  git_dirty INTEGER
);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  provider TEXT NOT NULL,
  params_key TEXT NOT NULL,
  status TEXT NOT NULL,
  wall_s REAL,
  started_at TEXT,
  finished_at TEXT,
  error TEXT,
  result TEXT,
  worker TEXT,
  attempts INTEGER NOT NULL DEFAULT 1,
  method TEXT,
  median_us REAL,
  round INTEGER NOT NULL DEFAULT 1,
  UNIQUE (run_id, params_key, provider, round)
);
CREATE INDEX points_provider ON points (provider, params_key);
"""


def primary_figures(result_json: str | None) -> tuple[str | None, float | None]:
    """(primary method, its median in us) from a stored result's JSON."""
    if not result_json:
        return None, None
    d = json.loads(result_json)
    method = d.get("primary_method")
    median = d.get("time_us")
    return method, (float(median) if median is not None else None)


def _v1_to_v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE runs ADD COLUMN git_dirty INTEGER")
    conn.execute("ALTER TABLE points ADD COLUMN worker TEXT")
    conn.execute("ALTER TABLE points ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1")
    conn.execute("ALTER TABLE points ADD COLUMN method TEXT")
    conn.execute("ALTER TABLE points ADD COLUMN median_us REAL")
    conn.execute("CREATE INDEX points_provider ON points (provider, params_key)")
    rows = conn.execute("SELECT id, result FROM points").fetchall()
    conn.executemany("UPDATE points SET method = ?, median_us = ? WHERE id = ?",
                     [(*primary_figures(result), pid) for pid, result in rows])


def _v2_to_v3(conn: sqlite3.Connection) -> None:
    points = SCHEMA[SCHEMA.index("CREATE TABLE points"):SCHEMA.index("CREATE INDEX points_provider")]
    conn.execute(points.strip().rstrip(";").replace("CREATE TABLE points", "CREATE TABLE points_v3", 1))
    cols = ("id, run_id, provider, params_key, status, wall_s, started_at, finished_at, error, result, worker,"
            " attempts, method, median_us")
    conn.execute(f"INSERT INTO points_v3 ({cols}, round) SELECT {cols}, 1 FROM points")
    conn.execute("DROP TABLE points")  # its index goes with it
    conn.execute("ALTER TABLE points_v3 RENAME TO points")
    conn.execute("CREATE INDEX points_provider ON points (provider, params_key)")


#: from-version -> the step that brings a database to from-version + 1.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3}


def migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring a bench-kernel database at ``version`` to :data:`SCHEMA_VERSION`, all or nothing.

    ``version`` 0 means an empty file: the current schema is created. ``version`` was read before
    the write lock was taken: another process may have migrated the file meanwhile (two sweeps that
    open one new database at once both read 0, and the second to get the lock then found the tables
    there and failed). The version is read again under the lock, and what is already done is not redone.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        now = conn.execute("PRAGMA user_version").fetchone()[0]
        if now != version and conn.execute("PRAGMA application_id").fetchone()[0] == APP_ID:
            version = now  # migrated by another process since it was read
        if version >= SCHEMA_VERSION:
            conn.execute("COMMIT")
            return
        if version == 0:
            for stmt in _statements(SCHEMA):
                conn.execute(stmt)
            conn.execute(f"PRAGMA application_id = {APP_ID}")
        else:
            for v in range(version, SCHEMA_VERSION):
                MIGRATIONS[v](conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT the open transaction first; one statement at a time keeps
    # the creation atomic with the version stamp.
    return [s.strip() for s in script.split(";") if s.strip()]
