"""A point's notes from its rounds: once per point, summarised over the rounds, never once per round.

A sweep measures a point one round at a time, and each round's result carries its own notes; joined
as they were, a note that every round makes with its own numbers was printed once per round (the
held-out GPU sweep's points said "methods disagree by 148-235%" three times each, and an HTML
report of two sweeps opened with about 70 such notes). Two kinds of note, two treatments:

- Notes judged from the measurements (a clock below its maximum, a drift within a round, the graph
  node floor, graph against kernel: ``stability_notes``, ``agreement_note``) are judged again on the
  joined rounds, which these judgements read round by round; the rounds' own copies are dropped.
- Every other note is kept once, with the rounds that made it said at its end: "<its text in the
  first round that made it> (in 2 of 3 rounds)"; "(in 3 of 3 rounds; round 1's numbers)" when the
  rounds made it with other numbers. A note of round 1 alone is kept as it is: only round 1 checks
  the output and counts the work. Two notes are "the same" when they have the same ``code`` and
  kind, for the same method where they name one (:func:`note_key`); the summary keeps that code
  and kind, and its ``data`` says in which rounds (``rounds``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from bench_kernel.measure._agree import agreement_note
from bench_kernel.measure._steady import stability_notes
from bench_kernel.records import Note

__all__ = ["judged_notes", "note_key", "summarise_round_notes"]


def note_key(note: Note) -> tuple[str, ...]:
    """What makes two rounds' notes one: code, kind and the method it is about (``data["method"]``);
    a note stored before notes had codes (``untyped``) is known by its text alone."""
    if note.code == "untyped":
        return (note.code, note.text)
    return (note.code, note.kind, str(note.data.get("method", "")))


def judged_notes(measurements: Mapping[str, Any], env: Mapping[str, Any]) -> list[Note]:
    """The notes judged from ``measurements`` alone (module docstring), with the clock maximum and
    steady mode read from the result's ``env``."""
    max_clock = (env.get("state_before") or {}).get("max_sm_clock_mhz")
    notes = stability_notes(dict(measurements), max_clock, bool(env.get("steady")))
    agree = agreement_note(measurements)
    return notes + ([agree] if agree else [])


def summarise_round_notes(parts: Sequence[Any], measurements: Mapping[str, Any], env: Mapping[str, Any]) -> list[Note]:
    """The notes of K rounds ``parts`` (BenchResults, in order) as one point's: the judged notes of
    the joined ``measurements``, and every other note once, with how many rounds made it."""
    n = len(parts)
    kept: dict[tuple[str, ...], tuple[Note, list[int], set[str]]] = {}  # key -> (first, rounds, texts)
    for r, part in enumerate(parts, start=1):
        own = set(judged_notes(part.measurements, part.env))
        for note in part.notes:
            if note in own:
                continue
            first, rounds, texts = kept.setdefault(note_key(note), (note, [], set()))
            if not rounds or rounds[-1] != r:
                rounds.append(r)
            texts.add(note.text)
    out = []
    for first, rounds, texts in kept.values():
        if rounds == [1] or (len(rounds) == n and len(texts) == 1):
            out.append(first)
        else:
            numbers = f"; round {rounds[0]}'s numbers" if len(texts) > 1 else ""
            out.append(Note(first.code, first.kind, f"{first.text} (in {len(rounds)} of {n} rounds{numbers})",
                            {**first.data, "rounds": rounds}))
    return out + judged_notes(measurements, env)
