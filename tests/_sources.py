"""The fixtures of tests/data/sources/ (README.md there: what is real, what is built, and from where).

The Nsight Systems exports are kept as SQL text; :func:`nsys_export` rebuilds the SQLite file.
Values the tests assert are computed here from the files themselves (SQL, csv), never from the
code under test.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "data" / "sources"
ROCPROF_RUN = SOURCES / "rocprofv3_run"
ROCPROF_DOCS = (SOURCES / "rocprofv3_docs_481f7ff" / "kernel_trace.csv",
                SOURCES / "rocprofv3_docs_5bec9f6" / "kernel_trace.csv")


def nsys_export(name: str, folder: Path) -> Path:
    """``folder/<name>.sqlite`` built from ``tests/data/sources/<name>.sql``."""
    out = folder / f"{name}.sqlite"
    if not out.exists():
        con = sqlite3.connect(out)
        con.executescript((SOURCES / f"{name}.sql").read_text())
        con.close()
    return out


def query(db: Path, sql: str, *args: object) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return [r for r in csv.DictReader(fh) if r]


def union_us(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of (start, end) intervals: a plain sort and sweep, independent of trace/."""
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0.0)
