"""What the serving benchmark sends: one prompt of a dataset. What comes back is a
``records.RequestRecord`` (one request as the client saw it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Prompt"]


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
