"""Stream a Chrome/Kineto trace's ``traceEvents`` array in decoded chunks, in bounded memory.

A 1 GB trace decoded whole needs the file's bytes plus every event object at once (several GB).
Instead we read blocks (gzip is decompressed as a stream), cut the pending text at an event
boundary and decode each chunk with the caller's typed decoder, so only one chunk's objects
are alive at a time.

Finding a boundary without a JSON tokenizer: a candidate is the text ``}`` ``,`` ``{`` (any
whitespace between). It may also occur inside a nested object or a string (C++ kernel names contain
``{lambda()#1}, {lambda()#2}``), but then the chunk ``[`` + text + ``]`` is not valid JSON -- an
object or string is left open -- and msgspec reports the error at the very end of the chunk. So a
chunk that decodes proves the cut was between two events; a cut that fails at the end is skipped and
a later one tried. An error earlier in the chunk is a real defect of the file and is reported, except
"trailing characters": the chunk then holds the array's own ``]`` (the candidate was in the metadata
after ``traceEvents``, ``[{...}, {...}]``), and the rest of the document is read to its end. There
the closing ``]`` is the last one after which the text is the end of a valid object *and* before
which the events decode: a list that ends the document (``"deviceProperties": [...]}``) passes the
first test only.

The same proof finds the events array itself: a ``"traceEvents": [`` is the document's own key only
if the text before it, closed by ``[]}``, is a valid object. A ``traceEvents`` nested in metadata
(``distributedInfo``) or inside a string fails that test and is skipped (it was once read as
the event list). A second top-level ``traceEvents`` key, before or after the one read, is refused:
JSON does not say which of two equal keys counts, and Python's ``json`` takes the last.

Every buffer is bounded (a 1-3 MB gzip of whitespace or of one huge string drove the RSS
to several GB): at most :data:`MAX_LEADING_WHITESPACE` before the document, :data:`MAX_HEAD_BYTES`
before the events array, :data:`MAX_EVENT_BYTES` without an event boundary. Past a bound the read
stops with one error line. The source is read strictly forward, so pipes and FIFOs work.
"""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

import msgspec

from bench_kernel.errors import TraceError, UsageError
from bench_kernel.trace._source import Source

__all__ = ["EventReader", "check_block_bytes", "BLOCK_BYTES", "MAX_BLOCK_BYTES", "MAX_LEADING_WHITESPACE", "MAX_HEAD_BYTES",
           "MAX_EVENT_BYTES"]

_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_BYTE_AT = re.compile(r"\(byte (\d+)\)")
_INDEX_AT = re.compile(r"\$\[(\d+)\]")
_WHITESPACE = b" \t\r\n"
#: Bytes read (and decoded) at a time by default: large enough that the per-chunk cost vanishes.
BLOCK_BYTES = 16 << 20
#: The largest block a caller may ask for: the reader holds a few blocks at once.
MAX_BLOCK_BYTES = 256 << 20
#: How far back from the end of the buffer to look for a cut (events are far smaller than this).
_WINDOW = 1 << 20
#: Whitespace allowed before the document starts (a valid trace after 17 MB of it was "empty").
MAX_LEADING_WHITESPACE = 64 << 20
#: Bytes of the document allowed before its ``"traceEvents": [`` (Kineto writes ~1-10 KB).
MAX_HEAD_BYTES = 64 << 20
#: Bytes of ``traceEvents`` allowed without an event boundary: no real event is this large.
MAX_EVENT_BYTES = 64 << 20
#: Metadata values (deviceProperties, distributedInfo, ...) larger than this are not kept.
MAX_METADATA_VALUE_BYTES = 1 << 20
#: Candidate ends of ``traceEvents`` tried from the end of the document before giving up.
_MAX_END_CANDIDATES = 4096
#: Candidate ``"traceEvents": [`` keys tried before giving up.
_MAX_KEY_CANDIDATES = 64
_META = msgspec.json.Decoder(dict[str, msgspec.Raw])


class _Closed(enum.Enum):
    """A cut candidate after the end of ``traceEvents`` (``}, {`` in the metadata that follows it): the
    chunk ``[`` + text + ``]`` then holds the array's own ``]`` and fails with trailing characters. An
    enum, not ``object()``, so that ``is _CLOSED`` narrows the type of what a decode returned."""

    CLOSED = enum.auto()


_CLOSED: Literal[_Closed.CLOSED] = _Closed.CLOSED


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


def check_block_bytes(block_bytes: Any) -> None:
    """Raise :class:`UsageError` naming the field unless ``block_bytes`` is a usable block size."""
    if type(block_bytes) is not int or not 1 <= block_bytes <= MAX_BLOCK_BYTES:
        # Checked first: -5 was a bare ValueError from bytearray(); 10**12 would be a MemoryError
        raise UsageError(f"block_bytes={block_bytes!r}: the read block must be a whole number of bytes from 1 "
                         f"to {MAX_BLOCK_BYTES:,} ({_mib(MAX_BLOCK_BYTES)}); the default is {BLOCK_BYTES:,}")


class EventReader:
    """Iterate decoded chunks of a trace's events; ``metadata`` is complete once iteration ends.

    ``decode(payload)`` gets a JSON array (bytes) and returns the decoded list; it must raise
    ``msgspec.DecodeError`` / ``ValidationError`` on bad input, as msgspec decoders do.
    """

    def __init__(self, path: Path, decode: Callable[[bytes | memoryview], list], *,
                 block_bytes: int = BLOCK_BYTES) -> None:
        check_block_bytes(block_bytes)
        self.path = path
        self.decode = decode
        self.block_bytes = block_bytes
        #: Top-level keys other than ``traceEvents`` (deviceProperties, distributedInfo, ...).
        self.metadata: dict[str, Any] = {}
        #: Events decoded so far.
        self.count = 0
        #: What the reader left out or worked around, one sentence each (shown as notes).
        self.notes: list[str] = []
        self._max_pending = max(MAX_EVENT_BYTES, 4 * block_bytes)

    # -- errors -----------------------------------------------------------------------------
    def _fail(self, what: str) -> TraceError:
        return TraceError(f"{self.path}: {what}")

    def _two_keys(self) -> TraceError:
        # JSON leaves a repeated key undefined (RFC 8259, 4): Python's json keeps the last value, a
        # streaming reader meets the first. Whichever one is read, the other reader sees another trace.
        return self._fail("the document has two top-level 'traceEvents' keys: JSON readers disagree on which one "
                          "counts (Python's json takes the last, a streaming reader the first); not read. Keep one "
                          "'traceEvents' array")

    def _decode_chunk(self, payload: bytes | memoryview, final: bool) -> list | None | Literal[_Closed.CLOSED]:
        """Decode ``payload``; None means 'the cut was not between events' (only when not final),
        :data:`_CLOSED` 'the chunk holds the array's own closing bracket'."""
        try:
            return self.decode(payload)
        except msgspec.ValidationError as e:
            msg = _INDEX_AT.sub(lambda m: f"event #{self.count + int(m.group(1))}", str(e))
            raise self._fail(f"a field bench-kernel reads has an unexpected type: {msg}") from None
        except msgspec.DecodeError as e:
            if "trailing characters" in str(e):
                return _CLOSED
            m = _BYTE_AT.search(str(e))
            at_end = "truncated" in str(e) or (m is not None and int(m.group(1)) >= len(payload) - 2)
            if at_end and not final:
                return None
            if at_end:
                raise self._fail(f"traceEvents is cut off after about {self.count} events (truncated file?): {e}") from None
            raise self._fail(f"malformed JSON in traceEvents after about {self.count} events: {e}") from None
        except RecursionError:
            raise self._fail("JSON nested too deeply to be a trace") from None

    # -- the stream -------------------------------------------------------------------------
    def __iter__(self) -> Iterator[list]:
        src = Source(self.path)
        try:
            yield from self._events(src)
        finally:
            src.close()

    def _start(self, src: Source) -> bytes:
        """The first block of the document, after any BOM and leading whitespace (bounded)."""
        skipped = 0
        head = src.read(self.block_bytes)
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        while head:
            stripped = head.lstrip(_WHITESPACE)
            if stripped:
                return stripped
            skipped += len(head)
            if skipped > MAX_LEADING_WHITESPACE:
                raise self._fail(f"more than {_mib(MAX_LEADING_WHITESPACE)} of whitespace before the JSON starts; "
                                 "not a Kineto/Chrome trace")
            head = src.read(self.block_bytes)
        raise self._fail("the file is empty, not a trace" if not skipped else "the file holds only whitespace, "
                         "not a trace")

    def _events(self, src: Source) -> Iterator[list]:
        head = self._start(src)
        first = head[:1]
        if first == b"[":  # the Chrome format also allows a bare array of events
            prefix, rest = None, head[1:]
        elif first == b"{":
            found = self._find_events(src, head)
            if isinstance(found, list):
                yield from found
                return
            prefix, rest = found
        else:
            raise self._fail(f"not JSON (starts with {head[:16]!r}); expected a Kineto/Chrome trace (.json or .json.gz)")

        # One reused bytearray: pending text starts at `pos`; buf[pos - 1] is a spare byte. A chunk is
        # decoded in place by writing "[" into that spare byte and "]" over the separator after the
        # cut -- no copy of the chunk, and no fresh pages for every block (that alone cost seconds/GB).
        # Decoded values may still view the buffer (msgspec.Raw, the recorded shapes): the two bytes
        # written are separators outside every event, and the buffer is never resized while viewed
        # (_drop_front, _append): resizing it once crashed `ops` on every trace longer than one block.
        buf = bytearray(b"[")
        buf += rest
        del rest, head
        pos = 1
        block = bytearray(self.block_bytes)
        eof = must_read = closed = False
        lo = 0  # where to look for the next cut; moves past cuts that proved wrong
        while True:
            if not eof and (must_read or closed or len(buf) - pos < self.block_bytes):
                if len(buf) - pos > self._max_pending:
                    raise self._fail(f"no event boundary in {_mib(len(buf) - pos)} of traceEvents after about "
                                     f"{self.count} events: an event over {_mib(self._max_pending)} (a huge string "
                                     "or whitespace run) or malformed JSON; not read")
                if pos > len(buf) // 2:
                    buf = _drop_front(buf, pos - 1)
                    lo = max(0, lo - (pos - 1))
                    pos = 1
                n = src.readinto(block)
                eof, must_read = n == 0, False
                buf = _append(buf, memoryview(block)[:n])
                continue
            if eof:
                if len(buf) - pos > self._max_pending + self.block_bytes:
                    raise self._fail(f"{_mib(len(buf) - pos)} after the last event boundary; not read")
                yield from self._finish(prefix, bytes(buf[pos:]))
                return
            cut = _last_boundary(buf, max(lo, pos, len(buf) - _WINDOW)) or _last_boundary(buf, max(lo, pos))
            if cut is None:
                must_read = True
                continue
            end, nxt = cut
            buf[pos - 1], saved = ord("["), buf[end]
            buf[end] = ord("]")
            with memoryview(buf) as mv:
                events = self._decode_chunk(mv[pos - 1: end + 1], final=False)
            buf[end] = saved
            if events is _CLOSED:
                closed = True  # the rest of the document is in reach: _finish finds where the array ends
                continue
            if events is None:
                lo, must_read = end, True
                continue
            yield events
            self.count += len(events)
            del events
            pos, lo = nxt, 0

    def _find_events(self, src: Source, head: bytes) -> tuple[bytes, bytes] | list:
        """(the document up to and including ``"traceEvents":``, the text after its ``[``), or the
        decoded events of a small document whose key the scan could not see (a list of one chunk)."""
        at, tried = 0, 0
        while True:
            m = _KEY.search(head, at)
            while m is not None and m.start() <= MAX_HEAD_BYTES:
                tried += 1
                if tried > _MAX_KEY_CANDIDATES:
                    raise self._fail(f"more than {_MAX_KEY_CANDIDATES} 'traceEvents' keys that are not the "
                                     "document's own (nested in metadata or inside strings); not read")
                prefix = head[: m.end() - 1]
                meta = self._top_level(prefix)
                if meta is not None:
                    # a key seen twice is kept once by a JSON object decoder: count the key's text
                    # in the document's own keys (not inside their values) to see it
                    if _own_keys(prefix, meta) > 1:
                        raise self._two_keys()
                    self._keep_metadata(meta)
                    return prefix, head[m.end():]
                at = m.end()
                m = _KEY.search(head, at)
            at = max(at, len(head) - 64)  # a key may straddle the next block
            if at > MAX_HEAD_BYTES:
                raise self._fail(f"no top-level 'traceEvents' array in the first {_mib(MAX_HEAD_BYTES)} "
                                 "(a 'traceEvents' nested in metadata does not count); not a Kineto/Chrome trace, "
                                 "or one whose metadata is too large to read")
            more = src.read(self.block_bytes)
            if not more:
                return self._small_document(head)
            head += more

    def _top_level(self, prefix: bytes) -> dict[str, msgspec.Raw] | None:
        """The document's keys before ``traceEvents`` if ``prefix`` ends at its own key, else None."""
        try:
            meta = _META.decode(prefix + b"[]}")
        except (msgspec.DecodeError, RecursionError):
            return None
        return meta if list(meta)[-1:] == ["traceEvents"] else None

    def _keep_metadata(self, meta: dict[str, msgspec.Raw]) -> None:
        for key, raw in meta.items():
            if key == "traceEvents":
                continue
            if len(raw) > MAX_METADATA_VALUE_BYTES:
                self.notes.append(f"metadata {key!r} ({_mib(len(raw))}) is over {_mib(MAX_METADATA_VALUE_BYTES)} "
                                  "and was not kept")
                continue
            try:
                self.metadata[key] = msgspec.json.decode(raw)
            except RecursionError:
                raise self._fail(f"metadata {key!r} is nested too deeply to be a trace") from None
            except msgspec.DecodeError as e:  # e.g. a string that is not UTF-8: the events may still be fine
                self.notes.append(f"metadata {key!r} is not valid JSON ({e}) and was not kept")

    def _small_document(self, data: bytes) -> list:
        """A whole document (at most MAX_HEAD_BYTES) whose ``"traceEvents": [`` the scan did not find:
        say what it is, or read the events (a key written with escapes)."""
        try:
            doc = _META.decode(data)
        except msgspec.DecodeError as e:
            raise self._fail(f"not valid JSON ({e}); expected a Kineto/Chrome trace") from None
        except msgspec.ValidationError:
            raise self._fail("JSON that is not an object of keys; not a Kineto/Chrome trace") from None
        except RecursionError:
            raise self._fail("JSON nested too deeply to be a trace") from None
        if "traceEvents" not in doc:
            raise self._fail(f"JSON without 'traceEvents' (found {sorted(doc)[:8]}); not a Kineto/Chrome trace")
        events = doc.pop("traceEvents")
        self._keep_metadata(doc)
        if not bytes(events).startswith(b"["):
            kind = {b"{": "dict", b'"': "str", b"n": "NoneType", b"t": "bool", b"f": "bool"}.get(bytes(events)[:1], "number")
            raise self._fail(f"'traceEvents' is a {kind}, expected a list of events")
        decoded = self._decode_chunk(bytes(events), final=True)
        assert isinstance(decoded, list)
        self.count += len(decoded)
        return [decoded]

    def _finish(self, prefix: bytes | None, buf: bytes) -> Iterator[list]:
        """The last piece holds the final events, the closing ``]`` and the rest of the document."""
        if prefix is None:
            j = len(buf.rstrip(_WHITESPACE)) - 1
            if j < 0 or buf[j] != ord("]"):
                raise self._fail(f"traceEvents is cut off after about {self.count} events (truncated file?)")
            ends: Iterator[tuple[int, dict]] = iter([(j, {})])
        else:
            ends = self._ends_of_events(buf)
        for j, meta in ends:
            body = buf[:j]
            events = self._decode_chunk(b"[" + body + b"]", final=True) if body.strip(_WHITESPACE) else []
            if events is _CLOSED:  # this "]" closes a list after traceEvents ("x": [...]}): try an earlier one
                continue
            assert isinstance(events, list)
            if _own_keys(buf[j + 1:], meta):
                raise self._two_keys()
            self._keep_metadata(meta)
            self.count += len(events)
            if events:
                yield events
            return
        raise self._fail(f"traceEvents is cut off after about {self.count} events (truncated file?)")

    def _ends_of_events(self, buf: bytes) -> Iterator[tuple[int, dict[str, msgspec.Raw]]]:
        """Candidates, last first, for the offset in ``buf`` of the ``]`` that closes traceEvents (each
        with the document's keys after it): a ``]`` after which the rest of the document
        (``, "traceName": …}``) is the end of a valid object. A list that ends the document passes
        that test too; the caller tells them apart by decoding the events before it."""
        j = len(buf)
        for _ in range(_MAX_END_CANDIDATES):
            j = buf.rfind(b"]", 0, j)
            if j < 0:
                return
            try:
                meta = _META.decode(b'{"traceEvents":0' + buf[j + 1:])
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                continue
            yield j, meta


def _own_keys(text: bytes, keys: dict[str, msgspec.Raw]) -> int:
    """How often ``"traceEvents"`` is one of the document's own keys in ``text``, the part of the
    document that ``keys`` were decoded from: its occurrences less those inside the other keys'
    values. A repeated key is decoded once (the last value wins), so it is seen only this way."""
    nested = sum(bytes(v).count(b'"traceEvents"') for k, v in keys.items() if k != "traceEvents")
    return text.count(b'"traceEvents"') - nested


def _drop_front(buf: bytearray, n: int) -> bytearray:
    """``buf`` without its first ``n`` bytes: in place, or in a fresh buffer while decoded values view it.

    A bytearray that is viewed cannot be resized (``BufferError``); moving the pending text to a new
    buffer leaves the old one to the values that view it, and it is freed with them.
    """
    try:
        del buf[:n]
        return buf
    except BufferError:
        return bytearray(memoryview(buf)[n:])


def _append(buf: bytearray, data: memoryview) -> bytearray:
    """``buf`` + ``data``: in place, or in a fresh buffer while decoded values view ``buf``."""
    try:
        buf += data
        return buf
    except BufferError:
        return bytearray(buf) + data


def _last_boundary(buf: bytearray, lo: int) -> tuple[int, int] | None:
    """(end of the left event, start of the right one) of the last candidate cut at or after ``lo``."""
    last = None
    for last in _BOUNDARY.finditer(buf, lo):  # noqa: B007 (the loop only walks to the last match)
        pass
    return None if last is None else (last.start() + 1, last.end() - 1)
