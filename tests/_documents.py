"""What a command printed with --json, read back as its record: the one check of a document.

The records (``bench_kernel.records.DOCUMENTS``) generate docs/json.md and the schemas, so a document
that reads back as its record, strictly, and writes out exactly what was printed, is what the page
says: a field added (lost on the way back), renamed or gone (a default filled in), or retyped (a
validation error) all fail here. It replaced a parser of the page's Markdown tables, which had to be
kept in step with the page by hand.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from bench_kernel.records import DOCUMENTS, OTHER_DOCUMENTS, version

__all__ = ["read_back", "drift"]


def drift(data: dict[str, Any], record: type) -> str | None:
    """Why ``data`` is not exactly ``record`` written out, or None when it is."""
    try:
        back = msgspec.convert(data, record, strict=True)
    except msgspec.ValidationError as e:
        return f"not a {record.__name__}: {e}"
    again = json.loads(json.dumps(back.to_dict()))
    if again != data:
        extra = sorted(set(data) - set(again))
        missing = sorted(set(again) - set(data))
        changed = sorted(k for k in set(data) & set(again) if data[k] != again[k])
        return (f"{record.__name__} writes it out differently: extra {extra}, missing {missing}, "
                f"changed {changed}")
    return None


def read_back(command: str, data: dict[str, Any]) -> Any:
    """``data`` (a command's --json, parsed) as the record of that command's documents it is exactly;
    AssertionError naming every record's objection when none fits, or when its version is not the
    command's."""
    assert data.get("schema_version") == version(command), (command, data.get("schema_version"))
    kinds = (DOCUMENTS[command], *OTHER_DOCUMENTS.get(command, ()))
    why = {t.__name__: drift(data, t) for t in kinds}
    fits = [t for t in kinds if why[t.__name__] is None]
    assert len(fits) == 1, f"{command}: {why}"
    return msgspec.convert(data, fits[0], strict=True)
