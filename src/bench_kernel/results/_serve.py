"""Serving runs (``bench-kernel serve --save``) in the results store: a run of kind ``serve`` and its
load points, each with every request record, in a table of their own.

Additive to the store's schema: ``serve_points`` is created when the first serving run is saved
(``CREATE TABLE IF NOT EXISTS``), so a database without serving runs is unchanged, and code that
reads ``points`` never meets a serving point it cannot parse. The run row carries the provenance:
``config`` (what was asked), ``env.server`` (URL, model, the server's command and version where it
said it), and ``status`` ``done``, ``interrupted`` or ``failed`` (a run cut short is stored, marked).
"""

from __future__ import annotations

import json
import platform
import sys
from typing import Any, Callable, Sequence

from bench_kernel.errors import StoreError
from bench_kernel.records import RunInfo
from bench_kernel.results._store import Store

__all__ = ["SERVE_TABLE", "save_serve_run", "serve_points", "serve_side"]

SERVE_TABLE = """
CREATE TABLE IF NOT EXISTS serve_points (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  idx INTEGER NOT NULL,
  load TEXT NOT NULL,
  status TEXT NOT NULL,
  point TEXT NOT NULL,
  UNIQUE (run_id, idx)
)
"""
#: ServeOutput.status -> the run's status in the store.
_STATUS = {"complete": "done", "interrupted": "interrupted", "partial": "failed"}


def save_serve_run(store: Store, run: dict[str, Any], *, command: Sequence[str] = ()) -> int:
    """Store ``ServeOutput.to_dict()`` as one run of kind ``serve``; returns its id."""
    points = run.get("points")
    if points is None:  # one point: its keys are at the top level
        points = [{k: v for k, v in run.items() if k not in ("server", "config", "dataset", "sweep", "kind",
                                                             "profile", "slo_request_rate")}]
    server = run.get("server") or {}
    env = {"server": server, "client_host": platform.node(), "python": sys.version.split()[0]}
    config = dict(run.get("config") or {}, dataset=run.get("dataset"), sweep=run.get("sweep"),
                  slo_request_rate=run.get("slo_request_rate"))
    if run.get("profile"):
        config["profile"] = run["profile"]
    info = store.start_run(kind="serve", name=f"{server.get('model')} @ {server.get('url')}", config=config,
                           env=env, command=command, total_points=len(points))
    assert info.id is not None  # a run read back from the store has its row's id
    stmts: list[tuple[str, Sequence[Any]]] = [(SERVE_TABLE, ())]
    stmts += [("INSERT INTO serve_points (run_id, idx, load, status, point) VALUES (?,?,?,?,?)",
               (info.id, i, json.dumps(p.get("load"), sort_keys=True), p.get("status", "complete"),
                json.dumps(p, default=str))) for i, p in enumerate(points)]
    store._write(stmts, "saving a serving run")
    store.finish_run(info.id, status=_STATUS.get(run.get("status", "complete"), "failed"),
                     wall_s=sum(float(p.get("duration_s") or 0) for p in points))
    return info.id


def serve_points(store: Store, run: int | str | RunInfo) -> list[dict[str, Any]]:
    """The load points of a stored serving run, in order (each ``ServePoint.to_dict()``)."""
    info = run if isinstance(run, RunInfo) else store.run(run)
    if info.kind != "serve":
        raise StoreError(f"run {info.id} is a {info.kind} run, not a serving run (bench-kernel serve --save)")
    has = store._read("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'serve_points'")
    if not has:
        return []
    rows = store._read("SELECT point FROM serve_points WHERE run_id = ? ORDER BY idx", (info.id,))
    return [json.loads(r[0]) for r in rows]


def serve_side(ref: str, open_db: Callable[[], Store]) -> tuple[str, list[dict[str, Any]]] | None:
    """``(label, points)`` when ``ref`` names a serving run (a stored run of kind ``serve``, or a
    ``bench-kernel serve --json`` file), else None (let ``resolve_ref`` read it)."""
    from pathlib import Path

    if Path(ref).is_file():
        try:
            d = json.loads(Path(ref).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if isinstance(d, dict) and d.get("kind") == "serve":
            return Path(ref).name, list(d.get("points") or [d])
        return None
    import re

    if not re.fullmatch(r"\d+|latest(?:~\d+)?", ref):
        return None
    store = open_db()
    try:
        run = store.run(ref)
    except StoreError:
        return None  # resolve_ref says what is wrong with it, as for any run
    return (f"run {run.id}", serve_points(store, run)) if run.kind == "serve" else None
