"""Trim a real ``nsys export --type sqlite`` database to the rows bench-kernel's tests need, as SQL text.

    python tests/data/sources/trim_nsys_export.py SRC.sqlite OUT.sql

How ``nsys_fuser_h200.sql`` was made (README.md in this folder names the source and its licence):
the tables the reader uses keep their CREATE statements exactly as Nsight Systems wrote them, and
- every kernel, memcpy, memset and synchronization row;
- the runtime/driver API rows that started them, every synchronize call and every cudaMalloc;
- the NVTX push/pop ranges that enclose one of those calls on its thread (the rest, ~13,000 ranges
  of nvFuser's compiler, enclose nothing the tests look at);
- the StringIds those rows name, the GPU row, the product/version rows of META_DATA_EXPORT (not
  the host, user or paths) and the NVTX rows of ENUM_NSYS_EVENT_TYPE.
Values are not changed. The test suite rebuilds the SQLite file from this text (``sqlite3`` runs it).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

_DEVICE_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
_EXPORT_KEYS = ("EXPORT_PRODUCT_NAME", "EXPORT_PRODUCT_VERSION", "EXPORT_PRODUCT_DATE", "EXPORT_SCHEMA_VERSION")


def sql_literal(v: object) -> str:
    """A value as an SQL literal (NULL, a number, a quoted string)."""
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def trim(src: Path) -> str:
    db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    tables = {n: sql for n, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'")}
    rows: dict[str, list[tuple]] = {}
    for t in _DEVICE_TABLES:
        if t in tables:
            rows[t] = db.execute(f"SELECT * FROM {t} ORDER BY start").fetchall()
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    corr = {r[0] for t in _DEVICE_TABLES if t in tables
            for r in db.execute(f"SELECT correlationId FROM {t}")}
    cols = [c[1] for c in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
    ci, ni = cols.index("correlationId"), cols.index("nameId")
    runtime = [r for r in db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY start")
               if r[ci] in corr or "Synchronize" in names[r[ni]] or names[r[ni]].startswith("cudaMalloc_")]
    rows["CUPTI_ACTIVITY_KIND_RUNTIME"] = runtime
    si, ei, ti = cols.index("start"), cols.index("end"), cols.index("globalTid")
    calls = [(r[si], r[ei], r[ti]) for r in runtime]
    nvtx_cols = [c[1] for c in db.execute("PRAGMA table_info(NVTX_EVENTS)")]
    ns, ne, nt = nvtx_cols.index("start"), nvtx_cols.index("end"), nvtx_cols.index("globalTid")
    rows["NVTX_EVENTS"] = [r for r in db.execute("SELECT * FROM NVTX_EVENTS WHERE eventType = 59 ORDER BY start")
                           if r[ne] is not None and any(r[nt] == t and r[ns] <= s and e <= r[ne] for s, e, t in calls)]
    rows["TARGET_INFO_GPU"] = db.execute("SELECT * FROM TARGET_INFO_GPU").fetchall()
    rows["META_DATA_EXPORT"] = [r for r in db.execute("SELECT * FROM META_DATA_EXPORT") if r[0] in _EXPORT_KEYS]
    rows["ENUM_NSYS_EVENT_TYPE"] = db.execute(
        "SELECT * FROM ENUM_NSYS_EVENT_TYPE WHERE name LIKE 'Nvtx%'").fetchall()
    used: set[int] = set()
    for t, rs in rows.items():
        tcols = [c[1] for c in db.execute(f"PRAGMA table_info({t})")]
        for c in ("demangledName", "shortName", "mangledName", "nameId", "textId"):
            if c in tcols:
                k = tcols.index(c)
                used.update(r[k] for r in rs if r[k] is not None)
    rows = {"StringIds": sorted((i, names[i]) for i in used), **rows}
    out = ["-- Trimmed from a real Nsight Systems SQLite export by trim_nsys_export.py (see README.md).",
           "BEGIN TRANSACTION;"]
    for t, rs in rows.items():
        out.append(tables[t] + ";")
        out.extend(f"INSERT INTO {t} VALUES({','.join(map(sql_literal, r))});" for r in rs)
    out.append("COMMIT;")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    Path(sys.argv[2]).write_text(trim(Path(sys.argv[1])))
