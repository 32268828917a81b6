"""One dtype vocabulary for the whole tool: ``bf16``, ``fp8e4m3``, ``int8``, ...

Every module that shows, compares or looks up an element type goes through :func:`canonical`:
torch dtypes, ``"torch.float32"`` strings, C++ element types from kernel names
(``c10::BFloat16``) and user spellings (``bfloat16``, ``e4m3``) all land on one short name from
``data/dtypes.tsv``. :func:`peak_class` says which column of the peak table applies to it (all fp8
formats share the fp8 tensor-core rate). torch is never imported here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError, UsageError

__all__ = ["DType", "all_dtypes", "canonical", "lookup", "peak_class", "bits"]

_PKG = "bench_kernel"
_QUALIFIERS = re.compile(r"\b(?:const|volatile)\b|[*&]")


@dataclass(frozen=True)
class DType:
    """One canonical element type (a row of ``data/dtypes.tsv``)."""

    name: str
    bits: int
    """Storage bits per element."""
    peak: str | None
    """Peak-table column whose rate applies (``"fp8"`` for every fp8 format), None for none."""
    torch_name: str | None
    """``torch.<torch_name>``, None where torch has no such dtype."""


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, DType], dict[str, str]]:
    def check_dtype(row: dict[str, str], where: str) -> None:
        if not row["dtype"].isidentifier() or not row["bits"].isdigit():
            raise InputError(f"{where}: dtype {row['dtype']!r} must be an identifier and bits "
                             f"{row['bits']!r} a whole number")

    dtypes: dict[str, DType] = {}
    for row in read_package_tsv(_PKG, "dtypes.tsv", ("dtype", "bits", "peak", "torch"), check_dtype):
        dtypes[row["dtype"]] = DType(row["dtype"], int(row["bits"]), None if row["peak"] == "-" else row["peak"],
                                     None if row["torch"] == "-" else row["torch"])
    spellings = {name: name for name in dtypes}
    for d in dtypes.values():
        if d.torch_name:
            spellings.setdefault(d.torch_name, d.name)

    def check_spelling(row: dict[str, str], where: str) -> None:
        if row["dtype"] not in dtypes:
            raise InputError(f"{where}: {row['dtype']!r} is not a dtype of data/dtypes.tsv")
        key = _key(row["spelling"])
        if key in spellings and spellings[key] != row["dtype"]:
            raise InputError(f"{where}: {row['spelling']!r} already means {spellings[key]!r}")

    for row in read_package_tsv(_PKG, "dtype_spellings.tsv", ("spelling", "dtype"), check_spelling):
        spellings[_key(row["spelling"])] = row["dtype"]
    return dtypes, spellings


def _key(text: str) -> str:
    text = " ".join(_QUALIFIERS.sub(" ", text).split()).lower()
    return text[len("torch."):] if text.startswith("torch.") else text


def all_dtypes() -> tuple[DType, ...]:
    """Every canonical dtype, in table order."""
    return tuple(_tables()[0].values())


def lookup(dtype: Any) -> str | None:
    """The canonical name of ``dtype`` (a torch dtype, a string, a C++ type), or None if unknown."""
    if dtype is None:
        return None
    return _lookup_text(str(dtype))


@lru_cache(maxsize=4096)
def _lookup_text(text: str) -> str | None:
    # Cached: the trace and counting paths ask for the same few spellings millions of times.
    return _tables()[1].get(_key(text))


def canonical(dtype: Any) -> str:
    """:func:`lookup`, raising :class:`UsageError` that names the known dtypes when unknown."""
    name = lookup(dtype)
    if name is None:
        raise UsageError(f"unknown dtype {str(dtype)!r}; expected one of {', '.join(_tables()[0])} "
                         "(or a spelling such as bfloat16, float16, float8_e4m3fn)")
    return name


def peak_class(dtype: Any) -> str:
    """The peak-table column for ``dtype`` (``"fp8"`` for ``torch.float8_e4m3fn``).

    Raises UsageError for an unknown dtype or one no peak rate applies to (``int32``).
    """
    d = _tables()[0][canonical(dtype)]
    if d.peak is None:
        raise UsageError(f"dtype {d.name!r} has no peak rate in the peak table (no matrix-core rate applies)")
    return d.peak


def bits(dtype: Any) -> int:
    """Storage bits per element of ``dtype``."""
    return _tables()[0][canonical(dtype)].bits
