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
  the output and counts the work. Two notes are "the same" when they differ only in their numbers
  (:func:`note_key`). The text keeps its start, by which the report tells information from warnings.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from bench_kernel.measure._agree import agreement_note
from bench_kernel.measure._steady import stability_notes

__all__ = ["note_key", "judged_notes", "summarise_round_notes"]

_NUMBER = re.compile(r"[-+]?\d[\d.,]*(?:e[-+]?\d+)?")


def note_key(note: str) -> str:
    """What identifies a note across rounds: its text with every number masked."""
    return _NUMBER.sub("#", note)


def judged_notes(measurements: Mapping[str, Any], env: Mapping[str, Any]) -> list[str]:
    """The notes judged from ``measurements`` alone (module docstring), with the clock maximum and
    steady mode read from the result's ``env``."""
    max_clock = (env.get("state_before") or {}).get("max_sm_clock_mhz")
    notes = stability_notes(dict(measurements), max_clock, bool(env.get("steady")))
    agree = agreement_note(measurements)
    return notes + ([agree] if agree else [])


def summarise_round_notes(parts: Sequence[Any], measurements: Mapping[str, Any], env: Mapping[str, Any]) -> list[str]:
    """The notes of K rounds ``parts`` (BenchResults, in order) as one point's: the judged notes of
    the joined ``measurements``, and every other note once, with how many rounds made it."""
    n = len(parts)
    kept: dict[str, tuple[str, list[int], set[str]]] = {}  # key -> (first text, rounds, texts)
    for r, part in enumerate(parts, start=1):
        own = set(judged_notes(part.measurements, part.env))
        for note in part.notes:
            if note in own:
                continue
            text, rounds, texts = kept.setdefault(note_key(note), (note, [], set()))
            if not rounds or rounds[-1] != r:
                rounds.append(r)
            texts.add(note)
    out = []
    for text, rounds, texts in kept.values():
        if rounds == [1] or (len(rounds) == n and len(texts) == 1):
            out.append(text)
        else:
            numbers = f"; round {rounds[0]}'s numbers" if len(texts) > 1 else ""
            out.append(f"{text} (in {len(rounds)} of {n} rounds{numbers})")
    return out + judged_notes(measurements, env)
