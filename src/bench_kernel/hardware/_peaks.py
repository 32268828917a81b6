"""The peak table (``peaks.json``): load it, validate every row, look devices up by name.

The table is data, not code: a figure changes by editing the JSON, and :func:`parse_peak_table`
refuses a file with a missing source, a duplicated name or a non-positive figure, so
a typo never becomes a silently wrong roof.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Iterable, Mapping, cast, get_args

import msgspec

from bench_kernel.dtypes import all_dtypes
from bench_kernel.errors import DeviceError, InputError
from bench_kernel.records import DevicesOutput, DeviceSpec, Vendor

__all__ = [
    "DeviceSpec",
    "PeakTable",
    "devices_document",
    "get_device",
    "list_devices",
    "normalize_name",
    "parse_peak_table",
    "peak_table",
]

#: Scalar figures of a row that need a source when they are not null.
_SCALAR_FIGURES = ("memory_tbps", "l2_tbps", "l1_tbps", "l2_mib", "llc_mib", "sm_count", "boost_clock_mhz")
_VENDORS: tuple[Vendor, ...] = get_args(Vendor)
_MIB = 1 << 20


class _DeviceRow(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    vendor: str
    arch: str
    aliases: list[str]
    memory_tbps: float
    peak_tflops: dict[str, float | None]
    l2_mib: float | None
    llc_mib: float | None
    sm_count: int
    boost_clock_mhz: int | None
    sources: dict[str, str]
    notes: str = ""
    #: Cache bandwidths, where a figure can be sourced (the hierarchical roofline's L2 and L1 ceilings).
    l2_tbps: float | None = None
    l1_tbps: float | None = None


class _PeakFile(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: int
    about: list[str]
    dtypes: list[str]
    refs: dict[str, str]
    devices: list[_DeviceRow]


@dataclass(frozen=True)
class PeakTable:
    """The parsed table: devices in file order, dtype names and aliases, reference list."""

    devices: tuple[DeviceSpec, ...]
    dtypes: tuple[str, ...]
    refs: Mapping[str, str] = field(hash=False)
    about: tuple[str, ...] = ()
    _by_key: Mapping[str, DeviceSpec] = field(default_factory=dict, hash=False, repr=False)

    def lookup(self, name: str) -> DeviceSpec | None:
        """The device whose name or alias normalises to the same key as ``name``, else None."""
        return self._by_key.get(normalize_name(name))

    def close_names(self, name: str, n: int = 5) -> list[str]:
        """Table names that look like ``name`` (prefix/substring first, then difflib)."""
        key = normalize_name(name)
        hits: list[str] = []
        if key:
            hits += [d.name for k, d in self._by_key.items() if k.startswith(key) or key in k]
        keys = list(self._by_key)
        hits += [self._by_key[k].name for k in difflib.get_close_matches(key, keys, n=n, cutoff=0.5)]
        return list(dict.fromkeys(hits))[:n]


_VENDOR_PREFIX = re.compile(r"^\s*(nvidia|amd)\s+(instinct\s+)?", re.IGNORECASE)


def normalize_name(name: str) -> str:
    """Lower-case alphanumerics without the vendor prefix: ``"NVIDIA H100 PCIe"`` -> ``"h100pcie"``.

    Matching on this key is exact, so "fuzzy" means only case, spacing, punctuation and the
    vendor word: ``"NVIDIA H100"`` matches neither H100 SXM nor H100 PCIe (it is ambiguous).
    """
    return re.sub(r"[^a-z0-9]", "", _VENDOR_PREFIX.sub("", str(name)).lower())


def _fail(origin: str, where: str, message: str) -> InputError:
    return InputError(f"{origin}: {where}: {message}")


def _check_source(origin: str, where: str, text: str, refs: Mapping[str, str]) -> None:
    ref = text.split(":", 1)[0].strip()
    if ref != "derived" and ref not in refs:
        raise _fail(origin, where, f"source {text!r} must start with 'derived:' or a ref id "
                                   f"({', '.join(refs)}) followed by ':'")


def _positive(origin: str, where: str, value: float | None, nullable: bool) -> None:
    if value is None:
        if not nullable:
            raise _fail(origin, where, "must not be null")
        return
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise _fail(origin, where, f"must be a finite number > 0, got {value!r}")


def _row_to_spec(origin: str, i: int, row: _DeviceRow, dtypes: tuple[str, ...],
                 refs: Mapping[str, str]) -> DeviceSpec:
    where = f"devices[{i}] {row.name!r}"
    if row.vendor not in _VENDORS:
        raise _fail(origin, where, f"vendor {row.vendor!r} must be one of {_VENDORS}")
    if set(row.peak_tflops) != set(dtypes):
        raise _fail(origin, where, f"peak_tflops keys {sorted(row.peak_tflops)} must be exactly "
                                   f"{list(dtypes)} (null where there is no figure)")
    _positive(origin, f"{where}.memory_tbps", row.memory_tbps, nullable=False)
    _positive(origin, f"{where}.sm_count", row.sm_count, nullable=False)
    for fig in ("l2_mib", "llc_mib", "boost_clock_mhz", "l2_tbps", "l1_tbps"):
        _positive(origin, f"{where}.{fig}", getattr(row, fig), nullable=True)
    for dt in dtypes:
        _positive(origin, f"{where}.peak_tflops.{dt}", row.peak_tflops[dt], nullable=True)
    if all(v is None for v in row.peak_tflops.values()):
        raise _fail(origin, where, "has no compute figure at all")

    present = {f for f in _SCALAR_FIGURES if getattr(row, f) is not None}
    present |= {dt for dt, v in row.peak_tflops.items() if v is not None}
    missing, extra = present - set(row.sources), set(row.sources) - present
    if missing:
        raise _fail(origin, where, f"figures without a source: {sorted(missing)}")
    if extra:
        raise _fail(origin, where, f"sources for null or unknown figures: {sorted(extra)}")
    for fig, text in row.sources.items():
        _check_source(origin, f"{where}.sources.{fig}", text, refs)

    return DeviceSpec(
        name=row.name, vendor=cast(Vendor, row.vendor), arch=row.arch, aliases=tuple(row.aliases),
        memory_tbps=float(row.memory_tbps),
        peak_tflops=MappingProxyType({d: float(v) for d, v in row.peak_tflops.items() if v is not None}),
        l2_bytes=None if row.l2_mib is None else int(row.l2_mib * _MIB),
        llc_bytes=None if row.llc_mib is None else int(row.llc_mib * _MIB),
        sm_count=row.sm_count, boost_clock_mhz=row.boost_clock_mhz,
        sources=MappingProxyType(dict(row.sources)), notes=row.notes,
        l2_tbps=row.l2_tbps, l1_tbps=row.l1_tbps,
    )


def parse_peak_table(data: bytes | str, origin: str = "peaks.json") -> PeakTable:
    """Parse and validate a peak table; any problem is an InputError naming the row and field."""
    try:
        raw = msgspec.json.decode(data, type=_PeakFile)
    except msgspec.DecodeError as e:  # ValidationError is a subclass: names the JSON path
        raise InputError(f"{origin}: {e}") from None
    if raw.schema_version != 1:
        raise _fail(origin, "schema_version", f"expected 1, got {raw.schema_version}")
    dtypes = tuple(raw.dtypes)
    if "bf16" not in dtypes or len(set(dtypes)) != len(dtypes):
        raise _fail(origin, "dtypes", f"must be unique and include 'bf16', got {list(dtypes)}")
    # The columns are the peak classes of the one dtype vocabulary (bench_kernel/data/dtypes.tsv).
    classes = {d.peak for d in all_dtypes() if d.peak}
    if set(dtypes) != classes:
        raise _fail(origin, "dtypes", f"must be the peak classes of bench_kernel/data/dtypes.tsv "
                    f"{sorted(classes)}, got {list(dtypes)}")

    specs = tuple(_row_to_spec(origin, i, row, dtypes, raw.refs) for i, row in enumerate(raw.devices))
    by_key: dict[str, DeviceSpec] = {}
    for spec in specs:
        for label in (spec.name, *spec.aliases):
            key = normalize_name(label)
            other = by_key.get(key)
            if not key or (other is not None and other is not spec):
                owner = other.name if other else "?"
                raise _fail(origin, f"device {spec.name!r}",
                            f"name/alias {label!r} (key {key!r}) is empty or already names {owner!r}")
            by_key[key] = spec
    return PeakTable(devices=specs, dtypes=dtypes, refs=MappingProxyType(dict(raw.refs)), about=tuple(raw.about),
                     _by_key=MappingProxyType(by_key))


@lru_cache(maxsize=1)
def peak_table() -> PeakTable:
    """The packaged table (``bench_kernel/hardware/data/peaks.json``), parsed once."""
    # One name per joinpath: before Python 3.11 a Traversable's joinpath takes exactly one.
    data = resources.files("bench_kernel.hardware").joinpath("data").joinpath("peaks.json").read_bytes()
    return parse_peak_table(data, origin="bench_kernel/hardware/data/peaks.json")


def list_devices() -> tuple[DeviceSpec, ...]:
    """Every device of the peak table, in table order."""
    return peak_table().devices


def get_device(name: str | DeviceSpec) -> DeviceSpec:
    """The table row for ``name``: a table name, an alias or the name PyTorch reports.

    Matching ignores case, spacing, punctuation and a leading ``NVIDIA``/``AMD Instinct``, and is
    otherwise exact; an unknown or ambiguous name raises DeviceError listing the closest names.
    """
    if isinstance(name, DeviceSpec):
        return name
    table = peak_table()
    spec = table.lookup(name)
    if spec is not None:
        return spec
    close = table.close_names(name)
    hint = (f"close matches: {', '.join(close)}" if close
            else f"known devices: {', '.join(d.name for d in table.devices)}")
    raise DeviceError(f"unknown device {name!r}; {hint}. Pass --device with one of these names "
                      f"(see 'bench-kernel devices'), or add a row to bench_kernel/hardware/data/peaks.json")


def devices_document(names: Iterable[str] = ()) -> DevicesOutput:
    """What ``devices --json`` prints: the devices ``names`` name (:func:`get_device`: DeviceError for
    an unknown one), in that order; without names, every device of the peak table."""
    wanted = list(names)
    return DevicesOutput(devices=tuple(get_device(n) for n in wanted) if wanted else list_devices())
