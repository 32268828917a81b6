"""What every record is: a frozen ``msgspec.Struct``, written once.

The fields of a record are its JSON: ``msgspec`` encodes them, decodes and checks them
(``from_builtins``), and writes the JSON Schema of every ``--json`` document (``_documents``), from
which ``docs/json.md`` is generated. A field's meaning is written beside it, once, with :func:`doc`.

Derived figures that a reader of the JSON wants (a median, a ratio, a share) are fields too, so that
they are in the document and its schema; a record computes them in ``__post_init__`` with
:func:`derive`, which runs on decoding as well: a derived field is never read from a file, only
recomputed from what it derives from.
"""

from __future__ import annotations

import math
from pathlib import PurePath
from types import MappingProxyType
from typing import Any, Callable, TypeVar

import msgspec

__all__ = ["Record", "doc", "derive", "encode_other", "finite", "from_builtins", "to_builtins"]

T = TypeVar("T")
R = TypeVar("R", bound="Record")


class Record(msgspec.Struct, frozen=True):
    """The base of every record: frozen (records are values), compared and hashed by their fields."""

    def to_dict(self) -> dict[str, Any]:
        """This record as plain values, its fields by name (what its JSON holds; NaN stays NaN here)."""
        return to_builtins(self)  # type: ignore[no-any-return]

    def replace(self: R, **fields: Any) -> R:
        """A copy with ``fields`` changed (derived fields are recomputed)."""
        return msgspec.structs.replace(self, **fields)

    @classmethod
    def from_dict(cls: type[R], data: Any) -> R:
        """What :meth:`to_dict` wrote, read back and checked (``ValueError`` naming the field)."""
        return from_builtins(data, cls)


def doc(text: str, **constraints: Any) -> msgspec.Meta:
    """A field's meaning (and optional msgspec constraints: ``ge=0``, ...), for ``Annotated[T, doc(...)]``."""
    return msgspec.Meta(description=text, **constraints)


def derive(record: Record, **values: Any) -> None:
    """Set derived fields of a frozen record, from its ``__post_init__`` only."""
    for name, value in values.items():
        msgspec.structs.force_setattr(record, name, value)


def finite(x: float | None) -> float | None:
    """``x``, or None where it is not a finite number: JSON has no NaN or infinity."""
    if x is None or (isinstance(x, float) and (math.isnan(x) or math.isinf(x))):
        return None
    return x


def encode_other(o: Any) -> Any:
    """How a value that is not plain JSON is written, in a record's free-form fields (``params``,
    ``env``): a ``str`` subclass (torch's version) as its text, a path as its text, a numpy scalar as
    its number, a read-only mapping (a record's shared ``fields``) as a dict. Anything else is a
    TypeError naming its type: never a silently wrong value."""
    if isinstance(o, (str, PurePath)):
        return str(o)
    if isinstance(o, MappingProxyType):
        return dict(o)
    if hasattr(o, "item") and hasattr(o, "dtype"):
        return o.item()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    raise TypeError(f"cannot write a {type(o).__name__} as JSON")


def _lists(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: _lists(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_lists(v) for v in o]
    return o


def to_builtins(record: Any, other: Callable[[Any], Any] = encode_other) -> Any:
    """A record (or a structure holding records) as plain Python values: dicts, lists, str, numbers.
    A float that is not finite stays NaN or infinity here (the JSON writers make it null).
    ``other`` writes a value msgspec does not know (:func:`encode_other` by default)."""
    return _lists(msgspec.to_builtins(record, enc_hook=other))


def from_builtins(data: Any, type: type[T]) -> T:
    """``data`` (plain JSON values) read back as ``type``, checked field by field.

    Raises ``ValueError`` naming the path of the first field that is wrong (``msgspec.ValidationError``
    is a ``ValueError``). Strict: a number stored as text, or a bool where a number belongs, is refused, not guessed. Unknown
    fields are ignored: a newer bench-kernel may add fields.
    """
    return msgspec.convert(data, type)
