"""Which profiler wrote a file, told by its content: ``load_trace`` asks here before reading Kineto JSON.

- an SQLite database (its 16-byte magic ``SQLite format 3\\0``): an Nsight Systems export when it
  has nsys' tables (``_nsys.is_nsys``); rocprofv3's own database (``rocpd_*`` tables) and any
  other SQLite file are refused with the way to get a trace;
- CSV whose header is a rocprofv3 kernel trace (``Kernel_Name``, ``Start_Timestamp``, ...); the
  other rocprofv3 CSVs are refused with the file to pass instead;
- JSON whose first key is ``rocprofiler-sdk-tool``: rocprofv3's JSON;
- an Nsight Systems report not yet exported (``.nsys-rep``, ``.qdrep``) and rocprofv3's binary
  outputs (``.pftrace``, ``.otf2``) are refused with the command that converts them (these are
  the only decisions made by extension: their content has no cheap signature);
- anything else is Kineto's (or not a trace, which the Kineto reader says).

Pipes and FIFOs are left to the Kineto reader, which reads forward only: sniffing would consume them.
"""

from __future__ import annotations

import csv
import gzip
import re
import sqlite3
import zlib
from pathlib import Path

from bench_kernel.errors import TraceError
from bench_kernel.trace._foreign import ForeignTrace
from bench_kernel.trace._nsys import is_nsys, read_nsys
from bench_kernel.trace._rocprof import KERNEL_TRACE, SIBLINGS, read_rocprof_csv, read_rocprof_json, rocprof_csv_kind

__all__ = ["read_other_format"]

_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEAD_BYTES = 1 << 16
_ROCPROF_JSON = re.compile(rb"\A\s*\{\s*\"rocprofiler-sdk-tool\"\s*:")
_REFUSED_SUFFIXES = {
    ".nsys-rep": "an Nsight Systems report: export it first with 'nsys export --type sqlite {name}' and pass the .sqlite",
    ".qdrep": "an Nsight Systems report: export it first with 'nsys export --type sqlite {name}' and pass the .sqlite",
    ".pftrace": "a Perfetto trace (rocprofv3 --output-format pftrace), which is not read: re-run rocprofv3 with "
                "--output-format csv (or json) and pass the *kernel_trace.csv",
    ".otf2": "an OTF2 trace, which is not read: re-run rocprofv3 with --output-format csv (or json) and pass the "
             "*kernel_trace.csv",
}


def _head(path: Path) -> tuple[bytes, bool]:
    """The first bytes of ``path`` (decompressed when gzip) and whether it is gzip."""
    with path.open("rb") as fh:
        raw = fh.read(_HEAD_BYTES)
    if raw[:2] != b"\x1f\x8b":
        return raw, False
    try:
        with gzip.open(path, "rb") as gz:
            return gz.read(_HEAD_BYTES), True
    except (OSError, EOFError, zlib.error):
        return b"", True  # a damaged gzip: the Kineto reader says what is wrong with it


def _check_sqlite_size(path: Path, head: bytes) -> None:
    """A file shorter than its header says (bytes 16-17 page size, 28-31 page count, valid when the
    change counter at 24 equals the one at 92: sqlite.org/fileformat2.html) is truncated."""
    if len(head) < 100:
        raise TraceError(f"{path}: a truncated SQLite file ({len(head)} bytes, shorter than the 100-byte header)")
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] == head[92:96] and pages and path.stat().st_size < page * pages:
        raise TraceError(f"{path}: the SQLite file is truncated ({path.stat().st_size:,} of the {page * pages:,} "
                         f"bytes its header declares); copy or export it again")


def _sqlite(path: Path, head: bytes, *, links: bool, shapes: bool, stacks: bool) -> ForeignTrace:
    _check_sqlite_size(path, head)
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as e:
        raise TraceError(f"{path}: cannot open this SQLite file ({e})") from None
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if is_nsys(tables):
            return read_nsys(con, path, links=links, shapes=shapes, stacks=stacks)
        if any(t.startswith("rocpd_") for t in tables):
            raise TraceError(f"{path}: a rocprofv3 database (rocpd), which is not read: convert it with "
                             f"'rocpd convert -f csv -i {path.name}' (or run rocprofv3 --output-format csv) and pass "
                             f"the *kernel_trace.csv")
        shown = ", ".join(sorted(tables)[:6]) + (" ..." if len(tables) > 6 else "") or "none"
        raise TraceError(f"{path}: an SQLite database but not an Nsight Systems export (its tables: {shown}); "
                         f"export the report with 'nsys export --type sqlite REPORT.nsys-rep'")
    except sqlite3.Error as e:  # DatabaseError: "file is not a database", "database disk image is malformed"
        raise TraceError(f"{path}: the SQLite file is damaged or truncated ({e})") from None
    finally:
        con.close()


def _csv_header(head: bytes) -> list[str] | None:
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    if b"," not in line or line.lstrip()[:1] in (b"{", b"["):
        return None
    try:
        return next(csv.reader([line.decode("utf-8", "replace")]))
    except (csv.Error, StopIteration):
        return None


def read_other_format(path: Path, *, links: bool, shapes: bool, stacks: bool) -> ForeignTrace | None:
    """The trace of an Nsight Systems or rocprofv3 file at ``path``, or None when it is none of them
    (then it is Kineto JSON or not a trace). Raises :class:`TraceError` for their damaged files and
    for outputs of these tools that are not read, naming what to pass instead."""
    if not path.is_file():
        return None
    refused = _REFUSED_SUFFIXES.get(path.suffix.lower())
    if refused:
        raise TraceError(f"{path}: {refused.format(name=path.name)}")
    head, gz = _head(path)
    if head.startswith(_SQLITE_MAGIC) and not gz:
        return _sqlite(path, head, links=links, shapes=shapes, stacks=stacks)
    if _ROCPROF_JSON.match(head):
        data = gzip.open(path, "rb").read() if gz else path.read_bytes()
        return read_rocprof_json(path, data, links=links, shapes=shapes, stacks=stacks)
    header = _csv_header(head) if not gz else None
    kind = rocprof_csv_kind(header, path.name) if header else None
    if kind == "kernel":
        return read_rocprof_csv(path, links=links, shapes=shapes, stacks=stacks)
    if kind is not None:
        what = SIBLINGS[kind][0]
        raise TraceError(f"{path}: a rocprofv3 {what}, not a kernel trace: pass the {KERNEL_TRACE} beside it "
                         f"(its {what} is read with it)")
    if header is not None and {"Kind", "Start_Timestamp"} & set(header):
        raise TraceError(f"{path}: a CSV that is not a rocprofv3 kernel trace: it has no column "
                         f"{', '.join(c for c in ('Kernel_Name', 'Start_Timestamp', 'End_Timestamp') if c not in header)}")
    return None
