"""Read an Nsight Systems report exported with ``nsys export --type sqlite`` (the stdlib's sqlite3).

The tables and columns used are those of NVIDIA's "SQLite Schema Reference" (Nsight Systems User
Guide), checked against real exports of nsys 2024.6 and 2025.1 (tests/data/sources/README.md):

- ``CUPTI_ACTIVITY_KIND_KERNEL``: one row per kernel; ``demangledName`` (a ``StringIds`` id) is the
  full name with templates and arguments, the name Kineto writes; shared memory is static + dynamic
  (as Kineto sums it). Kernels replayed from a CUDA graph under ``--cuda-graph-trace=node`` carry a
  ``graphNodeId`` and the correlation id of their ``cudaGraphLaunch``.
- ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE``: under ``--cuda-graph-trace=graph`` (nsys' default for graphs)
  a replay is one row and its kernels are not exported. Each such row becomes one device event
  named ``CUDA graph (graphExecId N)`` so busy time and totals stay true, and a note says why.
- ``CUPTI_ACTIVITY_KIND_MEMCPY``/``MEMSET``: memory operations (``bytes``).
- ``CUPTI_ACTIVITY_KIND_RUNTIME``: runtime and driver API calls, the launches. nsys appends the API
  version to runtime names (``cudaLaunchKernel_v7000``); that suffix is cut so the names match
  ``data/launch_apis.tsv``. Driver names such as ``cuMemcpyHtoDAsync_v2`` keep theirs (one digit).
- ``NVTX_EVENTS``: push/pop and start/end ranges (event types from the export's own
  ``ENUM_NSYS_EVENT_TYPE``, else the documented 59, 60, 70 and 71); their text is ``text`` or the
  ``StringIds`` value of ``textId``. Marks (instants) and ranges never closed are left out.
- ``TARGET_INFO_GPU``: device names; ``META_DATA_EXPORT``: the nsys version.

Times are nanoseconds in the export; the trace is in microseconds like every other.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from bench_kernel.errors import TraceError
from bench_kernel.trace._foreign import ForeignTrace, TraceBuilder, split_global_tid

__all__ = ["is_nsys", "read_nsys"]

_KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
_RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
_GRAPH = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
#: A table any export with GPU or NVTX data has; with StringIds, it tells an nsys export apart.
_MARKERS = (_KERNEL, _RUNTIME, "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS",
            "META_DATA_EXPORT", "TARGET_INFO_GPU")
#: The NVTX event types that are ranges (ENUM_NSYS_EVENT_TYPE names), and their documented ids.
_RANGE_TYPES = {"NvtxPushPopRange": 59, "NvtxStartEndRange": 60, "NvtxtPushPopRange": 70, "NvtxtStartEndRange": 71}
# Runtime API names carry their API version, always 4+ digits (_v3020, _v7000, _v10000, _v12000).
_API_VERSION = re.compile(r"_v\d{4,}$")
_REQUIRED = {_KERNEL: ("start", "end", "deviceId", "streamId", "correlationId", "demangledName"),
             _RUNTIME: ("start", "end", "globalTid", "correlationId", "nameId"),
             "NVTX_EVENTS": ("start", "end", "eventType", "globalTid"),
             "CUPTI_ACTIVITY_KIND_MEMCPY": ("start", "end", "deviceId", "streamId", "correlationId", "bytes"),
             "CUPTI_ACTIVITY_KIND_MEMSET": ("start", "end", "deviceId", "streamId", "correlationId", "bytes"),
             _GRAPH: ("start", "end", "deviceId", "streamId", "correlationId", "graphExecId")}

SOURCE = "an Nsight Systems export"
_CHUNK = 1 << 16


def is_nsys(tables: set[str]) -> bool:
    """True for the table set of an ``nsys export --type sqlite`` database."""
    return "StringIds" in tables and any(t in tables for t in _MARKERS)


class _Db:
    def __init__(self, con: sqlite3.Connection, path: Path) -> None:
        self.con, self.path = con, path
        self.tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self._strings: dict[int, str] | None = None

    def columns(self, table: str) -> set[str]:
        cols = {r[1] for r in self.con.execute(f'PRAGMA table_info("{table}")')}
        missing = [c for c in _REQUIRED.get(table, ()) if c not in cols]
        if missing:
            raise TraceError(f"{self.path}: table {table} of this Nsight Systems export has no column "
                             f"{', '.join(missing)}; re-export the report with a current nsys (nsys export --type sqlite)")
        return cols

    def ints(self, table: str, cols: list[str], where: str = "") -> np.ndarray:
        """An (n, len(cols)) int64 array of integer columns (NULL or a missing column -> -1), read in
        chunks so only one chunk's Python objects are alive at a time (an export may hold millions)."""
        exprs = [f"COALESCE({c}, -1)" if c != "NULL" else "-1" for c in cols]
        cur = self.con.execute(f"SELECT {', '.join(exprs)} FROM {table} {where}")
        parts = [np.array(chunk, dtype=np.int64) for chunk in iter(lambda: cur.fetchmany(_CHUNK), [])]
        return np.concatenate(parts) if parts else np.zeros((0, len(cols)), dtype=np.int64)

    @property
    def strings(self) -> dict[int, str]:
        if self._strings is None:
            self._strings = dict(self.con.execute("SELECT id, value FROM StringIds"))
        return self._strings


def _kernels(db: _Db, b: TraceBuilder) -> None:
    if _KERNEL not in db.tables:
        return
    have = db.columns(_KERNEL)
    cols = ["start", "end", "deviceId", "streamId", "correlationId", "demangledName", "gridX", "gridY", "gridZ",
            "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory"]
    k = db.ints(_KERNEL, [c if c in have else "NULL" for c in cols])
    if "globalPid" in have:
        (procs,), = db.con.execute(f"SELECT COUNT(DISTINCT globalPid) FROM {_KERNEL}")
        if procs > 1:
            b.notes.append(f"kernels of {procs} processes in one export (all ranks of a job?): they are analysed "
                           f"together as one trace, and their NVTX steps are all found")
    smem = np.where((k[:, 13] >= 0) & (k[:, 14] >= 0), k[:, 13] + k[:, 14], -1)
    b.kernels((k[:, 5], db.strings), k[:, 0], k[:, 1], stream=k[:, 3], device=k[:, 2], correlation=k[:, 4],
              grid=k[:, 6:9], block=k[:, 9:12], regs=k[:, 12], smem_bytes=smem)


def _graph_execs(db: _Db, b: TraceBuilder) -> str | None:
    if _GRAPH not in db.tables:
        return None
    db.columns(_GRAPH)
    g = db.ints(_GRAPH, ["start", "end", "deviceId", "streamId", "correlationId", "graphExecId"])
    n = len(g)
    if not n:
        return None
    b.kernels([f"CUDA graph (graphExecId {e})" for e in g[:, 5].tolist()], g[:, 0], g[:, 1], stream=g[:, 3],
              device=g[:, 2], correlation=g[:, 4], grid=np.full((n, 3), -1), block=np.full((n, 3), -1),
              regs=np.full(n, -1), smem_bytes=np.full(n, -1), category="cuda_graph")
    return (f"{n} CUDA graph replays were traced whole (nsys --cuda-graph-trace=graph): each is one row "
            f"'CUDA graph (graphExecId N)' in place of its kernels, which the export does not hold; "
            f"profile with --cuda-graph-trace=node for per-kernel rows")


def _memops(db: _Db, b: TraceBuilder) -> None:
    for table, memset in (("CUPTI_ACTIVITY_KIND_MEMCPY", False), ("CUPTI_ACTIVITY_KIND_MEMSET", True)):
        if table not in db.tables:
            continue
        have = db.columns(table)
        m = db.ints(table, ["start", "end", "deviceId", "streamId", "correlationId", "bytes",
                            "copyKind" if not memset and "copyKind" in have else "NULL"])
        labels = {} if memset else {i: f"Memcpy {d}" for i, d in _copy_labels(db).items()}
        names = (m[:, 6], labels) if not memset else ["Memset"] * len(m)
        b.memops(names, m[:, 0], m[:, 1], stream=m[:, 3], device=m[:, 2], correlation=m[:, 4], nbytes=m[:, 5],
                 memset=memset)


#: CUpti_ActivityMemcpyKind (CUPTI's cupti_activity.h), for exports without ENUM_CUDA_MEMCPY_OPER.
_COPY_KINDS = ("UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA", "DTOD", "HTOH", "PTOP")


def _copy_labels(db: _Db) -> dict[int, str]:
    """copyKind -> the direction as Kineto names it (``HtoD``, ``DtoH``, ``DtoD``, ...)."""
    kinds = dict(enumerate(_COPY_KINDS))
    if "ENUM_CUDA_MEMCPY_OPER" in db.tables:  # names CUDA_MEMCPY_KIND_HTOD, ... (the export's own table)
        kinds.update((i, str(n or "").rsplit("_", 1)[-1]) for i, n in db.con.execute(
            "SELECT id, name FROM ENUM_CUDA_MEMCPY_OPER"))
    return {i: k.upper().replace("TO", "to") if "TO" in k.upper() else k.capitalize() for i, k in kinds.items()}


def _launches(db: _Db, b: TraceBuilder) -> None:
    if _RUNTIME not in db.tables:
        return
    db.columns(_RUNTIME)
    r = db.ints(_RUNTIME, ["start", "end", "globalTid", "correlationId", "nameId"])
    names = {i: _API_VERSION.sub("", v) for i, v in db.strings.items()}
    pid, tid = split_global_tid(np.maximum(r[:, 2], 0))
    b.launches((r[:, 4], names), r[:, 0], r[:, 1], pid=pid, tid=tid, correlation=r[:, 3], category="cuda_runtime")


def _nvtx(db: _Db, b: TraceBuilder) -> str | None:
    if "NVTX_EVENTS" not in db.tables:
        return None
    cols = db.columns("NVTX_EVENTS")
    types = dict(_RANGE_TYPES)
    if "ENUM_NSYS_EVENT_TYPE" in db.tables:
        known = dict(db.con.execute("SELECT name, id FROM ENUM_NSYS_EVENT_TYPE"))
        types = {n: known[n] for n in _RANGE_TYPES if n in known} or types
    where = f"WHERE eventType IN ({','.join(str(v) for v in types.values())})"
    # The text is inline, or a registered string (textId): one column either way.
    text = ("COALESCE(text, (SELECT value FROM StringIds WHERE id = textId), '')" if {"text", "textId"} <= cols
            else "text" if "text" in cols else "''")
    rows = db.con.execute(f"SELECT COALESCE(start, -1), COALESCE(end, -1), COALESCE(globalTid, 0), {text} "
                          f"FROM NVTX_EVENTS {where}").fetchall()
    r = np.array([row[:3] for row in rows], dtype=np.int64).reshape(-1, 3)
    texts = [row[3] for row in rows]
    closed = np.flatnonzero(r[:, 1] >= 0)  # a range never closed has no end (NULL)
    pid, tid = split_global_tid(np.maximum(r[closed, 2], 0))
    b.ranges([texts[i] for i in closed.tolist()], r[closed, 0], r[closed, 1], pid=pid, tid=tid, category="nvtx")
    left = len(r) - len(closed)
    return f"{left} NVTX ranges never closed are left out" if left else None


def _metadata(db: _Db) -> dict[str, Any]:
    meta: dict[str, Any] = {"format": "nsys-sqlite"}
    if "TARGET_INFO_GPU" in db.tables and "name" in db.columns("TARGET_INFO_GPU"):
        gpus = db.con.execute("SELECT id, name FROM TARGET_INFO_GPU ORDER BY id").fetchall()
        meta["deviceProperties"] = [{"id": i, "name": n} for i, n in gpus]
    if "META_DATA_EXPORT" in db.tables:
        info = dict(db.con.execute("SELECT name, value FROM META_DATA_EXPORT"))
        for key, out in (("EXPORT_PRODUCT_VERSION", "nsys_version"), ("EXPORT_SCHEMA_VERSION", "schema_version")):
            if key in info:
                meta[out] = info[key]
    return meta


def read_nsys(con: sqlite3.Connection, path: Path, *, links: bool, shapes: bool, stacks: bool) -> ForeignTrace:
    """The trace of an Nsight Systems SQLite export open on ``con`` (see the module docstring).

    ``links=False`` reads only device work (kernels, graph replays, memcpy/memset).
    """
    db = _Db(con, path)
    b = TraceBuilder(path)
    notes = []
    _kernels(db, b)
    notes.append(_graph_execs(db, b))
    _memops(db, b)
    if not any(b.counts.values()):  # every command needs device work: say so here, with nsys' own fix
        raise TraceError(f"{path}: this Nsight Systems export holds no kernels or memory operations (no rows in "
                         f"{_KERNEL} or CUPTI_ACTIVITY_KIND_MEMCPY/MEMSET); profile with 'nsys profile --trace=cuda,nvtx'")
    if links:
        _launches(db, b)
        notes.append(_nvtx(db, b))
    meta = _metadata(db)
    return b.build(source=SOURCE, lacks=("shapes", "stacks"), backend="cuda", metadata=meta, links=links,
                   shapes=shapes, stacks=stacks, notes=[n for n in notes if n])
