"""A note on a result: what to know about how it was made, or what to distrust.

The kind is set where the note is made, by the code that knows which it is: ``info`` says how the
result was made (what was counted, how inputs were rotated), ``warning`` says what to distrust (the
clock throttled, a method failed). A report lists warnings apart so that they stand out; it never
guesses the kind from the wording, so rewording a note cannot change its kind. ``code`` is a stable
identifier (kebab-case) for programs and for summarising the same note over rounds and points;
``data`` holds the numbers the text quotes, for programs that act on them.
"""

from __future__ import annotations

from typing import Annotated, Any, Iterable, Literal

from bench_kernel.records._base import Record, doc, from_builtins

__all__ = ["NOTE_KINDS", "Note", "NoteKind", "info", "warning", "notes_from"]

NoteKind = Literal["info", "warning"]
#: What a note can be: how it was measured, or what to distrust.
NOTE_KINDS: tuple[NoteKind, ...] = ("info", "warning")


class Note(Record, frozen=True):
    """One note on a result."""

    code: Annotated[str, doc("a stable identifier of what the note says (kebab-case), e.g. `clock-throttled`")]
    kind: Annotated[NoteKind, doc("`info`: how the result was made; `warning`: what to distrust")]
    text: Annotated[str, doc("the note as people read it")]
    data: Annotated[dict[str, Any], doc("the figures the text quotes, by name (units in the names)")] = {}

    def __hash__(self) -> int:
        # ``data`` (a dict) is left out: a note is known by what it says, and must be hashable
        # so that the same note of several rounds is kept once.
        return hash((self.code, self.kind, self.text))

    def __str__(self) -> str:
        return self.text

    def prefixed(self, prefix: str) -> "Note":
        """The same note with ``prefix: `` before its text (``counters: ...``)."""
        return Note(self.code, self.kind, f"{prefix}: {self.text}", self.data)


def info(code: str, text: str, **data: Any) -> Note:
    """A note that says how a result was made."""
    return Note(code, "info", text, data)


def warning(code: str, text: str, **data: Any) -> Note:
    """A note that says what to distrust in a result."""
    return Note(code, "warning", text, data)


def notes_from(values: Iterable[Any]) -> tuple[Note, ...]:
    """Notes read back from stored JSON: a ``Note`` as it is; a dict as a Note; a plain string (a
    result stored before notes had kinds) as a warning with code ``untyped``, so that it is seen."""
    out = []
    for v in values:
        if isinstance(v, Note):
            out.append(v)
        elif isinstance(v, dict):
            out.append(from_builtins(v, Note))
        else:
            out.append(Note("untyped", "warning", str(v)))
    return tuple(out)
