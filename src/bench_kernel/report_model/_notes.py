"""Information or warning: how the report tells a note that says how a result was made ("FLOPs
counted: ...") from one that says what to distrust ("clock throttling: ...").

Results carry their notes as text (stored runs from before any kind existed included), so the kind
is read from the text by the rules of ``data/note_kinds.tsv``: the information notes are listed
there, each with a note its producer writes; every other note is a warning, so that a new or
unknown note is seen rather than filed away.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bench_kernel.datafile import read_package_tsv
from bench_kernel.errors import InputError

__all__ = ["NOTE_KINDS", "note_kind"]

#: What a note can be: how it was measured, or what to distrust.
NOTE_KINDS = ("info", "warning")


@lru_cache(maxsize=1)
def _info_rules() -> tuple[re.Pattern[str], ...]:
    rules = []

    def check(row: dict[str, str], where: str) -> None:
        if row["kind"] != "info":
            raise InputError(f"{where}: kind {row['kind']!r}; only info notes are listed (warnings are the rest)")
        try:
            rule = re.compile(row["pattern"])
        except re.error as e:
            raise InputError(f"{where}: pattern {row['pattern']!r} is not a regex: {e}") from None
        if not rule.match(row["example"]):
            raise InputError(f"{where}: pattern {row['pattern']!r} does not match its own example")
        rules.append(rule)

    read_package_tsv("bench_kernel.report_model", "note_kinds.tsv", ("pattern", "kind", "example"), check)
    return tuple(rules)


def note_kind(note: str) -> str:
    """``info`` for a note that says how a result was made (``data/note_kinds.tsv``), else ``warning``."""
    return "info" if any(r.match(note) for r in _info_rules()) else "warning"
