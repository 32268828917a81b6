"""One neutral form for an op's arguments, whether they come from a live call or from a trace.

The counting formulas (``_formulas``) take an op's arguments in schema order, each one of:

- :class:`TensorArg` -- shape, canonical dtype (``bf16``; None when not recorded), strides, and for
  small integer tensors seen live their values (``cu_seqlens``: the variable lengths);
- a list of :class:`TensorArg` (``TensorList``, e.g. the inputs of ``cat``);
- a plain scalar (int, float, bool, str, a list of ints), or None for an absent optional;
- :data:`UNKNOWN` where the trace recorded the argument's type but not its value.

:func:`from_trace` builds it from a Kineto ``cpu_op`` event's ``Input Dims``, ``Input type``,
``Concrete Inputs`` and ``Input Strides`` (``record_shapes=True``); the live counter
(``_count``) builds it from the tensors of a dispatched op. torch is never imported here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kernel.dtypes import bits, lookup

__all__ = ["TensorArg", "UNKNOWN", "from_trace", "parse_concrete", "nbytes", "touched_bytes", "numel"]


class _Unknown:
    """A recorded argument whose value the trace does not hold (``Concrete Inputs`` empty)."""

    _instance: "_Unknown | None" = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument as the formulas see it."""

    shape: tuple[int, ...]
    dtype: str | None
    """Canonical dtype (``bf16``, ``int64``); None when the trace does not say (tensor lists)."""
    strides: tuple[int, ...] | None = None
    """Element strides; a 0 stride (a broadcast) re-reads the same elements. None when unknown."""
    values: tuple[int, ...] | None = None
    """The contents of a small integer tensor (``cu_seqlens``), when the live counter read them."""

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


def numel(shape: Sequence[int]) -> int:
    """Elements of a shape (1 for a 0-dim tensor)."""
    return math.prod(shape)


def nbytes(t: TensorArg, dtype: str | None = None) -> int | None:
    """Bytes of all of ``t``'s elements in ``dtype`` (default its own); None when the dtype is unknown."""
    d = dtype or t.dtype
    if d is None:
        return None
    return (t.numel * bits(d) + 7) // 8


def touched_bytes(t: TensorArg, dtype: str | None = None) -> int | None:
    """Bytes a kernel must read for ``t``: a stride-0 (broadcast) dimension adds no bytes."""
    d = dtype or t.dtype
    if d is None:
        return None
    if t.numel == 0:
        return 0
    if t.strides is not None and len(t.strides) == len(t.shape):
        elems = math.prod(s for s, st in zip(t.shape, t.strides) if st != 0)
    else:
        elems = t.numel
    return (elems * bits(d) + 7) // 8


_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan)$", re.IGNORECASE)
# Kineto writes every scalar of the schema as text; a value this long is not a number we use.
_MAX_CONCRETE = 256


def parse_concrete(text: Any) -> Any:
    """A ``Concrete Inputs`` cell as a Python value: ``"True"`` -> True, ``"0."`` -> 0.0,
    ``"[1, -1]"`` -> [1, -1], ``""`` -> :data:`UNKNOWN`; other text is kept as a string."""
    if not isinstance(text, str):
        return UNKNOWN if text is None else text
    s = text.strip()
    if not s or len(s) > _MAX_CONCRETE:
        return UNKNOWN
    if s in ("True", "False"):
        return s == "True"
    if _INT.match(s):
        return int(s)
    if _FLOAT.match(s):
        return float(s)
    if s.startswith("[") and s.endswith("]"):
        items = [parse_concrete(x) for x in s[1:-1].split(",") if x.strip()]
        return items if all(isinstance(x, (int, float, bool)) for x in items) else UNKNOWN
    return s


def _shape(value: Any) -> tuple[int, ...] | None:
    """A recorded shape: a list of non-negative ints, else None (malformed input is data, not a crash)."""
    if isinstance(value, (list, tuple)) and all(type(x) is int and 0 <= x < 2**62 for x in value):
        return tuple(value)
    return None


def _strides(value: Any, ndim: int) -> tuple[int, ...] | None:
    if isinstance(value, (list, tuple)) and len(value) == ndim and all(type(x) is int for x in value):
        return tuple(value)
    return None


def _at(seq: Any, i: int) -> Any:
    return seq[i] if isinstance(seq, (list, tuple)) and i < len(seq) else None


def from_trace(dims: Any, types: Any, concrete: Any = None, strides: Any = None) -> tuple[Any, ...]:
    """The op's arguments from its recorded ``Input Dims``/``Input type``/``Concrete Inputs``/``Input Strides``.

    A tensor is a typed argument with a shape (a 0-dim tensor has ``[]`` dims and a dtype type);
    ``Scalar``/``ScalarList`` take their value from ``Concrete Inputs``; an untyped empty entry is an
    absent optional (None). Malformed entries become :data:`UNKNOWN` instead of raising.
    """
    n = max((len(x) for x in (dims, types) if isinstance(x, (list, tuple))), default=0)
    out: list[Any] = []
    for i in range(n):
        d, t = _at(dims, i), _at(types, i)
        t = t if isinstance(t, str) else ""
        if t in ("Scalar", "ScalarList"):
            out.append(parse_concrete(_at(concrete, i)))
        elif t == "TensorList" or t.startswith("GenericList"):
            shapes = d if isinstance(d, (list, tuple)) else []
            st = _at(strides, i)
            out.append([TensorArg(s, None, _strides(_at(st, j), len(s)))
                        for j, s in enumerate(map(_shape, shapes)) if s is not None])
        elif t == "":
            c = parse_concrete(_at(concrete, i))
            out.append(None if c is UNKNOWN else c)  # an absent optional, or a string argument
        else:
            shape = _shape(d)
            if shape is None:
                out.append(UNKNOWN)
            else:
                out.append(TensorArg(shape, lookup(t), _strides(_at(strides, i), len(shape))))
    return tuple(out)
