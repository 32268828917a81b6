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

    def rows(self, table: str, cols: list[str], where: str = "") -> list[tuple]:
        return self.con.execute(f"SELECT {', '.join(cols)} FROM {table} {where}").fetchall()

    @property
    def strings(self) -> dict[int, str]:
        if self._strings is None:
            self._strings = dict(self.con.execute("SELECT id, value FROM StringIds"))
        return self._strings

    def string(self, ids: list[Any], what: str) -> list[str]:
        s = self.strings
        return [s.get(i, f"<{what} #{i}>") if i is not None else f"<{what}>" for i in ids]


def _col(rows: list[tuple], k: int, missing: int = -1) -> list[Any]:
    return [missing if r[k] is None else r[k] for r in rows]


def _kernels(db: _Db, b: TraceBuilder) -> None:
    if _KERNEL not in db.tables:
        return
    cols = db.columns(_KERNEL)
    want = ["start", "end", "deviceId", "streamId", "correlationId", "demangledName"]
    extra = [c for c in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
                         "staticSharedMemory", "dynamicSharedMemory") if c in cols]
    rows = db.rows(_KERNEL, want + extra)
    n = len(rows)
    get = {c: _col(rows, 6 + k) for k, c in enumerate(extra)}
    missing = [-1] * n

    def dims(axis: str) -> np.ndarray:
        return np.array([get.get(f"{axis}{a}", missing) for a in "XYZ"], dtype=np.int64).T.reshape(n, 3)

    smem = (np.array(get["staticSharedMemory"], np.int64) + np.array(get["dynamicSharedMemory"], np.int64)
            if "staticSharedMemory" in get and "dynamicSharedMemory" in get else missing)
    b.kernels(db.string([r[5] for r in rows], "kernel"), _col(rows, 0), _col(rows, 1), stream=_col(rows, 3),
              device=_col(rows, 2), correlation=_col(rows, 4), grid=dims("grid"), block=dims("block"),
              regs=get.get("registersPerThread", missing), smem_bytes=smem)


def _graph_execs(db: _Db, b: TraceBuilder) -> str | None:
    if _GRAPH not in db.tables:
        return None
    db.columns(_GRAPH)
    rows = db.rows(_GRAPH, ["start", "end", "deviceId", "streamId", "correlationId", "graphExecId"])
    if not rows:
        return None
    n = len(rows)
    b.kernels([f"CUDA graph (graphExecId {r[5]})" for r in rows], _col(rows, 0), _col(rows, 1),
              stream=_col(rows, 3), device=_col(rows, 2), correlation=_col(rows, 4),
              grid=np.full((n, 3), -1), block=np.full((n, 3), -1), regs=[-1] * n, smem_bytes=[-1] * n,
              category="cuda_graph")
    return (f"{n} CUDA graph replays were traced whole (nsys --cuda-graph-trace=graph): each is one row "
            f"'CUDA graph (graphExecId N)' in place of its kernels, which the export does not hold; "
            f"profile with --cuda-graph-trace=node for per-kernel rows")


def _memops(db: _Db, b: TraceBuilder) -> None:
    for table, memset in (("CUPTI_ACTIVITY_KIND_MEMCPY", False), ("CUPTI_ACTIVITY_KIND_MEMSET", True)):
        if table not in db.tables:
            continue
        cols = db.columns(table)
        kind = "copyKind" if not memset and "copyKind" in cols else "NULL"
        rows = db.rows(table, ["start", "end", "deviceId", "streamId", "correlationId", "bytes", kind])
        labels = _copy_labels(db) if not memset else {}
        names = ["Memset" if memset else f"Memcpy {labels.get(r[6], 'copy')}" for r in rows]
        b.memops(names, _col(rows, 0), _col(rows, 1), stream=_col(rows, 3), device=_col(rows, 2),
                 correlation=_col(rows, 4), nbytes=_col(rows, 5), memset=memset)


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
    rows = db.rows(_RUNTIME, ["start", "end", "globalTid", "correlationId", "nameId"])
    names = {i: _API_VERSION.sub("", s) for i, s in db.strings.items()}
    pid, tid = split_global_tid(np.array(_col(rows, 2, 0), dtype=np.int64))
    b.launches([names.get(r[4], f"<api #{r[4]}>") for r in rows], _col(rows, 0), _col(rows, 1), pid=pid,
               tid=tid, correlation=_col(rows, 3), category="cuda_runtime")


def _nvtx(db: _Db, b: TraceBuilder) -> str | None:
    if "NVTX_EVENTS" not in db.tables:
        return None
    cols = db.columns("NVTX_EVENTS")
    types = dict(_RANGE_TYPES)
    if "ENUM_NSYS_EVENT_TYPE" in db.tables:
        known = dict(db.con.execute("SELECT name, id FROM ENUM_NSYS_EVENT_TYPE"))
        types = {n: known[n] for n in _RANGE_TYPES if n in known} or types
    text = "text" if "text" in cols else "NULL"
    text_id = "textId" if "textId" in cols else "NULL"
    marks = ",".join(str(v) for v in types.values())
    rows = db.rows("NVTX_EVENTS", ["start", "end", "globalTid", text, text_id], f"WHERE eventType IN ({marks})")
    open_ = [r for r in rows if r[1] is None]
    rows = [r for r in rows if r[1] is not None]
    strings = db.strings
    texts = [r[3] if r[3] is not None else strings.get(r[4], "") for r in rows]
    pid, tid = split_global_tid(np.array(_col(rows, 2, 0), dtype=np.int64))
    b.ranges(texts, _col(rows, 0), _col(rows, 1), pid=pid, tid=tid, category="nvtx")
    return f"{len(open_)} NVTX ranges never closed are left out" if open_ else None


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
