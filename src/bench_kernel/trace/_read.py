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
a later one tried. An error earlier in the chunk is a real defect of the file and is reported.
"""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

import msgspec

from bench_kernel.errors import TraceError

__all__ = ["EventReader"]

_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_BYTE_AT = re.compile(r"\(byte (\d+)\)")
_INDEX_AT = re.compile(r"\$\[(\d+)\]")
#: How far back from the end of the buffer to look for a cut (events are far smaller than this).
_WINDOW = 1 << 20
#: How much of the head may precede "traceEvents" before we give up streaming and decode whole.
_HEAD_LIMIT = 64 << 20


class _Source:
    """A binary file, transparently gunzipped (detected by magic bytes, not the extension)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            raw: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise TraceError(f"trace file not found: {path}") from None
        except IsADirectoryError:
            raise TraceError(f"{path} is a directory; pass a trace file, or a directory of per-rank "
                             f"traces with --rank") from None
        except OSError as e:
            raise TraceError(f"cannot read trace {path}: {e.strerror or e}") from None
        self._raw = raw
        magic = raw.read(2)
        raw.seek(0)
        self.gzipped = magic == b"\x1f\x8b"
        self._f: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if self.gzipped else raw  # type: ignore[assignment]

    def read(self, n: int) -> bytes:
        return self._guard(self._f.read, n)

    def readinto(self, b: bytearray) -> int:
        return self._guard(self._f.readinto, b)

    def _guard(self, fn: Callable, arg: Any) -> Any:
        try:
            return fn(arg)
        except (EOFError, zlib.error, gzip.BadGzipFile) as e:
            raise TraceError(f"{self.path}: truncated or corrupt gzip ({e}); re-export or re-copy the trace") from None
        except OSError as e:
            raise TraceError(f"cannot read trace {self.path}: {e.strerror or e}") from None

    def close(self) -> None:
        if self._f is not self._raw:
            self._f.close()
        self._raw.close()


class EventReader:
    """Iterate decoded chunks of a trace's events; ``metadata`` is complete once iteration ends.

    ``decode(payload)`` gets a JSON array (bytes) and returns the decoded list; it must raise
    ``msgspec.DecodeError`` / ``ValidationError`` on bad input, as msgspec decoders do.
    """

    def __init__(self, path: Path, decode: Callable[[bytes], list], *, block_bytes: int = 16 << 20) -> None:
        self.path = path
        self.decode = decode
        self.block_bytes = block_bytes
        #: Top-level keys other than ``traceEvents`` (deviceProperties, distributedInfo, ...).
        self.metadata: dict[str, Any] = {}
        #: Events decoded so far.
        self.count = 0

    # -- errors -----------------------------------------------------------------------------
    def _fail(self, what: str) -> TraceError:
        return TraceError(f"{self.path}: {what}")

    def _decode_chunk(self, payload: bytes, final: bool) -> list | None:
        """Decode ``payload``; None means 'the cut was not between events' (only when not final)."""
        try:
            return self.decode(payload)
        except msgspec.ValidationError as e:
            msg = _INDEX_AT.sub(lambda m: f"event #{self.count + int(m.group(1))}", str(e))
            raise self._fail(f"a field bench-kernel reads has an unexpected type: {msg}") from None
        except msgspec.DecodeError as e:
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
        src = _Source(self.path)
        try:
            yield from self._events(src)
        finally:
            src.close()

    def _events(self, src: _Source) -> Iterator[list]:
        head = src.read(self.block_bytes)
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        stripped = head.lstrip()
        if not stripped:
            raise self._fail("the file is empty, not a trace")
        first = stripped[:1]
        if first == b"[":  # the Chrome format also allows a bare array of events
            prefix, rest = None, stripped[1:]
        elif first == b"{":
            m = _KEY.search(head)
            while m is None and len(head) < _HEAD_LIMIT:
                more = src.read(self.block_bytes)
                if not more:
                    break
                head += more
                m = _KEY.search(head)
            if m is None:
                yield from self._whole(head + _read_all(src))
                return
            prefix, rest = head[: m.end() - 1], head[m.end():]
        else:
            raise self._fail(f"not JSON (starts with {stripped[:16]!r}); expected a Kineto/Chrome trace (.json or .json.gz)")

        # One reused bytearray: pending text starts at `pos`; buf[pos - 1] is a spare byte. A chunk is
        # decoded in place by writing "[" into that spare byte and "]" over the separator after the
        # cut -- no copy of the chunk, and no fresh pages for every block (that alone cost seconds/GB).
        buf = bytearray(b"[")
        buf += rest
        pos = 1
        block = bytearray(self.block_bytes)
        eof = must_read = False
        lo = 0  # where to look for the next cut; moves past cuts that proved wrong
        while True:
            if not eof and (must_read or len(buf) - pos < self.block_bytes):
                if pos > len(buf) // 2:
                    del buf[: pos - 1]
                    lo = max(0, lo - (pos - 1))
                    pos = 1
                n = src.readinto(block)
                eof, must_read = n == 0, False
                buf += memoryview(block)[:n]
                continue
            if eof:
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
            if events is None:
                lo, must_read = end, True
                continue
            yield events
            self.count += len(events)
            del events
            pos, lo = nxt, 0

    def _finish(self, prefix: bytes | None, buf: bytes) -> Iterator[list]:
        """The last piece holds the final events, the closing ``]`` and the rest of the document."""
        j = len(buf)
        while True:
            j = buf.rfind(b"]", 0, j)
            if j < 0 or len(buf) - j > _HEAD_LIMIT:
                raise self._fail(f"traceEvents is cut off after about {self.count} events (truncated file?)")
            suffix = buf[j + 1:]
            if prefix is None:
                if not suffix.strip():
                    break
                continue
            try:
                meta = msgspec.json.decode(prefix + b"[]" + suffix)
            except (msgspec.DecodeError, RecursionError):
                continue
            if isinstance(meta, dict):
                meta.pop("traceEvents", None)
                self.metadata = meta
                break
        body = buf[:j]
        if body.strip():
            events = self._decode_chunk(b"[" + body + b"]", final=True)
            assert events is not None
            self.count += len(events)
            yield events

    def _whole(self, data: bytes) -> Iterator[list]:
        """No ``"traceEvents": [`` near the top: decode the document whole to say what it is."""
        try:
            doc = msgspec.json.decode(data)
        except msgspec.DecodeError as e:
            raise self._fail(f"not valid JSON ({e}); expected a Kineto/Chrome trace") from None
        except RecursionError:
            raise self._fail("JSON nested too deeply to be a trace") from None
        if not isinstance(doc, dict) or "traceEvents" not in doc:
            keys = sorted(doc)[:8] if isinstance(doc, dict) else type(doc).__name__
            raise self._fail(f"JSON without 'traceEvents' (found {keys}); not a Kineto/Chrome trace")
        events = doc.pop("traceEvents")
        self.metadata = doc
        if not isinstance(events, list):
            raise self._fail(f"'traceEvents' is a {type(events).__name__}, expected a list of events")
        decoded = self._decode_chunk(msgspec.json.encode(events), final=True)
        assert decoded is not None
        self.count += len(decoded)
        yield decoded


def _last_boundary(buf: bytes, lo: int) -> tuple[int, int] | None:
    """(end of the left event, start of the right one) of the last candidate cut at or after ``lo``."""
    last = None
    for last in _BOUNDARY.finditer(buf, lo):
        pass
    return None if last is None else (last.start() + 1, last.end() - 1)


def _read_all(src: _Source) -> bytes:
    parts = []
    while True:
        b = src.read(16 << 20)
        if not b:
            return b"".join(parts)
        parts.append(b)
