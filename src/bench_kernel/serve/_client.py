"""The streaming client: one request to an OpenAI-compatible server, timed chunk by chunk.

aiohttp (docs/decisions.md says why): one event loop drives hundreds of streams with little CPU per
chunk, and its raw reads (``iter_any``) leave line splitting to :class:`SSEDecoder`, which has no
line-length limit (aiohttp's ``readline`` raises on a line longer than its buffer: vllm #39963).

Times: ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux), read once per network read, so chunks
that arrive in one read share one arrival time -- the true one. The send time is taken just
before the request is handed to aiohttp, as vLLM's and SGLang's clients take it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from bench_kernel.records import Note, NOutSource, RequestRecord, warning
from bench_kernel.serve._records import Prompt
from bench_kernel.serve._sse import SSEDecoder, StreamError, StreamState

__all__ = ["Endpoint", "Negotiation", "send_request", "ENDPOINTS", "OPTIONAL_FIELDS"]

ENDPOINTS = {"chat": "/v1/chat/completions", "completions": "/v1/completions"}
#: Fields a server may refuse with HTTP 422 (transformers serve refuses ignore_eos and min_tokens):
#: the request is then resent once without them, and the run says so.
OPTIONAL_FIELDS = ("ignore_eos", "continuous_usage_stats")
#: How much of an error body goes into a failure reason.
_BODY_CHARS = 200


@dataclass
class Negotiation:
    """What the server refused, learnt once and shared by every request of a run."""

    refused: set[str] = field(default_factory=set)
    notes: list[Note] = field(default_factory=list)

    def refuse(self, names: set[str], status: int, body: str) -> None:
        new = names - self.refused
        if new:
            self.refused |= new
            what = ", ".join(sorted(new))
            why = " (outputs may stop at EOS before --random-output-len)" if "ignore_eos" in new else ""
            self.notes.append(warning("field-refused", f"the server refused {what} (HTTP {status}: {body[:80]}); requests "
                                      f"were resent without it{why}", fields=sorted(new), status=status))


@dataclass(frozen=True)
class Endpoint:
    """Where and how to send: the server's base URL, the API and the model."""

    base_url: str
    kind: str  # "chat" | "completions"
    model: str
    ignore_eos: bool = False
    request_timeout_s: float = 300.0
    #: asks for a running usage on every chunk (vLLM, SGLang): exact tokens per chunk
    continuous_usage: bool = True
    headers: tuple[tuple[str, str], ...] = ()
    #: extra JSON fields for every request body (``--extra-body``)
    extra_body: tuple[tuple[str, Any], ...] = ()

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + ENDPOINTS[self.kind]

    def body(self, prompt: Prompt, refused: set[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": prompt.output_len, "stream": True}
        if self.kind == "chat":
            body["messages"] = list(prompt.messages) if prompt.messages else [{"role": "user", "content": prompt.text}]
        else:
            body["prompt"] = prompt.text
        opts: dict[str, Any] = {"include_usage": True}
        if self.continuous_usage and "continuous_usage_stats" not in refused:
            opts["continuous_usage_stats"] = True
        body["stream_options"] = opts
        if self.ignore_eos and "ignore_eos" not in refused:
            body["ignore_eos"] = True
        body.update(dict(self.extra_body))
        return body


def _refused_fields(body_text: str, sent: dict[str, Any]) -> set[str]:
    """The optional fields a 422 refuses: those it names; all that were sent when it complains of
    fields without naming them ("extra fields not permitted"); none when it is about something else."""
    sent_opt = {f for f in OPTIONAL_FIELDS if f in sent or f in (sent.get("stream_options") or {})}
    named = {f for f in sent_opt if f in body_text}
    if named:
        return named
    low = body_text.lower()
    return sent_opt if any(w in low for w in ("extra", "unexpected", "unknown", "not permitted")) else set()


async def send_request(session: Any, ep: Endpoint, prompt: Prompt, index: int, t0: float, scheduled_s: float,
                       ready_s: float, neg: Negotiation, count_tokens: Callable[[str], int] | None = None
                       ) -> RequestRecord:
    """Send one streamed request and return its record. Never raises, but for cancellation (the
    driver turns that into a failed record itself).

    A 422 that names an optional field (or any 422 when optional fields were sent) is answered
    once: the request is resent without them, its send time is the resend's, and every later
    request of the run leaves them out (:class:`Negotiation`).
    """
    import aiohttp

    notes: list[str] = []
    for attempt in (0, 1):
        body = ep.body(prompt, neg.refused)
        state, dec = StreamState(), SSEDecoder()
        reply: dict[str, Any] = {"end_s": None}
        sent_s = time.perf_counter() - t0
        try:
            await asyncio.wait_for(_exchange(session, ep, body, state, dec, t0, reply), ep.request_timeout_s)
        except StreamError as e:
            return _failed(index, scheduled_s, ready_s, sent_s, reply["end_s"], str(e), notes)
        except asyncio.TimeoutError:
            got = len(state.result().chunk_s)
            return _failed(index, scheduled_s, ready_s, sent_s, time.perf_counter() - t0,
                           f"timeout after {ep.request_timeout_s:g} s ({got} token chunks received)", notes)
        except aiohttp.ClientConnectorError as e:
            return _failed(index, scheduled_s, ready_s, sent_s, None, f"cannot connect: {e.os_error or e}", notes)
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError, ConnectionError) as e:
            return _failed(index, scheduled_s, ready_s, sent_s, reply["end_s"],
                           f"connection lost mid-stream: {type(e).__name__}: {e}", notes)
        except aiohttp.ClientError as e:
            return _failed(index, scheduled_s, ready_s, sent_s, reply["end_s"], f"{type(e).__name__}: {e}", notes)
        status = reply.get("status", 200)
        if status != 200:
            text = reply.get("text", "")
            optional = _refused_fields(text, body) if status == 422 else set()
            if attempt == 0 and optional:
                neg.refuse(optional, status, text)
                notes.append(f"HTTP 422 refusing {', '.join(sorted(optional))}: resent without")
                continue
            return _failed(index, scheduled_s, ready_s, sent_s, reply["end_s"],
                           f"HTTP {status}: {' '.join(text.split())}", notes)
        return _complete(index, scheduled_s, ready_s, sent_s, reply["end_s"], state, prompt, notes, count_tokens)
    raise AssertionError("unreachable: the second attempt returns")


async def _exchange(session: Any, ep: Endpoint, body: dict[str, Any], state: StreamState, dec: SSEDecoder,
                    t0: float, reply: dict[str, Any]) -> None:
    async with session.post(ep.url, json=body, headers=dict(ep.headers)) as resp:
        if resp.status != 200:
            reply["status"] = resp.status
            reply["text"] = (await resp.text(errors="replace"))[:_BODY_CHARS]
            reply["end_s"] = time.perf_counter() - t0
            return
        async for data in resp.content.iter_any():
            t = time.perf_counter() - t0
            reply["end_s"] = t
            for kind, payload in dec.feed(data):
                state.event(kind, payload, t)
        for kind, payload in dec.close():
            state.event(kind, payload, time.perf_counter() - t0)


def _failed(index: int, scheduled_s: float, ready_s: float, sent_s: float, end_s: float | None, why: str,
            notes: list[str]) -> RequestRecord:
    return RequestRecord(index, "failed", why, scheduled_s, ready_s, sent_s, end_s, notes=tuple(notes))


def _complete(index: int, scheduled_s: float, ready_s: float, sent_s: float, end_s: float | None,
              state: StreamState, prompt: Prompt, notes: list[str],
              count_tokens: Callable[[str], int] | None) -> RequestRecord:
    c = state.result()
    if state.finish_reason is None and not state.done:
        return _failed(index, scheduled_s, ready_s, sent_s, end_s,
                       f"the stream ended without a finish_reason or [DONE] ({len(c.chunk_s)} token chunks)", notes)
    if not c.chunk_s and not c.usage_out:
        # A stream of text-free tokens with usage counting them is a completed request (textless,
        # below); without usage nothing shows that the server generated anything.
        return _failed(index, scheduled_s, ready_s, sent_s, end_s,
                       f"no generated token in the stream (finish_reason {state.finish_reason!r})", notes)
    src: NOutSource
    if c.usage_out is not None:
        n_out, src = c.usage_out, "usage"
    elif count_tokens is not None:
        n_out, src = count_tokens(c.text), "tokenizer"
    else:
        n_out, src = sum(k or 1 for k in c.chunk_tokens), "chunks"
    tokens = c.chunk_tokens
    if not c.continuous_usage and src != "usage" and n_out == len(c.chunk_s):
        tokens = (1,) * n_out
    in_src: Literal["usage", "dataset"] = "usage" if c.usage_in is not None else "dataset"
    n_in = c.usage_in if c.usage_in is not None else prompt.input_len
    return RequestRecord(index, "ok", None, scheduled_s, ready_s, sent_s, end_s, c.chunk_s, tokens,
                         c.first_visible_s, n_out, src, n_in, in_src, c.empty_chunks, state.finish_reason,
                         c.text, tuple(notes))

