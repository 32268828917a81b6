"""The serving benchmark's records: one request as the client saw it, and one run (a load point).

Times inside a record are seconds on the client's monotonic clock (``time.perf_counter``) relative
to the run's start, or milliseconds where the name says ``_ms`` (the unit every serving tool prints
latencies in). Every request ends ``ok`` or ``failed`` with a reason: nothing is dropped.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Prompt", "RequestRecord", "STATUSES", "N_OUT_SOURCES"]

#: How a request ended.
STATUSES = ("ok", "failed")
#: Where a request's output token count came from, most trusted first.
N_OUT_SOURCES = ("usage", "tokenizer", "chunks")


@dataclass(frozen=True)
class Prompt:
    """One request to send: the text (or chat messages), its input and output lengths in tokens."""

    text: str
    #: input tokens as the dataset counted them (exact with a tokenizer, else an estimate)
    input_len: int
    #: ``max_tokens`` to ask for
    output_len: int
    #: chat messages for ``--endpoint chat`` (``None``: one user message with ``text``)
    messages: tuple[dict[str, Any], ...] | None = None
    #: what the prompt shares with others: its prefix (``prefix_repetition``) or its conversation
    group: int | None = None
    #: the later user turns of a conversation, each (text, output_len): sent one after the other,
    #: each with the history so far (the server's own answers as the assistant's turns)
    turns: tuple[tuple[str, int], ...] = ()
    #: when a trace replay sends it, seconds from the start (``None``: the load's arrivals decide)
    due_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RequestRecord:
    """One request: when it was due and sent, what came back and when, and how it ended.

    ``chunk_s`` are the arrival times (s, from the run's start) of the chunks that carried at least
    one generated token, ``chunk_tokens`` the tokens each carried (``None`` where the count is not
    known: no per-chunk usage and fewer chunks than tokens).
    """

    index: int
    status: str
    #: why it failed (``HTTP 500: ...``, ``error in stream: ...``, ``timeout after 30 s``, ...)
    error: str | None
    #: when the schedule wanted it sent, when it could go (a concurrency slot free), when it went (s)
    scheduled_s: float
    ready_s: float
    sent_s: float
    #: the last byte of the response (s); ``None`` if nothing came back
    end_s: float | None
    chunk_s: tuple[float, ...] = ()
    chunk_tokens: tuple[int | None, ...] = ()
    #: first chunk with visible text (not reasoning), s; ``None`` if none
    first_visible_s: float | None = None
    #: generated tokens, and where the count came from (``N_OUT_SOURCES``)
    n_out: int | None = None
    n_out_source: str | None = None
    #: prompt tokens: from ``usage`` when the server said, else the dataset's count
    n_in: int | None = None
    n_in_source: str | None = None
    #: chunks that carried nothing generated (the role-only chunk, empty deltas, the usage chunk)
    empty_chunks: int = 0
    finish_reason: str | None = None
    output_text: str = ""
    #: what the client had to do about the server (``ignore_eos refused (HTTP 422): resent without``)
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the prompt's group (its shared prefix or its conversation), and the turn within a conversation
    group: int | None = None
    turn: int = 0

    @property
    def textless(self) -> bool:
        """Completed with tokens (``usage``) but no chunk of text: byte-level tokens that decode to
        nothing. It has no TTFT, TPOT or ITL; its E2E runs to the last byte."""
        return self.ok and not self.chunk_s and bool(self.n_out)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def ttft_ms(self) -> float | None:
        """Send -> the first chunk with at least one generated token (reasoning included)."""
        return (self.chunk_s[0] - self.sent_s) * 1e3 if self.ok and self.chunk_s else None

    @property
    def ttfvo_ms(self) -> float | None:
        """Send -> the first chunk with visible (non-reasoning) text."""
        return (self.first_visible_s - self.sent_s) * 1e3 if self.ok and self.first_visible_s is not None else None

    @property
    def e2el_ms(self) -> float | None:
        """Send -> the last chunk that carried a generated token (the last byte for a textless request)."""
        if self.textless and self.end_s is not None:
            return (self.end_s - self.sent_s) * 1e3
        return (self.chunk_s[-1] - self.sent_s) * 1e3 if self.ok and self.chunk_s else None

    @property
    def tpot_ms(self) -> float | None:
        """(E2E - TTFT) / (N_out - 1); ``None`` for fewer than two output tokens."""
        if not self.ok or not self.chunk_s or self.n_out is None or self.n_out < 2:
            return None
        return (self.chunk_s[-1] - self.chunk_s[0]) * 1e3 / (self.n_out - 1)

    @property
    def icl_ms(self) -> tuple[float, ...]:
        """Inter-chunk latencies: the gaps between consecutive token-carrying chunks."""
        c = self.chunk_s
        return tuple((b - a) * 1e3 for a, b in zip(c, c[1:])) if self.ok else ()

    @property
    def itl_ms(self) -> tuple[float, ...] | None:
        """Per-token latencies: a chunk of k tokens after a gap g gives k values g/k; the first
        chunk's extra tokens arrived with the first token (0 each). Their sum is E2E - TTFT and
        their mean is TPOT. ``None`` when a chunk's token count is unknown."""
        if not self.ok or not self.chunk_s or any(k is None for k in self.chunk_tokens):  # textless too
            return None
        out = [0.0] * (int(self.chunk_tokens[0]) - 1)  # type: ignore[arg-type]
        for gap, k in zip(self.icl_ms, self.chunk_tokens[1:]):
            out += [gap / k] * int(k)  # type: ignore[operator,arg-type]
        return tuple(out)

    @property
    def lateness_ms(self) -> float:
        """How late the client itself sent it: sent - max(scheduled, slot free)."""
        return (self.sent_s - self.ready_s) * 1e3

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(ttft_ms=self.ttft_ms, ttfvo_ms=self.ttfvo_ms, e2el_ms=self.e2el_ms, tpot_ms=self.tpot_ms,
                 lateness_ms=self.lateness_ms, chunk_s=list(self.chunk_s), chunk_tokens=list(self.chunk_tokens),
                 notes=list(self.notes))
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RequestRecord":
        names = set(cls.__dataclass_fields__)
        kw = {k: v for k, v in d.items() if k in names}
        kw["chunk_s"] = tuple(kw.get("chunk_s") or ())
        kw["chunk_tokens"] = tuple(kw.get("chunk_tokens") or ())
        kw["notes"] = tuple(kw.get("notes") or ())
        return cls(**kw)
