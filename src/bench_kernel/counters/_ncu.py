"""Reading Nsight Compute's CSV: ``ncu --csv --page raw`` (one row per launch), its long form
(``ncu --csv``: one row per launch and metric) and ``ncu --import REPORT --csv --page raw``.

What real output looks like (H200, ncu 2025.3.1, ``tests/data/counters/``): ncu's own ``==PROF==`` and
``==WARNING==`` lines and whatever the profiled program printed come first; then the header; then a
row of units (``byte``, ``%``, ``inst``, ``register/thread``); numbers carry thousands separators
(``268,451,072``). Live runs print base units, but an imported report scales them (``67.666432``
``Mbyte``): the units row is read and every value brought back to base units. NVTX push/pop ranges
come in a column ``thread Domain:Push/Pop_Range:...`` as ``1536  "<default domain>:bk_mul:none:..."``.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Mapping

from bench_kernel.errors import InputError

__all__ = ["Launch", "parse_ncu_csv", "NO_KERNELS"]

#: ncu's words when its filters matched no launch.
NO_KERNELS = "No kernels were profiled"
#: Units whose SI-prefixed forms (Kbyte, Mbyte, Ginst, ...) ncu prints; prefixes are powers of 1000.
_BASE_UNITS = ("byte", "inst", "cycle", "pass", "warp", "block", "thread", "sector", "request", "SM",
               "register/thread", "byte/block", "cluster")
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_RANGE_COLUMN = "thread Domain:Push/Pop_Range"
_QUOTED = re.compile(r'"([^"]*)"')


@dataclass(frozen=True)
class Launch:
    """One profiled kernel launch: ncu's ID, the name it printed, its NVTX push/pop ranges and numbers."""

    id: int
    name: str
    ranges: tuple[str, ...] = ()
    """NVTX push/pop range names around the launch, outermost first (empty without ``--nvtx``)."""
    values: Mapping[str, float] = field(default_factory=dict, hash=False)
    """metric -> value in base units (bytes, instructions, %, ...). Cells that are not numbers are left out."""


def _scale(unit: str) -> float:
    if unit and unit[0] in _PREFIX and unit[1:] in _BASE_UNITS:
        return _PREFIX[unit[0]]
    return 1.0


def _number(cell: str) -> float | None:
    text = cell.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _ranges(cell: str) -> tuple[str, ...]:
    # '1536  "<default domain>:bk_mul_256MB:none:none:none:none:none:none" ': domain, then the range name.
    out = []
    for quoted in _QUOTED.findall(cell.replace('""', '"')):
        parts = quoted.split(":")
        if len(parts) >= 2:
            out.append(parts[1])
    return tuple(out)


def _table_lines(text: str, source: str) -> list[str]:
    """The CSV part of ncu's output: from the header line on, ncu's own messages left out."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID",')), None)
    if start is None:
        if NO_KERNELS in text:
            return []
        said = [ln.strip() for ln in lines if ln.startswith("==ERROR==")] or [ln.strip() for ln in lines[-3:]]
        raise InputError(f"{source}: no Nsight Compute CSV table (a header starting \"ID\"); ncu said: "
                         f"{' | '.join(said)[:400] or 'nothing'}")
    return [ln for ln in lines[start:] if not ln.startswith("==")]


def parse_ncu_csv(text: str, source: str = "ncu output") -> list[Launch]:
    """Every launch in ncu's CSV ``text``, in ncu's ID order; ``[]`` when ncu profiled none.

    Takes the raw page (a column per metric) and the long form (``Metric Name``/``Metric Value``
    columns); InputError naming ``source`` for anything else.
    """
    lines = _table_lines(text, source)
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    for need in ("ID", "Kernel Name"):
        if need not in header:
            raise InputError(f"{source}: the ncu CSV header has no {need!r} column")
    body = [r for r in rows[1:] if r]
    if "Metric Name" in header and "Metric Value" in header:
        return _long_form(header, body, source)
    units = body[0] if body and body[0][header.index("ID")] == "" else None
    if units is not None:
        body = body[1:]
    range_col = next((i for i, h in enumerate(header) if h.startswith(_RANGE_COLUMN)), None)
    launches = []
    for lineno, row in enumerate(body, start=1):
        if len(row) != len(header):
            raise InputError(f"{source}: data row {lineno} has {len(row)} cells, the header {len(header)}: "
                             f"truncated output?")
        values = {}
        for i, (name, cell) in enumerate(zip(header, row)):
            v = _number(cell)
            if v is not None and "__" in name:
                values[name] = v * _scale(units[i] if units else "")
        launch_id = _number(row[header.index("ID")])
        launches.append(Launch(id=int(launch_id) if launch_id is not None else lineno - 1,
                               name=row[header.index("Kernel Name")],
                               ranges=_ranges(row[range_col]) if range_col is not None else (),
                               values=values))
    return sorted(launches, key=lambda launch: launch.id)


def _long_form(header: list[str], body: list[list[str]], source: str) -> list[Launch]:
    col = {h: header.index(h) for h in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    unit_col = header.index("Metric Unit") if "Metric Unit" in header else None
    range_col = next((i for i, h in enumerate(header) if h.startswith(_RANGE_COLUMN)), None)
    by_id: dict[int, tuple[str, tuple[str, ...], dict[str, float]]] = {}
    for row in body:
        if len(row) != len(header):
            raise InputError(f"{source}: a long-form row has {len(row)} cells, the header {len(header)}")
        launch_id = _number(row[col["ID"]])
        if launch_id is None:
            continue
        name, ranges, values = by_id.setdefault(
            int(launch_id), (row[col["Kernel Name"]], _ranges(row[range_col]) if range_col is not None else (), {}))
        v = _number(row[col["Metric Value"]])
        if v is not None:
            values[row[col["Metric Name"]]] = v * _scale(row[unit_col] if unit_col is not None else "")
    return [Launch(i, n, r, v) for i, (n, r, v) in sorted(by_id.items())]
