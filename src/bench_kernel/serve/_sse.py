"""Server-sent events as OpenAI-compatible servers stream them, read robustly.

:class:`SSEDecoder` splits the bytes of a response into events (the WHATWG "server-sent events"
rules: lines end in ``\\n``, ``\\r\\n`` or ``\\r``; ``:`` starts a comment; ``data:`` lines of one
event join with ``\\n``; a blank line ends the event). It never needs a whole line in one network
read, and it has no line-length limit of its own: aiohttp's ``readline`` raises "Chunk too big" on
a line longer than its buffer (vllm #39963), so the client feeds raw reads here instead.

:class:`StreamState` turns the decoded events of one response into what the metrics need, and
knows each server's quirks (all seen on real servers, SERVING.md):
- the first chunk carries only ``{"role": "assistant"}`` (or ``"content": ""``): no token. vLLM's
  own client takes it as the first token (a 25 ms "TTFT" where the token came after 12.8 s);
- several tokens in one chunk (coalescing, speculative decoding): the chunk's count comes from
  continuous usage stats (``usage.completion_tokens`` on every chunk) when the server sends them;
- an empty delta for a token that ends inside a UTF-8 character: a token without text, counted
  only through continuous usage stats;
- ``usage`` on the finish chunk (transformers) or in a separate final chunk with ``choices: []``
  (vLLM, SGLang); no ``data: [DONE]`` at all (transformers);
- an error object inside a 200 stream (``{"error": {...}}``, ``{"object": "error", ...}`` or an
  ``event: error``); a ``data:`` line that is not JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgspec

#: msgspec decodes a chunk ~10x faster than json.loads (1.6 vs 18 us on this machine): at hundreds of
#: streams the client's event loop, not the server, would otherwise set the pace.
_decode = msgspec.json.Decoder().decode

__all__ = ["SSEDecoder", "StreamState", "StreamError", "Carried"]


class StreamError(Exception):
    """The stream cannot be read any further (malformed data, an error from the server)."""


class SSEDecoder:
    """Incremental SSE decoder: ``feed(bytes) -> [(event_type, data)]`` for each complete event."""

    def __init__(self) -> None:
        self._buf = b""
        self._data: list[str] = []
        self._event = ""
        self._cr = False  # the last feed ended in "\r": a following "\n" belongs to it

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        if self._cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._cr = chunk.endswith(b"\r")
        buf = self._buf + chunk
        lines = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        self._buf = lines.pop()  # the unfinished last line (b"" after a newline)
        out: list[tuple[str, str]] = []
        for raw in lines:
            self._line(raw.decode("utf-8", errors="replace"), out)
        return out

    def close(self) -> list[tuple[str, str]]:
        """End of stream: an event not closed by a blank line still counts (servers that omit it)."""
        out: list[tuple[str, str]] = []
        if self._buf:
            self._line(self._buf.decode("utf-8", errors="replace"), out)
            self._buf = b""
        self._line("", out)
        return out

    def _line(self, line: str, out: list[tuple[str, str]]) -> None:
        if not line:
            if self._data:
                out.append((self._event or "message", "\n".join(self._data)))
            self._data, self._event = [], ""
            return
        if line.startswith(":"):
            return  # a comment (keep-alive)
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields are ignored, as the SSE rules say


def _payloads(data: str) -> list[Any]:
    """The JSON values of one event. A server that puts two JSON objects on two ``data:`` lines of
    one event (against the rules, but seen) gives both; anything else that is not JSON raises."""
    try:
        return [_decode(data)]
    except ValueError:
        pass
    parts = data.split("\n")
    if len(parts) > 1:
        try:
            return [_decode(p) for p in parts if p.strip()]
        except ValueError:
            pass
    shown = data if len(data) <= 120 else data[:117] + "..."
    raise StreamError(f"malformed SSE data (not JSON): {shown!r}")


def _error_text(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    err = obj.get("error")
    if err is not None:
        if isinstance(err, dict):
            return str(err.get("message") or err.get("msg") or json.dumps(err))
        return str(err)
    if obj.get("object") == "error":
        return str(obj.get("message") or json.dumps(obj))
    return None


@dataclass(frozen=True)
class _Raw:
    t: float
    text: str
    visible: bool
    completion_tokens: int | None  # usage.completion_tokens on this chunk
    has_choices: bool


@dataclass(frozen=True)
class Carried:
    """What a response carried, once it ended (:meth:`StreamState.result`)."""

    chunk_s: tuple[float, ...]
    #: tokens per token chunk; ``None`` where unknown (no per-chunk usage, fewer chunks than tokens)
    chunk_tokens: tuple[int | None, ...]
    first_visible_s: float | None
    empty_chunks: int
    text: str
    usage_out: int | None
    usage_in: int | None
    #: the server sent a running ``usage`` on every chunk (per-chunk token counts are exact)
    continuous_usage: bool


@dataclass
class StreamState:
    """The chunks of one streamed response, fed event by event with their arrival time (s)."""

    finish_reason: str | None = None
    done: bool = False
    _raw: list[_Raw] = field(default_factory=list)
    _usage: dict[str, Any] | None = None

    def event(self, kind: str, data: str, t: float) -> None:
        """One SSE event at time ``t``; raises :class:`StreamError` on an error or malformed data."""
        if data.strip() == "[DONE]":
            self.done = True
            return
        for obj in _payloads(data):
            if kind == "error":
                raise StreamError(f"error in stream: {_error_text(obj) or data[:200]}")
            self._chunk(obj, t)

    def _chunk(self, obj: Any, t: float) -> None:
        err = _error_text(obj)
        if err is not None:
            raise StreamError(f"error in stream: {err}")
        if not isinstance(obj, dict):
            raise StreamError(f"malformed SSE data: expected a JSON object, got {type(obj).__name__}")
        usage = obj.get("usage")
        ct = None
        if isinstance(usage, dict):
            self._usage = usage
            ct = usage.get("completion_tokens") if isinstance(usage.get("completion_tokens"), int) else None
        text, visible = "", ""
        choices = obj.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):  # chat: reasoning tokens are generated tokens too
                content = delta.get("content") or ""
                reasoning = delta.get("reasoning_content") or delta.get("reasoning") or ""
                text += str(reasoning) + str(content)
                visible += str(content)
            elif isinstance(choice.get("text"), str):  # completions
                text += choice["text"]
                visible += choice["text"]
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        self._raw.append(_Raw(t, text, bool(visible), ct, bool(choices)))

    def result(self) -> Carried:
        """Which chunks carried generated tokens, and how many each.

        With continuous usage stats (a ``usage`` on more than one chunk: the final usage of
        transformers, on the finish chunk, or vLLM's separate usage chunk is only one), a chunk
        carries the tokens its running ``completion_tokens`` added, text or not (an empty delta from
        a partial UTF-8 character is a token). Without them a chunk carries a token when it carries
        text, and the counts are one per chunk when there are as many chunks as tokens, else unknown.
        """
        usage = self._usage or {}
        out = usage.get("completion_tokens")
        out = out if isinstance(out, int) and out >= 0 else None
        inp = usage.get("prompt_tokens")
        inp = inp if isinstance(inp, int) and inp >= 0 else None
        continuous = sum(r.completion_tokens is not None for r in self._raw) >= 2
        chunk_s: list[float] = []
        tokens: list[int | None] = []
        texts: list[str] = []
        first_visible = None
        prev = 0
        for r in self._raw:
            if continuous and r.completion_tokens is not None:
                new: int | None = r.completion_tokens - prev
                prev = r.completion_tokens
                carries = bool(new and new > 0 and r.has_choices)
            else:
                new, carries = None, bool(r.text)
            if carries:
                chunk_s.append(r.t)
                tokens.append(new)
                texts.append(r.text)
            if r.visible and first_visible is None:
                first_visible = r.t
        if not continuous and out is not None and out == len(chunk_s):
            tokens = [1] * out
        return Carried(tuple(chunk_s), tuple(tokens), first_visible, len(self._raw) - len(chunk_s),
                       "".join(texts), out, inp, continuous)
