"""Reading rocprofv3's counter-collection CSV (``rocprofv3 --pmc ... --output-format csv``).

The file is long: one row per dispatch and counter, with the dispatch's metadata repeated
(``Dispatch_Id``, ``Kernel_Name``, ``VGPR_Count``, ...; ``Counter_Name``, ``Counter_Value``).
Spellings differ between rocprofv3 releases and the tools that convert its database
(``Dispatch_Id`` / ``Dispatch_ID``, ``VGPR_Count`` / ``Arch_VGPR``), so columns are found by name,
case-insensitively. A counter collected in several passes of one dispatch appears once per pass
with the same value; per-instance rows (``TCC_EA0_WRREQ[12]``) are left out, their ``_sum`` kept.

Tested on files AMD recorded on real GPUs (``tests/data/counters/``); the collection that would
write such a file here has never run on AMD hardware.
"""

from __future__ import annotations

import csv
import io

from bench_kernel.counters._ncu import Launch
from bench_kernel.errors import InputError

__all__ = ["parse_rocprof_csv"]

_DISPATCH = ("dispatch_id",)
_NAME = ("kernel_name",)
_VGPR = ("vgpr_count", "arch_vgpr")
_COUNTER = ("counter_name",)
_VALUE = ("counter_value",)


def _find(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for n in names:
        if n in lowered:
            return lowered.index(n)
    return None


def _column(header: list[str], names: tuple[str, ...], source: str) -> int:
    found = _find(header, names)
    if found is None:
        raise InputError(f"{source}: not a rocprofv3 counter-collection CSV: no column {names[0]!r} "
                         f"(columns: {', '.join(header[:8])}...)")
    return found


def parse_rocprof_csv(text: str, source: str = "rocprofv3 output") -> list[Launch]:
    """Every dispatch in ``text`` with its counters, in dispatch order.

    ``Launch.values`` maps counter names to numbers, plus ``VGPR_Count`` (architectural VGPRs per
    work-item) where the file has it.
    """
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if r]
    if not rows:
        raise InputError(f"{source}: empty file, not a rocprofv3 counter-collection CSV")
    header = rows[0]
    cols = {"dispatch": _column(header, _DISPATCH, source), "name": _column(header, _NAME, source),
            "counter": _column(header, _COUNTER, source), "value": _column(header, _VALUE, source)}
    vgpr_col = _find(header, _VGPR)  # optional: not every file has a VGPR column
    by_dispatch: dict[int, tuple[str, dict[str, float]]] = {}
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(f"{source}:{lineno}: {len(row)} cells, the header has {len(header)}: truncated file?")
        try:
            dispatch = int(row[cols["dispatch"]])
            value = float(row[cols["value"]])
        except ValueError:
            raise InputError(f"{source}:{lineno}: dispatch {row[cols['dispatch']]!r} or value "
                             f"{row[cols['value']]!r} is not a number") from None
        counter = row[cols["counter"]].strip()
        name, values = by_dispatch.setdefault(dispatch, (row[cols["name"]], {}))
        if "[" in counter:
            continue
        values.setdefault(counter, value)
        if vgpr_col is not None and row[vgpr_col].strip():
            values.setdefault("VGPR_Count", float(row[vgpr_col]))
    return [Launch(id=d, name=n, values=v) for d, (n, v) in sorted(by_dispatch.items())]
